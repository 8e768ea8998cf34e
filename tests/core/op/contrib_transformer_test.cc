#include <cmath>

#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

const char* kQK = "_contrib_interleaved_matmul_selfatt_qk";
const char* kValAtt = "_contrib_interleaved_matmul_selfatt_valatt";
const char* kEncQK = "_contrib_interleaved_matmul_encdec_qk";
const char* kEncValAtt = "_contrib_interleaved_matmul_encdec_valatt";

TEST(ContribTransformer, MatchPyTorch) {
  for (const char* c : {"l5b2h3", "l4b1h1"}) {
    EXPECT_TRUE(test::CheckOpRef(std::string(kQK) + "_" + c)) << c;
    EXPECT_TRUE(test::CheckOpRef(std::string(kValAtt) + "_" + c)) << c;
  }
  for (const char* c : {"q3k5b2h2", "q4k2b1h1"}) {
    EXPECT_TRUE(test::CheckOpRef(std::string(kEncQK) + "_" + c)) << c;
    EXPECT_TRUE(test::CheckOpRef(std::string(kEncValAtt) + "_" + c)) << c;
  }
}

TEST(ContribTransformer, ClosedForm) {
  // L = 2, B = 1, heads = 1, D = 2: positions hold [q0 q1 k0 k1 v0 v1].
  NDArray qkv = test::Array({2, 1, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, DType::kFloat64);
  auto s = test::Run(kQK, {qkv}, {{"heads", "1"}});
  ASSERT_EQ(s[0].shape(), Shape({1, 2, 2}));
  const double r = 1 / std::sqrt(2.0);  // q_i . k_j / sqrt(2)
  EXPECT_EQ(test::Values(s[0]),
            (std::vector<double>{(3 + 8) * r, (9 + 20) * r, (21 + 32) * r, (63 + 80) * r}));
  NDArray att = test::Array({1, 2, 2}, {1, 0, 0.25, 0.75}, DType::kFloat64);
  auto y = test::Run(kValAtt, {qkv, att}, {{"heads", "1"}});
  ASSERT_EQ(y[0].shape(), Shape({2, 1, 2}));
  EXPECT_EQ(test::Values(y[0]),
            (std::vector<double>{5, 6, 0.25 * 5 + 0.75 * 11, 0.25 * 6 + 0.75 * 12}));
}

// MXNet's oneDNN-fused forms (optimize_for('MKLDNN') on BERT; 2.0's
// _sg_onednn_* names) compute the contrib ops' closed forms; their int8
// form (tests/kernels/selfatt_int8_test.cc) refuses float32 data naming the
// op and the input.
TEST(ContribTransformer, FusedSelfAttentionOps) {
  NDArray qkv = test::Array({2, 1, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const double r = 1 / std::sqrt(2.0);
  for (const char* qk : {"_sg_mkldnn_selfatt_qk", "_sg_onednn_selfatt_qk"}) {
    const std::vector<double> got = test::Values(test::Run(qk, {qkv}, {{"heads", "1"}})[0]);
    const std::vector<double> want = {(3 + 8) * r, (9 + 20) * r, (21 + 32) * r, (63 + 80) * r};
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << qk;
  }
  NDArray att = test::Array({1, 2, 2}, {1, 0, 0.25, 0.75});
  EXPECT_EQ(test::Values(test::Run("_sg_mkldnn_selfatt_valatt", {qkv, att}, {{"heads", "1"}})[0]),
            (std::vector<double>{5, 6, 0.25 * 5 + 0.75 * 11, 0.25 * 6 + 0.75 * 12}));
  NDArray one = test::Array({1}, {1});
  test::ExpectOpError("_sg_mkldnn_selfatt_qk", {qkv, one, one},
                      {{"heads", "1"}, {"quantized", "True"}}, StatusCode::kDType,
                      {"_sg_mkldnn_selfatt_qk", "queries_keys_values", "int8", "float32"});
}

TEST(ContribTransformer, Gradients) {
  NDArray qkv = test::RandomArray({3, 2, 12}, DType::kFloat64, -1, 1, 1);
  NDArray att = test::RandomArray({4, 3, 3}, DType::kFloat64, 0, 1, 2);
  std::string where;
  EXPECT_LT(test::GradientError(kQK, {qkv}, {{"heads", "2"}}, {}, 1e-6, &where), 1e-6) << where;
  EXPECT_LT(test::GradientError(kValAtt, {qkv, att}, {{"heads", "2"}}, {}, 1e-6, &where), 1e-6)
      << where;
  NDArray q = test::RandomArray({2, 2, 4}, DType::kFloat64, -1, 1, 3);
  NDArray kv = test::RandomArray({3, 2, 8}, DType::kFloat64, -1, 1, 4);
  NDArray att2 = test::RandomArray({4, 2, 3}, DType::kFloat64, 0, 1, 5);
  EXPECT_LT(test::GradientError(kEncQK, {q, kv}, {{"heads", "2"}}, {}, 1e-6, &where), 1e-6)
      << where;
  EXPECT_LT(test::GradientError(kEncValAtt, {kv, att2}, {{"heads", "2"}}, {}, 1e-6, &where), 1e-6)
      << where;
}

// kAdd into outputs holding 1 gives the kWrite values plus 1.
void ExpectAddsToOnes(const std::string& op, const std::vector<NDArray>& in) {
  auto want = test::Run(op, in, {{"heads", "2"}});
  std::vector<NDArray> outs;
  std::vector<OpReq> reqs;
  for (const NDArray& w : want) {
    outs.push_back(test::Array(w.shape(), std::vector<double>(static_cast<size_t>(w.Size()), 1.0),
                               DType::kFloat64));
    reqs.push_back(OpReq::kAdd);
  }
  InvokeOptions opts;
  opts.reqs = reqs;
  Invoke(&Runtime::Global(), op, in, {{"heads", "2"}}, &outs, opts);
  for (size_t k = 0; k < outs.size(); ++k) {
    const auto wv = test::Values(want[k]), av = test::Values(outs[k]);
    for (size_t i = 0; i < wv.size(); ++i)
      EXPECT_NEAR(av[i], wv[i] + 1, 1e-12) << op << " output " << k;
  }
}

TEST(ContribTransformer, AddRequests) {
  NDArray qkv = test::RandomArray({3, 2, 12}, DType::kFloat64, -1, 1, 1);
  NDArray att = test::RandomArray({4, 3, 3}, DType::kFloat64, 0, 1, 2);
  NDArray dyqk = test::RandomArray({4, 3, 3}, DType::kFloat64, -1, 1, 3);
  NDArray dyva = test::RandomArray({3, 2, 4}, DType::kFloat64, -1, 1, 4);
  ExpectAddsToOnes(kQK, {qkv});
  ExpectAddsToOnes(kValAtt, {qkv, att});
  ExpectAddsToOnes("_backward_interleaved_matmul_selfatt_qk", {dyqk, qkv});
  ExpectAddsToOnes("_backward_interleaved_matmul_selfatt_valatt", {dyva, qkv, att});
  NDArray q = test::RandomArray({2, 2, 4}, DType::kFloat64, -1, 1, 5);
  NDArray kv = test::RandomArray({3, 2, 8}, DType::kFloat64, -1, 1, 6);
  NDArray att2 = test::RandomArray({4, 2, 3}, DType::kFloat64, 0, 1, 7);
  NDArray dyq = test::RandomArray({2, 2, 4}, DType::kFloat64, -1, 1, 8);
  ExpectAddsToOnes(kEncQK, {q, kv});
  ExpectAddsToOnes(kEncValAtt, {kv, att2});
  ExpectAddsToOnes("_backward_interleaved_matmul_encdec_qk", {att2, q, kv});
  ExpectAddsToOnes("_backward_interleaved_matmul_encdec_valatt", {dyq, kv, att2});
}

TEST(ContribTransformer, PartialShapes) {
  std::vector<Shape> in = {Shape({7, 3, 24})}, out = {Shape()};
  EXPECT_TRUE(test::InferShapes(kQK, {{"heads", "4"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({12, 7, 7}));
  in = {Shape()};
  out = {Shape({12, 7, 7})};
  EXPECT_FALSE(test::InferShapes(kQK, {{"heads", "4"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({7, 3, 0}));
  // valatt: qkv's extents from the attention and the output.
  in = {Shape(), Shape({12, 7, 7})};
  out = {Shape({0, 0, 8})};
  EXPECT_TRUE(test::InferShapes(kValAtt, {{"heads", "4"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({7, 3, 24}));
  EXPECT_EQ(out[0], Shape({7, 3, 8}));
  in = {Shape({7, 3, 24}), Shape()};
  out = {Shape()};
  EXPECT_TRUE(test::InferShapes(kValAtt, {{"heads", "4"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({12, 7, 7}));
  // encdec: queries and keys_values from each other and the scores.
  in = {Shape({5, 3, 8}), Shape()};
  out = {Shape({0, 0, 9})};
  EXPECT_TRUE(test::InferShapes(kEncQK, {{"heads", "4"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({9, 3, 16}));
  EXPECT_EQ(out[0], Shape({12, 5, 9}));
  in = {Shape({9, 3, 16}), Shape()};
  out = {Shape({5, 0, 0})};
  EXPECT_TRUE(test::InferShapes(kEncValAtt, {{"heads", "4"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({12, 5, 9}));
  EXPECT_EQ(out[0], Shape({5, 3, 8}));
}

TEST(ContribTransformer, Errors) {
  NDArray qkv = test::RandomArray({3, 2, 12}, DType::kFloat32, -1, 1, 1);
  test::ExpectError(
      [&] {
        test::Run(kQK, {qkv}, {{"heads", "3"}});
      },
      StatusCode::kShape, {kQK, "12", "multiple of 3 * heads = 9"});
  NDArray flat = test::RandomArray({3, 24}, DType::kFloat32, -1, 1, 1);
  test::ExpectError(
      [&] {
        test::Run(kQK, {flat}, {{"heads", "2"}});
      },
      StatusCode::kShape, {kQK, "rank 3", "(3,24)"});
  NDArray att = test::RandomArray({4, 3, 2}, DType::kFloat32, 0, 1, 2);
  test::ExpectError(
      [&] {
        test::Run(kValAtt, {qkv, att}, {{"heads", "2"}});
      },
      StatusCode::kShape, {kValAtt, "attention", "(4,3,2)"});
  NDArray q = test::RandomArray({2, 2, 4}, DType::kFloat32, -1, 1, 3);
  NDArray kv = test::RandomArray({3, 2, 6}, DType::kFloat32, -1, 1, 4);
  test::ExpectError(
      [&] {
        test::Run(kEncQK, {q, kv}, {{"heads", "2"}});
      },
      StatusCode::kShape, {kEncQK, "keys_values"});
  NDArray kv2 = test::RandomArray({3, 3, 8}, DType::kFloat32, -1, 1, 4);
  test::ExpectError(
      [&] {
        test::Run(kEncQK, {q, kv2}, {{"heads", "2"}});
      },
      StatusCode::kShape, {kEncQK, "keys_values", "(3,3,8)"});
  // heads = 0 once reached a division by zero in the shape check.
  for (const char* op : {kQK, kValAtt, kEncQK})
    test::ExpectError(
        [&] {
          test::Run(op, {qkv}, {{"heads", "0"}});
        },
        StatusCode::kInvalidArgument, {"heads", "0"});
}

}  // namespace
}  // namespace weft
