// Runs every CPU backend's kernel of dot, batch_dot and their gradients on
// the same random inputs and compares each against the "cpu" reference by
// normalised mean squared error (ggml test-backend-ops style).
#include <gtest/gtest.h>

#include <algorithm>

#include "util/test_util.h"

namespace weft {
namespace {

// sum((a - b)^2) / sum(b^2).
double Nmse(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den == 0 ? num : num / den;
}

struct BackendRun {
  std::vector<std::vector<double>> outputs;
};

// Calls `backend`'s kernel of `op` directly. Outputs start as copies of
// `init` (one per output) and are written with `req`.
BackendRun RunBackend(const std::string& op_name, const std::string& backend,
                      const std::vector<NDArray>& in, const StringMap& params, OpReq req,
                      const std::vector<NDArray>& init) {
  Runtime& rt = Runtime::Global();
  const OpDef& op = rt.ops().Get(op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.dict = params;
  attrs.params = ParseParams(op.name, &op.params, params);
  const Kernel* k = rt.kernels().FindBackend(op.name, DeviceType::kCPU, backend);
  WEFT_CHECK(k != nullptr) << op_name << " has no " << backend << " kernel";
  std::vector<TBlob> in_blobs, out_blobs;
  for (const auto& a : in) in_blobs.push_back(a.blob());
  std::vector<NDArray> outs;
  for (const auto& a : init) {
    outs.push_back(a.Copy(Context::CPU(0)));
    out_blobs.push_back(outs.back().blob());
  }
  for (const auto& o : outs) o.WaitToRead();  // the copies run on the engine
  OpContext octx;
  octx.ctx = Context::CPU(0);
  k->fn(octx, attrs, in_blobs, std::vector<OpReq>(outs.size(), req), out_blobs);
  BackendRun r;
  for (const auto& o : outs) r.outputs.push_back(test::Values(o));
  return r;
}

// Output shapes of `op_name` on `in` from the op's inference.
std::vector<Shape> OutShapes(const std::string& op_name, const std::vector<NDArray>& in,
                             const StringMap& params) {
  const OpDef& op = Runtime::Global().ops().Get(op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.params = ParseParams(op.name, &op.params, params);
  std::vector<Shape> in_shapes, out_shapes(op.NumOutputs(attrs.params));
  for (const auto& a : in) in_shapes.push_back(a.shape());
  WEFT_CHECK(op.infer_shape(attrs, &in_shapes, &out_shapes)) << op_name << " shape inference";
  return out_shapes;
}

struct Case {
  std::string op;
  std::vector<Shape> inputs;  // forward inputs (lhs, rhs)
  bool ta, tb;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      cases.push_back({"dot",
                       {ta ? Shape({4, 3}) : Shape({3, 4}), tb ? Shape({5, 4}) : Shape({4, 5})},
                       ta,
                       tb});
      cases.push_back(
          {"dot",
           {ta ? Shape({96, 64}) : Shape({64, 96}), tb ? Shape({80, 96}) : Shape({96, 80})},
           ta,
           tb});
      cases.push_back({"batch_dot",
                       {ta ? Shape({4, 32, 16}) : Shape({4, 16, 32}),
                        tb ? Shape({4, 8, 32}) : Shape({4, 32, 8})},
                       ta,
                       tb});
    }
  cases.push_back({"dot", {{7}, {7}}, false, false});
  cases.push_back({"dot", {{6}, {6, 5}}, false, false});
  cases.push_back({"dot", {{5, 6}, {6}}, false, false});
  cases.push_back({"dot", {{2, 3, 4}, {4, 2, 5}}, false, false});
  cases.push_back({"dot", {{4, 2, 3}, {5, 2, 4}}, true, true});
  cases.push_back({"dot", {{256, 256}, {256, 256}}, false, false});
  return cases;
}

TEST(BackendConsistency, EveryCpuBackendMatchesReference) {
  const KernelRegistry& kernels = Runtime::Global().kernels();
  for (const char* op : {"dot", "batch_dot", "_backward_dot", "_backward_batch_dot"}) {
    std::vector<std::string> backends = kernels.Backends(op, DeviceType::kCPU);
    EXPECT_NE(std::find(backends.begin(), backends.end(), "cpu"), backends.end()) << op;
    // OpenBLAS is a required dependency, so its backend must be registered and preferred.
    EXPECT_NE(std::find(backends.begin(), backends.end(), "blas"), backends.end()) << op;
    EXPECT_EQ(kernels.Find(op, DeviceType::kCPU)->backend, "blas") << op;
  }

  int compared = 0;
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const double tol = dt == DType::kFloat64 ? 1e-10 : 1e-6;
    for (const Case& c : Cases()) {
      const StringMap params = {{"transpose_a", c.ta ? "True" : "False"},
                                {"transpose_b", c.tb ? "True" : "False"}};
      NDArray lhs = test::RandomArray(c.inputs[0], dt, -1, 1, 1);
      NDArray rhs = test::RandomArray(c.inputs[1], dt, -1, 1, 2);
      Shape out_shape = OutShapes(c.op, {lhs, rhs}, params)[0];
      NDArray ograd = test::RandomArray(out_shape, dt, -1, 1, 3);
      struct Call {
        std::string op;
        std::vector<NDArray> in;
        std::vector<Shape> outs;
      };
      const std::vector<Call> calls = {
          {c.op, {lhs, rhs}, {out_shape}},
          {"_backward_" + c.op, {ograd, lhs, rhs}, {lhs.shape(), rhs.shape()}},
      };
      for (const Call& call : calls) {
        for (OpReq req : {OpReq::kWrite, OpReq::kAdd}) {
          std::vector<NDArray> init;
          for (size_t j = 0; j < call.outs.size(); ++j)
            init.push_back(
                test::RandomArray(call.outs[j], dt, -1, 1, 40 + static_cast<unsigned>(j)));
          BackendRun ref = RunBackend(call.op, "cpu", call.in, params, req, init);
          for (const std::string& backend : kernels.Backends(call.op, DeviceType::kCPU)) {
            if (backend == "cpu") continue;
            BackendRun got = RunBackend(call.op, backend, call.in, params, req, init);
            for (size_t j = 0; j < ref.outputs.size(); ++j) {
              double e = Nmse(got.outputs[j], ref.outputs[j]);
              EXPECT_LT(e, tol) << call.op << " backend " << backend << " " << DTypeName(dt) << " "
                                << c.inputs[0] << "." << c.inputs[1] << " ta=" << c.ta
                                << " tb=" << c.tb << " req=" << static_cast<int>(req) << " output "
                                << j;
              ++compared;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 0) << "no backend besides the reference was compared";
}

}  // namespace
}  // namespace weft
