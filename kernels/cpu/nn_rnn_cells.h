// One time step of the LSTM, GRU and vanilla RNN cells over all N batch
// rows, forward and backward, given the GEMM results of the layer sweep
// (kernels/cpu/nn_rnn_layer.cc). Gate order and formulas are MXNet's:
//   LSTM (i, f, g, o): c = f*c' + i*g (clipped to [min, max] when asked),
//        h = o*tanh(c);
//   GRU (r, z, n): n = tanh(Wx_n x + b_in + r*(W_hn h' + b_hn)),
//        h = (1-z)*n + z*h';
//   RNN: h = relu or tanh of the summed projections.
// Rows outside their sequence (RnnConfig::Active false) carry the state
// through unchanged and get zero gate gradients.
#ifndef WEFT_KERNELS_CPU_NN_RNN_CELLS_H_
#define WEFT_KERNELS_CPU_NN_RNN_CELLS_H_

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/nn_rnn.h"

namespace weft {
namespace cpu {
namespace rnn {

// Steps with at least this many state elements run their rows in parallel.
constexpr int64_t kCellParallel = 1 << 13;

template <typename T>
inline T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// g: in the input projection plus biases (N x G*H), out the activated
// gates; gh: the recurrent projection h' . W_h2h^T (N x G*H); bhn: GRU's
// b_hn; hp/cp: previous state; h/c: new state; hn: GRU's W_hn h' + b_hn.
// An LSTM with a projection passes hp null and h = r (o * tanh(c)), which
// is zero on inactive rows (the caller carries h' through the projection).
template <typename T>
void CellForward(const RnnConfig& cfg, int64_t t, T* g, const T* gh, const T* bhn, const T* hp,
                 const T* cp, T* h, T* c, T* hn) {
  const int64_t N = cfg.N, H = cfg.H, GH = cfg.G() * H;
  const RnnMode mode = cfg.mode;
#pragma omp parallel for schedule(static) if (N * H >= kCellParallel)
  for (int64_t b = 0; b < N; ++b) {
    T* gb = g + b * GH;
    const T* ghb = gh + b * GH;
    const T* hpb = hp ? hp + b * H : nullptr;
    T* hb = h + b * H;
    if (!cfg.Active(t, b)) {
      if (hp)
        std::memcpy(hb, hpb, sizeof(T) * H);
      else
        std::fill(hb, hb + H, T(0));
      if (mode == RnnMode::kLstm) std::memcpy(c + b * H, cp + b * H, sizeof(T) * H);
      std::fill(gb, gb + GH, T(0));
      if (mode == RnnMode::kGru) std::fill(hn + b * H, hn + (b + 1) * H, T(0));
      continue;
    }
    if (mode == RnnMode::kLstm) {
      const T* cpb = cp + b * H;
      T* cb = c + b * H;
      for (int64_t j = 0; j < H; ++j) {
        const T i = Sigmoid(gb[j] + ghb[j]);
        const T f = Sigmoid(gb[H + j] + ghb[H + j]);
        const T gg = std::tanh(gb[2 * H + j] + ghb[2 * H + j]);
        const T o = Sigmoid(gb[3 * H + j] + ghb[3 * H + j]);
        T cv = f * cpb[j] + i * gg;
        if (cfg.clip) {
          cv = cfg.clip_nan ? std::fmin(std::fmax(cv, T(cfg.clip_min)), T(cfg.clip_max))
                            : std::min(std::max(cv, T(cfg.clip_min)), T(cfg.clip_max));
        }
        cb[j] = cv;
        hb[j] = o * std::tanh(cv);
        gb[j] = i;
        gb[H + j] = f;
        gb[2 * H + j] = gg;
        gb[3 * H + j] = o;
      }
    } else if (mode == RnnMode::kGru) {
      T* hnb = hn + b * H;
      for (int64_t j = 0; j < H; ++j) {
        const T r = Sigmoid(gb[j] + ghb[j]);
        const T z = Sigmoid(gb[H + j] + ghb[H + j]);
        const T hnv = ghb[2 * H + j] + bhn[j];
        const T n = std::tanh(gb[2 * H + j] + r * hnv);
        hb[j] = (T(1) - z) * n + z * hpb[j];
        hnb[j] = hnv;
        gb[j] = r;
        gb[H + j] = z;
        gb[2 * H + j] = n;
      }
    } else {
      const bool relu = mode == RnnMode::kRelu;
      for (int64_t j = 0; j < H; ++j) {
        const T s = gb[j] + ghb[j];
        const T v = relu ? (s > T(0) ? s : T(0)) : std::tanh(s);
        hb[j] = v;
        gb[j] = v;
      }
    }
  }
}

// Backward of CellForward at step t. g: in the activated gates, out the
// gradient of the input-side pre-activations (dGx); hn (GRU): in W_hn h' +
// b_hn, out the gradient of the recurrent n pre-activation (dGh_n; for the
// other gates dGh = dGx). dh: in dL/dh_t, out the direct part of dL/dh'
// (the caller adds dGh . W_h2h); dc (LSTM): in dL/dc_t from step t+1, out
// dL/dc'.
template <typename T>
void CellBackward(const RnnConfig& cfg, int64_t t, T* g, T* hn, const T* hp, const T* cp,
                  const T* h, const T* c, T* dh, T* dc) {
  const int64_t N = cfg.N, H = cfg.H, GH = cfg.G() * H;
  const RnnMode mode = cfg.mode;
#pragma omp parallel for schedule(static) if (N * H >= kCellParallel)
  for (int64_t b = 0; b < N; ++b) {
    T* gb = g + b * GH;
    T* dhb = dh + b * H;
    if (!cfg.Active(t, b)) {
      std::fill(gb, gb + GH, T(0));
      if (mode == RnnMode::kGru) std::fill(hn + b * H, hn + (b + 1) * H, T(0));
      continue;  // dh, dc pass through
    }
    if (mode == RnnMode::kLstm) {
      const T* cpb = cp + b * H;
      const T* cb = c + b * H;
      T* dcb = dc + b * H;
      for (int64_t j = 0; j < H; ++j) {
        const T i = gb[j], f = gb[H + j], gg = gb[2 * H + j], o = gb[3 * H + j];
        const T tc = std::tanh(cb[j]);
        const T d = dhb[j];
        T dct = dcb[j] + d * o * (T(1) - tc * tc);
        if (cfg.clip && !(cb[j] > T(cfg.clip_min) && cb[j] < T(cfg.clip_max))) dct = T(0);
        gb[j] = dct * gg * i * (T(1) - i);
        gb[H + j] = dct * cpb[j] * f * (T(1) - f);
        gb[2 * H + j] = dct * i * (T(1) - gg * gg);
        gb[3 * H + j] = d * tc * o * (T(1) - o);
        dcb[j] = dct * f;
        dhb[j] = T(0);
      }
    } else if (mode == RnnMode::kGru) {
      const T* hpb = hp + b * H;
      T* hnb = hn + b * H;
      for (int64_t j = 0; j < H; ++j) {
        const T r = gb[j], z = gb[H + j], n = gb[2 * H + j];
        const T d = dhb[j];
        const T dn = d * (T(1) - z) * (T(1) - n * n);
        const T dz = d * (hpb[j] - n) * z * (T(1) - z);
        const T dr = dn * hnb[j] * r * (T(1) - r);
        gb[j] = dr;
        gb[H + j] = dz;
        gb[2 * H + j] = dn;
        hnb[j] = dn * r;
        dhb[j] = d * z;
      }
    } else {
      const T* hb = h + b * H;
      const bool relu = mode == RnnMode::kRelu;
      for (int64_t j = 0; j < H; ++j) {
        const T v = hb[j];
        gb[j] = dhb[j] * (relu ? (v > T(0) ? T(1) : T(0)) : T(1) - v * v);
        dhb[j] = T(0);
      }
    }
  }
}

}  // namespace rnn
}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_RNN_CELLS_H_
