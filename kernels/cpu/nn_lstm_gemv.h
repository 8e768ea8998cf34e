// LSTM inference for a few batch rows as matrix-vector sweeps. At batch 1
// each time step's recurrent product h' . W_h2h^T is a matrix-vector
// product over the whole 4H x H matrix, bound by reading it; oneDNN's
// gemm-based LSTM runs it as a GEMM and its gate activations as a second
// pass on one thread, and gains little from a second core. Here the hidden
// units are split into tiles of 16, each tile's four gate rows packed
// together ([tile][k][gate][lane]), the tiles split over the OpenMP team
// once for the whole sequence, and a thread computes its tiles' products,
// gates, cell and state in one pass, meeting the others at one barrier per
// time step. The input projections of all time steps are one GEMM
// (RnnConfig::sgemm) before the sweep.
#ifndef WEFT_KERNELS_CPU_NN_LSTM_GEMV_H_
#define WEFT_KERNELS_CPU_NN_LSTM_GEMV_H_

#include <cstdint>
#include <vector>

#include "cpu/nn_rnn.h"

namespace weft {
namespace cpu {

// Batch rows the sweep takes (each tile's weights are read once per step
// for all of them).
constexpr int64_t kLstmGemvMaxBatch = 4;

// Every (layer, direction)'s W_i2h transposed (In x 4H, the projection's
// right-hand side as oneDNN's RNN takes it: no transposition in the GEMM),
// its W_h2h in the sweep's tile order, and the summed biases b_i2h + b_h2h
// (4H, MXNet's gate order i, f, g, o).
struct LstmGemvWeights {
  int64_t H = 0;
  std::vector<std::vector<float>> layer;  // L*D, index l*D + d
  std::vector<std::vector<float>> iter;   // L*D, index l*D + d
  std::vector<std::vector<float>> bias;   // L*D
};

// Whether the sweep covers `cfg`: an LSTM without projection, clipping or
// sequence lengths, 1..kLstmGemvMaxBatch rows, a float32 GEMM given in
// cfg.sgemm.
bool LstmGemvCovers(const RnnConfig& cfg);

// The packed weights of the parameter vector `w` (MXNet's layout, nn_rnn.h).
LstmGemvWeights PackLstmGemv(const RnnConfig& cfg, const float* w);

// RNN's LSTM forward for a covered cfg: x (T, N, I), hx / cx (L*D, N, H);
// writes y (T, N, D*H) and, where not null, hy / cy (L*D, N, H).
void LstmGemvForward(const RnnConfig& cfg, const LstmGemvWeights& packed, const float* x,
                     const float* hx, const float* cx, float* y, float* hy, float* cy);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_LSTM_GEMV_H_
