// Backend cases of the neural-network ops (the CPU reference against the
// CUDA/cuDNN/cuBLAS kernels on a GPU machine): forward and backward, float32
// and float64, write and add requests.
#include "util/backend_harness.h"

namespace weft {
namespace {

using test::BackendCase;
using test::BackwardCase;
using test::In;
using test::OgradData;
using test::OgradDataWeight;
using test::OgradInputs;
using test::OgradOutput;

// `op` and `_backward_<op>` (inputs from `make`) on the same inputs.
void Both(std::vector<BackendCase>* cases, const std::string& op, const std::vector<In>& in,
          const StringMap& p, test::BackwardInputs make, test::CompareOptions o = {}) {
  cases->emplace_back(op, in, p, o);
  cases->push_back(BackwardCase(op, "_backward_" + op, in, p, make, o));
}

WEFT_BACKEND_CASES(nn_dense_conv) {
  std::vector<BackendCase> cases;
  // FullyConnected: flattened, no bias, flatten=False.
  Both(&cases, "FullyConnected", {{{4, 3, 5}}, {{7, 15}}, {{7}}}, {{"num_hidden", "7"}},
       OgradDataWeight);
  Both(&cases, "FullyConnected", {{{4, 15}}, {{7, 15}}}, {{"num_hidden", "7"}, {"no_bias", "True"}},
       OgradDataWeight);
  Both(&cases, "FullyConnected", {{{4, 3, 5}}, {{6, 5}}, {{6}}},
       {{"num_hidden", "6"}, {"flatten", "False"}}, OgradDataWeight);
  // Convolution: 2-D with groups and asymmetric stride/pad/dilate; 1-D;
  // depthwise without bias; 1x1.
  Both(&cases, "Convolution", {{{2, 4, 7, 6}}, {{6, 2, 3, 3}}, {{6}}},
       {{"kernel", "(3,3)"},
        {"stride", "(2,1)"},
        {"pad", "(1,0)"},
        {"dilate", "(1,2)"},
        {"num_filter", "6"},
        {"num_group", "2"}},
       OgradDataWeight);
  Both(&cases, "Convolution", {{{2, 3, 9}}, {{4, 3, 3}}, {{4}}},
       {{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}, {"num_filter", "4"}},
       OgradDataWeight);
  Both(&cases, "Convolution", {{{1, 4, 5, 5}}, {{4, 1, 3, 3}}},
       {{"kernel", "(3,3)"},
        {"pad", "(1,1)"},
        {"num_filter", "4"},
        {"num_group", "4"},
        {"no_bias", "True"}},
       OgradDataWeight);
  Both(&cases, "Convolution", {{{2, 3, 4, 4}}, {{5, 3, 1, 1}}, {{5}}},
       {{"kernel", "(1,1)"}, {"num_filter", "5"}}, OgradDataWeight);
  // Deconvolution: upsampling with bias and adj; groups and dilation without
  // bias (MXNet's default); target_shape deciding the pad; 1-D.
  Both(&cases, "Deconvolution", {{{2, 3, 5, 5}}, {{3, 4, 3, 3}}, {{4}}},
       {{"kernel", "(3,3)"},
        {"stride", "(2,2)"},
        {"pad", "(1,1)"},
        {"adj", "(1,1)"},
        {"num_filter", "4"},
        {"no_bias", "False"}},
       OgradDataWeight);
  Both(&cases, "Deconvolution", {{{2, 4, 4, 5}}, {{4, 3, 3, 3}}},
       {{"kernel", "(3,3)"},
        {"stride", "(1,2)"},
        {"dilate", "(2,1)"},
        {"num_filter", "6"},
        {"num_group", "2"}},
       OgradDataWeight);
  Both(&cases, "Deconvolution", {{{1, 3, 4, 4}}, {{3, 2, 4, 4}}},
       {{"kernel", "(4,4)"}, {"stride", "(2,2)"}, {"target_shape", "(8,8)"}, {"num_filter", "2"}},
       OgradDataWeight);
  Both(&cases, "Deconvolution", {{{2, 4, 6}}, {{4, 3, 3}}, {{3}}},
       {{"kernel", "(3,)"}, {"stride", "(2,)"}, {"num_filter", "3"}, {"no_bias", "False"}},
       OgradDataWeight);
  return cases;
}

WEFT_BACKEND_CASES(nn_pooling) {
  std::vector<BackendCase> cases;
  const std::vector<StringMap> params = {
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pool_type", "max"}},
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "avg"}},
      {{"kernel", "(3,3)"},
       {"stride", "(2,2)"},
       {"pad", "(1,1)"},
       {"pool_type", "avg"},
       {"count_include_pad", "False"}},
      {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "sum"}},
      // full with a partial last window on W (direct kernels) and not on H.
      {{"kernel", "(3,3)"},
       {"stride", "(2,2)"},
       {"pool_type", "max"},
       {"pooling_convention", "full"}},
      {{"kernel", "(3,3)"},
       {"stride", "(2,2)"},
       {"pad", "(1,1)"},
       {"pool_type", "avg"},
       {"pooling_convention", "full"}},
      {{"global_pool", "True"}, {"pool_type", "max"}},
      {{"global_pool", "True"}, {"pool_type", "avg"}},
      // Windows wholly in the padding, and cudnn_off: direct kernels.
      {{"kernel", "(2,2)"}, {"stride", "(1,1)"}, {"pad", "(2,2)"}, {"pool_type", "max"}},
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pool_type", "avg"}, {"cudnn_off", "True"}},
  };
  for (const StringMap& p : params) Both(&cases, "Pooling", {{{2, 3, 7, 8}, -2, 2}}, p, OgradData);
  Both(&cases, "Pooling", {{{2, 3, 10}}},
       {{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pool_type", "max"}}, OgradData);
  return cases;
}

WEFT_BACKEND_CASES(nn_activation) {
  std::vector<BackendCase> cases;
  for (const char* act : {"relu", "sigmoid", "tanh", "softrelu", "softsign"}) {
    const std::vector<In> data = {{{3, 4, 5}, -3, 3}};
    const StringMap p = {{"act_type", act}};
    Both(&cases, "Activation", data, p,
         [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>& y) {
           return std::vector<NDArray>{og, x[0], y[0]};
         });
  }
  for (const char* act : {"leaky", "rrelu", "elu", "selu", "gelu"})
    Both(&cases, "LeakyReLU", {{{3, 4, 5}, -3, 3}}, {{"act_type", act}, {"slope", "0.3"}},
         OgradInputs);
  // prelu: gamma per channel (axis 1) and shared; its gradient too.
  Both(&cases, "LeakyReLU", {{{3, 4, 5, 2}, -3, 3}, {{4}, 0.1, 0.5}}, {{"act_type", "prelu"}},
       OgradInputs);
  Both(&cases, "LeakyReLU", {{{3, 4, 5}, -3, 3}, {{1}, 0.1, 0.5}}, {{"act_type", "prelu"}},
       OgradInputs);
  return cases;
}

WEFT_BACKEND_CASES(nn_batchnorm) {
  std::vector<BackendCase> cases;
  struct C {
    StringMap p;
    Shape data;
    int64_t c;
    bool train;
  };
  const std::vector<C> params = {
      {{}, {4, 3, 5, 2}, 3, true},
      {{{"fix_gamma", "False"}}, {4, 3, 5, 2}, 3, true},
      {{{"fix_gamma", "False"}, {"output_mean_var", "True"}}, {4, 3, 5, 2}, 3, true},
      {{{"fix_gamma", "False"}}, {4, 3, 5, 2}, 3, false},
      {{{"fix_gamma", "False"}, {"use_global_stats", "True"}, {"output_mean_var", "True"}},
       {4, 3, 5, 2},
       3,
       true},
      {{{"fix_gamma", "False"}, {"momentum", "0.7"}, {"eps", "1e-5"}}, {6, 4}, 4, true},
      {{{"fix_gamma", "False"}, {"axis", "-1"}}, {2, 3, 4}, 4, true},
  };
  for (const C& c : params) {
    // data, gamma, beta, moving mean, moving var (the last two updated in training).
    const std::vector<In> in = {
        {c.data, -2, 2}, {{c.c}, 0.5, 1.5}, {{c.c}, -1, 1}, {{c.c}, -0.5, 0.5}, {{c.c}, 0.5, 1.5}};
    test::CompareOptions o;
    o.train = c.train;
    Both(
        &cases, "BatchNorm", in, c.p,
        [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
          return std::vector<NDArray>{og, x[0], x[1], x[3], x[4]};
        },
        o);
  }
  return cases;
}

WEFT_BACKEND_CASES(nn_softmax) {
  std::vector<BackendCase> cases;
  const std::vector<std::pair<std::string, StringMap>> params = {
      {"softmax", {}},
      {"softmax", {{"axis", "1"}}},
      {"softmax", {{"axis", "0"}, {"temperature", "2.5"}}},
      {"log_softmax", {}},
      {"log_softmax", {{"axis", "1"}, {"temperature", "0.5"}}},
      {"SoftmaxActivation", {}},
      {"SoftmaxActivation", {{"mode", "channel"}}},
  };
  for (const auto& [op, p] : params) Both(&cases, op, {{{3, 5, 4}, -3, 3}}, p, OgradOutput);
  return cases;
}

// SoftmaxOutput with class labels (i * 7 + 3) % classes, and its backward on
// (ograd, output, label).
WEFT_BACKEND_CASES(nn_softmax_output) {
  std::vector<BackendCase> cases;
  struct C {
    StringMap p;
    Shape data, label;
  };
  const std::vector<C> params = {
      {{}, {6, 5}, {6}},
      {{{"use_ignore", "True"}, {"ignore_label", "2"}, {"normalization", "valid"}}, {6, 5}, {6}},
      {{{"multi_output", "True"}, {"normalization", "batch"}, {"grad_scale", "2"}},
       {2, 3, 4},
       {2, 4}},
      {{{"preserve_shape", "True"}, {"smooth_alpha", "0.1"}, {"out_grad", "True"}},
       {2, 3, 4},
       {2, 3}},
      {{{"multi_output", "True"}, {"smooth_alpha", "0.2"}}, {2, 3, 4}, {2, 4}},
      {{{"multi_output", "True"},
        {"use_ignore", "True"},
        {"ignore_label", "1"},
        {"normalization", "valid"}},
       {2, 3, 4},
       {2, 4}},
      {{{"normalization", "batch"}, {"use_ignore", "True"}, {"ignore_label", "3"}}, {6, 5}, {6}},
  };
  for (const C& c : params) {
    auto data_label = [c](DType t) {
      const int64_t classes = c.p.count("multi_output") ? c.data[1] : c.data[c.data.ndim() - 1];
      std::vector<double> labels(static_cast<size_t>(c.label.Size()));
      for (size_t i = 0; i < labels.size(); ++i)
        labels[i] = static_cast<double>((i * 7 + 3) % classes);
      return std::vector<NDArray>{test::RandomArray(c.data, t, -3, 3, 5),
                                  test::Array(c.label, labels, t)};
    };
    cases.emplace_back("SoftmaxOutput", data_label, c.p);
    cases.emplace_back(
        "_backward_SoftmaxOutput",
        [c, data_label](DType t) {
          const std::vector<NDArray> x = data_label(t);
          const NDArray y = test::RunCpu("SoftmaxOutput", x, c.p)[0];
          return std::vector<NDArray>{test::RandomArray(c.data, t, -1, 1, 6), y, x[1]};
        },
        c.p);
  }
  // Probability labels (shaped as the data), with and without out_grad.
  for (const StringMap& p : {StringMap{}, StringMap{{"out_grad", "True"}, {"grad_scale", "0.5"}}}) {
    cases.emplace_back(
        "_backward_SoftmaxOutput",
        [p](DType t) {
          const NDArray x = test::RandomArray({4, 6}, t, -3, 3, 7);
          const NDArray y =
              test::RunCpu("SoftmaxOutput", {x, test::RandomArray({4}, t, 0, 0, 1)}, p)[0];
          const NDArray prob =
              test::RunCpu("softmax", {test::RandomArray({4, 6}, t, -1, 1, 8)}, {})[0];
          return std::vector<NDArray>{test::RandomArray({4, 6}, t, -1, 1, 9), y, prob};
        },
        p);
  }
  return cases;
}

// LayerNorm: default and inner axes, the mean/std outputs, rows longer than
// a GPU block and enough rows for several partial-sum chunks in the
// backward; its backward takes (ograd, data, gamma).
WEFT_BACKEND_CASES(nn_layernorm) {
  std::vector<BackendCase> cases;
  struct C {
    Shape data;
    int axis;
    bool mean_var;
  };
  const std::vector<C> params = {
      {{4, 7}, -1, false},      // short rows
      {{3, 5, 6}, -1, true},    // with mean and std
      {{2, 1000}, -1, true},    // rows longer than a block
      {{300, 33}, 1, false},    // several chunks of rows; C not a multiple of 32
      {{2, 5, 3, 4}, 1, true},  // an inner axis (strided rows)
      {{6, 2, 3}, 0, false},    // the first axis
      {{1, 1}, -1, true},       // one element: var 0
  };
  for (const C& c : params) {
    const int ax = c.axis < 0 ? c.axis + c.data.ndim() : c.axis;
    const Shape g({c.data[ax]});
    const StringMap p{{"axis", std::to_string(c.axis)},
                      {"output_mean_var", c.mean_var ? "True" : "False"},
                      {"eps", "1e-3"}};
    cases.emplace_back("LayerNorm", std::vector<In>{{c.data, -2, 3}, {g, 0.5, 1.5}, {g, -1, 1}}, p);
    cases.emplace_back("_backward_LayerNorm",
                       std::vector<In>{{c.data, -1, 1}, {c.data, -2, 3}, {g, 0.5, 1.5}}, p);
  }
  cases.emplace_back("LayerNorm", std::vector<In>{{{8, 64}}, {{64}}, {{64}}});
  cases.emplace_back("_backward_LayerNorm", std::vector<In>{{{8, 64}}, {{8, 64}}, {{64}}});
  return cases;
}

// GroupNorm: one group and several, the mean/std outputs, groups longer than
// a GPU block, several groups sharing a gamma/beta across the batch; gamma
// and beta are (num_groups,); its backward takes (ograd, data, gamma).
WEFT_BACKEND_CASES(nn_groupnorm) {
  std::vector<BackendCase> cases;
  struct C {
    Shape data;
    int groups;
    bool mean_var;
  };
  const std::vector<C> params = {
      {{2, 4, 3}, 1, false},       // one group per sample
      {{3, 6, 2, 2}, 3, true},     // with mean and std
      {{2, 8, 16, 16}, 2, false},  // groups longer than a block
      {{5, 4, 1, 3}, 4, true},     // one channel per group
  };
  for (const C& c : params) {
    const Shape g({c.groups});
    const StringMap p{{"num_groups", std::to_string(c.groups)},
                      {"output_mean_var", c.mean_var ? "True" : "False"},
                      {"eps", "1e-3"}};
    cases.emplace_back("GroupNorm", std::vector<In>{{c.data, -2, 3}, {g, 0.5, 1.5}, {g, -1, 1}}, p);
    cases.emplace_back("_backward_GroupNorm",
                       std::vector<In>{{c.data, -1, 1}, {c.data, -2, 3}, {g, 0.5, 1.5}}, p);
  }
  return cases;
}

// SequenceMask on (T=5, N=4, 3) along axis 0 and (N=4, T=5, 3) along axis 1,
// without lengths, with fractional lengths (truncated) and with integer
// ones (0 and T included); and on two dimensions.
WEFT_BACKEND_CASES(nn_sequence_mask) {
  std::vector<BackendCase> cases;
  for (const std::string axis : {"0", "1"}) {
    const Shape s = axis == "0" ? Shape({5, 4, 3}) : Shape({4, 5, 3});
    cases.emplace_back("SequenceMask", std::vector<In>{{s, -2, 2}},
                       StringMap{{"axis", axis}, {"value", "-7.5"}});
    const StringMap p{{"axis", axis}, {"value", "-7.5"}, {"use_sequence_length", "True"}};
    cases.emplace_back(
        "SequenceMask",
        [s](DType t) {
          return std::vector<NDArray>{test::RandomArray(s, t, -2, 2, 3),
                                      test::Array({4}, {2, 0, 5, 3.7}, t)};
        },
        p);
    cases.emplace_back(
        "SequenceMask",
        [s](DType t) {
          return std::vector<NDArray>{test::RandomArray(s, t, -2, 2, 3),
                                      test::Array({4}, {1, 5, 0, 4}, DType::kInt32)};
        },
        p);
  }
  cases.emplace_back(
      "SequenceMask",
      [](DType t) {
        return std::vector<NDArray>{test::RandomArray({6, 3}, t, -1, 1, 5),
                                    test::Array({3}, {6, 1, 3}, t)};
      },
      StringMap{{"use_sequence_length", "True"}});
  return cases;
}

// The interleaved attention matmuls (BERT's exports): self-attention on
// qkv (L=5, B=2, heads=3 * 3 * D=4) and encoder-decoder on queries (Lq=3,
// B=2, 2 * 4) and keys_values (Lk=6, B=2, 2 * 2 * 4), forward and backward
// with mixed requests.
WEFT_BACKEND_CASES(interleaved_matmul) {
  std::vector<BackendCase> cases;
  test::CompareOptions o;
  o.mixed = true;
  const Shape qkv{5, 2, 36}, att{6, 5, 5}, q{3, 2, 8}, kv{6, 2, 16}, att2{4, 3, 6};
  const StringMap h3{{"heads", "3"}}, h2{{"heads", "2"}};
  cases.emplace_back("_contrib_interleaved_matmul_selfatt_qk", std::vector<In>{{qkv}}, h3, o);
  cases.emplace_back("_backward_interleaved_matmul_selfatt_qk", std::vector<In>{{att}, {qkv}}, h3,
                     o);
  cases.emplace_back("_contrib_interleaved_matmul_selfatt_valatt",
                     std::vector<In>{{qkv}, {att, 0, 1}}, h3, o);
  cases.emplace_back("_backward_interleaved_matmul_selfatt_valatt",
                     std::vector<In>{{{5, 2, 12}}, {qkv}, {att, 0, 1}}, h3, o);
  // MXNet's oneDNN-fused forms run the same kernels.
  cases.emplace_back("_sg_mkldnn_selfatt_qk", std::vector<In>{{qkv}}, h3, o);
  cases.emplace_back("_sg_mkldnn_selfatt_valatt", std::vector<In>{{qkv}, {att, 0, 1}}, h3, o);
  cases.emplace_back("_contrib_interleaved_matmul_encdec_qk", std::vector<In>{{q}, {kv}}, h2, o);
  cases.emplace_back("_backward_interleaved_matmul_encdec_qk", std::vector<In>{{att2}, {q}, {kv}},
                     h2, o);
  cases.emplace_back("_contrib_interleaved_matmul_encdec_valatt",
                     std::vector<In>{{kv}, {att2, 0, 1}}, h2, o);
  cases.emplace_back("_backward_interleaved_matmul_encdec_valatt",
                     std::vector<In>{{{3, 2, 8}}, {kv}, {att2, 0, 1}}, h2, o);
  return cases;
}

}  // namespace
}  // namespace weft
