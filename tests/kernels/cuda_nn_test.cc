// The CUDA kernels of the neural-network ops against the CPU reference:
// each case runs forward and backward on gpu(0) and cpu(0) with the same
// random inputs (float32 rtol 1e-4, float64 rtol 1e-10, write and add
// requests). Every test skips when no CUDA device is usable (always on
// machines without a GPU driver); the file builds without CUDA too.
#include <gtest/gtest.h>

#include "kernels/cuda_test_util.h"

namespace weft {
namespace {

using test::Compare;
using test::CompareArrays;
using test::CompareBackward;
using test::Randoms;
using test::In;

bool NoGpu() { return test::GpuCount() == 0; }

// ------------------------------------------------------------ FullyConnected

TEST(CudaNN, FullyConnected) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  struct C {
    StringMap p;
    std::vector<In> in;
  };
  const std::vector<C> cases = {
      {{{"num_hidden", "7"}}, {{{4, 3, 5}}, {{7, 15}}, {{7}}}},
      {{{"num_hidden", "7"}, {"no_bias", "True"}}, {{{4, 15}}, {{7, 15}}}},
      {{{"num_hidden", "6"}, {"flatten", "False"}}, {{{4, 3, 5}}, {{6, 5}}, {{6}}}},
  };
  for (const C& c : cases) {
    Compare("FullyConnected", c.in, c.p);
    CompareBackward("FullyConnected", "_backward_FullyConnected", c.in, c.p, false,
                    [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
                      return std::vector<NDArray>{og, x[0], x[1]};
                    });
  }
}

// --------------------------------------------------------------- Convolution

TEST(CudaNN, Convolution) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  struct C {
    StringMap p;
    std::vector<In> in;
  };
  const std::vector<C> cases = {
      // 2-D, groups, asymmetric stride/pad/dilate.
      {{{"kernel", "(3,3)"}, {"stride", "(2,1)"}, {"pad", "(1,0)"}, {"dilate", "(1,2)"},
        {"num_filter", "6"}, {"num_group", "2"}},
       {{{2, 4, 7, 6}}, {{6, 2, 3, 3}}, {{6}}}},
      // 1-D.
      {{{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}, {"num_filter", "4"}},
       {{{2, 3, 9}}, {{4, 3, 3}}, {{4}}}},
      // Depthwise, no bias.
      {{{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "4"}, {"num_group", "4"},
        {"no_bias", "True"}},
       {{{1, 4, 5, 5}}, {{4, 1, 3, 3}}}},
      // 1x1.
      {{{"kernel", "(1,1)"}, {"num_filter", "5"}}, {{{2, 3, 4, 4}}, {{5, 3, 1, 1}}, {{5}}}},
  };
  for (const C& c : cases) {
    Compare("Convolution", c.in, c.p);
    CompareBackward("Convolution", "_backward_Convolution", c.in, c.p, false,
                    [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
                      return std::vector<NDArray>{og, x[0], x[1]};
                    });
  }
}

TEST(CudaNN, Deconvolution) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  struct C {
    StringMap p;
    std::vector<In> in;
  };
  const std::vector<C> cases = {
      // 2-D upsampling with bias and adj.
      {{{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"adj", "(1,1)"}, {"num_filter", "4"},
        {"no_bias", "False"}},
       {{{2, 3, 5, 5}}, {{3, 4, 3, 3}}, {{4}}}},
      // Groups, dilation, no bias (MXNet's default).
      {{{"kernel", "(3,3)"}, {"stride", "(1,2)"}, {"dilate", "(2,1)"}, {"num_filter", "6"}, {"num_group", "2"}},
       {{{2, 4, 4, 5}}, {{4, 3, 3, 3}}}},
      // target_shape decides the pad.
      {{{"kernel", "(4,4)"}, {"stride", "(2,2)"}, {"target_shape", "(8,8)"}, {"num_filter", "2"}},
       {{{1, 3, 4, 4}}, {{3, 2, 4, 4}}}},
      // 1-D.
      {{{"kernel", "(3,)"}, {"stride", "(2,)"}, {"num_filter", "3"}, {"no_bias", "False"}},
       {{{2, 4, 6}}, {{4, 3, 3}}, {{3}}}},
  };
  for (const C& c : cases) {
    Compare("Deconvolution", c.in, c.p);
    CompareBackward("Deconvolution", "_backward_Deconvolution", c.in, c.p, false,
                    [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
                      return std::vector<NDArray>{og, x[0], x[1]};
                    });
  }
}

// ------------------------------------------------------------------- Pooling

TEST(CudaNN, Pooling) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const std::vector<StringMap> cases = {
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pool_type", "max"}},
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "avg"}},
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "avg"},
       {"count_include_pad", "False"}},
      {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "sum"}},
      // full with a partial last window on W (direct kernels) and not on H.
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pool_type", "max"},
       {"pooling_convention", "full"}},
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "avg"},
       {"pooling_convention", "full"}},
      {{"global_pool", "True"}, {"pool_type", "max"}},
      {{"global_pool", "True"}, {"pool_type", "avg"}},
      // Windows wholly in the padding, and cudnn_off: direct kernels.
      {{"kernel", "(2,2)"}, {"stride", "(1,1)"}, {"pad", "(2,2)"}, {"pool_type", "max"}},
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pool_type", "avg"}, {"cudnn_off", "True"}},
  };
  const std::vector<In> data = {{{2, 3, 7, 8}, -2, 2}};
  auto make = [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
    return std::vector<NDArray>{og, x[0]};
  };
  for (const StringMap& p : cases) {
    Compare("Pooling", data, p);
    CompareBackward("Pooling", "_backward_Pooling", data, p, false, make);
  }
  const StringMap one_d = {{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pool_type", "max"}};
  Compare("Pooling", {{{2, 3, 10}}}, one_d);
  CompareBackward("Pooling", "_backward_Pooling", {{{2, 3, 10}}}, one_d, false, make);
}

// ---------------------------------------------------------------- Activation

TEST(CudaNN, Activation) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  for (const char* act : {"relu", "sigmoid", "tanh", "softrelu", "softsign"}) {
    const StringMap p = {{"act_type", act}};
    const std::vector<In> data = {{{3, 4, 5}, -3, 3}};
    Compare("Activation", data, p);
    CompareBackward("Activation", "_backward_Activation", data, p, false,
                    [](const NDArray& og, const std::vector<NDArray>& x,
                       const std::vector<NDArray>& y) {
                      return std::vector<NDArray>{og, x[0], y[0]};
                    });
  }
}

// ----------------------------------------------------------------- LeakyReLU

TEST(CudaNN, LeakyReLU) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const std::vector<In> data = {{{3, 4, 5}, -3, 3}};
  auto make = [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
    std::vector<NDArray> in = {og};
    in.insert(in.end(), x.begin(), x.end());
    return in;
  };
  for (const char* act : {"leaky", "rrelu", "elu", "selu", "gelu"}) {
    const StringMap p = {{"act_type", act}, {"slope", "0.3"}};
    Compare("LeakyReLU", data, p);
    CompareBackward("LeakyReLU", "_backward_LeakyReLU", data, p, false, make);
  }
  // prelu: gamma per channel (axis 1) and shared; its gradient too.
  for (const std::vector<In>& in : {std::vector<In>{{{3, 4, 5, 2}, -3, 3}, {{4}, 0.1, 0.5}},
                                    std::vector<In>{{{3, 4, 5}, -3, 3}, {{1}, 0.1, 0.5}}}) {
    const StringMap p = {{"act_type", "prelu"}};
    Compare("LeakyReLU", in, p);
    CompareBackward("LeakyReLU", "_backward_LeakyReLU", in, p, false, make);
  }
}

// ----------------------------------------------------------------- BatchNorm

TEST(CudaNN, BatchNorm) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  struct C {
    StringMap p;
    Shape data;
    int64_t c;
    bool train;
  };
  const std::vector<C> cases = {
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
  for (const C& c : cases) {
    const std::vector<In> in = {
        {c.data, -2, 2}, {{c.c}, 0.5, 1.5}, {{c.c}, -1, 1}, {{c.c}, -0.5, 0.5}, {{c.c}, 0.5, 1.5}};
    Compare("BatchNorm", in, c.p, c.train);
    CompareBackward("BatchNorm", "_backward_BatchNorm", in, c.p, c.train,
                    [](const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
                      return std::vector<NDArray>{og, x[0], x[1], x[3], x[4]};
                    });
  }
}

// ------------------------------------------------------------------- softmax

TEST(CudaNN, Softmax) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  struct C {
    std::string op;
    StringMap p;
  };
  const std::vector<C> cases = {
      {"softmax", {}},
      {"softmax", {{"axis", "1"}}},
      {"softmax", {{"axis", "0"}, {"temperature", "2.5"}}},
      {"log_softmax", {}},
      {"log_softmax", {{"axis", "1"}, {"temperature", "0.5"}}},
      {"SoftmaxActivation", {}},
      {"SoftmaxActivation", {{"mode", "channel"}}},
  };
  const std::vector<In> data = {{{3, 5, 4}, -3, 3}};
  for (const C& c : cases) {
    Compare(c.op, data, c.p);
    CompareBackward(c.op, "_backward_" + c.op, data, c.p, false,
                    [](const NDArray& og, const std::vector<NDArray>&, const std::vector<NDArray>& y) {
                      return std::vector<NDArray>{og, y[0]};
                    });
  }
}

// ------------------------------------------------------------- SoftmaxOutput

TEST(CudaNN, SoftmaxOutput) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  struct C {
    StringMap p;
    Shape data, label;
  };
  const std::vector<C> cases = {
      {{}, {6, 5}, {6}},
      {{{"use_ignore", "True"}, {"ignore_label", "2"}, {"normalization", "valid"}}, {6, 5}, {6}},
      {{{"multi_output", "True"}, {"normalization", "batch"}, {"grad_scale", "2"}},
       {2, 3, 4},
       {2, 4}},
      {{{"preserve_shape", "True"}, {"smooth_alpha", "0.1"}, {"out_grad", "True"}},
       {2, 3, 4},
       {2, 3}},
      {{{"multi_output", "True"}, {"smooth_alpha", "0.2"}},
       {2, 3, 4},
       {2, 4}},  // inner normaliser, no smoothing
      {{{"multi_output", "True"},
        {"use_ignore", "True"},
        {"ignore_label", "1"},
        {"normalization", "valid"}},
       {2, 3, 4},
       {2, 4}},
      {{{"normalization", "batch"}, {"use_ignore", "True"}, {"ignore_label", "3"}}, {6, 5}, {6}},
  };
  for (const C& c : cases) {
    for (DType t : {DType::kFloat32, DType::kFloat64}) {
      const int64_t classes = c.p.count("multi_output") ? c.data[1] : c.data[c.data.ndim() - 1];
      std::vector<double> labels(static_cast<size_t>(c.label.Size()));
      for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<double>((i * 7 + 3) % classes);
      const NDArray label = test::Array(c.label, labels, t);
      const NDArray x = test::RandomArray(c.data, t, -3, 3, 5);
      CompareArrays("SoftmaxOutput", {x, label}, c.p);
      const NDArray y = test::Run("SoftmaxOutput", {x, label}, c.p)[0];
      const NDArray og = test::RandomArray(c.data, t, -1, 1, 6);
      CompareArrays("_backward_SoftmaxOutput", {og, y, label}, c.p);
    }
  }
  // Probability labels (shaped as the data), with and without out_grad.
  for (const StringMap& p : {StringMap{}, StringMap{{"out_grad", "True"}, {"grad_scale", "0.5"}}}) {
    for (DType t : {DType::kFloat32, DType::kFloat64}) {
      const NDArray x = test::RandomArray({4, 6}, t, -3, 3, 7);
      const NDArray y = test::Run("SoftmaxOutput", {x, test::RandomArray({4}, t, 0, 0, 1)}, p)[0];
      const NDArray prob = test::Run("softmax", {test::RandomArray({4, 6}, t, -1, 1, 8)})[0];
      CompareArrays("_backward_SoftmaxOutput", {test::RandomArray({4, 6}, t, -1, 1, 9), y, prob},
                    p);
    }
  }
}

}  // namespace
}  // namespace weft
