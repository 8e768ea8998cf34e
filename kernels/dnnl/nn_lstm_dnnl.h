// RNN(mode=lstm) inference on oneDNN's LSTM primitive: one primitive per
// layer (both directions in one, outputs concatenated as MXNet's), the
// weights reordered once per parameter version into the layout the
// primitive prefers and kept in the bound call's state, b_i2h + b_h2h
// summed into oneDNN's single bias. Used by the "dnnl" RNN kernel
// (kernels/dnnl/nn_rnn_dnnl.cc) before the generic layer sweeps.
#ifndef WEFT_KERNELS_DNNL_NN_LSTM_DNNL_H_
#define WEFT_KERNELS_DNNL_NN_LSTM_DNNL_H_

#include <vector>

#include "cpu/nn_rnn.h"
#include "weft/op.h"

namespace weft {
namespace onednn {

// Whether LstmInference covers the call: float32 LSTM without projection,
// cell clipping or sequence lengths, not training, plain writes.
bool LstmInferenceCovers(const OpContext& ctx, const cpu::RnnConfig& cfg,
                         const std::vector<TBlob>& in, const std::vector<OpReq>& req);

// RNN's forward for a covered call: in = data (T, N, I), parameters, state,
// state_cell; out = output (T, N, D*H)[, hy, cy]. Returns false (having
// written nothing) when oneDNN refuses the geometry.
bool LstmInference(const OpContext& ctx, const cpu::RnnConfig& cfg, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out);

}  // namespace onednn
}  // namespace weft

#endif  // WEFT_KERNELS_DNNL_NN_LSTM_DNNL_H_
