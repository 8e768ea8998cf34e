// libFuzzer harness that loads a symbol and runs it: the first line of the
// input gives input shapes ("data=2,3,8,8;label=2", malformed parts
// ignored), the rest is symbol JSON. Loading alone never reaches the size
// arithmetic, shape inference, memory planning, allocation and kernels,
// where crashes on hostile models live; this does, as ONNX Runtime's model
// fuzzer runs inference.
//
// A symbol that loads and whose shapes all infer with at most kMaxElements
// elements per entry (so that no input takes long) is bound twice with the
// global runtime: for inference (grad_req null, the inference passes on)
// and for training (grad_req write), each run forward (and backward with
// ones as head gradients) on deterministic argument values. Every failure
// must be a weft::Error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/executor.h"
#include "weft/pass.h"
#include "weft/symbol_json.h"

namespace {

constexpr int64_t kMaxElements = 1 << 14;

// "name=d,d;name=d" -> shapes; parts that do not parse are skipped.
weft::pass::ShapeMap ParseShapes(const std::string& line) {
  weft::pass::ShapeMap shapes;
  size_t pos = 0;
  while (pos <= line.size()) {
    size_t end = line.find(';', pos);
    if (end == std::string::npos) end = line.size();
    const std::string part = line.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::vector<int64_t> dims;
    bool ok = true;
    const std::string list = part.substr(eq + 1);
    for (size_t p = 0; p < list.size() && ok;) {
      size_t q = list.find(',', p);
      if (q == std::string::npos) q = list.size();
      const std::string d = list.substr(p, q - p);
      char* stop = nullptr;
      const long long v = std::strtoll(d.c_str(), &stop, 10);
      ok = !d.empty() && stop && *stop == '\0' && v > 0 && v <= kMaxElements && dims.size() < 6;
      if (ok) dims.push_back(v);
      p = q + 1;
    }
    if (ok && !dims.empty()) shapes[part.substr(0, eq)] = weft::Shape(dims);
  }
  return shapes;
}

// Small deterministic values (indices land near 0, some negative).
void Fill(const std::vector<weft::NDArray>& arrays) {
  for (weft::NDArray a : arrays) {
    if (a.is_none() || a.dtype() != weft::DType::kFloat32) continue;
    std::vector<float> v(static_cast<size_t>(a.Size()));
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(static_cast<int>((i * 37) % 41) - 20) / 10.0f;
    a.CopyFromHost(v.data(), v.size() * sizeof(float));
  }
}

void Run(const weft::Symbol& sym, const weft::pass::ShapeMap& shapes, bool train) {
  weft::ExecutorOptions opts;
  opts.optimize_inference = !train;
  auto ex = weft::Executor::SimpleBind(
      &weft::Runtime::Global(), sym, weft::Context::CPU(0), shapes, {},
      weft::GradReqSpec::All(train ? weft::GradReq::kWrite : weft::GradReq::kNull), opts);
  Fill(ex->arg_arrays());
  Fill(ex->aux_arrays());
  ex->Forward(train);
  if (train) {
    std::vector<weft::NDArray> heads;
    for (const weft::NDArray& o : ex->outputs()) {
      weft::NDArray h(o.shape(), o.ctx(), o.dtype(), &weft::Runtime::Global());
      if (o.dtype() == weft::DType::kFloat32) {
        std::vector<float> ones(static_cast<size_t>(o.Size()), 1.0f);
        h.CopyFromHost(ones.data(), ones.size() * sizeof(float));
      }
      heads.push_back(h);
    }
    ex->Backward(heads);
    for (const weft::NDArray& g : ex->grad_arrays())
      if (!g.is_none()) g.WaitToRead();
  }
  for (const weft::NDArray& o : ex->outputs()) o.WaitToRead();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t nl = text.find('\n');
  if (nl == std::string::npos) return 0;
  const weft::pass::ShapeMap shapes = ParseShapes(text.substr(0, nl));
  weft::LoadedSymbol s;
  try {
    s = weft::LoadJSON(text.substr(nl + 1), weft::Runtime::Global().ops());
  } catch (const weft::Error&) {
    return 0;
  }
  try {
    const weft::IndexedGraph g(s.symbol.outputs);
    const weft::pass::ShapeResult r = weft::pass::InferShape(g, shapes);
    if (!r.complete()) return 0;
    for (const weft::Shape& sh : r.shapes)
      if (!sh.is_known() || sh.Size() > kMaxElements) return 0;
  } catch (const weft::Error&) {
    return 0;
  }
  for (bool train : {false, true}) {
    try {
      Run(s.symbol, shapes, train);
    } catch (const weft::Error&) {
    }
  }
  return 0;
}
