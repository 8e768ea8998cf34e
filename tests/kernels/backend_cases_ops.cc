// Backend cases of the optimizer updates, the reductions, transpose,
// Concat/SliceChannel, Dropout (inference and p = 0, where it is
// deterministic) and Embedding: forward and backward, float32 and float64,
// write and add requests.
#include <random>

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

// _contrib_ROIAlign on a (2, C, 8, 8) map at spatial_scale 0.5: ROIs in
// both images, one reaching past the map, one with a fractional corner and
// one with batch index -1 (no taps: zeros); adaptive and fixed sampling,
// aligned, and position-sensitive channels. Its backward takes (ograd,
// rois, data).
WEFT_BACKEND_CASES(roi_align) {
  std::vector<BackendCase> cases;
  const std::vector<double> boxes = {0,  1,   1,   10, 12,  //
                                     1,  0,   2,   15, 9,   //
                                     0,  3.5, 4.2, 6,  14,  //
                                     1,  9,   6,   21, 19,  //
                                     -1, 0,   0,   4,  4};
  const std::vector<StringMap> params = {
      {{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}},
      {{"pooled_size", "(3,2)"}, {"spatial_scale", "0.5"}, {"sample_ratio", "2"}},
      {{"pooled_size", "(2,3)"}, {"spatial_scale", "0.5"}, {"aligned", "True"}},
      {{"pooled_size", "(2,2)"}, {"spatial_scale", "0.5"}, {"position_sensitive", "True"}},
  };
  for (const StringMap& p : params) {
    const bool ps = p.count("position_sensitive") > 0;
    const Shape data{2, ps ? 12 : 3, 8, 8};
    auto inputs = [boxes, data](DType t) {
      return std::vector<NDArray>{test::RandomArray(data, t, -1, 1, 5),
                                  test::Array({5, 5}, boxes, t)};
    };
    cases.emplace_back("_contrib_ROIAlign", inputs, p);
    cases.emplace_back(
        "_backward_ROIAlign",
        [inputs, p](DType t) {
          const std::vector<NDArray> x = inputs(t);
          const Shape out = test::RunCpu("_contrib_ROIAlign", x, p)[0].shape();
          return std::vector<NDArray>{test::RandomArray(out, t, -1, 1, 6), x[1], x[0]};
        },
        p);
  }
  return cases;
}

// _contrib_box_nms on 2 batches of 40 rows (id, score, x1, y1, x2, y2):
// scores from a small set (ties keep the input order), some below
// valid_thresh, classes 0..2 with 0 as the background in one case; per
// class and forced suppression, topk, center input and output, topk = 0
// (the data unchanged). Compared exactly: the ops select and copy rows.
// Its backward takes (ograd, the index output).
NDArray NMSBoxes(DType t) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(0, 10);
  const double scores[] = {0.05, 0.3, 0.3, 0.45, 0.6, 0.9, 0.9};
  std::vector<double> v;
  for (int i = 0; i < 80; ++i) {
    const double x = u(rng), y = u(rng);
    v.insert(v.end(), {static_cast<double>(rng() % 3), scores[rng() % 7], x, y, x + 1 + u(rng) / 3,
                       y + 1 + u(rng) / 3});
  }
  return test::Array({2, 40, 6}, v, t);
}

WEFT_BACKEND_CASES(box_nms) {
  std::vector<BackendCase> cases;
  const StringMap base = {{"overlap_thresh", "0.3"}, {"valid_thresh", "0.1"}, {"topk", "-1"}};
  const std::vector<StringMap> params = {
      test::With(base, {}),
      test::With(base, {{"id_index", "0"}}),
      test::With(base, {{"id_index", "0"}, {"force_suppress", "True"}, {"topk", "12"}}),
      test::With(base, {{"id_index", "0"}, {"background_id", "0"}}),
      test::With(base, {{"in_format", "center"}, {"out_format", "corner"}}),
      test::With(base, {{"out_format", "center"}}),
      test::With(base, {{"topk", "0"}}),
  };
  test::CompareOptions o;
  o.exact = true;
  for (const StringMap& p : params) {
    cases.emplace_back(
        "_contrib_box_nms", [](DType t) { return std::vector<NDArray>{NMSBoxes(t)}; }, p, o);
    cases.emplace_back(
        "_backward_contrib_box_nms",
        [p](DType t) {
          const std::vector<NDArray> y = test::RunCpu("_contrib_box_nms", {NMSBoxes(t)}, p);
          return std::vector<NDArray>{test::RandomArray(y[0].shape(), t, -1, 1, 9), y[1]};
        },
        p);
  }
  return cases;
}

// _contrib_MultiBoxPrior on a (1, 2, 5, 7) map (sizes, ratios, steps,
// offsets, clip) and _contrib_MultiBoxDetection on its anchors: 2 batches,
// 4 classes, softmax-like probabilities from a small set (ties), clipping,
// per-class and forced suppression, nms_topk, and an nms_threshold outside
// (0, 1] (no suppression).
WEFT_BACKEND_CASES(multibox) {
  std::vector<BackendCase> cases;
  const StringMap prior = {{"sizes", "(0.3,0.6)"}, {"ratios", "(1,2,0.5)"}, {"clip", "True"}};
  // Anchors are computed in float for every dtype (as MXNet does): float64
  // outputs carry float's rounding, which a device's fused multiply-adds
  // round differently (measured on an H200: 1 ulp of float).
  test::CompareOptions in_float;
  in_float.rtol64 = 1e-6;
  cases.emplace_back("_contrib_MultiBoxPrior", std::vector<In>{{{1, 2, 5, 7}}}, prior, in_float);
  cases.emplace_back(
      "_contrib_MultiBoxPrior", std::vector<In>{{{1, 1, 3, 4}}},
      StringMap{{"sizes", "(0.5,)"}, {"steps", "(0.2,0.25)"}, {"offsets", "(0.25,0.75)"}},
      in_float);
  auto inputs = [prior](DType t) {
    const NDArray anchors = test::RunCpu("_contrib_MultiBoxPrior",
                                         {test::RandomArray({1, 2, 5, 7}, t, 0, 1, 1)}, prior)[0];
    const int64_t na = anchors.shape()[1];
    std::mt19937 rng(23);
    const double levels[] = {0.05, 0.2, 0.2, 0.4, 0.7, 0.7, 0.9};
    std::vector<double> prob(static_cast<size_t>(2 * 4 * na));
    for (double& v : prob) v = levels[rng() % 7];
    return std::vector<NDArray>{test::Array({2, 4, na}, prob, t),
                                test::RandomArray({2, na * 4}, t, -0.5, 0.5, 2), anchors};
  };
  const StringMap base = {{"threshold", "0.1"}, {"nms_threshold", "0.45"}};
  for (const StringMap& p :
       {test::With(base, {}), test::With(base, {{"clip", "False"}}),
        test::With(base, {{"force_suppress", "True"}}), test::With(base, {{"nms_topk", "20"}}),
        test::With(base, {{"nms_threshold", "1.5"}})})
    cases.emplace_back("_contrib_MultiBoxDetection", inputs, p);
  return cases;
}

}  // namespace
}  // namespace weft
