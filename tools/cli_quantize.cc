// `weft quantize`: a float32 checkpoint quantized to int8 with calibration
// (MXNet's contrib.quantization.quantize_model / quantize_model_mkldnn:
// weft_quantize_model_ex), saved
// as a new checkpoint in MXNet's format. Calibration batches come from any
// iterator of the factory (weft_data_iter_create) by MXNet's name and
// parameters.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {

namespace {

using Iter = Owned<WeftDataIter, weft_data_iter_free>;

struct QuantizeOptions {
  std::string prefix, output, calib_mode = "entropy", calib_iter, dtype = "int8", mode = "smart",
                              granularity = "tensor-wise";
  int epoch = 0, num_calib_batches = 10;
  bool fuse = false;
  std::vector<std::string> calib_params, exclude, exclude_ops;
};

// The calibration iterator, or none for calib_mode none.
void MakeIter(const QuantizeOptions& o, Iter* it, int64_t* examples) {
  *examples = -1;
  if (o.calib_mode == "none") return;
  if (o.calib_iter.empty()) Usage("--calib-mode " + o.calib_mode + " needs --calib-iter");
  std::vector<std::string> keys, vals;
  for (const std::string& p : o.calib_params) {
    auto kv = SplitAssign(p, "--calib-param");
    keys.push_back(kv.first);
    vals.push_back(kv.second);
  }
  std::vector<const char*> k, v;
  for (size_t i = 0; i < keys.size(); ++i) {
    k.push_back(keys[i].c_str());
    v.push_back(vals[i].c_str());
  }
  Check(weft_data_iter_create(o.calib_iter.c_str(), k.data(), v.data(), k.size(), it->out()),
        "quantize");
  int batch = 0;
  Check(weft_data_iter_batch_size(it->get(), &batch), "quantize");
  *examples = static_cast<int64_t>(o.num_calib_batches) * batch;
}

std::vector<const char*> Ptrs(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  for (const auto& s : v) out.push_back(s.c_str());
  return out;
}

int Quantize(const QuantizeOptions& o) {
  Sym sym;
  ArrayList args, aux;
  Check(weft_checkpoint_load(o.prefix.c_str(), o.epoch, sym.out(), args.out(), aux.out()),
        "quantize");
  NamedArrays a = TakeList(args.get(), "quantize"), x = TakeList(aux.get(), "quantize");
  Iter it;
  int64_t examples = -1;
  MakeIter(o, &it, &examples);
  const std::vector<const char*> ex = Ptrs(o.exclude), ex_ops = Ptrs(o.exclude_ops);
  Sym out;
  ArrayList out_args, out_aux;
  Check(weft_quantize_model_ex(
            sym.get(), a.handles.size(), a.name_ptrs.data(), a.handles.data(), x.handles.size(),
            x.name_ptrs.data(), x.handles.data(), it.get(), o.calib_mode.c_str(), examples,
            o.dtype.c_str(), o.mode.c_str(), o.granularity.c_str(), o.fuse ? 1 : 0, ex.size(),
            ex.data(), ex_ops.size(), ex_ops.data(), out.out(), out_args.out(), out_aux.out()),
        "quantize");
  NamedArrays qa = TakeList(out_args.get(), "quantize"), qx = TakeList(out_aux.get(), "quantize");
  Check(weft_checkpoint_save(o.output.c_str(), o.epoch, out.get(), qa.handles.size(),
                             qa.name_ptrs.data(), qa.handles.data(), qx.handles.size(),
                             qx.name_ptrs.data(), qx.handles.data()),
        "quantize");
  int int8 = 0;
  for (WeftNDArray* h : qa.handles) {
    int code = -1;
    Check(weft_ndarray_dtype(h, &code), "quantize");
    int8 += code == WEFT_INT8;
  }
  char epoch[16];
  std::snprintf(epoch, sizeof epoch, "%04d", o.epoch);
  std::printf(
      "quantized %s-symbol.json (calib_mode %s): %s-symbol.json, %s-%s.params (%d int8 "
      "parameters)\n",
      o.prefix.c_str(), o.calib_mode.c_str(), o.output.c_str(), o.output.c_str(), epoch, int8);
  return 0;
}

}  // namespace

Runner DefineQuantize(CLI::App* app) {
  auto o = std::make_shared<QuantizeOptions>();
  app->description(
      "quantizes the float32 checkpoint PREFIX-symbol.json + PREFIX-<epoch>.params to\n"
      "int8 as MXNet's quantize_model does: Convolution and FullyConnected (and, in\n"
      "smart mode, the pooling/relu/flatten/... between them) become quantized\n"
      "operators with quantize/requantize/dequantize nodes, weights int8; the\n"
      "calibration (naive: min/max; entropy: KL-optimal thresholds) runs the float32\n"
      "model on --num-calib-batches batches of --calib-iter (an iterator by MXNet's\n"
      "name, e.g. MNISTIter, ImageRecordIter, CSVIter, with --calib-param KEY=VALUE).\n"
      "Writes OUT-symbol.json + OUT-<epoch>.params in MXNet's format.");
  app->add_option("--checkpoint", o->prefix, "the float32 checkpoint's prefix")
      ->type_name("PREFIX")
      ->required();
  AddInt(app, "--epoch", &o->epoch, 0, "the checkpoint's epoch (default 0)");
  AddChoice(app, "--calib-mode", &o->calib_mode, {"none", "naive", "entropy"},
            "calibration (default entropy)");
  app->add_option("--calib-iter", o->calib_iter,
                  "the calibration data's iterator: CSVIter, LibSVMIter, MNISTIter, "
                  "ImageRecordIter")
      ->type_name("NAME");
  AddList(app, "--calib-param", &o->calib_params, "KEY=VALUE",
          "a parameter of the calibration iterator (repeatable)");
  AddInt(app, "--num-calib-batches", &o->num_calib_batches, 1,
         "calibration batches read (default 10)");
  AddChoice(app, "--quantized-dtype", &o->dtype, {"int8", "uint8", "auto"},
            "the quantized data's dtype (default int8)");
  AddChoice(app, "--quantize-mode", &o->mode, {"smart", "full"}, "default smart");
  app->add_flag("--fuse", o->fuse,
                "MXNet's quantize_model_mkldnn: each convolution with its BatchNorm, relu and "
                "residual sum one int8 _sg_mkldnn_conv (the fastest int8 graph on the CPU)");
  AddChoice(app, "--quantize-granularity", &o->granularity, {"tensor-wise", "channel-wise"},
            "MXNet's quantize_granularity (default tensor-wise). channel-wise applies to "
            "the fully connected layers of --fuse (each FullyConnected [-> relu] one int8 "
            "_sg_mkldnn_fully_connected with one weight scale per output channel) and needs "
            "calibration (--calib-mode naive or entropy); without --fuse it changes nothing");
  AddList(app, "--exclude", &o->exclude, "NODE", "a node that stays float32 (repeatable)");
  AddList(app, "--exclude-op", &o->exclude_ops, "OP",
          "an operator that stays float32 (repeatable)");
  app->add_option("--output", o->output, "the quantized checkpoint's prefix")
      ->type_name("OUT")
      ->required();
  return [o] { return Quantize(*o); };
}

}  // namespace weft_cli
