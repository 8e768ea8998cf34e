// The optional oneDNN backend ("dnnl", kernels/dnnl/) against the OpenBLAS /
// reference "cpu" kernels of Convolution, FullyConnected and their
// gradients, called directly through KernelRegistry::FindBackend on the same
// random inputs for several parameter combinations, with kWrite and kAdd
// requests (kAdd outputs start from random values). Skipped when weft is
// built without oneDNN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "util/test_util.h"
#if WEFT_USE_DNNL
#include "dnnl/nn_conv_dnnl.h"
#endif

namespace weft {
namespace {

NodeAttrs Attrs(const std::string& op_name, const StringMap& params) {
  const OpDef& op = Runtime::Global().ops().Get(op_name);
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.dict = params;
  attrs.params = ParseParams(op.name, &op.params, params);
  return attrs;
}

// Runs `backend`'s kernel of `op_name` with outputs starting as copies of
// `init` and returns the outputs' values.
std::vector<std::vector<double>> RunBackend(const std::string& op_name, const std::string& backend,
                                            const std::vector<NDArray>& in, const StringMap& params,
                                            const std::vector<OpReq>& req, const std::vector<NDArray>& init) {
  const NodeAttrs attrs = Attrs(op_name, params);
  const Kernel* k = Runtime::Global().kernels().FindBackend(op_name, DeviceType::kCPU, backend);
  WEFT_CHECK(k != nullptr) << op_name << " has no " << backend << " kernel";
  std::vector<TBlob> in_blobs, out_blobs;
  for (const auto& a : in) {
    a.WaitToRead();
    in_blobs.push_back(a.blob());
  }
  std::vector<NDArray> outs;
  for (const auto& a : init) {
    outs.push_back(a.Copy(Context::CPU(0)));
    outs.back().WaitToRead();
    out_blobs.push_back(outs.back().blob());
  }
  OpContext octx;
  octx.ctx = Context::CPU(0);
  octx.is_train = true;
  k->fn(octx, attrs, in_blobs, req, out_blobs);
  std::vector<std::vector<double>> r;
  for (const auto& o : outs) r.push_back(test::Values(o));
  return r;
}

std::vector<Shape> OutShapes(const std::string& op_name, const std::vector<Shape>& in, const StringMap& params) {
  const NodeAttrs attrs = Attrs(op_name, params);
  std::vector<Shape> in_shapes = in, out_shapes(static_cast<size_t>(attrs.op->NumOutputs(attrs.params)));
  WEFT_CHECK(attrs.op->infer_shape(attrs, &in_shapes, &out_shapes)) << op_name << " shape inference";
  return out_shapes;
}

// max |a - b| / (1 + max |b|): float32 sums of up to a few hundred terms.
double RelErr(const std::vector<double>& a, const std::vector<double>& b) {
  double err = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    err = std::max(err, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return err / (1 + scale);
}

struct Case {
  std::string op;
  std::vector<Shape> inputs;  // forward inputs
  StringMap params;
};

// Compares forward and backward of `c` (and every request mix) between the
// dnnl and cpu backends; returns the number of outputs compared.
int Compare(const Case& c, DType dt) {
  std::vector<NDArray> in;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    in.push_back(test::RandomArray(c.inputs[i], dt, -1, 1, 10 + static_cast<unsigned>(i)));
  const Shape out = OutShapes(c.op, c.inputs, c.params)[0];
  NDArray ograd = test::RandomArray(out, dt, -1, 1, 20);
  struct Call {
    std::string op;
    std::vector<NDArray> in;
    std::vector<Shape> outs;
  };
  std::vector<Shape> grad_shapes(c.inputs.begin(), c.inputs.end());
  const std::vector<Call> calls = {{c.op, in, {out}}, {"_backward_" + c.op, {ograd, in[0], in[1]}, grad_shapes}};
  int compared = 0;
  for (const Call& call : calls) {
    const size_t nout = call.outs.size();
    std::vector<std::vector<OpReq>> reqs = {std::vector<OpReq>(nout, OpReq::kWrite),
                                            std::vector<OpReq>(nout, OpReq::kAdd)};
    if (nout > 1) {  // data gradient skipped; weight added; bias written
      std::vector<OpReq> mix(nout, OpReq::kWrite);
      mix[0] = OpReq::kNull;
      mix[1] = OpReq::kAdd;
      reqs.push_back(mix);
    }
    for (const auto& req : reqs) {
      std::vector<NDArray> init;
      for (size_t j = 0; j < nout; ++j)
        init.push_back(test::RandomArray(call.outs[j], dt, -1, 1, 40 + static_cast<unsigned>(j)));
      const auto ref = RunBackend(call.op, "cpu", call.in, c.params, req, init);
      const auto got = RunBackend(call.op, "dnnl", call.in, c.params, req, init);
      for (size_t j = 0; j < nout; ++j) {
        const double tol = dt == DType::kFloat64 ? 1e-12 : 2e-5;
        EXPECT_LT(RelErr(got[j], ref[j]), tol)
            << call.op << " " << DTypeName(dt) << " data " << c.inputs[0] << " weight " << c.inputs[1]
            << " output " << j << " req " << static_cast<int>(req[j]);
        ++compared;
      }
    }
  }
  return compared;
}

std::vector<Case> ConvCases() {
  auto conv = [](Shape x, int64_t f, Shape w, StringMap p) {
    p["num_filter"] = std::to_string(f);
    std::vector<Shape> in = {x, w};
    if (p.count("no_bias") == 0) in.push_back(Shape({f}));
    return Case{"Convolution", in, p};
  };
  return {
      conv({2, 3, 9, 8}, 4, {4, 3, 3, 3}, {{"kernel", "(3,3)"}}),
      conv({2, 3, 9, 8}, 4, {4, 3, 3, 3}, {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"no_bias", "True"}}),
      conv({1, 4, 11, 10}, 6, {6, 4, 3, 2}, {{"kernel", "(3,2)"}, {"stride", "(2,3)"}, {"pad", "(1,0)"}}),
      conv({2, 4, 12, 12}, 4, {4, 4, 3, 3}, {{"kernel", "(3,3)"}, {"dilate", "(2,2)"}, {"pad", "(2,2)"}}),
      conv({2, 6, 8, 7}, 4, {4, 3, 3, 3}, {{"kernel", "(3,3)"}, {"num_group", "2"}, {"pad", "(1,1)"}}),
      conv({1, 8, 9, 9}, 8, {8, 1, 3, 3},
           {{"kernel", "(3,3)"}, {"num_group", "8"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}}),
      conv({2, 16, 7, 7}, 8, {8, 16, 1, 1}, {{"kernel", "(1,1)"}, {"no_bias", "True"}}),
      conv({2, 3, 17}, 5, {5, 3, 4}, {{"kernel", "(4,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}}),
      conv({1, 64, 14, 14}, 32, {32, 64, 3, 3}, {{"kernel", "(3,3)"}, {"pad", "(1,1)"}}),
      // 3-D (NCDHW): oneDNN against the direct reference kernel.
      conv({2, 3, 5, 6, 7}, 4, {4, 3, 3, 2, 3}, {{"kernel", "(3,2,3)"}, {"stride", "(1,2,2)"}, {"pad", "(1,0,1)"}}),
      conv({1, 4, 6, 5, 5}, 4, {4, 2, 2, 3, 3},
           {{"kernel", "(2,3,3)"}, {"num_group", "2"}, {"dilate", "(2,1,1)"}, {"no_bias", "True"}}),
  };
}

std::vector<Case> FcCases() {
  return {
      {"FullyConnected", {{5, 7}, {3, 7}, {3}}, {{"num_hidden", "3"}}},
      {"FullyConnected", {{4, 2, 3, 2}, {6, 12}}, {{"num_hidden", "6"}, {"no_bias", "True"}}},
      {"FullyConnected", {{2, 3, 8}, {5, 8}, {5}}, {{"num_hidden", "5"}, {"flatten", "False"}}},
      {"FullyConnected", {{64, 100}, {33, 100}, {33}}, {{"num_hidden", "33"}}},
  };
}

bool HaveDnnl() {
  return Runtime::Global().kernels().FindBackend("Convolution", DeviceType::kCPU, "dnnl") != nullptr;
}

TEST(DnnlKernels, RegisteredAndPreferredWhenBuilt) {
  const KernelRegistry& k = Runtime::Global().kernels();
  for (const char* op : {"Convolution", "_backward_Convolution", "FullyConnected", "_backward_FullyConnected"}) {
#if WEFT_USE_DNNL
    ASSERT_NE(k.FindBackend(op, DeviceType::kCPU, "dnnl"), nullptr) << op;
    EXPECT_EQ(k.Find(op, DeviceType::kCPU)->backend, "dnnl") << op;
    EXPECT_NE(k.FindBackend(op, DeviceType::kCPU, "cpu"), nullptr) << op;
#else
    EXPECT_EQ(k.FindBackend(op, DeviceType::kCPU, "dnnl"), nullptr) << op;
#endif
  }
}

TEST(DnnlKernels, ConvolutionMatchesCpu) {
  if (!HaveDnnl()) GTEST_SKIP() << "built without oneDNN";
  int compared = 0;
  for (const Case& c : ConvCases()) {
#if WEFT_USE_DNNL
    // Every case must run oneDNN itself, not the fallback (or this compares cpu with cpu).
    const Shape out = OutShapes(c.op, c.inputs, c.params)[0];
    EXPECT_TRUE(onednn::ConvolutionCovered(Attrs(c.op, c.params).params, c.inputs[0], out, DType::kFloat32,
                                           c.inputs.size() > 2))
        << c.inputs[0] << " " << c.inputs[1];
    EXPECT_FALSE(onednn::ConvolutionCovered(Attrs(c.op, c.params).params, c.inputs[0], out, DType::kFloat64,
                                            c.inputs.size() > 2));
#endif
    compared += Compare(c, DType::kFloat32);
  }
  // float64 takes the fallback: identical to the reference.
  compared += Compare(ConvCases()[2], DType::kFloat64);
  EXPECT_GT(compared, 0);
}

TEST(DnnlKernels, FullyConnectedMatchesCpu) {
  if (!HaveDnnl()) GTEST_SKIP() << "built without oneDNN";
  int compared = 0;
  for (const Case& c : FcCases()) compared += Compare(c, DType::kFloat32);
  compared += Compare(FcCases()[0], DType::kFloat64);
  EXPECT_GT(compared, 0);
}

// Through Invoke (the path users hit) the preferred kernel gives the
// closed-form result of a tiny convolution: all-ones 3x3 input and kernel,
// pad 1, so each output counts the in-bounds taps (4 corners, 6 edges, 9 centre).
TEST(DnnlKernels, InvokeConvolutionClosedForm) {
  NDArray x = test::Array({1, 1, 3, 3}, std::vector<double>(9, 1.0));
  NDArray w = test::Array({1, 1, 3, 3}, std::vector<double>(9, 1.0));
  auto y = test::Run("Convolution", {x, w},
                     {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "1"}, {"no_bias", "True"}});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
}

}  // namespace
}  // namespace weft
