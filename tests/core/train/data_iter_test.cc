// NDArrayIter: every sample is seen exactly once per epoch in each
// last-batch mode (with and without shuffle, sizes divisible or not), pad
// counts and padded rows, roll_over carrying samples across epochs as
// MXNet's NDArrayIter does, seeded determinism, and argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "util/test_util.h"
#include "weft/data_iter.h"

namespace weft {
namespace {

using Named = std::vector<std::pair<std::string, NDArray>>;

// data row i = [i, 1000 + i, 2000 + i] (float32, n x 3); label i = 7 * i (int32).
NDArray DataArray(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) v.push_back(1000.0 * k + i);
  return test::Array(Shape{n, 3}, v);
}
NDArray LabelArray(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(7.0 * i);
  return test::Array(Shape{n}, v, DType::kInt32);
}

struct Batch {
  std::vector<int64_t> ids;  // sample of each row
  int pad;
};

// Reads the current batch, checking that data, label and index agree.
Batch Read(const NDArrayIter& it) {
  const DataBatch& b = it.Value();
  std::vector<double> d = test::Values(b.data[0]), l = test::Values(b.label[0]);
  Batch out{{}, b.pad};
  EXPECT_EQ(b.index.size(), static_cast<size_t>(it.batch_size()));
  for (int r = 0; r < it.batch_size(); ++r) {
    const int64_t id = static_cast<int64_t>(d[3 * r]);
    EXPECT_EQ(d[3 * r + 1], 1000.0 + id);
    EXPECT_EQ(d[3 * r + 2], 2000.0 + id);
    EXPECT_EQ(l[r], 7.0 * id);
    EXPECT_EQ(b.index[r], id);
    out.ids.push_back(id);
  }
  return out;
}

std::vector<Batch> Epoch(NDArrayIter* it) {
  std::vector<Batch> out;
  while (it->Next()) out.push_back(Read(*it));
  EXPECT_FALSE(it->Next());  // stays at the end until Reset
  return out;
}

NDArrayIter Make(int64_t n, int bs, bool shuffle, LastBatch lb, uint64_t seed = 42) {
  return NDArrayIter({{"data", DataArray(n)}}, {{"softmax_label", LabelArray(n)}}, bs, shuffle, lb,
                     seed);
}

struct Size {
  int64_t n;
  int bs;
};
const Size kSizes[] = {{12, 4}, {10, 4}, {10, 3}, {3, 4}, {7, 1}, {1, 5}};

TEST(NDArrayIterTest, PadSeesEverySampleOnceAndPadsFromTheEpochStart) {
  for (const Size s : kSizes)
    for (bool shuffle : {false, true}) {
      SCOPED_TRACE(testing::Message() << "n=" << s.n << " bs=" << s.bs << " shuffle=" << shuffle);
      NDArrayIter it = Make(s.n, s.bs, shuffle, LastBatch::kPad);
      const int64_t batches = (s.n + s.bs - 1) / s.bs;
      for (int epoch = 0; epoch < 3; ++epoch) {
        if (epoch) it.Reset();
        EXPECT_EQ(it.num_batches(), batches);
        std::vector<Batch> e = Epoch(&it);
        ASSERT_EQ(static_cast<int64_t>(e.size()), batches);
        std::vector<int64_t> seen;
        for (size_t b = 0; b < e.size(); ++b) {
          const int expected_pad = b + 1 == e.size() ? static_cast<int>(batches * s.bs - s.n) : 0;
          EXPECT_EQ(e[b].pad, expected_pad) << "batch " << b;
          seen.insert(seen.end(), e[b].ids.begin(), e[b].ids.end() - e[b].pad);
        }
        std::vector<int64_t> order = seen;  // this epoch's order
        std::sort(seen.begin(), seen.end());
        std::vector<int64_t> all(s.n);
        std::iota(all.begin(), all.end(), 0);
        EXPECT_EQ(seen, all);
        if (!shuffle) {
          EXPECT_EQ(order, all);
        }
        // Padded rows repeat the epoch's order from its start (wrapping).
        const Batch& last = e.back();
        for (int k = 0; k < last.pad; ++k)
          EXPECT_EQ(last.ids[s.bs - last.pad + k], order[k % s.n]) << "pad row " << k;
      }
    }
}

TEST(NDArrayIterTest, DiscardDropsTheShortTailEachEpoch) {
  for (const Size s : kSizes)
    for (bool shuffle : {false, true}) {
      SCOPED_TRACE(testing::Message() << "n=" << s.n << " bs=" << s.bs << " shuffle=" << shuffle);
      NDArrayIter it = Make(s.n, s.bs, shuffle, LastBatch::kDiscard);
      std::set<int64_t> dropped_union;
      for (int epoch = 0; epoch < 4; ++epoch) {
        if (epoch) it.Reset();
        std::vector<Batch> e = Epoch(&it);
        ASSERT_EQ(static_cast<int64_t>(e.size()), s.n / s.bs);
        std::vector<int64_t> seen;
        for (const Batch& b : e) {
          EXPECT_EQ(b.pad, 0);
          seen.insert(seen.end(), b.ids.begin(), b.ids.end());
        }
        std::set<int64_t> distinct(seen.begin(), seen.end());
        EXPECT_EQ(distinct.size(), seen.size());
        EXPECT_EQ(static_cast<int64_t>(seen.size()), s.n - s.n % s.bs);
        if (!shuffle) {
          for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], static_cast<int64_t>(i));
        }
        for (int64_t i = 0; i < s.n; ++i) {
          if (!distinct.count(i)) dropped_union.insert(i);
        }
      }
      // With shuffle, a different tail is dropped in different epochs.
      if (shuffle && s.n % s.bs != 0 && s.n >= 10) {
        EXPECT_GT(dropped_union.size(), static_cast<size_t>(s.n % s.bs));
      }
    }
}

TEST(NDArrayIterTest, RollOverCarriesTheLeftoverIntoTheNextEpoch) {
  // MXNet's documented example (10 samples, batch 3, no shuffle): 3 batches,
  // then after reset the first batch is [9, 0, 1].
  NDArrayIter it = Make(10, 3, false, LastBatch::kRollOver);
  std::vector<Batch> e1 = Epoch(&it);
  ASSERT_EQ(e1.size(), 3u);
  EXPECT_EQ(e1[2].ids, (std::vector<int64_t>{6, 7, 8}));
  it.Reset();
  EXPECT_EQ(it.num_batches(), 3);  // 1 carried + 10 = 11 samples
  std::vector<Batch> e2 = Epoch(&it);
  ASSERT_EQ(e2.size(), 3u);
  EXPECT_EQ(e2[0].ids, (std::vector<int64_t>{9, 0, 1}));
  EXPECT_EQ(e2[0].pad, 1);  // MXNet reports the carried count as pad
  EXPECT_EQ(e2[1].pad, 0);
  EXPECT_EQ(e2[2].ids, (std::vector<int64_t>{5, 6, 7}));
  it.Reset();
  std::vector<Batch> e3 = Epoch(&it);
  ASSERT_EQ(e3.size(), 4u);  // 2 carried + 10 = 12
  EXPECT_EQ(e3[0].ids, (std::vector<int64_t>{8, 9, 0}));
  EXPECT_EQ(e3[0].pad, 2);
  EXPECT_EQ(e3[3].ids, (std::vector<int64_t>{7, 8, 9}));
  it.Reset();
  EXPECT_EQ(it.num_batches(), 3);  // nothing was left over by the third epoch

  // A Reset right after a Reset, or a HardReset, drops the carried samples.
  for (bool hard : {false, true}) {
    NDArrayIter again = Make(10, 3, false, LastBatch::kRollOver);
    Epoch(&again);  // leaves sample 9 over
    if (hard) {
      again.HardReset();
    } else {
      again.Reset();
      again.Reset();
    }
    EXPECT_EQ(again.num_batches(), 3);
    EXPECT_EQ(Epoch(&again)[0].ids, (std::vector<int64_t>{0, 1, 2})) << "hard=" << hard;
  }
}

TEST(NDArrayIterTest, RollOverStreamIsTheEpochOrdersConcatenated) {
  for (const Size s : kSizes)
    for (bool shuffle : {false, true}) {
      SCOPED_TRACE(testing::Message() << "n=" << s.n << " bs=" << s.bs << " shuffle=" << shuffle);
      NDArrayIter it = Make(s.n, s.bs, shuffle, LastBatch::kRollOver);
      std::vector<int64_t> stream;
      const int epochs = 7;
      for (int epoch = 0; epoch < epochs; ++epoch) {
        if (epoch) it.Reset();
        for (const Batch& b : Epoch(&it)) stream.insert(stream.end(), b.ids.begin(), b.ids.end());
      }
      // Nothing is lost: all but the last (< bs) leftover samples come out.
      EXPECT_GT(static_cast<int64_t>(stream.size()), epochs * s.n - s.bs);
      EXPECT_EQ(stream.size() % s.bs, 0u);
      // Every run of n consecutive samples from an epoch boundary is a permutation.
      for (size_t start = 0; start + s.n <= stream.size(); start += s.n) {
        std::vector<int64_t> chunk(stream.begin() + start, stream.begin() + start + s.n);
        std::sort(chunk.begin(), chunk.end());
        for (int64_t i = 0; i < s.n; ++i) ASSERT_EQ(chunk[i], i) << "epoch chunk at " << start;
        if (!shuffle) {
          for (int64_t i = 0; i < s.n; ++i) ASSERT_EQ(stream[start + i], i);
        }
      }
    }
}

TEST(NDArrayIterTest, ShuffleIsSeededAndChangesEveryEpoch) {
  auto orders = [](uint64_t seed) {
    NDArrayIter it = Make(50, 10, true, LastBatch::kPad, seed);
    std::vector<std::vector<int64_t>> out;
    for (int epoch = 0; epoch < 3; ++epoch) {
      if (epoch) it.Reset();
      std::vector<int64_t> o;
      for (const Batch& b : Epoch(&it)) o.insert(o.end(), b.ids.begin(), b.ids.end());
      out.push_back(o);
    }
    return out;
  };
  const auto a = orders(7), b = orders(7), c = orders(8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a[0], a[1]);
  EXPECT_NE(a[1], a[2]);
  std::vector<int64_t> identity(50);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_NE(a[0], identity);  // shuffled from the first epoch, as MXNet's constructor resets
}

TEST(NDArrayIterTest, GathersMultiDimensionalRowsOfEveryDtypeIntoReusedArrays) {
  std::vector<double> img, small;
  for (int i = 0; i < 5 * 2 * 3; ++i) img.push_back(i);
  for (int i = 0; i < 5; ++i) small.push_back(250 - i);
  Named data = {{"img", test::Array(Shape{5, 2, 3}, img, DType::kFloat64)},
                {"u8", test::Array(Shape{5, 1}, small, DType::kUint8)}};
  NDArrayIter it(data, {}, 2, false, LastBatch::kPad);
  std::vector<DataDesc> pd = it.provide_data();
  ASSERT_EQ(pd.size(), 2u);
  EXPECT_EQ(pd[0].name, "img");
  EXPECT_EQ(pd[0].shape, (Shape{2, 2, 3}));
  EXPECT_EQ(pd[0].dtype, DType::kFloat64);
  EXPECT_EQ(pd[1].shape, (Shape{2, 1}));
  EXPECT_EQ(pd[1].dtype, DType::kUint8);
  EXPECT_TRUE(it.provide_label().empty());
  ASSERT_TRUE(it.Next());
  const void* storage = it.Value().data[0].dptr();
  ASSERT_TRUE(it.Next());
  ASSERT_TRUE(it.Next());  // rows 4, 0 (padded)
  const DataBatch& b = it.Value();
  EXPECT_EQ(b.data[0].dptr(), storage);
  EXPECT_TRUE(b.label.empty());
  EXPECT_EQ(b.pad, 1);
  std::vector<double> want(img.begin() + 24, img.end());
  want.insert(want.end(), img.begin(), img.begin() + 6);
  EXPECT_EQ(test::Values(b.data[0]), want);
  EXPECT_EQ(test::Values(b.data[1]), (std::vector<double>{246, 250}));
}

using test::ExpectError;

TEST(NDArrayIterTest, BadArgumentsAreErrors) {
  ExpectError(
      [] {
        NDArrayIter({{"data", DataArray(4)}}, {{"lbl", LabelArray(5)}}, 2);
      },
      StatusCode::kInvalidArgument,
      {"first dimensions differ", "'data' has 4", "label 'lbl' has 5"});
  ExpectError(
      [] {
        NDArrayIter({{"a", DataArray(4)}, {"b", DataArray(3)}}, {}, 2);
      },
      StatusCode::kInvalidArgument, {"'a' has 4", "data 'b' has 3"});
  ExpectError(
      [] {
        NDArrayIter({{"data", DataArray(4)}}, {}, 0);
      },
      StatusCode::kInvalidArgument, {"batch_size must be positive, given 0"});
  ExpectError(
      [] {
        NDArrayIter({{"data", DataArray(4)}}, {}, -3);
      },
      StatusCode::kInvalidArgument, {"given -3"});
  ExpectError(
      [] {
        NDArrayIter({}, {{"l", LabelArray(3)}}, 2);
      },
      StatusCode::kInvalidArgument, {"no data arrays"});
  ExpectError(
      [] {
        NDArrayIter({{"x", DataArray(4)}}, {{"x", LabelArray(4)}}, 2);
      },
      StatusCode::kInvalidArgument, {"'x' is given twice"});
  ExpectError(
      [] {
        NDArrayIter({{"", DataArray(4)}}, {}, 2);
      },
      StatusCode::kInvalidArgument, {"empty name"});
  ExpectError(
      [] {
        NDArrayIter({{"d", NDArray()}}, {}, 2);
      },
      StatusCode::kInvalidArgument, {"'d' is an empty"});
  ExpectError(
      [] {
        NDArrayIter({{"d", test::Array(Shape(std::vector<int64_t>{}), {1})}}, {}, 2);
      },
      StatusCode::kInvalidArgument, {"'d' is a scalar"});
  NDArrayIter it = Make(3, 2, false, LastBatch::kPad);
  ExpectError([&] { it.Value(); }, StatusCode::kInvalidArgument, {"no current batch"});
  EXPECT_EQ(ParseLastBatch("roll_over"), LastBatch::kRollOver);
  EXPECT_STREQ(LastBatchName(LastBatch::kDiscard), "discard");
  ExpectError([] { ParseLastBatch("rollover"); }, StatusCode::kInvalidArgument,
              {"'rollover'", "pad, discard or roll_over"});
}

}  // namespace
}  // namespace weft
