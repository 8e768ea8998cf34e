// The fused RNN layer engine behind the CPU kernels of RNN and
// _backward_RNN (kernels/cpu/nn_rnn.cc): configuration, MXNet's packed
// parameter layout, the per-(layer, direction) buffers kept between the
// forward sweep and backpropagation through time, and the row-major GEMM
// wrapper the sweeps use. Stateless apart from the caller-owned RnnWork.
//
// Parameter vector (MXNet / cuDNN layout): every weight first, per layer l
// and direction d in order (l0 d0, l0 d1, l1 d0, ...): W_i2h (G*H x In_l),
// then W_h2h (G*H x H); after all weights the biases in the same order:
// b_i2h (G*H), b_h2h (G*H). In_0 = input_size, In_l = D*H. G = 4 gates
// (i, f, g, o) for LSTM, 3 (r, z, n) for GRU, 1 for the vanilla RNNs.
// An LSTM with a projection (projection_size P, MXNet/cuDNN's LSTMP) has
// recurrent state h = W_h2r . (o * tanh(c)) of size R = P instead of H:
// its weights per (l, d) are W_i2h (4H x In_l), W_h2h (4H x P), W_h2r
// (P x H), In_l = D*P for l > 0, and the biases are unchanged.
#ifndef WEFT_KERNELS_CPU_NN_RNN_H_
#define WEFT_KERNELS_CPU_NN_RNN_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "weft/op.h"

namespace weft {
namespace cpu {

enum class RnnMode { kRelu, kTanh, kLstm, kGru };

// A row-major float32 GEMM, C (m x n, ldc) = op(A) . op(B) + beta * C,
// the sweeps' products for float32 (float64 always uses cblas_dgemm).
using RnnSgemm = void (*)(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
                          int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                          int64_t ldc);

struct RnnConfig {
  RnnMode mode = RnnMode::kLstm;
  int64_t L = 1, D = 1, T = 0, N = 0, I = 0, H = 0;
  int64_t P = 0;                     // LSTM projection size; 0: none
  double p = 0;                      // dropout between layers (applied when `dropout`)
  bool dropout = false;              // training with p > 0
  uint64_t seed = 0;                 // dropout masks are a function of (seed, layer, index)
  bool clip = false;                 // LSTM cell-state clipping (cuDNN semantics)
  bool use_sequence_length = false;  // the op reads sequence_length
  bool clip_nan = false;             // clipping also maps NaN cell states to clip_min
  double clip_min = 0, clip_max = 0;
  const int64_t* lengths = nullptr;  // per batch row (use_sequence_length), or null
  RnnSgemm sgemm = nullptr;          // null: cblas_sgemm

  int64_t G() const { return mode == RnnMode::kLstm ? 4 : mode == RnnMode::kGru ? 3 : 1; }
  // Size of the recurrent state h (and of each direction's output).
  int64_t R() const { return P > 0 ? P : H; }
  int64_t In(int64_t l) const { return l == 0 ? I : D * R(); }
  // Offsets into the parameter vector of (l, d)'s W_i2h and b_i2h.
  int64_t WeightOffset(int64_t l, int64_t d) const;
  int64_t BiasOffset(int64_t l, int64_t d) const;
  int64_t ParamSize() const { return BiasOffset(L, 0); }
  // Whether batch row b is inside its sequence at time t.
  bool Active(int64_t t, int64_t b) const { return !lengths || t < lengths[b]; }
};

// The configuration RNN's attributes and its data shape (T, N, I) give:
// mode, layers, directions, sizes, p and the LSTM clipping. Whether dropout
// applies, the sequence lengths and the GEMM are the caller's to set. One
// decoding for the CPU and CUDA kernels.
RnnConfig RnnConfigOf(const NodeAttrs& attrs, const Shape& data);

// Buffers of one forward sweep, kept for backpropagation through time.
template <typename T>
struct RnnWork {
  struct Dir {
    std::unique_ptr<T[]> gates;  // T*N*G*H: activated gates per time step
    std::unique_ptr<T[]> h;      // (T+1)*N*R: states; see PrevSlot
    std::unique_ptr<T[]> c;      // (T+1)*N*H: LSTM cell states
    std::unique_ptr<T[]> r;      // T*N*H: o * tanh(c) before the projection (P > 0)
    std::unique_ptr<T[]> hn;     // T*N*H: GRU W_hn h + b_hn per step
  };
  std::vector<Dir> dirs;                   // L*D, index l*D + d
  std::vector<std::unique_ptr<T[]>> y;     // L: layer outputs T*N*D*R
  std::vector<std::unique_ptr<T[]>> x;     // L: layer inputs after dropout (l >= 1)
  std::vector<std::unique_ptr<T[]>> mask;  // L: dropout masks of layer l's input (l >= 1)
};

// Slot of the state before time step t in a direction's (T+1)-slot buffer:
// forward runs slot t -> t+1, reverse runs slot t+1 -> t.
inline int64_t PrevSlot(int64_t t, int64_t d) { return d ? t + 1 : t; }
inline int64_t CurSlot(int64_t t, int64_t d) { return d ? t : t + 1; }

// Forward sweep over all layers. x: (T, N, I); w: packed parameters;
// hx: (L*D, N, R), cx: (L*D, N, H) (LSTM only). Fills `work`: the last layer's
// output is work->y[L-1]; the final state of (l, d) is slot d ? 0 : T of
// dirs[l*D + d].h (and .c).
template <typename T>
void RnnForwardSweep(const RnnConfig& cfg, const T* x, const T* w, const T* hx, const T* cx,
                     RnnWork<T>* work);

// Backpropagation through time after RnnForwardSweep on the same inputs.
// dy: (T, N, D*R); dhy: (L*D, N, R), dcy: (L*D, N, H), or null (zeros). Outputs:
// dx (T, N, I) (null: not wanted; beta 1 when `dx_add`), dw accumulated
// (the caller zeroes it first for a plain write), dhx/dcx written (may be
// null). `work` is consumed (its buffers are overwritten).
template <typename T>
void RnnBackwardSweep(const RnnConfig& cfg, const T* x, const T* w, const T* dy, const T* dhy,
                      const T* dcy, T* dx, bool dx_add, T* dw, T* dhx, T* dcx, RnnWork<T>* work);

// The kernels of RNN and _backward_RNN with float32 products through
// `sgemm` (null: cblas_sgemm); the "cpu" backend registers them with null,
// the "dnnl" backend (kernels/dnnl/nn_rnn_dnnl.cc) with oneDNN's sgemm.
void RNNForwardKernel(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out, RnnSgemm sgemm);
void RNNBackwardKernel(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out,
                       RnnSgemm sgemm);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_RNN_H_
