// The CUDA broadcasting kernels' index arithmetic (kernels/cuda/
// broadcast_index.h), checked on the host without a GPU: out[i] = lhs[ia] +
// rhs[ib] with (ia, ib) from BroadcastIndex equals the CPU broadcast_add
// for shapes of different ranks, repeated axes on either side and scalars.
#include <gtest/gtest.h>

#include "cuda/broadcast_index.h"
#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(BroadcastIndex, OffsetsMatchTheCpuBroadcastKernel) {
  const std::pair<Shape, Shape> cases[] = {
      {Shape{2, 3, 4}, Shape{3, 1}}, {Shape{2, 1, 4}, Shape{2, 3, 4}},
      {Shape{5}, Shape{4, 1}},       {Shape{1}, Shape{2, 3}},
      {Shape{2, 3}, Shape{2, 3}},    {Shape{3, 1, 5, 1}, Shape{1, 4, 1, 2}},
      {Shape{1, 1, 1}, Shape{7}},    {Shape{2, 2, 2, 2, 2, 2, 2, 2}, Shape{2, 1, 2}}};
  unsigned seed = 1;
  for (const auto& [ls, rs] : cases) {
    const NDArray l = test::RandomArray(ls, DType::kFloat64, -3, 3, seed++);
    const NDArray r = test::RandomArray(rs, DType::kFloat64, -3, 3, seed++);
    const NDArray want = test::Run("broadcast_add", {l, r})[0];
    const cuda::BroadcastIndex index =
        cuda::MakeBroadcastIndex(ls, rs, want.shape(), "broadcast_add");
    const std::vector<double> a = test::Values(l), b = test::Values(r), w = test::Values(want);
    for (int64_t i = 0; i < want.Size(); ++i) {
      int64_t ia, ib;
      index.Offsets(i, &ia, &ib);
      ASSERT_GE(ia, 0);
      ASSERT_LT(ia, l.Size());
      ASSERT_GE(ib, 0);
      ASSERT_LT(ib, r.Size());
      ASSERT_EQ(a[ia] + b[ib], w[i]) << ls.ToString() << " + " << rs.ToString() << " element " << i;
    }
  }
  // More axes than the GPU kernels take is a clean error naming the op.
  test::ExpectError(
      [] {
        cuda::MakeBroadcastIndex(Shape(std::vector<int64_t>(9, 1)), Shape{1},
                                 Shape(std::vector<int64_t>(9, 1)), "broadcast_mul");
      },
      StatusCode::kNotImplemented, {"broadcast_mul", "9 axes", "at most 8"});
}

}  // namespace
}  // namespace weft
