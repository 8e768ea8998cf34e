// `weft import`: an ONNX model written as an MXNet checkpoint
// (weft_onnx_import_checkpoint): PREFIX-symbol.json + PREFIX-0000.params.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {

namespace {

struct ImportOptions {
  std::string model, prefix;
  std::vector<std::string> shapes;
  bool list_ops = false;
};

int ListOps() {
  WeftStringList* l = nullptr;
  Check(weft_onnx_supported_ops(&l), "import");
  for (const std::string& op : Strings(l, "import")) std::printf("%s\n", op.c_str());
  return 0;
}

int Import(const ImportOptions& o) {
  if (o.list_ops) return ListOps();
  if (o.model.empty()) Usage("import: no ONNX model given");
  if (o.prefix.empty()) Usage("import: -o PREFIX is required");
  std::vector<std::string> names;
  std::vector<size_t> ind_ptr = {0};
  std::vector<int64_t> dims;
  for (const std::string& text : o.shapes) {
    const ShapeArg s = ParseShape(text);
    for (int64_t d : s.dims)
      if (d <= 0) Usage("--shape " + s.name + ": every extent must be known (> 0)");
    names.push_back(s.name);
    dims.insert(dims.end(), s.dims.begin(), s.dims.end());
    ind_ptr.push_back(dims.size());
  }
  std::vector<const char*> name_ptrs;
  for (const auto& n : names) name_ptrs.push_back(n.c_str());
  Check(weft_onnx_import_checkpoint(o.model.c_str(), o.prefix.c_str(), names.size(),
                                    name_ptrs.data(), ind_ptr.data(), dims.data()),
        "import");
  std::printf("imported %s: %s-symbol.json, %s-0000.params\n", o.model.c_str(), o.prefix.c_str(),
              o.prefix.c_str());
  return 0;
}

}  // namespace

Runner DefineImport(CLI::App* app) {
  auto o = std::make_shared<ImportOptions>();
  app->description(
      "imports the ONNX model MODEL.onnx (opsets 7-18) and writes it as the MXNet\n"
      "checkpoint PREFIX-symbol.json + PREFIX-0000.params (initializers as arg:\n"
      "parameters, BatchNorm running statistics as aux: states). --shape fixes an\n"
      "input's dynamic extents so that shape computations over it fold. An\n"
      "unsupported model fails naming every unsupported node; --list-ops prints the\n"
      "ONNX operators the importer converts. `weft run --symbol MODEL.onnx` and the\n"
      "predictor also take the .onnx file directly.");
  app->add_option("MODEL", o->model, "the ONNX model")->type_name("MODEL.onnx");
  app->add_option("-o,--output", o->prefix, "the checkpoint prefix to write")->type_name("PREFIX");
  AddList(app, "--shape", &o->shapes, "NAME=D1,D2,...",
          "the shape of an input, replacing the model's (repeatable)");
  app->add_flag("--list-ops", o->list_ops, "print the supported ONNX operators and exit");
  return [o] { return Import(*o); };
}

}  // namespace weft_cli
