// Backend cases of the reshaping ops, identity, ElementWiseSum, the fills
// (_zeros, _ones, _full, zeros_like, ones_like) in every dtype but float16
// (compared exactly; cuda_init_test.cc compares float16's bits), integer
// copies, and quadratic.
#include "util/backend_harness.h"

namespace weft {
namespace {

using test::BackendCase;
using test::In;

WEFT_BACKEND_CASES(shape_ops) {
  std::vector<BackendCase> cases;
  cases.emplace_back("Flatten", std::vector<In>{{{2, 3, 4}}});
  cases.emplace_back("Reshape", std::vector<In>{{{2, 3, 4}}}, StringMap{{"shape", "(4,-1)"}});
  cases.emplace_back("reshape_like", std::vector<In>{{{2, 3, 4}}, {{6, 4}}});
  cases.emplace_back("expand_dims", std::vector<In>{{{2, 3}}}, StringMap{{"axis", "1"}});
  cases.emplace_back("squeeze", std::vector<In>{{{2, 1, 3}}});
  cases.emplace_back("identity", std::vector<In>{{{5, 7}}});
  for (int n : {1, 2, 4})
    cases.emplace_back("ElementWiseSum", std::vector<In>(static_cast<size_t>(n), In{{3, 257}}),
                       StringMap{{"num_args", std::to_string(n)}});
  // Integer data is copied exactly (write only: adds are float-only).
  test::CompareOptions ints;
  ints.exact = true;
  ints.add = false;
  for (const char* op : {"Flatten", "identity"}) {
    BackendCase c(
        op,
        [](DType) {
          return test::RunCpu("Cast", {test::RandomArray({2, 3, 4}, DType::kFloat64, -50, 50, 4)},
                              {{"dtype", "int32"}});
        },
        {}, ints);
    c.dtypes = {DType::kInt32};
    cases.push_back(c);
  }
  return cases;
}

WEFT_BACKEND_CASES(fills) {
  std::vector<BackendCase> cases;
  test::CompareOptions exact;
  exact.exact = true;
  const Shape s{2, 3, 5};
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kUint8, DType::kInt8, DType::kInt32,
                  DType::kInt64}) {
    const std::string shape = s.ToString(), dtype = DTypeName(t);
    const std::vector<std::pair<std::string, StringMap>> fills = {
        {"_zeros", {{"shape", shape}, {"dtype", dtype}}},
        {"_ones", {{"shape", shape}, {"dtype", dtype}}},
        {"_full", {{"shape", shape}, {"dtype", dtype}, {"value", "2.75"}}},
    };
    for (const auto& [op, p] : fills) {
      BackendCase c(
          op, [](DType) { return std::vector<NDArray>{}; }, p, exact);
      c.dtypes = {t};
      cases.push_back(c);
    }
    // The *_like fills take their shape and dtype from a [0, 4) input.
    for (const char* op : {"zeros_like", "ones_like"}) {
      BackendCase c(
          op,
          [s](DType t) {
            return test::RunCpu("Cast", {test::RandomArray(s, DType::kFloat64, 0, 4, 3)},
                                {{"dtype", DTypeName(t)}});
          },
          {}, exact);
      c.dtypes = {t};
      cases.push_back(c);
    }
  }
  return cases;
}

WEFT_BACKEND_CASES(quadratic) {
  const StringMap p{{"a", "1.5"}, {"b", "-2"}, {"c", "0.25"}};
  return {BackendCase("quadratic", {{{1000}, -3, 3}}, p),
          BackendCase("_backward_quadratic", {{{1000}, -1, 1}, {{1000}, -3, 3}}, p)};
}

}  // namespace
}  // namespace weft
