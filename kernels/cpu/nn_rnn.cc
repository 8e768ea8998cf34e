// CPU kernels of RNN and _backward_RNN: decode the op's parameters and
// blobs into an RnnConfig, run the layer sweeps of kernels/cpu/nn_rnn.h
// and store the results under each output's OpReq. The backward kernel
// takes the buffers of the matching training forward from RnnWorkCache
// (kernels/cpu/nn_rnn_cache.h) or, without one, reruns the forward sweep.
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/nn_rnn.h"
#include "cpu/nn_rnn_cache.h"
#include "cpu/nn_seq_lengths.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// 64-bit FNV-1a over `bytes` bytes, chained from `h`.
uint64_t HashBytes(const void* data, size_t bytes, uint64_t h) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  const size_t words = bytes / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t v;
    std::memcpy(&v, p + 8 * i, 8);
    h = (h ^ v) * 0x100000001B3ull;
    h ^= h >> 29;
  }
  for (size_t i = words * 8; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

// The op's configuration for inputs `in` (RNN's input order). `train`
// enables dropout; `lengths` receives sequence_length as integers.
RnnConfig MakeConfig(const NodeAttrs& attrs, const std::vector<TBlob>& in, bool train,
                     std::vector<int64_t>* lengths) {
  RnnConfig cfg = RnnConfigOf(attrs, in[0].shape);
  cfg.dropout = train && cfg.p > 0 && cfg.L > 1;
  const size_t nstate = cfg.mode == RnnMode::kLstm ? 4 : 3;
  if (cfg.use_sequence_length) {
    *lengths = ReadSequenceLengths(in[nstate], cfg.N, 1, cfg.T, "RNN");
    cfg.lengths = lengths->data();
  }
  if (cfg.dropout) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < nstate; ++i) h = HashBytes(in[i].dptr, in[i].Bytes(), h);
    cfg.seed = h;
  }
  return cfg;
}

// The configuration as a cache key (inputs are compared separately).
std::string ConfigKey(const RnnConfig& c) {
  return StrCat(static_cast<int>(c.mode), ",", c.L, ",", c.D, ",", c.T, ",", c.N, ",", c.I, ",",
                c.H, ",", c.P, ",", c.p, ",", c.dropout, ",", c.clip, ",", c.clip_min, ",",
                c.clip_max, ",", c.clip_nan, ",", c.lengths != nullptr, ",", c.sgemm != nullptr);
}

// Bytes of the buffers RnnForwardSweep keeps for `c`.
size_t WorkBytes(const RnnConfig& c, size_t elem) {
  const int64_t nh = c.N * c.H, tn = c.T * c.N;
  int64_t per_dir = tn * c.G() * c.H + (c.T + 1) * c.N * c.R();
  if (c.mode == RnnMode::kLstm) per_dir += (c.T + 1) * nh;
  if (c.mode == RnnMode::kGru || c.P > 0) per_dir += tn * c.H;
  int64_t n = c.L * c.D * per_dir + c.L * tn * c.D * c.R();
  if (c.dropout) n += 2 * (c.L - 1) * tn * c.D * c.R();
  return static_cast<size_t>(n) * elem;
}

// Copies `n` values into `dst` under `req`.
template <typename T>
void StoreAll(OpReq req, const T* src, T* dst, int64_t n) {
  if (req == OpReq::kNull) return;
  if (req == OpReq::kAdd) {
    for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
  } else if (src != dst) {
    std::memcpy(dst, src, sizeof(T) * static_cast<size_t>(n));
  }
}

// Copies the final states of every (layer, direction) into hy / cy.
template <typename T>
void StoreFinalStates(const RnnConfig& cfg, const RnnWork<T>& work, bool cell, OpReq req, T* dst) {
  const int64_t NH = cfg.N * (cell ? cfg.H : cfg.R());
  for (int64_t l = 0; l < cfg.L; ++l) {
    for (int64_t d = 0; d < cfg.D; ++d) {
      const auto& dir = work.dirs[l * cfg.D + d];
      const T* src = (cell ? dir.c.get() : dir.h.get()) + (d ? 0 : cfg.T) * NH;
      StoreAll(req, src, dst + (l * cfg.D + d) * NH, NH);
    }
  }
}

}  // namespace

void RNNForwardKernel(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out,
                      RnnSgemm sgemm) {
  std::vector<int64_t> lengths;
  RnnConfig cfg = MakeConfig(attrs, in, ctx.is_train, &lengths);
  cfg.sgemm = sgemm;
  const bool lstm = cfg.mode == RnnMode::kLstm;
  DispatchFloat(in[0].dtype, "RNN", [&](auto t) {
    using T = decltype(t);
    RnnWork<T> work;
    RnnForwardSweep<T>(cfg, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(),
                       lstm ? in[3].data<T>() : nullptr, &work);
    StoreAll(req[0], work.y[cfg.L - 1].get(), out[0].data<T>(), out[0].Size());
    if (out.size() > 1) StoreFinalStates(cfg, work, false, req[1], out[1].data<T>());
    if (out.size() > 2) StoreFinalStates(cfg, work, true, req[2], out[2].data<T>());
    // In training, hand the sweep's buffers to the backward call.
    if (ctx.is_train)
      RnnWorkCache<T>::Get().Put(ConfigKey(cfg), in, std::move(work), WorkBytes(cfg, sizeof(T)));
  });
}

// in: RNN inputs (ni), then output gradients; out: one gradient per RNN input.
void RNNBackwardKernel(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out,
                       RnnSgemm sgemm) {
  const size_t ni = out.size();
  std::vector<int64_t> lengths;
  RnnConfig cfg = MakeConfig(attrs, in, ctx.is_train, &lengths);
  cfg.sgemm = sgemm;
  const bool lstm = cfg.mode == RnnMode::kLstm;
  const size_t nog = in.size() - ni;
  DispatchFloat(in[0].dtype, "_backward_RNN", [&](auto t) {
    using T = decltype(t);
    RnnWork<T> work;
    const T* x = in[0].data<T>();
    const T* w = in[1].data<T>();
    const std::vector<TBlob> fwd_in(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(ni));
    if (!ctx.is_train || !RnnWorkCache<T>::Get().Take(ConfigKey(cfg), fwd_in, &work))
      RnnForwardSweep<T>(cfg, x, w, in[2].data<T>(), lstm ? in[3].data<T>() : nullptr, &work);
    const T* dy = in[ni].data<T>();
    const T* dhy = nog > 1 ? in[ni + 1].data<T>() : nullptr;
    const T* dcy = nog > 2 ? in[ni + 2].data<T>() : nullptr;
    // Parameters: accumulate into the output (zeroed first unless kAdd) or a scratch.
    std::vector<T> dw_scratch;
    T* dw = out[1].data<T>();
    if (req[1] == OpReq::kNull) {
      dw_scratch.assign(static_cast<size_t>(out[1].Size()), T(0));
      dw = dw_scratch.data();
    } else if (req[1] != OpReq::kAdd) {
      std::memset(dw, 0, sizeof(T) * static_cast<size_t>(out[1].Size()));
    }
    const int64_t nstate = out[2].Size(), ncell = lstm ? out[3].Size() : 0;
    std::vector<T> dhx(static_cast<size_t>(nstate)), dcx(static_cast<size_t>(ncell));
    T* dx = req[0] == OpReq::kNull ? nullptr : out[0].data<T>();
    RnnBackwardSweep<T>(cfg, x, w, dy, dhy, dcy, dx, req[0] == OpReq::kAdd, dw, dhx.data(),
                        lstm ? dcx.data() : nullptr, &work);
    StoreAll(req[2], dhx.data(), out[2].data<T>(), nstate);
    if (lstm) StoreAll(req[3], dcx.data(), out[3].data<T>(), ncell);
  });
  // sequence_length: no gradient.
  if (cfg.use_sequence_length) {
    const size_t s = ni - 1;
    if (req[s] == OpReq::kWrite || req[s] == OpReq::kInplace)
      std::memset(out[s].dptr, 0, out[s].Bytes());
  }
}

void RegisterNNRnnCpu(KernelRegistry* reg) {
  auto fwd = [](const OpContext& c, const NodeAttrs& a, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req,
                const std::vector<TBlob>& out) { RNNForwardKernel(c, a, in, req, out, nullptr); };
  auto bwd = [](const OpContext& c, const NodeAttrs& a, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req,
                const std::vector<TBlob>& out) { RNNBackwardKernel(c, a, in, req, out, nullptr); };
  reg->Add("RNN", DeviceType::kCPU, {"cpu", 0, fwd, true});
  reg->Add("_backward_RNN", DeviceType::kCPU, {"cpu", 0, bwd, true});
}

}  // namespace cpu
}  // namespace weft
