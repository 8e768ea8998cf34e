// Backend cases of the inference passes' ops on plain layouts (the
// channel-blocked ones are in backend_cases_cpu.cc): _bn_fold with and
// without a bias, fix_gamma on and off, for a convolution's and a dense
// layer's weight; and _fused_Convolution with every activation, with and
// without bias and sum, strided 1x1, grouped and 1-D.
#include "util/backend_harness.h"

namespace weft {
namespace {

using test::BackendCase;
using test::In;

WEFT_BACKEND_CASES(inference_ops) {
  std::vector<BackendCase> cases;
  // _bn_fold(weight, [bias], gamma, beta, moving_mean, moving_var): the
  // variances positive.
  for (const Shape& w : {Shape{6, 3, 3, 3}, Shape{5, 7}}) {
    const Shape c{w[0]};
    for (const char* fix : {"True", "False"}) {
      cases.emplace_back("_bn_fold", std::vector<In>{{w}, {c}, {c}, {c}, {c, 0.1, 2}},
                         StringMap{{"no_bias", "True"}, {"fix_gamma", fix}, {"eps", "0.001"}});
      cases.emplace_back("_bn_fold", std::vector<In>{{w}, {c}, {c}, {c}, {c}, {c, 0.1, 2}},
                         StringMap{{"no_bias", "False"}, {"fix_gamma", fix}, {"eps", "1e-5"}});
    }
  }
  // _fused_Convolution(data, weight, [bias], [sum]).
  auto fused = [&](Shape x, Shape w, Shape y, StringMap p, bool bias, bool sum) {
    std::vector<In> in = {{x}, {w, -0.3, 0.3}};
    if (bias) in.push_back({Shape{w[0]}});
    if (sum) in.push_back({y});
    p["num_filter"] = std::to_string(w[0]);
    p["no_bias"] = bias ? "False" : "True";
    p["with_sum"] = sum ? "True" : "False";
    cases.emplace_back("_fused_Convolution", in, p);
  };
  const StringMap k3 = {{"kernel", "(3,3)"}, {"pad", "(1,1)"}};
  const StringMap relu = {{"act_type", "relu"}};
  const StringMap clip = {{"act_type", "clip"}, {"a_min", "0"}, {"a_max", "0.5"}};
  const StringMap none = {{"act_type", ""}};
  for (const StringMap& act : {relu, clip, none}) {
    StringMap p = k3;
    p.insert(act.begin(), act.end());
    for (bool bias : {true, false})
      for (bool sum : {true, false})
        fused({2, 8, 6, 5}, {12, 8, 3, 3}, {2, 12, 6, 5}, p, bias, sum);
  }
  StringMap strided = {{"kernel", "(1,1)"}, {"stride", "(2,2)"}, {"act_type", "relu"}};
  fused({2, 16, 7, 7}, {8, 16, 1, 1}, {2, 8, 4, 4}, strided, false, true);
  StringMap grouped = {{"kernel", "(3,3)"}, {"num_group", "4"},   {"pad", "(1,1)"},
                       {"stride", "(2,2)"}, {"act_type", "clip"}, {"a_min", "0"},
                       {"a_max", "6"}};
  fused({1, 8, 9, 9}, {8, 2, 3, 3}, {1, 8, 5, 5}, grouped, true, false);
  StringMap one_d = {{"kernel", "(3,)"}, {"pad", "(1,)"}, {"act_type", "relu"}};
  fused({2, 4, 11}, {6, 4, 3}, {2, 6, 11}, one_d, true, true);
  return cases;
}

}  // namespace
}  // namespace weft
