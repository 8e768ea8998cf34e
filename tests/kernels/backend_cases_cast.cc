// Backend cases of Cast, amp_cast, amp_multicast and their gradient ops:
// float32 and float64 data to every dtype (integers from non-negative
// values, which every dtype holds), float16 and bfloat16 data back to
// float32, and mixed dtypes through amp_multicast; compared exactly, with
// write and add requests (integers and reduced floats add as on the CPU).
#include <functional>
#include <string>

#include "util/backend_harness.h"

namespace weft {
namespace {

using test::BackendCase;
using test::In;

// `n` values in [lo, hi) of dtype `t`, made on the CPU (reduced floats by a
// CPU Cast, so they are exactly representable).
NDArray Data(const Shape& s, DType t, double lo, double hi, unsigned seed) {
  return test::RunCpu("Cast", {test::RandomArray(s, DType::kFloat64, lo, hi, seed)},
                      {{"dtype", DTypeName(t)}})[0];
}

bool IsFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 ||
         t == DType::kBFloat16;
}

WEFT_BACKEND_CASES(cast) {
  std::vector<BackendCase> cases;
  test::CompareOptions exact;
  exact.exact = true;
  const Shape s{3, 5, 7};
  auto add = [&](const std::string& op, std::function<std::vector<NDArray>()> make,
                 const StringMap& p) {
    BackendCase c(
        op, [make](DType) { return make(); }, p, exact);
    c.dtypes = {DType::kFloat32};
    cases.push_back(c);
  };
  for (DType to : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                   DType::kInt32, DType::kInt64, DType::kInt8, DType::kUint8}) {
    const double lo = IsFloat(to) ? -3 : 0, hi = IsFloat(to) ? 3 : 100;
    const StringMap p = {{"dtype", DTypeName(to)}};
    // Forward: float32 and float64 data to `to` (amp_cast takes float targets).
    for (const char* op : {"Cast", "amp_cast"})
      if (std::string(op) == "Cast" || IsFloat(to))
        cases.emplace_back(op, std::vector<In>{{s, lo, hi}}, p, exact);
    // Backward (ograd, data): an ograd of the forward's output dtype `to`
    // back to float32 data's dtype.
    for (const char* op : {"_backward_Cast", "_backward_amp_cast"})
      if (std::string(op) == "_backward_Cast" || IsFloat(to))
        add(
            op,
            [=] {
              return std::vector<NDArray>{Data(s, to, lo, hi, 8),
                                          Data(s, DType::kFloat32, lo, hi, 9)};
            },
            p);
  }
  // Reduced floats and integers back to float32 (amp_cast passes integers).
  for (DType from : {DType::kFloat16, DType::kBFloat16, DType::kInt32, DType::kUint8})
    for (const char* op : {"Cast", "amp_cast"})
      add(op, [=] { return std::vector<NDArray>{Data(s, from, 0, 60, 5)}; },
          {{"dtype", "float32"}});
  // amp_multicast: float16 and float64 inputs to the widest (float64), and
  // with cast_narrow to the narrowest (float16); its gradient takes the
  // ograds, then the forward's inputs. (No float32 input to the forward: the
  // reduced-float table of reduced_precision_test.cc rounds those.)
  for (const char* narrow : {"False", "True"}) {
    const StringMap p = {{"num_outputs", "2"}, {"cast_narrow", narrow}};
    add(
        "amp_multicast",
        [=] {
          return std::vector<NDArray>{Data(s, DType::kFloat16, -2, 2, 6),
                                      Data(s, DType::kFloat64, -2, 2, 7)};
        },
        p);
    add(
        "_backward_amp_multicast",
        [=] {
          return std::vector<NDArray>{
              Data(s, DType::kFloat32, -2, 2, 10), Data(s, DType::kFloat32, -2, 2, 11),
              Data(s, DType::kFloat16, -2, 2, 6), Data(s, DType::kFloat32, -2, 2, 7)};
        },
        p);
  }
  return cases;
}

}  // namespace
}  // namespace weft
