// oneDNN LSTM inference for the RNN operator (see nn_lstm_dnnl.h).
//
// MXNet's parameter vector (kernels/cpu/nn_rnn.h) holds, per (layer l,
// direction d), W_i2h (4H x In_l) then W_h2h (4H x H), gates in MXNet's
// order i, f, g, o, which is oneDNN's: within one direction that is
// oneDNN's ldgoi layout, from which a reorder packs the weights.
#include "dnnl/nn_lstm_dnnl.h"

#include <cstring>
#include <memory>
#include <unordered_map>

#include "dnnl/dnnl_util.h"

namespace weft {
namespace onednn {

namespace {

using dnnl::memory;
using Dims = memory::dims;

struct LayerPrim {
  dnnl::lstm_forward::primitive_desc pd;
  dnnl::lstm_forward prim;
};

// One layer's weights in its primitive's layouts and its summed bias.
struct LayerWeights {
  memory layer, iter, bias;
};

// Every layer's weights for one version of one parameter array.
struct PackedWeights {
  const void* src = nullptr;
  uint64_t version = 0;
  std::vector<LayerWeights> layers;
};

PrimitiveCache<LayerPrim>& Prims() {
  static PrimitiveCache<LayerPrim> cache;
  return cache;
}

// The primitive of layer input width `in` for (T, N, H, D), states
// written back when `states`.
std::shared_ptr<LayerPrim> Prim(int64_t T, int64_t N, int64_t in, int64_t H, int64_t D,
                                bool states) {
  return Prims().Get({T, N, in, H, D, states}, [&] {
    const memory::desc src = PlainDesc({T, N, in}), dst = PlainDesc({T, N, D * H});
    const memory::desc iter = PlainDesc({1, D, N, H});
    const memory::desc wl({1, D, in, 4, H}, memory::data_type::f32, memory::format_tag::ldigo);
    const memory::desc wi({1, D, H, 4, H}, memory::data_type::f32, memory::format_tag::ldigo);
    const memory::desc out_iter = states ? iter : memory::desc();
    dnnl::lstm_forward::desc d(dnnl::prop_kind::forward_inference,
                               D == 2 ? dnnl::rnn_direction::bidirectional_concat
                                      : dnnl::rnn_direction::unidirectional_left2right,
                               src, iter, iter, wl, wi, PlainDesc({1, D, 4, H}), dst, out_iter,
                               out_iter);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::lstm_forward::primitive_desc pd(d, attr, Engine());
    return std::make_shared<LayerPrim>(LayerPrim{pd, dnnl::lstm_forward(pd)});
  });
}

// W_i2h (i2h) or W_h2h of layer l, both directions, repacked into `want`
// from a dense copy in oneDNN's ldgoi order (the (l, d, g, o, i) order
// MXNet keeps per direction; reorders into the packed RNN formats start
// from ldgoi or ldigo).
memory PackWeights(const cpu::RnnConfig& cfg, int64_t l, bool i2h, const float* w,
                   const memory::desc& want) {
  const int64_t H = cfg.H, in = i2h ? cfg.In(l) : H, block = 4 * H * in;
  std::vector<float> dense(static_cast<size_t>(cfg.D * block));
  for (int64_t d = 0; d < cfg.D; ++d) {
    const float* src = w + cfg.WeightOffset(l, d) + (i2h ? 0 : 4 * H * cfg.In(l));
    std::memcpy(dense.data() + d * block, src, sizeof(float) * static_cast<size_t>(block));
  }
  memory src({{1, cfg.D, in, 4, H}, memory::data_type::f32, memory::format_tag::ldgoi}, Engine(),
             dense.data());
  memory packed(want, Engine());
  dnnl::reorder(src, packed).execute(ThreadStream(), src, packed);
  ThreadStream().wait();
  return packed;
}

// Layer l's weights packed for `pd` and its bias b_i2h + b_h2h.
LayerWeights Pack(const cpu::RnnConfig& cfg, int64_t l, const float* w,
                  const dnnl::lstm_forward::primitive_desc& pd) {
  LayerWeights lw;
  lw.layer = PackWeights(cfg, l, true, w, pd.weights_layer_desc());
  lw.iter = PackWeights(cfg, l, false, w, pd.weights_iter_desc());
  lw.bias = memory(PlainDesc({1, cfg.D, 4, cfg.H}), Engine());
  float* b = static_cast<float*>(lw.bias.get_data_handle());
  const int64_t gh = 4 * cfg.H;
  for (int64_t d = 0; d < cfg.D; ++d) {
    const float* bx = w + cfg.BiasOffset(l, d);
    for (int64_t j = 0; j < gh; ++j) b[d * gh + j] = bx[j] + bx[gh + j];
  }
  return lw;
}

// Whether `kept` was packed from this version of the parameters for `prims`.
bool Matches(const PackedWeights* kept, const void* src, uint64_t version,
             const std::vector<std::shared_ptr<LayerPrim>>& prims) {
  if (!kept || kept->src != src || kept->version != version || kept->layers.size() != prims.size())
    return false;
  for (size_t l = 0; l < prims.size(); ++l)
    if (kept->layers[l].layer.get_desc() != prims[l]->pd.weights_layer_desc() ||
        kept->layers[l].iter.get_desc() != prims[l]->pd.weights_iter_desc())
      return false;
  return true;
}

}  // namespace

bool LstmInferenceCovers(const OpContext& ctx, const cpu::RnnConfig& cfg,
                         const std::vector<TBlob>& in, const std::vector<OpReq>& req) {
  if (ctx.is_train || cfg.mode != cpu::RnnMode::kLstm || cfg.P > 0 || cfg.clip || cfg.lengths)
    return false;
  if (in[0].dtype != DType::kFloat32 || cfg.T < 1 || cfg.N < 1) return false;
  for (OpReq r : req)
    if (r == OpReq::kAdd) return false;
  return true;
}

bool LstmInference(const OpContext& ctx, const cpu::RnnConfig& cfg, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const int64_t L = cfg.L, D = cfg.D, T = cfg.T, N = cfg.N, H = cfg.H;
  const bool states = out.size() > 2 && (req[1] != OpReq::kNull || req[2] != OpReq::kNull);
  std::vector<std::shared_ptr<LayerPrim>> prims;
  for (int64_t l = 0; l < L; ++l) {
    prims.push_back(Prim(T, N, cfg.In(l), H, D, states));
    if (!prims.back()) return false;
  }
  const float* w = in[1].data<float>();
  const uint64_t version = ctx.input_versions ? ctx.input_versions[1] : 0;
  std::shared_ptr<PackedWeights> fresh;
  const PackedWeights* packed =
      ctx.state && ctx.input_versions ? static_cast<PackedWeights*>(ctx.state->get()) : nullptr;
  if (!Matches(packed, w, version, prims)) {
    fresh = std::make_shared<PackedWeights>();
    fresh->src = w;
    fresh->version = version;
    for (int64_t l = 0; l < L; ++l) fresh->layers.push_back(Pack(cfg, l, w, prims[l]->pd));
    if (ctx.state && ctx.input_versions) *ctx.state = fresh;
    packed = fresh.get();
  }
  // Layer outputs alternate between two scratch buffers; the last layer
  // writes the operator's output.
  const memory::desc iter_md = PlainDesc({1, D, N, H});
  const size_t layer_bytes = static_cast<size_t>(T * N * D * H) * sizeof(float);
  const float* x = in[0].data<float>();
  const float* hx = in[2].data<float>();
  const float* cx = in[3].data<float>();
  for (int64_t l = 0; l < L; ++l) {
    const auto& p = *prims[l];
    float* y = l == L - 1 ? out[0].data<float>() : static_cast<float*>(Scratch(l % 2, layer_bytes));
    const int64_t so = l * D * N * H;
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC_LAYER, memory(PlainDesc({T, N, cfg.In(l)}), Engine(), const_cast<float*>(x))},
        {DNNL_ARG_SRC_ITER, memory(iter_md, Engine(), const_cast<float*>(hx + so))},
        {DNNL_ARG_SRC_ITER_C, memory(iter_md, Engine(), const_cast<float*>(cx + so))},
        {DNNL_ARG_WEIGHTS_LAYER, packed->layers[l].layer},
        {DNNL_ARG_WEIGHTS_ITER, packed->layers[l].iter},
        {DNNL_ARG_BIAS, packed->layers[l].bias},
        {DNNL_ARG_DST_LAYER, memory(PlainDesc({T, N, D * H}), Engine(), y)}};
    if (states) {
      // Scratch slot 2 takes a state output the caller does not read.
      float* hy = req[1] != OpReq::kNull ? out[1].data<float>() + so
                                         : static_cast<float*>(Scratch(2, iter_md.get_size()));
      float* cy = req[2] != OpReq::kNull ? out[2].data<float>() + so
                                         : static_cast<float*>(Scratch(2, iter_md.get_size()));
      args[DNNL_ARG_DST_ITER] = memory(iter_md, Engine(), hy);
      args[DNNL_ARG_DST_ITER_C] = memory(iter_md, Engine(), cy);
    }
    Execute(p.prim, p.pd, std::move(args));
    x = y;
  }
  return true;
}

}  // namespace onednn
}  // namespace weft
