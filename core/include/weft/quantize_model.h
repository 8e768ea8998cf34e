// int8 quantization of a float32 model with MXNet 1.9.1's flow
// (python/mxnet/contrib/quantization.py quantize_model and the QuantizeGraph
// / SetCalibTableToQuantizedGraph passes of src/operator/quantization/
// quantize_graph_pass.cc):
//
// 1. QuantizeSymbol replaces every quantizable node (Convolution and
//    FullyConnected must be; Pooling max/avg, Activation relu, Flatten,
//    Concat dim > 0, elemwise_add/mul, BatchNorm and Embedding may be) by its
//    `_contrib_quantized_*` twin named "quantized_<name>", puts a
//    `_contrib_quantize_v2` ("<entry>_quantize") before each float input, a
//    `_contrib_requantize` ("requantize_<name>") after each int32 output and
//    a `_contrib_dequantize` ("<name>_dequantize") where a float32 reader
//    follows. "smart" mode quantizes a may-node only between must-nodes (on
//    a path from one and to one), "full" every one. Parameters listed as
//    offline become variables "<param>_quantize", "_quantize_min",
//    "_quantize_max" instead of quantize nodes.
// 2. Calibration runs the float32 model over calibration batches and
//    records, for each layer output that a quantize or requantize node
//    reads (the returned calib_layers, named as MXNet names entries:
//    "conv1_output", "data"), its min/max ("naive") or a histogram whose
//    KL-optimal threshold is taken ("entropy", MXNet's calibrate_entropy:
//    8001 bins, 255 quantized bins, 511 for non-negative data with uint8).
// 3. SetCalibTable writes min_calib_range / max_calib_range on those nodes;
//    QuantizeParams makes the int8 weights and biases (each over its own
//    min/max, MXNet's `_contrib_quantize`) and keeps every other parameter.
//
// The result saves and loads as MXNet's JSON and .params. Stateless
// functions; thread-safe for symbols nobody is editing.
#ifndef WEFT_QUANTIZE_MODEL_H_
#define WEFT_QUANTIZE_MODEL_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "weft/data_iter.h"
#include "weft/ndarray.h"
#include "weft/op.h"
#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace quant {

struct QuantizeOptions {
  std::vector<std::string> excluded_sym_names;  // nodes left in float32
  std::vector<std::string> excluded_op_names;   // operators left in float32
  std::string quantized_dtype = "int8";         // int8 | uint8 | auto
  std::string quantize_mode = "smart";          // smart | full
  // MXNet's quantize_model_mkldnn: PartitionConv first, FuseRequantize after
  // calibration (the int8 graph oneDNN runs fastest).
  bool fuse = false;
  // tensor-wise | channel-wise. MXNet's channel-wise applies to its fused
  // fully connected layers: with `fuse`, PartitionFullyConnected runs too and
  // each _sg_mkldnn_fully_connected is quantized with channel_wise_quantize
  // (its float32 weight and bias kept, one weight scale per output channel;
  // it needs calibration). Without `fuse` it changes nothing, as in MXNet.
  // (MXNet's quantize_model_mkldnn also partitions fully connected layers
  // tensor-wise; Weft keeps them _contrib_quantized_fully_connected there.)
  std::string quantize_granularity = "tensor-wise";
};

// MXNet's MKLDNN_QUANTIZE partitioning of convolutions: every 2-D
// Convolution [-> BatchNorm] [-> relu] [-> elemwise_add [-> relu]] chain
// (each link read by the next alone) as one float32 _sg_mkldnn_conv node
// ("sg_mkldnn_conv_bn_act_<n>"). `alias` maps each fused node's output name
// to the name of the original chain's last output (where calibration reads
// the float32 graph).
struct Partitioned {
  Symbol symbol;
  std::map<std::string, std::string> alias;
};
Partitioned PartitionConv(const OpRegistry& reg, const Symbol& sym);

// MXNet's MKLDNN_QUANTIZE partitioning of fully connected layers: every
// FullyConnected [-> relu, LeakyReLU leaky, abs or clip from 0] (each link
// read by the next alone) as one float32 _sg_mkldnn_fully_connected node
// ("sg_mkldnn_fully_connected[_eltwise]_<n>"), `alias` as PartitionConv's.
Partitioned PartitionFullyConnected(const OpRegistry& reg, const Symbol& sym);

// MXNet's post-quantize fusions (SgMKLDNNConvPostQuantizeSelector,
// SgMKLDNNFCPostQuantizeSelector): a calibrated requantize after a
// quantized _sg_mkldnn_conv or _sg_mkldnn_fully_connected is folded into it
// (the layer takes its min/max_calib_range and writes int8/uint8); for the
// fully connected layer, a requantize read only by a dequantize is folded
// with it (enable_float_output: the layer writes float32).
Symbol FuseRequantize(const Symbol& qsym);

struct QuantizedSymbol {
  Symbol symbol;
  std::vector<std::string> calib_layers;  // entry names calibration records
};

// MXNet's QuantizeGraph. Throws Error(kInvalidArgument) for an unknown
// quantized_dtype, quantize_mode or quantize_granularity, or an excluded
// name that no node has.
QuantizedSymbol QuantizeSymbol(const OpRegistry& reg, const Symbol& sym,
                               const std::set<std::string>& offline_params,
                               const QuantizeOptions& opts);

// Layer output name -> (min, max) threshold.
using CalibTable = std::map<std::string, std::pair<float, float>>;

// A copy of `qsym` with min_calib_range / max_calib_range set on every
// quantize, requantize and quantized BatchNorm node whose layer is in
// `table` (others keep computing their range at run time).
Symbol SetCalibTable(const Symbol& qsym, const CalibTable& table);

// The statistics calibration gathers per layer output.
class LayerStats {
 public:
  explicit LayerStats(int num_bins = 8001) : num_bins_(num_bins) {}
  // Adds one batch of `name`'s output values.
  void Collect(const std::string& name, const std::vector<float>& values);
  // MXNet's naive mode: the observed min and max.
  CalibTable MinMax() const;
  // MXNet's entropy mode: (-t, t), or (0, t) when the layer never went
  // negative and `quantized_dtype` is uint8 or auto; t is EntropyThreshold
  // of the layer's histogram.
  CalibTable Entropy(const std::string& quantized_dtype) const;

 private:
  struct Layer {
    std::vector<double> hist;  // num_bins bins over [-th, th]
    float min = 0, max = 0, th = 0;
  };
  int num_bins_;
  std::map<std::string, Layer> layers_;
};

// MXNet's _contrib_calibrate_entropy: over a histogram of an odd number of
// bins, symmetric around zero (`edges` has one more entry), the threshold
// (an edge) whose `num_quantized_bins`-level quantization of the clipped
// distribution has the smallest KL divergence from it; `divergence`
// (optional) receives that divergence.
float EntropyThreshold(const std::vector<double>& hist, const std::vector<float>& edges,
                       int num_quantized_bins, float* divergence = nullptr);

// MXNet's _quantize_params: "<w>_quantize" (+ "_min", "_max") for each
// quantized weight or bias argument of `qsym`, every other argument of
// `qsym` found in `params` unchanged.
std::map<std::string, NDArray> QuantizeParams(Runtime* rt, const Symbol& qsym,
                                              const std::map<std::string, NDArray>& params);

struct CalibOptions {
  std::string calib_mode = "entropy";  // none | naive | entropy
  int64_t num_calib_examples = -1;     // -1: the whole iterator
  std::vector<std::string> data_names = {"data"};
};

struct QuantizedModel {
  Symbol symbol;
  std::map<std::string, NDArray> args, aux;
  std::vector<std::string> calib_layers;
  CalibTable table;
  int64_t calib_examples = 0;  // examples calibration read
};

// MXNet's quantize_model: QuantizeSymbol with every argument parameter
// offline, calibration on the float32 model over `calib_data` (batches in
// its order, from a Reset), SetCalibTable and QuantizeParams. `calib_data`
// may be null only for calib_mode "none". Throws Error(kInvalidArgument)
// for an unknown calib_mode, a missing iterator, or channel-wise fused
// layers without calibration.
QuantizedModel QuantizeModel(Runtime* rt, const Symbol& sym,
                             const std::map<std::string, NDArray>& args,
                             const std::map<std::string, NDArray>& aux, DataIter* calib_data,
                             const QuantizeOptions& qopts, const CalibOptions& copts);

}  // namespace quant
}  // namespace weft

#endif  // WEFT_QUANTIZE_MODEL_H_
