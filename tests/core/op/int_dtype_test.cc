// Integer data (int32, int64, int8, uint8) through the operators MXNet runs
// on integers: arithmetic in its same-shape, broadcast and scalar forms,
// the rounding/sign/abs/negative/square maps, the math maps (in float32, as
// MXNet) and the reductions. Expected values are closed forms computed here
// in int64 and wrapped to the dtype. Float-only ops still name the dtype in
// their error.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

const DType kIntTypes[] = {DType::kInt32, DType::kInt64, DType::kInt8, DType::kUint8};

// v wrapped to `t`'s range, as the kernel's arithmetic in that type gives.
double Wrap(int64_t v, DType t) {
  switch (t) {
    case DType::kInt8:
      return static_cast<int8_t>(v);
    case DType::kUint8:
      return static_cast<uint8_t>(v);
    case DType::kInt32:
      return static_cast<int32_t>(v);
    default:
      return static_cast<double>(v);
  }
}

// Values representable in every integer type (uint8 too).
const std::vector<double> kA = {0, 7, 100, 13, 250, 1};
const std::vector<double> kB = {3, 2, 7, 13, 3, 0};

void ExpectInts(const NDArray& got, DType t, const std::vector<double>& want,
                const std::string& what) {
  EXPECT_EQ(got.dtype(), t) << what;
  EXPECT_EQ(test::Values(got), want) << what << " " << DTypeName(t);
}

// a (op) b for the operands as the dtype holds them (250 is -6 in int8).
std::vector<double> Expected(const std::vector<double>& a, const std::vector<double>& b, DType t,
                             const std::function<int64_t(int64_t, int64_t)>& f) {
  std::vector<double> r;
  for (size_t i = 0; i < a.size(); ++i)
    r.push_back(Wrap(f(static_cast<int64_t>(Wrap(static_cast<int64_t>(a[i]), t)),
                       static_cast<int64_t>(Wrap(static_cast<int64_t>(b[i]), t))),
                     t));
  return r;
}

int64_t TruncDiv(int64_t a, int64_t b) { return b == 0 ? 0 : a / b; }

TEST(IntDType, SameShapeAndBroadcastArithmetic) {
  struct Case {
    const char* elemwise;
    const char* broadcast;
    std::function<int64_t(int64_t, int64_t)> f;
  };
  const Case cases[] = {
      {"elemwise_add", "broadcast_add", [](int64_t a, int64_t b) { return a + b; }},
      {"elemwise_sub", "broadcast_sub", [](int64_t a, int64_t b) { return a - b; }},
      {"elemwise_mul", "broadcast_mul", [](int64_t a, int64_t b) { return a * b; }},
      {"elemwise_div", "broadcast_div", TruncDiv}};
  for (DType t : kIntTypes) {
    const NDArray a = test::Array({2, 3}, kA, t), b = test::Array({2, 3}, kB, t);
    for (const Case& c : cases) {
      const std::vector<double> want = Expected(kA, kB, t, c.f);
      ExpectInts(test::Run(c.elemwise, {a, b})[0], t, want, c.elemwise);
      ExpectInts(test::Run(c.broadcast, {a, b})[0], t, want, c.broadcast);
      // (2, 3) with (1, 3): the first row of b against both rows of a.
      const std::vector<double> row(kB.begin(), kB.begin() + 3);
      const std::vector<double> rows = {row[0], row[1], row[2], row[0], row[1], row[2]};
      ExpectInts(test::Run(c.broadcast, {a, test::Array({1, 3}, row, t)})[0], t,
                 Expected(kA, rows, t, c.f), std::string(c.broadcast) + " (1,3)");
    }
  }
}

TEST(IntDType, SignedDivisionTruncatesTowardsZero) {
  for (DType t : {DType::kInt32, DType::kInt64, DType::kInt8}) {
    const NDArray a = test::Array({4}, {-7, 7, -7, -128}, t),
                  b = test::Array({4}, {2, -2, -2, -1}, t);
    // -128 / -1 wraps to -128 in int8 (no trap); the wider types give 128.
    ExpectInts(test::Run("elemwise_div", {a, b})[0], t, {-3, -3, 3, Wrap(128, t)}, "elemwise_div");
  }
}

TEST(IntDType, ScalarArithmetic) {
  struct Case {
    const char* op;
    std::function<int64_t(int64_t, int64_t)> f;
  };
  const Case cases[] = {{"_plus_scalar", [](int64_t x, int64_t s) { return x + s; }},
                        {"_minus_scalar", [](int64_t x, int64_t s) { return x - s; }},
                        {"_rminus_scalar", [](int64_t x, int64_t s) { return s - x; }},
                        {"_mul_scalar", [](int64_t x, int64_t s) { return x * s; }},
                        {"_div_scalar", TruncDiv},
                        {"_rdiv_scalar", [](int64_t x, int64_t s) { return TruncDiv(s, x); }}};
  for (DType t : kIntTypes) {
    const NDArray a = test::Array({6}, kA, t);
    for (const Case& c : cases) {
      ExpectInts(test::Run(c.op, {a}, {{"scalar", "3"}, {"is_int", "True"}})[0], t,
                 Expected(kA, std::vector<double>(kA.size(), 3), t, c.f), c.op);
    }
  }
  // MXNet gives float64 for integer data with is_int=False; Weft says so.
  test::ExpectError(
      [] {
        test::Run("_plus_scalar", {test::Array({1}, {1}, DType::kInt32)},
                  {{"scalar", "1.5"}, {"is_int", "False"}});
      },
      StatusCode::kDType, {"_plus_scalar", "int32", "is_int=False"});
}

TEST(IntDType, UnaryMaps) {
  for (DType t : kIntTypes) {
    const std::vector<double> x = {0, 5, 100, 250, 1};
    const NDArray a = test::Array({5}, x, t);
    for (const char* op : {"floor", "ceil", "round", "rint", "fix", "trunc"})
      ExpectInts(test::Run(op, {a})[0], t, test::Values(a), op);  // integers are whole already
    std::vector<double> sign, abs, neg, sq;
    for (double v : x) {
      const int64_t held = static_cast<int64_t>(Wrap(static_cast<int64_t>(v), t));
      sign.push_back((held > 0) - (held < 0));
      abs.push_back(Wrap(held < 0 ? -held : held, t));
      neg.push_back(Wrap(-held, t));
      sq.push_back(Wrap(held * held, t));
    }
    ExpectInts(test::Run("sign", {a})[0], t, sign, "sign");
    ExpectInts(test::Run("abs", {a})[0], t, abs, "abs");
    ExpectInts(test::Run("negative", {a})[0], t, neg, "negative");
    ExpectInts(test::Run("square", {a})[0], t, sq, "square");
  }
}

TEST(IntDType, Reductions) {
  // (2, 3): rows {1, 2, 3} and {4, 5, 6}.
  for (DType t : kIntTypes) {
    const NDArray a = test::Array({2, 3}, {1, 2, 3, 4, 5, 6}, t);
    ExpectInts(test::Run("sum", {a}, {{"axis", "1"}})[0], t, {6, 15}, "sum");
    ExpectInts(test::Run("sum", {a})[0], t, {21}, "sum all");
    ExpectInts(test::Run("nansum", {a}, {{"axis", "0"}})[0], t, {5, 7, 9}, "nansum");
    ExpectInts(test::Run("max", {a}, {{"axis", "1"}})[0], t, {3, 6}, "max");
    ExpectInts(test::Run("min", {a}, {{"axis", "0"}})[0], t, {1, 2, 3}, "min");
    ExpectInts(test::Run("prod", {a}, {{"axis", "1"}})[0], t, {6, Wrap(120, t)}, "prod");
    ExpectInts(test::Run("nanprod", {a}, {{"axis", "0"}})[0], t, {4, 10, 18}, "nanprod");
    // Integer mean truncates: (1+2+3+4+5+6)/6 = 3.5 -> 3, rows 2 and 5.
    ExpectInts(test::Run("mean", {a})[0], t, {3}, "mean");
    ExpectInts(test::Run("mean", {a}, {{"axis", "1"}})[0], t, {2, 5}, "mean axis");
  }
  // int64 sums are exact beyond double's 53 bits.
  const int64_t big = (int64_t{1} << 60) + 1;
  NDArray b = test::Array({2}, {0, 0}, DType::kInt64);
  b.WaitToWrite();
  static_cast<int64_t*>(b.blob().dptr)[0] = big;
  static_cast<int64_t*>(b.blob().dptr)[1] = 2;
  NDArray s = test::Run("sum", {b})[0];
  s.WaitToRead();
  EXPECT_EQ(static_cast<const int64_t*>(s.blob().dptr)[0], big + 2);
  // max/min of int64 beyond 2^53 keep every bit.
  NDArray m = test::Run("max", {b})[0];
  m.WaitToRead();
  EXPECT_EQ(static_cast<const int64_t*>(m.blob().dptr)[0], big);
}

// The math maps on integers compute in float32 and convert back toward
// zero, as MXNet's math functions; NaN gives 0 and values beyond the type
// saturate (where MXNet's conversion is undefined).
TEST(IntDType, MathMapsRunInFloat32) {
  auto run = [](const char* op, std::vector<NDArray> in, StringMap p = {}) {
    return test::Run(op, in, p)[0];
  };
  const DType i32 = DType::kInt32;
  ExpectInts(run("sqrt", {test::Array({5}, {4, 5, 9, 10, -1}, i32)}), i32, {2, 2, 3, 3, 0}, "sqrt");
  ExpectInts(run("cbrt", {test::Array({4}, {8, 27, 30, -8}, i32)}), i32, {2, 3, 3, -2}, "cbrt");
  ExpectInts(run("reciprocal", {test::Array({3}, {1, 2, -1}, i32)}), i32, {1, 0, -1}, "reciprocal");
  ExpectInts(run("gammaln", {test::Array({3}, {1, 2, 5}, i32)}), i32, {0, 0, 3}, "gammaln");
  ExpectInts(run("relu", {test::Array({3}, {-3, 0, 4}, DType::kInt8)}), DType::kInt8, {0, 0, 4},
             "relu");
  // exp(5) = 148.4: saturates in int8, fits in uint8.
  ExpectInts(run("exp", {test::Array({4}, {0, 1, 2, 5}, DType::kInt8)}), DType::kInt8,
             {1, 2, 7, 127}, "exp int8");
  ExpectInts(run("exp", {test::Array({4}, {0, 1, 2, 5}, DType::kUint8)}), DType::kUint8,
             {1, 2, 7, 148}, "exp uint8");
  // log(0) = -inf saturates to the lowest int64.
  ExpectInts(run("log", {test::Array({4}, {1, 2, 10, 0}, DType::kInt64)}), DType::kInt64,
             {0, 0, 2, static_cast<double>(std::numeric_limits<int64_t>::lowest())}, "log");
  const NDArray base = test::Array({3}, {2, 3, -2}, i32), expo = test::Array({3}, {3, 2, 3}, i32);
  ExpectInts(run("_power", {base, expo}), i32, {8, 9, -8}, "_power");
  ExpectInts(run("_hypot", {test::Array({2}, {3, 5}, i32), test::Array({2}, {4, 12}, i32)}), i32,
             {5, 13}, "_hypot");
  ExpectInts(run("broadcast_power", {test::Array({2, 1}, {2, 3}, DType::kInt64),
                                     test::Array({1, 2}, {2, 3}, DType::kInt64)}),
             DType::kInt64, {4, 8, 9, 27}, "broadcast_power");
  const StringMap two{{"scalar", "2"}, {"is_int", "True"}};
  ExpectInts(run("_power_scalar", {test::Array({2}, {2, 3}, i32)}, two), i32, {4, 9},
             "_power_scalar");
  ExpectInts(run("_rpower_scalar", {test::Array({2}, {2, 3}, i32)}, two), i32, {4, 8},
             "_rpower_scalar");
}

TEST(IntDType, FloatOnlyOpsNameTheDType) {
  const NDArray a = test::Array({2}, {1, 2}, DType::kInt32);
  test::ExpectError([&] { test::Run("norm", {a}); }, StatusCode::kDType, {"norm", "int32"});
  test::ExpectError(
      [&] {
        test::Run("_backward_sqrt", {a, a});
      },
      StatusCode::kDType, {"_backward_sqrt", "int32"});
  // float16 has no reduction kernel of its own: it sums in float32 and
  // rounds (2049 + 1 = 2050 is a float16; 2049 is not, it rounds to 2048).
  const NDArray h = test::Array({2}, {2048, 2}, DType::kFloat16);
  const NDArray s = test::Run("sum", {h})[0];
  EXPECT_EQ(s.dtype(), DType::kFloat16);
  EXPECT_EQ(test::Values(s), std::vector<double>{2050});
}

}  // namespace
}  // namespace weft
