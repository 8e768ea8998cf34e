// oneDNN RNN inference for the RNN operator (see nn_rnn_infer_dnnl.h).
//
// MXNet's parameter vector (kernels/cpu/nn_rnn.h) holds, per (layer l,
// direction d), W_i2h (G*H x In_l) then W_h2h (G*H x H), then after every
// weight the biases b_i2h, b_h2h (G*H each). Within one direction that is
// oneDNN's ldgoi layout once the gates are in oneDNN's order: LSTM's
// i, f, g, o are oneDNN's; GRU's r, z, n become oneDNN's u (= z), r, o (= n).
// A dense copy in that order is reordered into the layout the primitive
// takes. oneDNN's bias: LSTM and the vanilla RNNs b_i2h + b_h2h per gate;
// the linear-before-reset GRU four gates u, r (summed), o (b_i2h's n) and
// u' (b_h2h's n, added to the recurrent product before the reset gate).
// Bound calls reading one parameter array at one version share one packed
// copy (VersionedShare, as CachedLayout's reordered weights).
//
// An LSTM over a few batch rows on two or more threads runs Weft's
// matrix-vector sweeps instead (kernels/cpu/nn_lstm_gemv.h: at batch 1 the
// primitive's recurrent GEMM and single-threaded gate pass gain little from
// a second core); WEFT_RNN_GEMV=0 keeps the primitive for them.
#include "dnnl/nn_rnn_infer_dnnl.h"

#include <omp.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "cpu/nn_lstm_gemv.h"
#include "dnnl/dnnl_util.h"

namespace weft {
namespace onednn {

namespace {

using cpu::RnnMode;
using dnnl::memory;

struct LayerPrim {
  dnnl::rnn_primitive_desc_base pd;
  dnnl::primitive prim;
};

// One layer's weights in its primitive's layouts, and its bias.
struct LayerWeights {
  memory layer, iter, bias;
};

// Every layer's weights for one version of one parameter array, for one
// configuration (`key`: mode, layers, directions, input and state sizes):
// the primitives' (`layers`) and the sweep's (`gemv`), each packed when a
// call first takes its path (a call's team size picks the path, and the
// thread budget can change it between calls).
struct PackedWeights {
  const void* src = nullptr;
  uint64_t version = 0;
  std::vector<int64_t> key;
  std::once_flag layers_once, gemv_once;
  std::vector<LayerWeights> layers;
  std::unique_ptr<cpu::LstmGemvWeights> gemv;
};

std::atomic<uint64_t> g_packs{0};

// Packed weights shared between calls (a predictor's executors read one
// frozen parameter array).
VersionedShare<PackedWeights>& Shared() {
  static auto* shared = new VersionedShare<PackedWeights>();  // leaked: used during exit
  return *shared;
}

std::vector<int64_t> PackKey(const cpu::RnnConfig& cfg) {
  return {static_cast<int64_t>(cfg.mode), cfg.L, cfg.D, cfg.I, cfg.H};
}

// Whether a covered call runs the matrix-vector sweeps: with a team of
// two or more threads (on one thread the primitive is as fast or faster:
// bench/README.md).
bool UseGemv(const cpu::RnnConfig& cfg) {
  static const bool enabled = [] {
    const char* env = std::getenv("WEFT_RNN_GEMV");
    return !(env && std::strcmp(env, "0") == 0);
  }();
  return enabled && cpu::LstmGemvCovers(cfg) && omp_get_max_threads() > 1;
}

// oneDNN's gate g is MXNet's gate GateOf(mode, g).
int64_t GateOf(RnnMode mode, int64_t g) {
  if (mode == RnnMode::kGru && g < 2) return 1 - g;  // u = z, r = r
  return g;
}

// Gates of oneDNN's bias.
int64_t BiasGates(const cpu::RnnConfig& cfg) { return cfg.mode == RnnMode::kGru ? 4 : cfg.G(); }

PrimitiveCache<LayerPrim>& Prims() {
  static PrimitiveCache<LayerPrim> cache;
  return cache;
}

// The primitive of layer input width `in` for cfg's mode, T, N, H and D,
// states written back when `states`.
std::shared_ptr<LayerPrim> Prim(const cpu::RnnConfig& cfg, int64_t in, bool states) {
  const int64_t T = cfg.T, N = cfg.N, H = cfg.H, D = cfg.D, G = cfg.G();
  return Prims().Get({static_cast<int64_t>(cfg.mode), T, N, in, H, D, states}, [&] {
    const auto f32 = memory::data_type::f32;
    const memory::desc src = PlainDesc({T, N, in}), dst = PlainDesc({T, N, D * H});
    const memory::desc iter = PlainDesc({1, D, N, H});
    // ldigo: oneDNN's gemm-based RNN (its packed format picks brgemm kernels,
    // 1.7x slower for the benchmark's LSTM at batch 1).
    const memory::desc wl({1, D, in, G, H}, f32, memory::format_tag::ldigo);
    const memory::desc wi({1, D, H, G, H}, f32, memory::format_tag::ldigo);
    const memory::desc bias = PlainDesc({1, D, BiasGates(cfg), H});
    const memory::desc out_iter = states ? iter : memory::desc();
    const auto dir = D == 2 ? dnnl::rnn_direction::bidirectional_concat
                            : dnnl::rnn_direction::unidirectional_left2right;
    const auto prop = dnnl::prop_kind::forward_inference;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (cfg.mode == RnnMode::kLstm) {
      dnnl::lstm_forward::primitive_desc pd(
          {prop, dir, src, iter, iter, wl, wi, bias, dst, out_iter, out_iter}, attr, Engine());
      return std::make_shared<LayerPrim>(LayerPrim{pd, dnnl::lstm_forward(pd)});
    }
    if (cfg.mode == RnnMode::kGru) {
      dnnl::lbr_gru_forward::primitive_desc pd({prop, dir, src, iter, wl, wi, bias, dst, out_iter},
                                               attr, Engine());
      return std::make_shared<LayerPrim>(LayerPrim{pd, dnnl::lbr_gru_forward(pd)});
    }
    const auto act =
        cfg.mode == RnnMode::kRelu ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_tanh;
    dnnl::vanilla_rnn_forward::primitive_desc pd(
        {prop, act, dir, src, iter, wl, wi, bias, dst, out_iter}, attr, Engine());
    return std::make_shared<LayerPrim>(LayerPrim{pd, dnnl::vanilla_rnn_forward(pd)});
  });
}

// W_i2h (i2h) or W_h2h of layer l, both directions, packed into `want`
// from a dense copy in oneDNN's ldgoi order and gate order (reorders into
// the RNN formats start from ldgoi or ldigo).
memory PackWeights(const cpu::RnnConfig& cfg, int64_t l, bool i2h, const float* w,
                   const memory::desc& want) {
  const int64_t H = cfg.H, G = cfg.G(), in = i2h ? cfg.In(l) : H, gate = H * in;
  std::vector<float> dense(static_cast<size_t>(cfg.D * G * gate));
  for (int64_t d = 0; d < cfg.D; ++d) {
    const float* src = w + cfg.WeightOffset(l, d) + (i2h ? 0 : G * H * cfg.In(l));
    for (int64_t g = 0; g < G; ++g)
      std::memcpy(dense.data() + (d * G + g) * gate, src + GateOf(cfg.mode, g) * gate,
                  sizeof(float) * static_cast<size_t>(gate));
  }
  memory src({{1, cfg.D, in, G, H}, memory::data_type::f32, memory::format_tag::ldgoi}, Engine(),
             dense.data());
  memory packed(want, Engine());
  dnnl::reorder(src, packed).execute(ThreadStream(), src, packed);
  ThreadStream().wait();
  return packed;
}

// Layer l's bias in oneDNN's gates (see the file comment).
memory PackBias(const cpu::RnnConfig& cfg, int64_t l, const float* w) {
  const int64_t H = cfg.H, G = cfg.G(), B = BiasGates(cfg);
  memory bias(PlainDesc({1, cfg.D, B, H}), Engine());
  float* b = static_cast<float*>(bias.get_data_handle());
  for (int64_t d = 0; d < cfg.D; ++d) {
    const float* bx = w + cfg.BiasOffset(l, d);
    const float* bh = bx + G * H;
    float* out = b + d * B * H;
    for (int64_t g = 0; g < G; ++g) {
      const int64_t s = GateOf(cfg.mode, g) * H;
      const bool split = cfg.mode == RnnMode::kGru && g == 2;  // o: b_h2h's n goes to u'
      for (int64_t j = 0; j < H; ++j) out[g * H + j] = bx[s + j] + (split ? 0.0f : bh[s + j]);
    }
    if (cfg.mode == RnnMode::kGru) std::memcpy(out + 3 * H, bh + 2 * H, sizeof(float) * H);
  }
  return bias;
}

// Whether `kept` holds this version of the parameters for this configuration.
bool Matches(const PackedWeights* kept, const void* src, uint64_t version,
             const std::vector<int64_t>& key) {
  return kept && kept->src == src && kept->version == version && kept->key == key;
}

// Whether the packed layers are in the layouts `prims` take.
bool LayoutsMatch(const PackedWeights& kept, const std::vector<std::shared_ptr<LayerPrim>>& prims) {
  if (kept.layers.size() != prims.size()) return false;
  for (size_t l = 0; l < prims.size(); ++l)
    if (kept.layers[l].layer.get_desc() != prims[l]->pd.weights_layer_desc() ||
        kept.layers[l].iter.get_desc() != prims[l]->pd.weights_iter_desc())
      return false;
  return true;
}

// The packed weights of this call's parameters `w`: the bound call's own,
// another bound call's of the same version, or a new (empty) entry, which
// `hold` keeps alive for an unbound call.
PackedWeights* PackingFor(const OpContext& ctx, const cpu::RnnConfig& cfg, const float* w,
                          std::shared_ptr<PackedWeights>* hold) {
  const bool bound = ctx.state && ctx.input_versions;
  const uint64_t version = bound ? ctx.input_versions[1] : 0;
  const std::vector<int64_t> key = PackKey(cfg);
  PackedWeights* packed = bound ? static_cast<PackedWeights*>(ctx.state->get()) : nullptr;
  if (Matches(packed, w, version, key)) return packed;
  auto same = [&](const PackedWeights& p) { return Matches(&p, w, version, key); };
  std::shared_ptr<PackedWeights>& use = *hold;
  if (bound) use = Shared().Find(w, version, same);
  if (!use) {
    use = std::make_shared<PackedWeights>();
    use->src = w;
    use->version = version;
    use->key = key;
    if (bound) use = Shared().Add(w, version, use, same);
  }
  if (bound) *ctx.state = use;
  return use.get();
}

}  // namespace

uint64_t RnnInferencePacks() { return g_packs.load(std::memory_order_relaxed); }

bool RnnInferenceCovers(const OpContext& ctx, const cpu::RnnConfig& cfg,
                        const std::vector<TBlob>& in, const std::vector<OpReq>& req) {
  if (ctx.is_train || cfg.P > 0 || cfg.clip || cfg.use_sequence_length) return false;
  if (in[0].dtype != DType::kFloat32 || cfg.T < 1 || cfg.N < 1) return false;
  for (OpReq r : req)
    if (r == OpReq::kAdd) return false;
  return true;
}

bool RnnInference(const OpContext& ctx, const cpu::RnnConfig& cfg, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const int64_t L = cfg.L, D = cfg.D, T = cfg.T, N = cfg.N, H = cfg.H;
  const bool lstm = cfg.mode == RnnMode::kLstm;
  bool states = false;
  for (size_t k = 1; k < out.size(); ++k) states = states || req[k] != OpReq::kNull;
  const bool gemv = UseGemv(cfg);
  std::vector<std::shared_ptr<LayerPrim>> prims;
  for (int64_t l = 0; l < L && !gemv; ++l) {
    prims.push_back(Prim(cfg, cfg.In(l), states));
    if (!prims.back()) return false;
  }
  const float* w = in[1].data<float>();
  std::shared_ptr<PackedWeights> hold;
  PackedWeights* packed = PackingFor(ctx, cfg, w, &hold);
  if (gemv) {
    std::call_once(packed->gemv_once, [&] {
      packed->gemv = std::make_unique<cpu::LstmGemvWeights>(cpu::PackLstmGemv(cfg, w));
      g_packs.fetch_add(1, std::memory_order_relaxed);
    });
    auto wanted = [&](size_t k) {
      return k < out.size() && req[k] != OpReq::kNull ? out[k].data<float>() : nullptr;
    };
    cpu::LstmGemvForward(cfg, *packed->gemv, in[0].data<float>(), in[2].data<float>(),
                         in[3].data<float>(), out[0].data<float>(), wanted(1), wanted(2));
    return true;
  }
  std::call_once(packed->layers_once, [&] {
    for (int64_t l = 0; l < L; ++l)
      packed->layers.push_back({PackWeights(cfg, l, true, w, prims[l]->pd.weights_layer_desc()),
                                PackWeights(cfg, l, false, w, prims[l]->pd.weights_iter_desc()),
                                PackBias(cfg, l, w)});
    g_packs.fetch_add(1, std::memory_order_relaxed);
  });
  if (!LayoutsMatch(*packed, prims)) return false;
  // Layer outputs alternate between two scratch buffers; the last layer
  // writes the operator's output. Scratch slots 2 and 3 take state outputs
  // the caller does not read.
  const memory::desc iter_md = PlainDesc({1, D, N, H});
  const size_t layer_bytes = static_cast<size_t>(T * N * D * H) * sizeof(float);
  const float* x = in[0].data<float>();
  auto state_out = [&](size_t k, int64_t so) {  // k = 1: hy (scratch 2), 2: cy (scratch 3)
    return k < out.size() && req[k] != OpReq::kNull
               ? out[k].data<float>() + so
               : static_cast<float*>(Scratch(static_cast<int>(k) + 1, iter_md.get_size()));
  };
  for (int64_t l = 0; l < L; ++l) {
    const auto& p = *prims[l];
    float* y = l == L - 1 ? out[0].data<float>() : static_cast<float*>(Scratch(l % 2, layer_bytes));
    const int64_t so = l * D * N * H;
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC_LAYER, memory(PlainDesc({T, N, cfg.In(l)}), Engine(), const_cast<float*>(x))},
        {DNNL_ARG_SRC_ITER,
         memory(iter_md, Engine(), const_cast<float*>(in[2].data<float>() + so))},
        {DNNL_ARG_WEIGHTS_LAYER, packed->layers[l].layer},
        {DNNL_ARG_WEIGHTS_ITER, packed->layers[l].iter},
        {DNNL_ARG_BIAS, packed->layers[l].bias},
        {DNNL_ARG_DST_LAYER, memory(PlainDesc({T, N, D * H}), Engine(), y)}};
    if (lstm)
      args[DNNL_ARG_SRC_ITER_C] =
          memory(iter_md, Engine(), const_cast<float*>(in[3].data<float>() + so));
    if (states) {
      args[DNNL_ARG_DST_ITER] = memory(iter_md, Engine(), state_out(1, so));
      if (lstm) args[DNNL_ARG_DST_ITER_C] = memory(iter_md, Engine(), state_out(2, so));
    }
    Execute(p.prim, p.pd, std::move(args));
    x = y;
  }
  return true;
}

}  // namespace onednn
}  // namespace weft
