// weft: command-line tool over the public C ABI of libweft (weft/c_api.h
// only; no C++ internals).
//
//   weft inspect FILE.json [--shape NAME=D1,D2,...]... [--dtype NAME=TYPE]... [--json]
//   weft run --symbol S.json [--params P.params] [--input NAME=FILE.npy]... [--output-dir DIR]
//            [--init NAME] [--seed N] [--train-mode]
//   weft plan FILE.json --shape NAME=... [--dtype NAME=TYPE]... [--train]
//   weft train --symbol S.json [--data-dir DIR] [--epochs N] [--batch-size B] [--save PREFIX] ...
//   weft predict --checkpoint PREFIX --epoch N [--data-dir DIR] [--limit N] [--out FILE] ...
//   weft place FILE.json [--group2ctx GROUP=DEV]... [--bind NAME=DEV]... [--default DEV] [--train] [--dot]
//   weft ops [--json]
//   weft --version | --help | COMMAND --help
//
// The usage texts live in cli_help.cc, `ops` in cli_ops.cc, `run` and
// `plan` in cli_run.cc (`run --init` in cli_init.cc), `train`, `predict` and
// `place` in cli_train.cc, cli_predict.cc and cli_place.cc.
// Exit codes: 0 success, 1 an error reported by the library (load, inference,
// I/O), 2 a usage error. Results go to stdout, errors to stderr.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cli_util.h"
#include "weft/c_api.h"

namespace weft_cli {

const char* const kDTypeNames[7] = {"float32", "float64", "float16", "uint8",
                                   "int32",   "int8",    "int64"};

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// ------------------------------------------------------------------ inspect

struct InspectOptions {
  std::string file;
  std::vector<ShapeArg> shapes;
  std::vector<DTypeArg> dtypes;
  bool json = false;
};

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
  Usage("--dtype " + text + ": unknown dtype '" + value +
        "', expected float32, float64, float16, uint8, int32, int8 or int64");
}

InspectOptions ParseInspect(int argc, char** argv) {
  InspectOptions o;
  for (Args args{argc, argv}; args.i < argc; ++args.i) {
    std::string a = argv[args.i];
    auto value = [&](const char* opt) { return args.Value(a, opt); };
    if (a == "--json") {
      o.json = true;
    } else if (args.Is(a, "--shape")) {
      o.shapes.push_back(ParseShape(value("--shape")));
    } else if (args.Is(a, "--dtype")) {
      o.dtypes.push_back(ParseDType(value("--dtype")));
    } else if (a.size() > 1 && a[0] == '-') {
      Usage("inspect: unknown option '" + a + "'");
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      Usage("inspect: more than one file given ('" + o.file + "', '" + a + "')");
    }
  }
  if (o.file.empty()) Usage("inspect: no symbol file given");
  for (size_t i = 0; i < o.shapes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.shapes[i].name == o.shapes[j].name) Usage("--shape " + o.shapes[i].name + " given twice");
  for (size_t i = 0; i < o.dtypes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.dtypes[i].name == o.dtypes[j].name) Usage("--dtype " + o.dtypes[i].name + " given twice");
  return o;
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

std::string ShapeJson(const Entry& e) {
  if (e.ndim < 0) return "null";
  std::string s = "[";
  for (size_t i = 0; i < e.dims.size(); ++i) s += (i ? ", " : "") + std::to_string(e.dims[i]);
  return s + "]";
}

std::string DTypeText(int code) { return code >= 0 && code < 7 ? kDTypeNames[code] : "?"; }

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

std::string EntriesJson(const std::vector<Entry>& rows) {
  if (rows.empty()) return "[]";
  std::string s = "[\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Entry& e = rows[i];
    s += "    {\"name\": " + JsonString(e.name) + ", \"shape\": " + ShapeJson(e) +
         ", \"dtype\": " + (e.dtype >= 0 && e.dtype < 7 ? JsonString(kDTypeNames[e.dtype]) : "null") +
         "}" + (i + 1 < rows.size() ? ",\n" : "\n");
  }
  return s + "  ]";
}

std::string NamesJson(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + JsonString(names[i]);
  return s + "]";
}

int Inspect(int argc, char** argv) {
  InspectOptions o = ParseInspect(argc, argv);
  Sym sym;
  Check(weft_symbol_from_json_file(o.file.c_str(), sym.out()), "inspect");
  int generation = 0, version = 0, has_version = 0, upgraded = 0;
  Check(weft_symbol_json_info(sym.get(), &generation, &version, &has_version, &upgraded),
        "inspect");

  std::vector<const char*> shape_names;
  std::vector<size_t> ind_ptr{0};
  std::vector<int64_t> dims;
  for (const ShapeArg& s : o.shapes) {
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
  for (const DTypeArg& d : o.dtypes) {
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
    std::printf("{\n");
    std::printf("  \"file\": %s,\n", JsonString(o.file).c_str());
    std::printf("  \"format\": \"%s\",\n", gen_name);
    std::printf("  \"mxnet_version\": %d,\n", version);
    std::printf("  \"has_version\": %s,\n", has_version ? "true" : "false");
    std::printf("  \"upgraded\": %s,\n", upgraded ? "true" : "false");
    std::printf("  \"shapes_complete\": %s,\n", unknown_shapes.empty() ? "true" : "false");
    std::printf("  \"dtypes_complete\": %s,\n", unknown_types.empty() ? "true" : "false");
    std::printf("  \"arguments\": %s,\n", EntriesJson(args).c_str());
    std::printf("  \"auxiliary_states\": %s,\n", EntriesJson(aux).c_str());
    std::printf("  \"outputs\": %s,\n", EntriesJson(outs).c_str());
    std::printf("  \"unknown_shapes\": %s,\n", NamesJson(unknown_shapes).c_str());
    std::printf("  \"unknown_dtypes\": %s\n", NamesJson(unknown_types).c_str());
    std::printf("}\n");
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

int Run(int argc, char** argv) {
  if (argc < 2) Usage("no command given");
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    if (argc == 3 && (std::strcmp(argv[2], "--help") == 0 || std::strcmp(argv[2], "-h") == 0)) {
      PrintHelp("help");
      return 0;
    }
    if (argc > 3 || (argc == 3 && !IsCommand(argv[2])))
      Usage(std::string("help: unknown command '") + argv[argc - 1] + "'");
    PrintHelp(argc == 3 ? argv[2] : "");
    return 0;
  }
  if (cmd == "--version") cmd = "version";
  // `weft CMD --help` (or -h anywhere after CMD): CMD's usage alone.
  if (IsCommand(cmd)) {
    for (int i = 2; i < argc; ++i) {
      if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
        PrintHelp(cmd);
        return 0;
      }
    }
  }
  if (cmd == "version") {
    if (argc > 2) Usage("--version takes no arguments");
    std::printf("weft %s (C ABI %d)\n", weft_version(), weft_abi_version());
    return 0;
  }
  if (cmd == "inspect") return Inspect(argc, argv);
  if (cmd == "ops") return Ops(argc, argv);
  if (cmd == "run") return RunModel(argc, argv);
  if (cmd == "plan") return Plan(argc, argv);
  if (cmd == "train") return Train(argc, argv);
  if (cmd == "predict") return Predict(argc, argv);
  if (cmd == "place") return Place(argc, argv);
  Usage("unknown command '" + cmd + "'");
}

}  // namespace weft_cli

int main(int argc, char** argv) {
  try {
    return weft_cli::Run(argc, argv);
  } catch (const weft_cli::Exit& e) {
    // An error may leave pushed work running (e.g. an output that cannot
    // be written while forward still runs): let it finish, or exit()
    // destroys statics that running kernels use (oneDNN's) before the
    // engine's exit hook waits for them. Its own error is not reported.
    // Usage errors come before any work is pushed.
    if (e.code != 2) weft_wait_all();
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", e.message.c_str());
    return e.code;
  }
}
