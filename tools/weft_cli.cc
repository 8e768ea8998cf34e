// weft: command-line tool over the public C ABI of libweft (weft/c_api.h
// only; no C++ internals).
//
//   weft COMMAND [OPTIONS]   (weft --help lists the commands, weft COMMAND --help one's options)
//
// The command line (CLI11: options, generated usage, parse errors) is in
// cli_help.cc; `ops` in cli_ops.cc, `run` and `plan` in cli_run.cc (`run
// --init` in cli_init.cc), `train`, `predict` and `place` in cli_train.cc,
// cli_predict.cc and cli_place.cc; `im2rec` in cli_im2rec.cc and
// cli_im2rec_pack.cc; `inspect` here.
// Exit codes: 0 success, 1 an error reported by the library (load, inference,
// I/O), 2 a usage error. Results go to stdout, errors to stderr.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli_util.h"
#include "weft/c_api.h"

namespace weft_cli {

const char* const kDTypeNames[7] = {"float32", "float64", "float16", "uint8",
                                    "int32",   "int8",    "int64"};

const char* DTypeCodeName(int code) {
  if (code >= 0 && code < 7) return kDTypeNames[code];
  return code == WEFT_BFLOAT16 ? "bfloat16" : nullptr;
}

namespace {

std::string RenderJson(const nlohmann::ordered_json& j, int expand, size_t depth) {
  bool nested = j.is_object();
  for (const auto& v : j) nested = nested || v.is_structured();
  if (expand <= 0 || !nested || j.empty()) return j.dump();
  const std::string indent(2 * (depth + 1), ' ');
  std::string s(1, j.is_object() ? '{' : '[');
  for (auto it = j.begin(); it != j.end(); ++it) {
    s += (it == j.begin() ? "\n" : ",\n") + indent;
    if (j.is_object()) s += nlohmann::ordered_json(it.key()).dump() + ": ";
    s += RenderJson(*it, expand - 1, depth + 1);
  }
  return s + "\n" + std::string(2 * depth, ' ') + (j.is_object() ? '}' : ']');
}

}  // namespace

std::string JsonText(const nlohmann::ordered_json& j, int expand) {
  return RenderJson(j, expand, 0);
}

// ------------------------------------------------------------------ inspect

struct InspectOptions {
  std::string file;
  std::vector<std::string> shapes, dtypes;
  bool json = false;
};

NamedArrays TakeList(WeftNDArrayList* list, const char* ctx) {
  NamedArrays p;
  size_t n = 0;
  Check(weft_ndarray_list_size(list, &n, nullptr), ctx);
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    Check(weft_ndarray_list_name(list, i, &name), ctx);
    p.names.push_back(name);
    p.arrays.emplace_back();
    Check(weft_ndarray_list_get(list, i, p.arrays.back().out()), ctx);
  }
  for (size_t i = 0; i < n; ++i) {
    p.name_ptrs.push_back(p.names[i].c_str());
    p.handles.push_back(p.arrays[i].get());
  }
  return p;
}

// Splits "NAME=VALUE" given to `opt`.
std::pair<std::string, std::string> SplitAssign(const std::string& text, const char* opt) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    Usage(std::string(opt) + " expects NAME=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

ShapeArg ParseShape(const std::string& text) {
  auto [name, value] = SplitAssign(text, "--shape");
  ShapeArg s{name, {}};
  if (value.empty()) return s;  // scalar
  size_t pos = 0;
  while (true) {
    size_t comma = value.find(',', pos);
    std::string d = value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (d == "?") {
      s.dims.push_back(0);
    } else {
      char* end = nullptr;
      errno = 0;
      long long v = d.empty() ? -1 : std::strtoll(d.c_str(), &end, 10);
      if (d.empty() || *end != '\0' || v < 0 || errno == ERANGE)
        Usage("--shape " + text + ": extent '" + d +
              "' is not a non-negative integer (0 or ? = unknown)");
      s.dims.push_back(v);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return s;
}

DTypeArg ParseDType(const std::string& text) {
  auto [name, value] = SplitAssign(text, "--dtype");
  for (int i = 0; i < 7; ++i) {
    if (value == kDTypeNames[i]) return {name, i};
  }
  if (value == "bfloat16") return {name, WEFT_BFLOAT16};
  Usage("--dtype " + text + ": unknown dtype '" + value +
        "', expected float32, float64, float16, uint8, int32, int8, int64 or bfloat16");
}

// The --shape and --dtype values, each name at most once.
void ParseInspect(const InspectOptions& o, std::vector<ShapeArg>* shapes,
                  std::vector<DTypeArg>* dtypes) {
  for (const std::string& text : o.shapes) shapes->push_back(ParseShape(text));
  for (const std::string& text : o.dtypes) dtypes->push_back(ParseDType(text));
  for (size_t i = 0; i < shapes->size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if ((*shapes)[i].name == (*shapes)[j].name)
        Usage("--shape " + (*shapes)[i].name + " given twice");
  for (size_t i = 0; i < dtypes->size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if ((*dtypes)[i].name == (*dtypes)[j].name)
        Usage("--dtype " + (*dtypes)[i].name + " given twice");
}

// One row of the report: an argument, auxiliary state or output.
struct Entry {
  std::string name;
  int ndim = -1;  // -1 = unknown rank
  std::vector<int64_t> dims;
  int dtype = -1;  // -1 = unknown
};

std::vector<Entry> Entries(const WeftShapeResult* shapes, const WeftTypeResult* types, int group) {
  size_t n = 0, nt = 0;
  Check(weft_shape_result_count(shapes, group, &n), "inspect");
  Check(weft_type_result_count(types, group, &nt), "inspect");
  std::vector<Entry> out(n);
  for (size_t i = 0; i < n; ++i) {
    Entry& e = out[i];
    const char* name = nullptr;
    Check(weft_shape_result_name(shapes, group, i, &name), "inspect");
    e.name = name;
    Check(weft_shape_result_ndim(shapes, group, i, &e.ndim), "inspect");
    if (e.ndim > 0) {
      e.dims.resize(static_cast<size_t>(e.ndim));
      Check(weft_shape_result_dims(shapes, group, i, e.dims.data(), e.dims.size()), "inspect");
    }
    if (i < nt) Check(weft_type_result_dtype(types, group, i, &e.dtype), "inspect");
  }
  return out;
}

std::string ShapeText(const Entry& e) {
  if (e.ndim < 0) return "?";
  std::string s = "(";
  for (size_t i = 0; i < e.dims.size(); ++i) {
    if (i) s += ",";
    s += e.dims[i] == 0 ? std::string("?") : std::to_string(e.dims[i]);
  }
  if (e.dims.size() == 1) s += ",";
  return s + ")";
}

nlohmann::ordered_json ShapeJson(const Entry& e) {
  return e.ndim < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.dims);
}

std::string DTypeText(int code) {
  const char* n = DTypeCodeName(code);
  return n ? n : "?";
}

std::vector<std::string> Unknown(const WeftShapeResult* shapes, const WeftTypeResult* types) {
  size_t n = 0;
  std::vector<std::string> out;
  if (shapes) {
    Check(weft_shape_result_num_unknown(shapes, &n), "inspect");
    for (size_t i = 0; i < n; ++i) {
      const char* s = nullptr;
      Check(weft_shape_result_unknown_name(shapes, i, &s), "inspect");
      out.push_back(s);
    }
  } else {
    Check(weft_type_result_num_unknown(types, &n), "inspect");
    for (size_t i = 0; i < n; ++i) {
      const char* s = nullptr;
      Check(weft_type_result_unknown_name(types, i, &s), "inspect");
      out.push_back(s);
    }
  }
  return out;
}

void PrintTable(const char* title, const std::vector<Entry>& rows) {
  std::printf("\n%s (%zu):\n", title, rows.size());
  if (rows.empty()) {
    std::printf("  (none)\n");
    return;
  }
  size_t wn = 4, ws = 5;
  for (const Entry& e : rows) {
    wn = std::max(wn, e.name.size());
    ws = std::max(ws, ShapeText(e).size());
  }
  std::printf("  %-*s  %-*s  %s\n", static_cast<int>(wn), "NAME", static_cast<int>(ws), "SHAPE",
              "DTYPE");
  for (const Entry& e : rows)
    std::printf("  %-*s  %-*s  %s\n", static_cast<int>(wn), e.name.c_str(), static_cast<int>(ws),
                ShapeText(e).c_str(), DTypeText(e.dtype).c_str());
}

nlohmann::ordered_json EntriesJson(const std::vector<Entry>& rows) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Entry& e : rows) {
    nlohmann::ordered_json dtype = nullptr;
    if (DTypeCodeName(e.dtype)) dtype = DTypeCodeName(e.dtype);
    out.push_back({{"name", e.name}, {"shape", ShapeJson(e)}, {"dtype", dtype}});
  }
  return out;
}

int Inspect(const InspectOptions& o) {
  std::vector<ShapeArg> shape_args;
  std::vector<DTypeArg> dtype_args;
  ParseInspect(o, &shape_args, &dtype_args);
  Sym sym;
  Check(weft_symbol_from_json_file(o.file.c_str(), sym.out()), "inspect");
  int generation = 0, version = 0, has_version = 0, upgraded = 0;
  Check(weft_symbol_json_info(sym.get(), &generation, &version, &has_version, &upgraded),
        "inspect");

  std::vector<const char*> shape_names;
  std::vector<size_t> ind_ptr{0};
  std::vector<int64_t> dims;
  for (const ShapeArg& s : shape_args) {
    shape_names.push_back(s.name.c_str());
    dims.insert(dims.end(), s.dims.begin(), s.dims.end());
    ind_ptr.push_back(dims.size());
  }
  ShapeRes shapes;
  Check(weft_symbol_infer_shape_partial(sym.get(), shape_names.size(), shape_names.data(),
                                        ind_ptr.data(), dims.data(), shapes.out()),
        "inspect");
  std::vector<const char*> type_names;
  std::vector<int> codes;
  for (const DTypeArg& d : dtype_args) {
    type_names.push_back(d.name.c_str());
    codes.push_back(d.code);
  }
  TypeRes types;
  Check(weft_symbol_infer_type_partial(sym.get(), type_names.size(), type_names.data(),
                                       codes.data(), types.out()),
        "inspect");

  const char* gen_name = generation == WEFT_JSON_MXNET_0_8   ? "0.8"
                         : generation == WEFT_JSON_MXNET_0_9 ? "0.9"
                                                             : "1.x";
  std::vector<Entry> args = Entries(shapes.get(), types.get(), WEFT_GROUP_ARGUMENTS);
  std::vector<Entry> aux = Entries(shapes.get(), types.get(), WEFT_GROUP_AUX_STATES);
  std::vector<Entry> outs = Entries(shapes.get(), types.get(), WEFT_GROUP_OUTPUTS);
  std::vector<std::string> unknown_shapes = Unknown(shapes.get(), nullptr);
  std::vector<std::string> unknown_types = Unknown(nullptr, types.get());

  if (o.json) {
    nlohmann::ordered_json j = {{"file", o.file},
                                {"format", gen_name},
                                {"mxnet_version", version},
                                {"has_version", has_version != 0},
                                {"upgraded", upgraded != 0},
                                {"shapes_complete", unknown_shapes.empty()},
                                {"dtypes_complete", unknown_types.empty()},
                                {"arguments", EntriesJson(args)},
                                {"auxiliary_states", EntriesJson(aux)},
                                {"outputs", EntriesJson(outs)},
                                {"unknown_shapes", unknown_shapes},
                                {"unknown_dtypes", unknown_types}};
    std::printf("%s\n", JsonText(j).c_str());
    return 0;
  }
  std::printf("file: %s\n", o.file.c_str());
  std::printf("format: %s\n", gen_name);
  std::printf("mxnet_version: %d%s\n", version, has_version ? "" : " (not recorded in the file)");
  std::printf("upgraded: %s\n", upgraded ? "yes" : "no");
  if (unknown_shapes.empty())
    std::printf("shapes: complete\n");
  else
    std::printf("shapes: partial (%zu entries unknown)\n", unknown_shapes.size());
  if (unknown_types.empty())
    std::printf("dtypes: complete\n");
  else
    std::printf("dtypes: partial (%zu entries unknown)\n", unknown_types.size());
  PrintTable("arguments", args);
  PrintTable("auxiliary states", aux);
  PrintTable("outputs", outs);
  return 0;
}

Runner DefineInspect(CLI::App* app) {
  auto o = std::make_shared<InspectOptions>();
  app->description(
      "loads an MXNet symbol file (1.x, 0.9 or 0.8 format) and prints the\n"
      "format generation, arguments, auxiliary states and outputs with their\n"
      "inferred shapes and dtypes. Unknown extents print as ? (0 in --json),\n"
      "unknown dtypes as ? (null in --json).");
  app->add_option("FILE.json", o->file, "the symbol file")->required();
  AddList(app, "--shape", &o->shapes, "NAME=D1,D2,...",
          "an input's shape (0 or ? for an unknown extent, nothing after '=' for a scalar)");
  AddList(app, "--dtype", &o->dtypes, "NAME=TYPE",
          "an input's type: float32, float64, float16, uint8, int32, int8 or int64");
  app->add_flag("--json", o->json, "print the report as JSON");
  return [o] { return Inspect(*o); };
}

}  // namespace weft_cli

int main(int argc, char** argv) {
  try {
    return weft_cli::Dispatch(argc, argv);
  } catch (const weft_cli::Exit& e) {
    // An error may leave pushed work running (e.g. an output that cannot
    // be written while forward still runs): let it finish, or exit()
    // destroys statics that running kernels use (oneDNN's) before the
    // engine's exit hook waits for them. Its own error is not reported.
    // Usage errors come before any work is pushed.
    if (e.code != 2) weft_wait_all();
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", e.message.c_str());
    if (e.code == 2) std::fprintf(stderr, "\n%s", weft_cli::FullUsage().c_str());
    return e.code;
  }
}
