// Backend cases of the optimizer updates, the reductions, transpose,
// Concat/SliceChannel, Dropout (inference and p = 0, where it is
// deterministic) and Embedding: forward and backward, float32 and float64,
// write and add requests.
#include "util/backend_harness.h"

namespace weft {
namespace {

using test::BackendCase;
using test::BackwardCase;
using test::In;
using test::OgradData;
using test::OgradDataOut;
using test::OgradInputs;

WEFT_BACKEND_CASES(optimizer_updates) {
  std::vector<BackendCase> cases;
  const Shape s{37, 29};
  const StringMap base = {{"lr", "0.1"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}};
  for (const char* clip : {"-1", "0.3"}) {
    StringMap p = base;
    p["clip_gradient"] = clip;
    cases.emplace_back("sgd_update", std::vector<In>{{s}, {s, -2, 2}}, p);
    p["momentum"] = "0.9";
    cases.emplace_back("sgd_mom_update", std::vector<In>{{s}, {s, -2, 2}, {s}}, p);
    StringMap a = base;
    a["clip_gradient"] = clip;
    a["beta1"] = "0.8";
    a["epsilon"] = "1e-6";
    cases.emplace_back("adam_update", std::vector<In>{{s}, {s, -2, 2}, {s}, {s, 0, 1}}, a);
  }
  return cases;
}

WEFT_BACKEND_CASES(reductions) {
  std::vector<BackendCase> cases;
  const std::vector<StringMap> axes = {
      {},
      {{"axis", "1"}},
      {{"axis", "(0,2)"}},
      {{"axis", "(1,)"}, {"exclude", "True"}},
      {{"axis", "-1"}, {"keepdims", "True"}},
  };
  const std::vector<In> data = {{{3, 4, 5}, 0.5, 1.5}};
  for (const std::string op : {"sum", "mean", "max", "min", "prod", "nansum", "nanprod"}) {
    const bool with_out = op != "sum" && op != "mean";
    for (const StringMap& p : axes) {
      cases.emplace_back(op, data, p);
      cases.push_back(
          BackwardCase(op, "_backward_" + op, data, p, with_out ? OgradDataOut : OgradData));
    }
  }
  for (const char* ord : {"1", "2"}) {
    const StringMap p = {{"ord", ord}, {"axis", "1"}};
    const std::vector<In> signed_data = {{{3, 4, 5}, -1, 1}};
    cases.emplace_back("norm", signed_data, p);
    cases.push_back(BackwardCase("norm", "_backward_norm", signed_data, p, OgradDataOut));
  }
  // Long reductions (every thread of a GPU block busy) over the inner and
  // the outer axis, and over everything.
  for (const StringMap& p : std::vector<StringMap>{{{"axis", "1"}}, {{"axis", "0"}}, {}}) {
    cases.emplace_back("sum", std::vector<In>{{{6, 3001}}}, p);
    cases.emplace_back("max", std::vector<In>{{{3001, 6}}}, p);
    cases.push_back(BackwardCase("mean", "_backward_mean", {{{6, 3001}}}, p, OgradData));
  }
  return cases;
}

WEFT_BACKEND_CASES(transpose_concat_slice) {
  std::vector<BackendCase> cases;
  cases.emplace_back("transpose", std::vector<In>{{{2, 3, 4}}});
  cases.emplace_back("transpose", std::vector<In>{{{2, 3, 4}}}, StringMap{{"axes", "(1,0,2)"}});
  cases.emplace_back("transpose", std::vector<In>{{{2, 3, 4, 5}}},
                     StringMap{{"axes", "(3,1,0,2)"}});
  cases.emplace_back("transpose", std::vector<In>{{{6, 7}}}, StringMap{{"axes", "(1,0)"}});
  const std::vector<std::pair<std::vector<In>, StringMap>> joins = {
      {{{{2, 3, 4}}, {{2, 5, 4}}}, {{"dim", "1"}, {"num_args", "2"}}},
      {{{{1, 3, 4}}, {{2, 3, 4}}, {{3, 3, 4}}}, {{"dim", "0"}, {"num_args", "3"}}},
      {{{{2, 3, 1}}, {{2, 3, 4}}}, {{"dim", "-1"}, {"num_args", "2"}}},
  };
  for (const auto& [in, p] : joins) {
    cases.emplace_back("Concat", in, p);
    cases.push_back(BackwardCase("Concat", "_backward_Concat", in, p, OgradInputs));
  }
  cases.emplace_back("SliceChannel", std::vector<In>{{{2, 6, 4}}},
                     StringMap{{"num_outputs", "3"}, {"axis", "1"}});
  cases.emplace_back("SliceChannel", std::vector<In>{{{2, 3, 4}}},
                     StringMap{{"num_outputs", "3"}, {"axis", "1"}, {"squeeze_axis", "True"}});
  cases.emplace_back("SliceChannel", std::vector<In>{{{4, 3}}},
                     StringMap{{"num_outputs", "2"}, {"axis", "0"}});
  return cases;
}

WEFT_BACKEND_CASES(dropout) {
  std::vector<BackendCase> cases;
  // Inference (and p = 0 in training) is the identity with a mask of ones.
  cases.emplace_back("Dropout", std::vector<In>{{{3, 50}}}, StringMap{{"p", "0.5"}});
  test::CompareOptions train;
  train.train = true;
  cases.emplace_back("Dropout", std::vector<In>{{{3, 50}}}, StringMap{{"p", "0"}}, train);
  // The gradient is ograd * mask, for a mask of 0 and 1 / (1 - 0.3).
  cases.emplace_back("_backward_Dropout", [](DType t) {
    std::vector<double> mask(600);
    for (size_t i = 0; i < mask.size(); ++i) mask[i] = (i * 7) % 10 < 3 ? 0 : 1 / 0.7;
    return std::vector<NDArray>{test::RandomArray({20, 30}, t, -1, 1, 6),
                                test::Array({20, 30}, mask, t)};
  });
  return cases;
}

WEFT_BACKEND_CASES(embedding) {
  std::vector<BackendCase> cases;
  // Float indices in [-1, 7): truncated, then clipped to [0, 5), as MXNet;
  // the weight's dtype is the op's `dtype` parameter.
  const std::vector<In> in = {{{4, 6}, -1, 7}, {{5, 3}}};
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    const StringMap p = {{"input_dim", "5"}, {"output_dim", "3"}, {"dtype", DTypeName(t)}};
    BackendCase fwd("Embedding", in, p);
    fwd.dtypes = {t};
    cases.push_back(fwd);
    BackendCase bwd(
        "_backward_Embedding",
        [in](DType t) {
          return std::vector<NDArray>{test::RandomArray({4, 6, 3}, t, -1, 1, 9),
                                      test::Randoms(in, t, 1)[0]};
        },
        p);
    bwd.dtypes = {t};
    cases.push_back(bwd);
  }
  // Integer indices, compared exactly.
  test::CompareOptions exact;
  exact.exact = true;
  BackendCase ints(
      "Embedding",
      [](DType) {
        const NDArray idx = test::RunCpu(
            "Cast", {test::RandomArray({10}, DType::kFloat64, 0, 5, 3)}, {{"dtype", "int32"}})[0];
        return std::vector<NDArray>{idx, test::RandomArray({5, 3}, DType::kFloat32, -1, 1, 4)};
      },
      {{"input_dim", "5"}, {"output_dim", "3"}}, exact);
  ints.dtypes = {DType::kFloat32};
  cases.push_back(ints);
  return cases;
}

}  // namespace
}  // namespace weft
