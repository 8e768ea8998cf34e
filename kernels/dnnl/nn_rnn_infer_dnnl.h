// RNN inference on oneDNN's RNN primitives: LSTM on lstm_forward, GRU on
// lbr_gru_forward (MXNet's GRU is cuDNN's, whose reset gate multiplies the
// recurrent product after its bias: oneDNN's "linear before reset" GRU),
// rnn_relu / rnn_tanh on vanilla_rnn_forward. One primitive per layer
// (both directions in one, outputs concatenated as MXNet's), the weights
// reordered once per parameter version into the layout the primitive takes
// and kept in the bound call's state, the biases summed or regrouped into
// oneDNN's. Used by the "dnnl" RNN kernel (kernels/dnnl/nn_rnn_dnnl.cc)
// before the generic layer sweeps; an LSTM over a few batch rows runs the
// matrix-vector sweeps of kernels/cpu/nn_lstm_gemv.h instead.
#ifndef WEFT_KERNELS_DNNL_NN_RNN_INFER_DNNL_H_
#define WEFT_KERNELS_DNNL_NN_RNN_INFER_DNNL_H_

#include <cstdint>
#include <vector>

#include "cpu/nn_rnn.h"
#include "weft/op.h"

namespace weft {
namespace onednn {

// Whether RnnInference covers the call: float32 without an LSTM
// projection, cell clipping or sequence lengths, not training, no kAdd.
bool RnnInferenceCovers(const OpContext& ctx, const cpu::RnnConfig& cfg,
                        const std::vector<TBlob>& in, const std::vector<OpReq>& req);

// RNN's forward for a covered call: in = data (T, N, I), parameters, state
// [, state_cell for LSTM]; out = output (T, N, D*H)[, hy[, cy]]. Returns
// false (having written nothing) when oneDNN refuses the geometry.
bool RnnInference(const OpContext& ctx, const cpu::RnnConfig& cfg, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out);

// How many times the weights were packed since the process started (tests:
// bound calls reading one array at one version pack it once between them).
uint64_t RnnInferencePacks();

}  // namespace onednn
}  // namespace weft

#endif  // WEFT_KERNELS_DNNL_NN_RNN_INFER_DNNL_H_
