// Backend cases of the elementwise ops: unary, binary, broadcast, scalar
// and math ops with their gradients (random values, positive where the op
// needs them), and the selecting ops (maximum/minimum, comparisons) on
// values with ties and NaNs, compared exactly.
#include <cmath>
#include <random>

#include "util/backend_harness.h"

namespace weft {
namespace {

using test::BackendCase;
using test::In;

WEFT_BACKEND_CASES(elemwise_unary) {
  std::vector<BackendCase> cases;
  const Shape s{5, 7};
  for (const char* op : {"relu", "sigmoid", "tanh", "exp", "square", "abs", "negative"})
    cases.emplace_back(op, std::vector<In>{{s, -2, 2}});
  for (const char* op : {"log", "sqrt"}) cases.emplace_back(op, std::vector<In>{{s, 0.5, 3}});
  for (const char* op : {"_backward_relu", "_backward_sigmoid", "_backward_tanh",
                         "_backward_square", "_backward_abs"})
    cases.emplace_back(op, std::vector<In>{{s, -1, 1}, {s, -2, 2}});
  for (const char* op : {"_backward_sqrt", "_backward_log"})
    cases.emplace_back(op, std::vector<In>{{s, -1, 1}, {s, 0.5, 3}});
  return cases;
}

WEFT_BACKEND_CASES(elemwise_binary) {
  std::vector<BackendCase> cases;
  const Shape s{3, 4, 5};
  for (const char* op : {"elemwise_add", "elemwise_sub", "elemwise_mul"})
    cases.emplace_back(op, std::vector<In>{{s, -2, 2}, {s, -2, 2}});
  cases.emplace_back("elemwise_div", std::vector<In>{{s, -2, 2}, {s, 0.5, 2}});
  cases.emplace_back("_backward_div", std::vector<In>{{s, -1, 1}, {s, -2, 2}, {s, 0.5, 2}});
  return cases;
}

WEFT_BACKEND_CASES(elemwise_broadcast) {
  std::vector<BackendCase> cases;
  const Shape big{2, 3, 4}, row{3, 1}, col{2, 1, 4};
  for (const char* op :
       {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_maximum", "broadcast_minimum",
        "broadcast_equal", "broadcast_not_equal", "broadcast_greater", "broadcast_greater_equal",
        "broadcast_lesser", "broadcast_lesser_equal"}) {
    cases.emplace_back(op, std::vector<In>{{big, -2, 2}, {row, -2, 2}});
    cases.emplace_back(op, std::vector<In>{{col, -2, 2}, {big, -2, 2}});
  }
  cases.emplace_back("broadcast_div", std::vector<In>{{big, -2, 2}, {row, 0.5, 2}});
  cases.emplace_back("broadcast_power", std::vector<In>{{big, 0.5, 2}, {col, -1, 2}});
  const Shape s{3, 5};
  for (const char* op :
       {"_equal", "_not_equal", "_greater", "_greater_equal", "_lesser", "_lesser_equal"})
    cases.emplace_back(op, std::vector<In>{{s, -1, 1}, {s, -1, 1}});
  cases.emplace_back("_power", std::vector<In>{{s, 0.5, 2}, {s, -1, 2}});
  cases.emplace_back("_backward_power", std::vector<In>{{s, -1, 1}, {s, 0.5, 2}, {s, -1, 2}});
  return cases;
}

// The broadcasting gradients: ograd summed to each operand's shape, with
// the operand of extent-1 axes on either side, of fewer axes, or the
// output's own shape.
WEFT_BACKEND_CASES(elemwise_broadcast_grad) {
  std::vector<BackendCase> cases;
  const Shape big{2, 3, 4}, row{3, 1}, col{2, 1, 4}, last{4}, one{1};
  for (const Shape& like : {row, col, last, one, big})
    cases.emplace_back("_broadcast_backward_reduce", std::vector<In>{{big, -1, 1}, {like, -1, 1}});
  for (const char* op : {"_backward_broadcast_maximum", "_backward_broadcast_minimum"}) {
    cases.emplace_back(op, std::vector<In>{{big, -1, 1}, {big, -2, 2}, {row, -2, 2}});
    cases.emplace_back(op, std::vector<In>{{big, -1, 1}, {col, -2, 2}, {big, -2, 2}});
  }
  cases.emplace_back("_backward_broadcast_div",
                     std::vector<In>{{big, -1, 1}, {big, -2, 2}, {row, 0.5, 2}});
  cases.emplace_back("_backward_broadcast_div",
                     std::vector<In>{{big, -1, 1}, {last, -2, 2}, {big, 0.5, 2}});
  cases.emplace_back("_backward_broadcast_power",
                     std::vector<In>{{big, -1, 1}, {big, 0.5, 2}, {col, -1, 2}});
  return cases;
}

WEFT_BACKEND_CASES(elemwise_scalar) {
  std::vector<BackendCase> cases;
  const Shape s{4, 9};
  const StringMap p{{"scalar", "1.75"}};
  for (const char* op :
       {"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar"})
    cases.emplace_back(op, std::vector<In>{{s, -2, 2}}, p);
  for (const char* op : {"_rdiv_scalar", "_power_scalar"})
    cases.emplace_back(op, std::vector<In>{{s, 0.5, 2}}, p);
  for (const char* op : {"_backward_rdiv_scalar", "_backward_power_scalar"})
    cases.emplace_back(op, std::vector<In>{{s, -1, 1}, {s, 0.5, 2}}, p);
  return cases;
}

WEFT_BACKEND_CASES(elemwise_math) {
  std::vector<BackendCase> cases;
  const Shape s{4, 9};
  cases.emplace_back("erf", std::vector<In>{{s, -2.5, 2.5}});
  for (const char* op : {"rsqrt", "reciprocal"})
    cases.emplace_back(op, std::vector<In>{{s, 0.5, 3}});
  cases.emplace_back("reciprocal", std::vector<In>{{s, -3, -0.5}});
  cases.emplace_back("_contrib_div_sqrt_dim", std::vector<In>{{s, -2, 2}});  // divided by 3
  cases.emplace_back("_contrib_div_sqrt_dim", std::vector<In>{{{3, 2, 5}, -2, 2}});
  cases.emplace_back("_backward_erf", std::vector<In>{{s, -1, 1}, {s, -2.5, 2.5}});
  for (const char* op : {"_backward_rsqrt", "_backward_reciprocal"})
    cases.emplace_back(op, std::vector<In>{{s, -1, 1}, {s, 0.5, 3}});
  // alpha = 0.1 is not a float32: float64 results differ by ~1e-9 unless
  // alpha and beta are rounded to float32 as on the CPU; the range reaches
  // both clipped sides.
  for (const StringMap& p : {StringMap{}, StringMap{{"alpha", "0.1"}, {"beta", "0.3"}}}) {
    cases.emplace_back("hard_sigmoid", std::vector<In>{{s, -8, 8}}, p);
    cases.emplace_back("_backward_hard_sigmoid", std::vector<In>{{s, -1, 1}, {s, -8, 8}}, p);
  }
  return cases;
}

// Values with ties (against each other and the scalars 0.5 and 6) and,
// when `nan`, NaNs: uniform draws (seeded by `seed`) from a small set.
NDArray TieValues(const Shape& s, DType t, unsigned seed, bool nan) {
  const double set[] = {-1, -0.5, 0, 0.5, 1, 6, 7, 0.5, 6, std::nan("")};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, nan ? 9 : 8);
  std::vector<double> v(s.Size());
  for (double& e : v) e = set[pick(rng)];
  return test::Array(s, v, t);
}

// Selecting ops must agree exactly, NaN with NaN; with NaNs the write
// request only (an add of NaN is NaN whatever was selected).
WEFT_BACKEND_CASES(elemwise_select) {
  std::vector<BackendCase> cases;
  const Shape s{6, 10};
  for (bool nan : {true, false}) {
    test::CompareOptions o;
    o.exact = true;
    o.add = !nan;
    for (const char* sc : {"0.5", "6"}) {
      const StringMap p{{"scalar", sc}};
      for (const char* op :
           {"_maximum_scalar", "_minimum_scalar", "_equal_scalar", "_not_equal_scalar",
            "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar", "_lesser_equal_scalar"})
        cases.emplace_back(
            op, [s, nan](DType t) { return std::vector<NDArray>{TieValues(s, t, 1, nan)}; }, p, o);
      for (const char* op : {"_backward_maximum_scalar", "_backward_minimum_scalar"})
        cases.emplace_back(
            op,
            [s, nan](DType t) {
              return std::vector<NDArray>{test::RandomArray(s, t, -1, 1, 9),
                                          TieValues(s, t, 1, nan)};
            },
            p, o);
    }
    for (const char* op : {"_maximum", "_minimum"})
      cases.emplace_back(
          op,
          [s, nan](DType t) {
            return std::vector<NDArray>{TieValues(s, t, 1, nan), TieValues(s, t, 4, nan)};
          },
          StringMap{}, o);
    for (const char* op : {"_backward_maximum", "_backward_minimum"})
      cases.emplace_back(
          op,
          [s, nan](DType t) {
            return std::vector<NDArray>{test::RandomArray(s, t, -1, 1, 9), TieValues(s, t, 1, nan),
                                        TieValues(s, t, 4, nan)};
          },
          StringMap{}, o);
  }
  return cases;
}

}  // namespace
}  // namespace weft
