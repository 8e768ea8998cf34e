// Backend cases of the ops the CPU has several kernels for: dot,
// batch_dot and _npi_einsum (OpenBLAS "blas", oneDNN "dnnl"); Convolution,
// FullyConnected, RNN and the channel-blocked _fused_Convolution and
// _blocked_Pooling (oneDNN "dnnl", when built), forward and backward. On a
// GPU machine the same cases compare the CUDA kernels of the ops that have
// one.
#include "util/backend_harness.h"
#include "util/op_refs.h"

namespace weft {
namespace {

using test::BackendCase;
using test::In;

// `fwd` on random `in`, and its backward on (ograd, in...) with every
// request mix, where `in` are the forward inputs.
std::vector<BackendCase> ForwardAndBackward(const std::string& fwd, const std::vector<In>& in,
                                            const StringMap& p, bool data_only_backward = false) {
  test::CompareOptions o;
  o.mixed = true;
  BackendCase f(fwd, in, p, o);
  auto make = [fwd, in, p, data_only_backward](DType t) {
    std::vector<NDArray> x = test::Randoms(in, t, 1);
    const Shape out = test::RunCpu(fwd, x, p)[0].shape();
    std::vector<NDArray> args = {test::RandomArray(out, t, -1, 1, 20)};
    const size_t n = data_only_backward ? 2 : x.size();
    for (size_t i = 0; i < n && i < x.size(); ++i) args.push_back(x[i]);
    return args;
  };
  return {f, BackendCase("_backward_" + fwd, make, p, o)};
}

void Append(std::vector<BackendCase>* to, std::vector<BackendCase> from) {
  for (auto& c : from) to->push_back(std::move(c));
}

// dot's and batch_dot's backward take (ograd, lhs, rhs).
WEFT_BACKEND_CASES(dot) {
  std::vector<BackendCase> cases;
  auto add = [&](const char* op, Shape a, Shape b, bool ta, bool tb) {
    const StringMap p = {{"transpose_a", ta ? "True" : "False"},
                         {"transpose_b", tb ? "True" : "False"}};
    Append(&cases, ForwardAndBackward(op, {{a}, {b}}, p));
  };
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      add("dot", ta ? Shape({4, 3}) : Shape({3, 4}), tb ? Shape({5, 4}) : Shape({4, 5}), ta, tb);
      add("dot", ta ? Shape({96, 64}) : Shape({64, 96}), tb ? Shape({80, 96}) : Shape({96, 80}), ta,
          tb);
      add("batch_dot", ta ? Shape({4, 32, 16}) : Shape({4, 16, 32}),
          tb ? Shape({4, 8, 32}) : Shape({4, 32, 8}), ta, tb);
    }
  add("dot", {7}, {7}, false, false);
  add("dot", {6}, {6, 5}, false, false);
  add("dot", {5, 6}, {6}, false, false);
  add("dot", {2, 3, 4}, {4, 2, 5}, false, false);
  add("dot", {4, 2, 3}, {5, 2, 4}, true, true);
  add("dot", {256, 256}, {256, 256}, false, false);
  add("batch_dot", {3, 2, 4}, {3, 4, 5}, false, false);
  add("batch_dot", {3, 4, 2}, {3, 5, 4}, true, true);
  add("batch_dot", {2, 3, 2, 4}, {2, 3, 4, 5}, false, false);
  return cases;
}

// _npi_einsum and its backward (ograd, operands...): GEMM-sized products
// (each backend's GEMM) and loop-sized ones, a diagonal, three operands.
WEFT_BACKEND_CASES(einsum) {
  std::vector<BackendCase> cases;
  auto add = [&](const std::string& sub, const std::vector<In>& in) {
    std::vector<BackendCase> both = ForwardAndBackward(
        "_npi_einsum", in, {{"subscripts", sub}, {"num_args", std::to_string(in.size())}});
    both[1].op = "_backward_npi_einsum";  // MXNet's name drops the forward's underscore
    Append(&cases, both);
  };
  add("ij,jk->ik", {{Shape{24, 32}}, {Shape{32, 16}}});
  add("bhqd,bhkd->bhqk", {{Shape{2, 2, 16, 8}}, {Shape{2, 2, 12, 8}}});
  add("bqhd,bkhd->bhqk", {{Shape{2, 16, 2, 8}}, {Shape{2, 12, 2, 8}}});
  add("ij,jk->ik", {{Shape{3, 4}}, {Shape{4, 5}}});
  add("iij,jk->ik", {{Shape{3, 3, 4}}, {Shape{4, 5}}});
  add("ij,jk,kl->il", {{Shape{12, 16}}, {Shape{16, 20}}, {Shape{20, 10}}});
  return cases;
}

// Convolution's and FullyConnected's backward take (ograd, data, weight).
WEFT_BACKEND_CASES(convolution) {
  std::vector<BackendCase> cases;
  auto conv = [&](Shape x, int64_t f, Shape w, StringMap p) {
    p["num_filter"] = std::to_string(f);
    std::vector<In> in = {{x}, {w}};
    if (p.count("no_bias") == 0) in.push_back({Shape({f})});
    std::vector<BackendCase> both = ForwardAndBackward("Convolution", in, p, true);
    for (BackendCase& c : both)
      if (x.ndim() == 5) c.opts.skip = {"gpu/cudnn"};  // cuDNN here takes 1-D and 2-D
    // cuDNN's backward-filter algorithms (its heuristics pick transform-based
    // ones) differ from the direct sums by up to 3e-4 of an element in float32
    // (measured on an H200); the CPU backends and float64 keep the table's.
    both[1].opts.rtol32_of = {{"gpu/cudnn", 1e-3}};
    Append(&cases, both);
  };
  conv({2, 3, 9, 8}, 4, {4, 3, 3, 3}, {{"kernel", "(3,3)"}});
  conv({2, 3, 9, 8}, 4, {4, 3, 3, 3}, {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"no_bias", "True"}});
  conv({1, 4, 11, 10}, 6, {6, 4, 3, 2},
       {{"kernel", "(3,2)"}, {"stride", "(2,3)"}, {"pad", "(1,0)"}});
  conv({2, 4, 12, 12}, 4, {4, 4, 3, 3},
       {{"kernel", "(3,3)"}, {"dilate", "(2,2)"}, {"pad", "(2,2)"}});
  conv({2, 6, 8, 7}, 4, {4, 3, 3, 3}, {{"kernel", "(3,3)"}, {"num_group", "2"}, {"pad", "(1,1)"}});
  conv({1, 8, 9, 9}, 8, {8, 1, 3, 3},
       {{"kernel", "(3,3)"}, {"num_group", "8"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}});
  conv({2, 16, 7, 7}, 8, {8, 16, 1, 1}, {{"kernel", "(1,1)"}, {"no_bias", "True"}});
  conv({2, 3, 17}, 5, {5, 3, 4}, {{"kernel", "(4,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}});
  conv({1, 64, 14, 14}, 32, {32, 64, 3, 3}, {{"kernel", "(3,3)"}, {"pad", "(1,1)"}});
  conv({2, 3, 5, 6, 7}, 4, {4, 3, 3, 2, 3},
       {{"kernel", "(3,2,3)"}, {"stride", "(1,2,2)"}, {"pad", "(1,0,1)"}});
  conv({1, 4, 6, 5, 5}, 4, {4, 2, 2, 3, 3},
       {{"kernel", "(2,3,3)"}, {"num_group", "2"}, {"dilate", "(2,1,1)"}, {"no_bias", "True"}});
  return cases;
}

WEFT_BACKEND_CASES(fully_connected) {
  std::vector<BackendCase> cases;
  Append(&cases, ForwardAndBackward("FullyConnected", {{{5, 7}}, {{3, 7}}, {{3}}},
                                    {{"num_hidden", "3"}}, true));
  Append(&cases, ForwardAndBackward("FullyConnected", {{{4, 2, 3, 2}}, {{6, 12}}},
                                    {{"num_hidden", "6"}, {"no_bias", "True"}}, true));
  Append(&cases, ForwardAndBackward("FullyConnected", {{{2, 3, 8}}, {{5, 8}}, {{5}}},
                                    {{"num_hidden", "5"}, {"flatten", "False"}}, true));
  Append(&cases, ForwardAndBackward("FullyConnected", {{{64, 100}}, {{33, 100}}, {{33}}},
                                    {{"num_hidden", "33"}}, true));
  // pass::FuseDenseActivation's op: oneDNN's post-op against the reference.
  for (const char* act : {"relu", "gelu"}) {
    cases.emplace_back("_fused_FullyConnected", std::vector<In>{{{5, 7}}, {{3, 7}}, {{3}}},
                       StringMap{{"num_hidden", "3"}, {"act_type", act}});
    cases.emplace_back(
        "_fused_FullyConnected", std::vector<In>{{{2, 3, 8}}, {{5, 8}}},
        StringMap{
            {"num_hidden", "5"}, {"flatten", "False"}, {"no_bias", "True"}, {"act_type", act}});
  }
  return cases;
}

// RNN forward and backward (T=4, N=3, 6 inputs, 5 states): a 2-layer
// bidirectional LSTM with state outputs, each other mode, a one-way LSTM
// without state outputs (oneDNN's LSTM primitive covers both), an LSTM with a
// projection, one with cell clipping and one with sequence lengths. The
// backward takes (RNN's inputs, ograd of each output); mixed requests.
std::vector<BackendCase> RnnCases(StringMap p) {
  const bool lens = p.count("use_sequence_length") > 0;
  auto inputs = [p, lens](DType t) {
    std::vector<Shape> in = {Shape({4, 3, 6}), Shape(), Shape()}, out;
    if (p.at("mode") == "lstm") in.push_back(Shape());
    if (lens) in.push_back(Shape({3}));
    WEFT_CHECK(test::InferShapes("RNN", p, &in, &out)) << "RNN shape inference";
    std::vector<NDArray> x;
    for (size_t i = 0; i + (lens ? 1 : 0) < in.size(); ++i)
      x.push_back(test::RandomArray(in[i], t, i == 1 ? -0.7 : -1, i == 1 ? 0.7 : 1,
                                    71 + static_cast<unsigned>(i)));
    if (lens) x.push_back(test::Array({3}, {4, 1, 3}, t));
    return std::make_pair(x, out);
  };
  test::CompareOptions o;
  o.mixed = true;
  BackendCase fwd(
      "RNN", [inputs](DType t) { return inputs(t).first; }, p, o);
  BackendCase bwd(
      "_backward_RNN",
      [inputs](DType t) {
        auto [x, out] = inputs(t);
        for (size_t i = 0; i < out.size(); ++i)
          x.push_back(test::RandomArray(out[i], t, -1, 1, 1 + static_cast<unsigned>(i)));
        return x;
      },
      p, o);
  return {fwd, bwd};
}

WEFT_BACKEND_CASES(rnn) {
  std::vector<BackendCase> cases;
  const StringMap base = {{"state_size", "5"}, {"num_layers", "2"}, {"state_outputs", "True"}};
  Append(&cases, RnnCases(test::With(base, {{"mode", "lstm"}, {"bidirectional", "True"}})));
  for (const char* mode : {"gru", "rnn_relu", "rnn_tanh"})
    Append(&cases, RnnCases(test::With(base, {{"mode", mode}, {"bidirectional", "True"}})));
  Append(&cases, RnnCases(test::With(
                     base, {{"mode", "gru"}, {"num_layers", "1"}, {"state_outputs", "False"}})));
  Append(&cases, RnnCases(test::With(base, {{"mode", "lstm"}, {"state_outputs", "False"}})));
  Append(&cases, RnnCases(test::With(base, {{"mode", "lstm"}, {"projection_size", "3"}})));
  // Cell clipping runs on the CPU alone (the GPU refuses it: cuDNN's clipped
  // LSTM did not match on an H200).
  std::vector<BackendCase> clipped = RnnCases(test::With(
      base, {{"mode", "lstm"}, {"lstm_state_clip_min", "-0.2"}, {"lstm_state_clip_max", "0.3"}}));
  for (BackendCase& c : clipped) c.opts.skip = {"gpu/cuda"};
  Append(&cases, clipped);
  Append(
      &cases,
      RnnCases(test::With(
          base, {{"mode", "lstm"}, {"bidirectional", "True"}, {"use_sequence_length", "True"}})));
  return cases;
}

// The channel-blocked kernels the layout pass selects, on plain and blocked
// (block 8 and 16) data and outputs: a 3x3 convolution with bias, a summed
// input and relu, a depthwise one with clip (ReLU6), and pooling of every
// kind; with 16 channels and with 12, whose last block is padded.
WEFT_BACKEND_CASES(channel_blocked) {
  std::vector<BackendCase> cases;
  const StringMap conv{
      {"kernel", "(3,3)"}, {"pad", "(0,1)"}, {"with_sum", "True"}, {"act_type", "relu"}};
  const StringMap depthwise{{"kernel", "(3,3)"},  {"pad", "(1,1)"}, {"stride", "(2,2)"},
                            {"act_type", "clip"}, {"a_min", "0"},   {"a_max", "6"}};
  const std::vector<StringMap> pools = {
      {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "max"}},
      {{"kernel", "(3,3)"},
       {"stride", "(2,2)"},
       {"pool_type", "max"},
       {"pooling_convention", "full"}},
      {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "avg"}},
      {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"pool_type", "avg"}, {"count_include_pad", "False"}},
      {{"kernel", "(3,3)"},
       {"stride", "(2,2)"},
       {"pool_type", "avg"},
       {"pooling_convention", "full"}},
      {{"kernel", "(2,2)"}, {"pool_type", "sum"}},
      {{"kernel", "(1,1)"}, {"global_pool", "True"}, {"pool_type", "avg"}},
      {{"kernel", "(1,1)"}, {"global_pool", "True"}, {"pool_type", "max"}},
  };
  for (int64_t c : {16, 12}) {
    const std::string channels = std::to_string(c);
    for (int block : {8, 16}) {
      const StringMap bp{{"block", std::to_string(block)}};
      auto blocked = [bp](const NDArray& a, int b) {
        return b ? test::RunCpu("_layout_block", {a}, bp)[0] : a;
      };
      for (int db : {0, block}) {
        for (int ob : {0, block}) {
          auto with_blocks = [&](StringMap q) {
            q["data_block"] = std::to_string(db);
            q["out_block"] = std::to_string(ob);
            if (db || ob) q["data_channels"] = channels;
            return q;
          };
          StringMap q = with_blocks(conv);
          q["num_filter"] = channels;
          // Blocked layouts are the CPU's; the GPU takes plain ones alone.
          test::CompareOptions o;
          if (db || ob) o.skip = {"gpu/cudnn"};
          cases.emplace_back(
              "_fused_Convolution",
              [blocked, db, ob, c](DType t) {
                return std::vector<NDArray>{
                    blocked(test::RandomArray({2, c, 5, 5}, t, -1, 1, 1), db),
                    test::RandomArray({c, c, 3, 3}, t, -0.2, 0.2, 2),
                    test::RandomArray({c}, t, -1, 1, 3),
                    blocked(test::RandomArray({2, c, 3, 5}, t, -1, 1, 4), ob)};
              },
              q, o);
          StringMap dw = with_blocks(depthwise);
          dw["num_filter"] = channels;
          dw["num_group"] = channels;
          cases.emplace_back(
              "_fused_Convolution",
              [blocked, db, c](DType t) {
                return std::vector<NDArray>{
                    blocked(test::RandomArray({2, c, 7, 6}, t, -4, 4, 6), db),
                    test::RandomArray({c, 1, 3, 3}, t, -1, 1, 7),
                    test::RandomArray({c}, t, -1, 1, 8)};
              },
              dw, o);
          for (const StringMap& pool : pools) {
            cases.emplace_back(
                "_blocked_Pooling",
                [blocked, db, c](DType t) {
                  return std::vector<NDArray>{
                      blocked(test::RandomArray({2, c, 8, 7}, t, -1, 1, 5), db)};
                },
                with_blocks(pool));
          }
        }
      }
    }
  }
  return cases;
}

}  // namespace
}  // namespace weft
