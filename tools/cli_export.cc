// `weft export`: an MXNet checkpoint (symbol JSON of any generation and its
// .params) written as an ONNX model (weft_onnx_export_files), with the
// export's report printed.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {

namespace {

struct ExportOptions {
  std::string symbol, params, output;
  std::vector<std::string> shapes;
  int opset = 13;
  bool dynamic_batch = false;
};

int Export(const ExportOptions& o) {
  std::vector<std::string> names;
  std::vector<size_t> ind_ptr{0};
  std::vector<int64_t> dims;
  for (const std::string& text : o.shapes) {
    const ShapeArg a = ParseShape(text);
    names.push_back(a.name);
    dims.insert(dims.end(), a.dims.begin(), a.dims.end());
    ind_ptr.push_back(dims.size());
  }
  std::vector<const char*> name_ptrs;
  for (const std::string& n : names) name_ptrs.push_back(n.c_str());
  WeftStringList* report = nullptr;
  Check(weft_onnx_export_files(o.symbol.c_str(), o.params.empty() ? nullptr : o.params.c_str(),
                               names.size(), name_ptrs.data(), ind_ptr.data(), dims.data(), o.opset,
                               o.dynamic_batch ? WEFT_ONNX_DYNAMIC_BATCH : 0, o.output.c_str(),
                               &report),
        "export");
  const std::vector<std::string> notes = Strings(report, "export");
  std::printf("exported %s to %s (ONNX opset %d%s)\n", o.symbol.c_str(), o.output.c_str(), o.opset,
              o.dynamic_batch ? ", dynamic batch" : "");
  for (const std::string& n : notes) std::printf("  note: %s\n", n.c_str());
  return 0;
}

}  // namespace

Runner DefineExport(CLI::App* app) {
  auto o = std::make_shared<ExportOptions>();
  app->description(
      "writes the MXNet model SYMBOL (a -symbol.json of any format generation,\n"
      "0.8 to 1.x) with PARAMS (its .params file) as an ONNX model: parameters\n"
      "become initializers, the other arguments the inputs (loss labels dropped).\n"
      "Every node converts or nothing is written: the error lists each node that\n"
      "has no ONNX form. Prints the report's notes (nodes exported with a change,\n"
      "e.g. SoftmaxOutput as softmax, BatchNorm fix_gamma as ones).");
  app->add_option("SYMBOL", o->symbol, "the symbol JSON file")->required();
  app->add_option("PARAMS", o->params,
                  "the .params file (omitted: the parameters are graph inputs)");
  app->add_option("-o,--output", o->output, "the .onnx file written")
      ->type_name("FILE")
      ->required();
  AddInt(app, "--opset", &o->opset, 11, "the ONNX opset, 11 to 17 (default 13)");
  app->add_flag("--dynamic-batch", o->dynamic_batch,
                "dim 0 of the inputs and outputs is the symbolic 'batch'");
  AddList(app, "--shape", &o->shapes, "NAME=D1,D2,...",
          "a data input's shape (repeatable; default: the variables' __shape__ hints)");
  return [o] { return Export(*o); };
}

}  // namespace weft_cli
