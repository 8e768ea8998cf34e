#include "util/test_util.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>

namespace weft {
namespace test {

namespace {

// float16 by arithmetic (frexp/ldexp), independent of the kernels' bit
// manipulation in weft/float16.h: round to nearest even at the half's
// precision (11 significant bits, subnormals below 2^-14), infinity past 65504.
uint16_t HalfFromDouble(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (std::isnan(v)) return sign | 0x7e00;
  int e = 0;
  std::frexp(a, &e);                     // a = m * 2^e, m in [0.5, 1)
  const int exp = std::max(e - 1, -14);  // the half's exponent (subnormals share -14)
  const double q = std::nearbyint(std::ldexp(a, 10 - exp));  // significand in units of 2^(exp-10)
  const double r = std::ldexp(q, exp - 10);
  if (a == 0) return sign;
  if (r > 65504) return sign | 0x7c00;
  int re = 0;
  std::frexp(r, &re);
  if (re - 1 < -14) return static_cast<uint16_t>(sign | static_cast<uint16_t>(q));  // subnormal
  const int biased = re - 1 + 15;
  const uint16_t mant = static_cast<uint16_t>(std::ldexp(r, 10 - (re - 1)) - 1024);
  return static_cast<uint16_t>(sign | (biased << 10) | mant);
}

double HalfToDouble(uint16_t h) {
  const double s = (h & 0x8000) ? -1 : 1;
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return m ? NAN : s * INFINITY;
  if (e == 0) return s * std::ldexp(m, -24);
  return s * std::ldexp(1024 + m, e - 25);
}

}  // namespace

std::string TestDataDir() { return WEFT_TEST_DATA; }
std::string SharedTestDataDir() { return WEFT_SHARED_TESTDATA; }

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/weft_" + std::to_string(getpid()) + "_" + name;
}

TempFiles::~TempFiles() {
  for (const auto& p : paths_) std::remove(p.c_str());
}

std::string TempFiles::Write(const std::string& name, const std::string& bytes) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  paths_.push_back(path);
  return path;
}

NDArray Array(const Shape& shape, const std::vector<double>& values, DType dtype) {
  NDArray a(shape, Context::CPU(0), dtype, &Runtime::Global());
  WEFT_CHECK(static_cast<int64_t>(values.size()) == a.Size()) << "value count vs shape " << shape;
  DispatchDType(dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same<T, Half>::value) {
      Half* p = static_cast<Half*>(a.dptr());
      for (size_t i = 0; i < values.size(); ++i) p[i].bits = HalfFromDouble(values[i]);
    } else if constexpr (std::is_same<T, BFloat16>::value) {
      BFloat16* p = static_cast<BFloat16*>(a.dptr());
      for (size_t i = 0; i < values.size(); ++i) p[i] = FromDouble<BFloat16>(values[i]);
    } else {
      T* p = static_cast<T*>(a.dptr());
      for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
    }
  });
  return a;
}

NDArray RandomArray(const Shape& shape, DType dtype, double lo, double hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(shape.Size()));
  for (auto& x : v) x = dist(gen);
  return Array(shape, v, dtype);
}

std::vector<double> Values(const NDArray& a) {
  a.WaitToRead();
  std::vector<double> out(static_cast<size_t>(a.Size()));
  DispatchDType(a.dtype(), [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same<T, Half>::value) {
      const Half* p = static_cast<const Half*>(a.dptr());
      for (size_t i = 0; i < out.size(); ++i) out[i] = HalfToDouble(p[i].bits);
    } else if constexpr (std::is_same<T, BFloat16>::value) {
      const BFloat16* p = static_cast<const BFloat16*>(a.dptr());
      for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(p[i]);
    } else {
      const T* p = static_cast<const T*>(a.dptr());
      for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
    }
  });
  return out;
}

std::vector<NDArray> Run(const std::string& op, const std::vector<NDArray>& in,
                         const StringMap& params) {
  // Waits, so a kernel failure (deferred by the engine) is thrown here.
  std::vector<NDArray> out = Invoke(&Runtime::Global(), op, in, params);
  for (const auto& o : out) o.WaitToRead();
  return out;
}

namespace {

using Memo = std::map<const Node*, std::vector<NDArray>>;

const std::vector<NDArray>& EvalNode(const NodePtr& node,
                                     const std::map<const Node*, NDArray>& bindings, Memo* memo) {
  auto it = memo->find(node.get());
  if (it != memo->end()) return it->second;
  std::vector<NDArray> outs;
  if (node->is_variable()) {
    auto b = bindings.find(node.get());
    WEFT_CHECK(b != bindings.end()) << "unbound variable " << node->attrs.name;
    outs.push_back(b->second);
  } else {
    std::vector<NDArray> ins;
    for (const auto& e : node->inputs) ins.push_back(EvalNode(e.node, bindings, memo)[e.index]);
    Invoke(&Runtime::Global(), node->attrs.op->name, ins, node->attrs.dict, &outs);
  }
  return (*memo)[node.get()] = outs;
}

double Dot(const NDArray& a, const NDArray& w) {
  std::vector<double> x = Values(a), y = Values(w);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

}  // namespace

NDArray Eval(const NodeEntry& entry, const std::map<const Node*, NDArray>& bindings) {
  Memo memo;
  return EvalNode(entry.node, bindings, &memo)[entry.index];
}

double GradientError(const std::string& op_name, const std::vector<NDArray>& inputs,
                     const StringMap& params, std::vector<int> wrt, double eps,
                     std::string* where) {
  Runtime& rt = Runtime::Global();
  std::vector<NDArray> outs = Run(op_name, inputs, params);
  std::vector<NDArray> weights;
  for (size_t j = 0; j < outs.size(); ++j)
    weights.push_back(
        RandomArray(outs[j].shape(), outs[j].dtype(), -1, 1, 100 + static_cast<unsigned>(j)));

  // Symbolic: node over variables, gradient entries evaluated imperatively.
  std::vector<NodeEntry> in_entries;
  std::map<const Node*, NDArray> bindings;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodePtr v = MakeVariable("x" + std::to_string(i));
    bindings[v.get()] = inputs[i];
    in_entries.push_back({v, 0, 0});
  }
  NodePtr node = MakeOpNode(rt.ops(), op_name, "node", in_entries, params);
  std::vector<NodeEntry> ograds;
  for (size_t j = 0; j < outs.size(); ++j) {
    NodePtr v = MakeVariable("ograd" + std::to_string(j));
    bindings[v.get()] = weights[j];
    ograds.push_back({v, 0, 0});
  }
  WEFT_CHECK(node->op()->gradient) << op_name << " declares no gradient";
  std::vector<NodeEntry> grads = node->op()->gradient(rt.ops(), node, ograds);
  WEFT_CHECK(grads.size() == inputs.size()) << "gradient count " << grads.size();

  auto objective = [&](const std::vector<NDArray>& in) {
    std::vector<NDArray> o = Run(op_name, in, params);
    double s = 0;
    for (size_t j = 0; j < o.size(); ++j) s += Dot(o[j], weights[j]);
    return s;
  };
  if (wrt.empty())
    for (size_t i = 0; i < inputs.size(); ++i) wrt.push_back(static_cast<int>(i));
  double worst = 0;
  for (int i : wrt) {
    std::vector<double> sym = Values(Eval(grads[i], bindings));
    std::vector<double> base = Values(inputs[i]);
    for (size_t k = 0; k < base.size(); ++k) {
      std::vector<NDArray> in = inputs;
      std::vector<double> plus = base, minus = base;
      plus[k] += eps;
      minus[k] -= eps;
      in[i] = Array(inputs[i].shape(), plus, inputs[i].dtype());
      double fp = objective(in);
      in[i] = Array(inputs[i].shape(), minus, inputs[i].dtype());
      double fm = objective(in);
      double num = (fp - fm) / (2 * eps);
      double err = std::fabs(num - sym[k]) / std::max(1.0, std::fabs(num));
      if (err > worst) {
        worst = err;
        if (where)
          *where = StrCat("input ", i, " element ", k, ": numeric ", num, " symbolic ", sym[k]);
      }
    }
  }
  return worst;
}

}  // namespace test
}  // namespace weft
