// `weft convert`: a checkpoint converted for mixed precision (MXNet's
// amp.convert_model: weft_amp_convert_model), saved as a new checkpoint in
// MXNet's format.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {

namespace {

struct ConvertOptions {
  std::string prefix, output, amp;
  int epoch = 0;
  std::vector<std::string> exclude;
  bool cast_optional_params = false;
};

int Convert(const ConvertOptions& o) {
  Sym sym;
  ArrayList args, aux;
  Check(weft_checkpoint_load(o.prefix.c_str(), o.epoch, sym.out(), args.out(), aux.out()),
        "convert");
  NamedArrays a = TakeList(args.get(), "convert"), x = TakeList(aux.get(), "convert");
  std::vector<const char*> excluded;
  for (const auto& e : o.exclude) excluded.push_back(e.c_str());
  const int target = o.amp == "bfloat16" ? WEFT_BFLOAT16 : WEFT_FLOAT16;
  Sym out;
  ArrayList out_args, out_aux;
  Check(weft_amp_convert_model(sym.get(), a.handles.size(), a.name_ptrs.data(), a.handles.data(),
                               x.handles.size(), x.name_ptrs.data(), x.handles.data(), target,
                               excluded.size(), excluded.data(), o.cast_optional_params ? 1 : 0,
                               out.out(), out_args.out(), out_aux.out()),
        "convert");
  NamedArrays ca = TakeList(out_args.get(), "convert"), cx = TakeList(out_aux.get(), "convert");
  Check(weft_checkpoint_save(o.output.c_str(), o.epoch, out.get(), ca.handles.size(),
                             ca.name_ptrs.data(), ca.handles.data(), cx.handles.size(),
                             cx.name_ptrs.data(), cx.handles.data()),
        "convert");
  int reduced = 0;
  for (WeftNDArray* h : ca.handles) {
    int code = -1;
    Check(weft_ndarray_dtype(h, &code), "convert");
    reduced += code == target;
  }
  char epoch[16];
  std::snprintf(epoch, sizeof epoch, "%04d", o.epoch);
  std::printf(
      "converted %s-symbol.json for %s: %s-symbol.json, %s-%s.params (%d of %zu arguments "
      "stored in %s)\n",
      o.prefix.c_str(), o.amp.c_str(), o.output.c_str(), o.output.c_str(), epoch, reduced,
      ca.handles.size(), o.amp.c_str());
  return 0;
}

}  // namespace

Runner DefineConvert(CLI::App* app) {
  auto o = std::make_shared<ConvertOptions>();
  app->description(
      "converts the checkpoint PREFIX-symbol.json + PREFIX-<epoch>.params for\n"
      "mixed precision as MXNet's amp.convert_model does (its default operator\n"
      "lists): Convolution, FullyConnected, ... compute in float16 or bfloat16,\n"
      "amp_cast / amp_multicast nodes go where dtypes change, outputs stay\n"
      "float32; writes OUT-symbol.json + OUT-<epoch>.params in MXNet's format.");
  app->add_option("--checkpoint", o->prefix, "the float32 checkpoint's prefix")
      ->type_name("PREFIX")
      ->required();
  AddInt(app, "--epoch", &o->epoch, 0, "the checkpoint's epoch (default 0)");
  AddChoice(app, "--amp", &o->amp, {"float16", "bfloat16"}, "the low-precision dtype")->required();
  AddList(app, "--exclude", &o->exclude, "NODE", "a node that stays float32 (repeatable)");
  app->add_flag("--cast-optional-params", o->cast_optional_params,
                "store parameters read directly by low-precision operators in that dtype");
  app->add_option("--output", o->output, "the converted checkpoint's prefix")
      ->type_name("OUT")
      ->required();
  return [o] { return Convert(*o); };
}

}  // namespace weft_cli
