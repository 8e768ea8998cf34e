// The quantized _sg_mkldnn_selfatt_qk and _sg_mkldnn_selfatt_valatt
// (quantized=true, kernels/cpu/selfatt_int8.cc) against their definition
// computed here in double precision (MXNet 1.9.1's SgMKLDNNSelfAttQKOp and
// MKLDNNSelfAttValAttOp: int32 sums, the output scale, round half to even,
// saturation) for each output form; a BERT-style int8 graph in MXNet's JSON
// layout against the float32 contrib ops within the quantization error
// bound; and the attribute and dtype combinations they refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/executor.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

constexpr int64_t kL = 3, kB = 2, kHeads = 2, kD = 4, kE = kHeads * kD;
constexpr double kInt32Max = 2147483647.0;

// Levels in [lo, hi] from a fixed pattern.
std::vector<double> Levels(size_t n, int lo, int hi, unsigned salt) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = lo + static_cast<int>((i * 97 + salt * 31 + i * i * 13) % (hi - lo + 1));
  return v;
}

// qkv (L, B, heads * 3 * D): block `which` (0 q, 1 k, 2 v) of head block bh
// at position i.
double At(const std::vector<double>& qkv, int64_t i, int64_t bh, int which, int64_t c) {
  const int64_t b = bh / kHeads, h = bh % kHeads;
  return qkv[(i * kB + b) * 3 * kE + h * 3 * kD + which * kD + c];
}

// The int32 sums of each op, in its output's layout.
std::vector<double> QKSums(const std::vector<double>& qkv) {
  std::vector<double> acc;
  for (int64_t bh = 0; bh < kB * kHeads; ++bh)
    for (int64_t i = 0; i < kL; ++i)
      for (int64_t j = 0; j < kL; ++j) {
        double s = 0;
        for (int64_t c = 0; c < kD; ++c) s += At(qkv, i, bh, 0, c) * At(qkv, j, bh, 1, c);
        acc.push_back(s);
      }
  return acc;
}

std::vector<double> ValSums(const std::vector<double>& qkv, const std::vector<double>& att) {
  std::vector<double> acc(kL * kB * kE);
  for (int64_t i = 0; i < kL; ++i)
    for (int64_t bh = 0; bh < kB * kHeads; ++bh)
      for (int64_t c = 0; c < kD; ++c) {
        double s = 0;
        for (int64_t j = 0; j < kL; ++j) s += att[(bh * kL + i) * kL + j] * At(qkv, j, bh, 2, c);
        acc[i * kB * kE + bh * kD + c] = s;
      }
  return acc;
}

// Expects got == sat(rne(acc * scale)) in [lo, hi], exactly unless the
// scaled value lies within 1e-3 of a tie (float and double may round a tie
// either way there).
void ExpectRounded(const std::vector<double>& got, const std::vector<double>& acc, double scale,
                   double lo, double hi, const std::string& what) {
  ASSERT_EQ(got.size(), acc.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double v = acc[i] * scale;
    const double want = std::clamp(std::nearbyint(v), lo, hi);
    const bool tie = std::abs(std::abs(v - std::floor(v)) - 0.5) < 1e-3;
    EXPECT_NEAR(got[i], want, tie ? 1.0 : 0.0) << what << " " << i;
  }
}

StringMap Params(const StringMap& extra) {
  StringMap p = {{"heads", std::to_string(kHeads)}, {"quantized", "True"}};
  p.insert(extra.begin(), extra.end());
  return p;
}

NDArray Range(double v) { return test::Array({1}, {v}); }

TEST(SelfAttInt8, QKFollowsTheDefinitionForEveryOutputForm) {
  const std::vector<double> qkv = Levels(kL * kB * 3 * kE, -128, 127, 1);
  const NDArray x = test::Array({kL, kB, 3 * kE}, qkv, DType::kInt8);
  const double r = 1.5, s = 127.5 / r, sqrt_d = std::sqrt(static_cast<double>(kD));
  const std::vector<double> acc = QKSums(qkv);
  const std::vector<NDArray> in = {x, Range(-r), Range(r)};

  auto f = test::Run("_sg_mkldnn_selfatt_qk", in, Params({{"enable_float_output", "True"}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].dtype(), DType::kFloat32);
  EXPECT_EQ(f[0].shape(), Shape({kB * kHeads, kL, kL}));
  const std::vector<double> got = test::Values(f[0]);
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = acc[i] / (s * s) / sqrt_d;
    EXPECT_NEAR(got[i], want, 1e-5 * (1 + std::abs(want))) << i;
  }

  auto q = test::Run("_sg_mkldnn_selfatt_qk", in,
                     Params({{"min_calib_range", "-2"}, {"max_calib_range", "3"}}));
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].dtype(), DType::kInt8);
  ExpectRounded(test::Values(q[0]), acc, 127.5 / 3 / (s * s) / sqrt_d, -128, 127, "int8");
  EXPECT_EQ(test::Values(q[1]), std::vector<double>{-2});
  EXPECT_EQ(test::Values(q[2]), std::vector<double>{3});

  // Uncalibrated: the sums over sqrt(D) in int32, with the int8 x int8
  // product range of the qkv's range.
  auto u = test::Run("_sg_mkldnn_selfatt_qk", in, Params({}));
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u[0].dtype(), DType::kInt32);
  ExpectRounded(test::Values(u[0]), acc, 1 / sqrt_d, -kInt32Max - 1, kInt32Max, "int32");
  const double m = (r / 127) * (r / 127) * kInt32Max;
  EXPECT_NEAR(test::Values(u[2])[0], m, m * 1e-6);
  EXPECT_NEAR(test::Values(u[1])[0], -m, m * 1e-6);
}

TEST(SelfAttInt8, ValAttFollowsTheDefinitionForEveryOutputForm) {
  const std::vector<double> qkv = Levels(kL * kB * 3 * kE, -128, 127, 2);
  const std::vector<double> att = Levels(kB * kHeads * kL * kL, 0, 255, 3);
  const std::vector<NDArray> in = {test::Array({kL, kB, 3 * kE}, qkv, DType::kInt8),
                                   test::Array({kB * kHeads, kL, kL}, att, DType::kUint8),
                                   Range(-0.5),
                                   Range(0.75),
                                   Range(0),
                                   Range(1)};
  const double vs = 127.5 / 0.75, as = 255.5 / 1;
  const std::vector<double> acc = ValSums(qkv, att);

  auto f = test::Run("_sg_mkldnn_selfatt_valatt", in, Params({{"enable_float_output", "True"}}));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].shape(), Shape({kL, kB, kE}));
  const std::vector<double> got = test::Values(f[0]);
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = acc[i] / (vs * as);
    EXPECT_NEAR(got[i], want, 1e-5 * (1 + std::abs(want))) << i;
  }

  auto q = test::Run("_sg_mkldnn_selfatt_valatt", in,
                     Params({{"min_calib_range", "-0.1"}, {"max_calib_range", "0.4"}}));
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].dtype(), DType::kInt8);
  ExpectRounded(test::Values(q[0]), acc, 127.5 / 0.4 / (vs * as), -128, 127, "int8");

  // Uncalibrated: the int32 sums themselves, with MXNet's int8 x uint8
  // product range.
  auto u = test::Run("_sg_mkldnn_selfatt_valatt", in, Params({}));
  EXPECT_EQ(u[0].dtype(), DType::kInt32);
  EXPECT_EQ(test::Values(u[0]), acc);
  const double m = (0.75 / 127) * (1.0 / 255) * kInt32Max;
  EXPECT_NEAR(test::Values(u[2])[0], m, m * 1e-6);
  EXPECT_NEAR(test::Values(u[1])[0], -m, m * 1e-6);
}

TEST(SelfAttInt8, RefusedCombinationsNameTheNode) {
  const NDArray qkv8 =
      test::Array({kL, kB, 3 * kE}, Levels(kL * kB * 3 * kE, -9, 9, 4), DType::kInt8);
  const NDArray qkvu =
      test::Array({kL, kB, 3 * kE}, Levels(kL * kB * 3 * kE, 0, 9, 4), DType::kUint8);
  const NDArray att8 =
      test::Array({kB * kHeads, kL, kL}, Levels(kB * kHeads * kL * kL, 0, 9, 5), DType::kInt8);
  test::ExpectOpError("_sg_mkldnn_selfatt_qk", {qkvu, Range(-1), Range(1)}, Params({}),
                      StatusCode::kDType,
                      {"_sg_mkldnn_selfatt_qk", "queries_keys_values", "int8", "uint8"});
  test::ExpectOpError("_sg_mkldnn_selfatt_valatt",
                      {qkv8, att8, Range(-1), Range(1), Range(0), Range(1)}, Params({}),
                      StatusCode::kDType, {"_sg_mkldnn_selfatt_valatt", "attention", "uint8"});
  test::ExpectOpError(
      "_sg_mkldnn_selfatt_qk", {qkv8, Range(-1), Range(1)},
      Params({{"enable_float_output", "True"}, {"min_calib_range", "0"}, {"max_calib_range", "1"}}),
      StatusCode::kNotImplemented, {"_sg_mkldnn_selfatt_qk", "enable_float_output"});
}

std::string Var(const std::string& name) {
  return R"js({"op": "null", "name": ")js" + name + R"js(", "inputs": []})js";
}

// The contrib op `op` as a fused node's subgraph over `vars` variables.
std::string Sub(const std::string& op, int vars) {
  std::string nodes = Var("in0"), inputs = "[0, 0, 0]", args = "0";
  if (vars == 2) {
    nodes += "," + Var("in1");
    inputs += ", [1, 0, 0]";
    args += ", 1";
  }
  return R"js({"nodes": [)js" + nodes + R"js(, {"op": ")js" + op +
         R"js(", "name": "inner", "attrs": {"heads": "2"}, "inputs": [)js" + inputs +
         R"js(]}], "arg_nodes": [)js" + args + R"js(], "heads": [[)js" + std::to_string(vars) +
         ", 0, 0]]}";
}

// BERT's int8 attention as MXNet's quantization and post-quantize fusion
// write it: qkv -> quantize_v2 (int8, +-a) -> qk (float32 output);
// attention -> quantize_v2 (uint8, (0, 1)) -> valatt with the quantized
// qkv (float32 output). Run against the float32 contrib ops; each output
// is off by at most the rounding of its operands (half a level each:
// lq = a / 127.5, la = 1 / 255.5):
//   qk: sum_c (|q| lq / 2 + |k| lq / 2 + lq^2 / 4) / sqrt(D)
//   valatt: sum_j (|att| lq / 2 + |v| la / 2 + lq la / 4)
TEST(SelfAttInt8, MXNetInt8AttentionStaysWithinTheQuantizationBound) {
  const double a = 2;
  const std::string json = R"js({"nodes": [)js" + Var("qkv") + "," + Var("att") +
                           R"js(, {"op": "_contrib_quantize_v2", "name": "qkv_quantize",
        "attrs": {"out_type": "int8", "min_calib_range": "-2", "max_calib_range": "2"},
        "inputs": [[0, 0, 0]]},
      {"op": "_sg_mkldnn_selfatt_qk", "name": "quantized_sg_mkldnn_selfatt_qk_0",
        "attrs": {"heads": "2", "quantized": "True", "enable_float_output": "True"},
        "inputs": [[2, 0, 0], [2, 1, 0], [2, 2, 0]], "subgraphs": [)js" +
                           Sub("_contrib_interleaved_matmul_selfatt_qk", 1) + R"js(]},
      {"op": "_contrib_quantize_v2", "name": "att_quantize",
        "attrs": {"out_type": "uint8", "min_calib_range": "0", "max_calib_range": "1"},
        "inputs": [[1, 0, 0]]},
      {"op": "_sg_mkldnn_selfatt_valatt", "name": "quantized_sg_mkldnn_selfatt_valatt_0",
        "attrs": {"heads": "2", "quantized": "True", "enable_float_output": "True"},
        "inputs": [[2, 0, 0], [4, 0, 0], [2, 1, 0], [2, 2, 0], [4, 1, 0], [4, 2, 0]],
        "subgraphs": [)js" +
                           Sub("_contrib_interleaved_matmul_selfatt_valatt", 2) + R"js(]}],
      "arg_nodes": [0, 1], "heads": [[3, 0, 0], [5, 0, 0]],
      "attrs": {"mxnet_version": ["int", 10901]}})js";
  const Symbol s = LoadJSON(json, Runtime::Global().ops()).symbol;
  const NDArray qkv = test::RandomArray({kL, kB, 3 * kE}, DType::kFloat32, -a, a, 21);
  const NDArray att = test::RandomArray({kB * kHeads, kL, kL}, DType::kFloat32, 0, 1, 22);
  auto ex = Executor::BindByName(&Runtime::Global(), s, Context::CPU(),
                                 {{"qkv", qkv}, {"att", att}}, {}, {}, {});
  ex->Forward(false);
  const StringMap h = {{"heads", "2"}};
  const std::vector<double> qk = test::Values(ex->outputs()[0]),
                            va = test::Values(ex->outputs()[1]),
                            qk_ref = test::Values(
                                test::Run("_contrib_interleaved_matmul_selfatt_qk", {qkv}, h)[0]),
                            va_ref = test::Values(test::Run(
                                "_contrib_interleaved_matmul_selfatt_valatt", {qkv, att}, h)[0]);
  const std::vector<double> x = test::Values(qkv), w = test::Values(att);
  const double lq = a / 127.5, la = 1 / 255.5;
  ASSERT_EQ(qk.size(), qk_ref.size());
  ASSERT_EQ(va.size(), va_ref.size());
  double worst = 0;
  for (int64_t bh = 0; bh < kB * kHeads; ++bh)
    for (int64_t i = 0; i < kL; ++i) {
      for (int64_t j = 0; j < kL; ++j) {
        double bound = 0;
        for (int64_t c = 0; c < kD; ++c)
          bound += std::abs(At(x, i, bh, 0, c)) * lq / 2 + std::abs(At(x, j, bh, 1, c)) * lq / 2 +
                   lq * lq / 4;
        bound /= std::sqrt(static_cast<double>(kD));
        const size_t o = static_cast<size_t>((bh * kL + i) * kL + j);
        EXPECT_LE(std::abs(qk[o] - qk_ref[o]), bound + 1e-5) << "qk " << o;
        worst = std::max(worst, std::abs(qk[o] - qk_ref[o]));
      }
      for (int64_t c = 0; c < kD; ++c) {
        double bound = 0;
        for (int64_t j = 0; j < kL; ++j)
          bound += w[(bh * kL + i) * kL + j] * lq / 2 + std::abs(At(x, j, bh, 2, c)) * la / 2 +
                   lq * la / 4;
        const size_t o = static_cast<size_t>(i * kB * kE + bh * kD + c);
        EXPECT_LE(std::abs(va[o] - va_ref[o]), bound + 1e-5) << "valatt " << o;
        worst = std::max(worst, std::abs(va[o] - va_ref[o]));
      }
    }
  EXPECT_GT(worst, 1e-4);  // the int8 kernels ran (float32 would be within ~1e-6)
  // Saved and loaded again: the same JSON.
  EXPECT_EQ(SaveJSON(LoadJSON(SaveJSON(s), Runtime::Global().ops()).symbol), SaveJSON(s));
}

}  // namespace
}  // namespace weft
