// weft: command-line tool over the public C ABI of libweft (weft/c_api.h
// only; no C++ internals).
//
//   weft inspect FILE.json [--shape NAME=D1,D2,...]... [--dtype NAME=TYPE]... [--json]
//   weft run --symbol S.json [--params P.params] --input NAME=FILE.npy... [--output-dir DIR] [--train-mode]
//   weft plan FILE.json --shape NAME=... [--dtype NAME=TYPE]... [--train]
//   weft train --symbol S.json [--data-dir DIR] [--epochs N] [--batch-size B] [--save PREFIX] ...
//   weft predict --checkpoint PREFIX --epoch N [--data-dir DIR] [--limit N] [--out FILE] ...
//   weft place FILE.json [--group2ctx GROUP=DEV]... [--bind NAME=DEV]... [--default DEV] [--train] [--dot]
//   weft ops [--json]
//   weft --version | --help
//
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

const char kUsage[] =
    "usage: weft inspect FILE.json [--shape NAME=D1,D2,...]... [--dtype NAME=TYPE]... [--json]\n"
    "       weft run --symbol S.json [--params P.params] --input NAME=FILE.npy... [--output-dir DIR]\n"
    "                [--train-mode]\n"
    "       weft plan FILE.json --shape NAME=D1,D2,...... [--dtype NAME=TYPE]... [--train]\n"
    "       weft train --symbol S.json [--data-dir DIR] [--epochs N] [--batch-size B]\n"
    "                [--optimizer sgd|adam] [--lr X] [--momentum M] [--wd W] [--init NAME]\n"
    "                [--seed S] [--limit N] [--save PREFIX] [--progress auto|bar|lines|epoch|none]\n"
    "       weft predict --checkpoint PREFIX --epoch N [--data-dir DIR] [--set t10k|train]\n"
    "                [--limit N] [--batch-size B] [--out FILE]\n"
    "       weft place FILE.json [--group2ctx GROUP=DEV]... [--bind NAME=DEV]... [--default DEV]\n"
    "                [--train] [--dot]\n"
    "       weft ops [--json]\n"
    "       weft --version | --help\n"
    "\n"
    "inspect  loads an MXNet symbol file (1.x, 0.9 or 0.8 format) and prints the\n"
    "         format generation, arguments, auxiliary states and outputs with their\n"
    "         inferred shapes and dtypes. --shape gives an input shape (0 or ? for an\n"
    "         unknown extent, nothing after '=' for a scalar); --dtype an input type\n"
    "         (float32, float64, float16, uint8, int32, int8, int64). Unknown extents\n"
    "         print as ? (0 in --json), unknown dtypes as ? (null in --json).\n"
    "run      binds a model (shapes from the inputs, parameters from an MXNet .params\n"
    "         file with arg:/aux: names), runs forward and writes every output as\n"
    "         DIR/<output>.npy (DIR defaults to .); prints outputs and planned memory.\n"
    "plan     binds a model from input shapes and prints its memory plan: naive vs\n"
    "         planned bytes, in-place and reuse counts, and each node's storage.\n"
    "         --train plans the training graph (gradients of every non-data argument).\n"
    "train    trains a model on MNIST-format IDX files (DIR defaults to Debian's\n"
    "         /usr/share/datasets/fashion-mnist): shuffled batches (default 64), SGD with\n"
    "         momentum 0.9 (lr 0.05) or Adam (lr 0.001), Xavier init; prints progress, the\n"
    "         test accuracy and images/s, and with --save writes PREFIX-symbol.json and\n"
    "         PREFIX-<epoch>.params (MXNet's checkpoint). --limit trains on the first N.\n"
    "predict  classifies MNIST-format images (DIR/SET-images-idx3-ubyte.gz, default the\n"
    "         t10k set of Debian's Fashion-MNIST; --limit: the first N) with the\n"
    "         checkpoint PREFIX-symbol.json + PREFIX-<epoch>.params (inputs data and\n"
    "         softmax_label; batches of 100, last one padded), prints the accuracy and\n"
    "         with --out writes each image's predicted class (arg max), one per line.\n"
    "place    assigns every node a device (DEV is cpu(N) or gpu(N)): --group2ctx maps\n"
    "         a ctx_group attribute to a device, --bind fixes a variable's device (a\n"
    "         bound array), --default places the rest (cpu(0)); prints each node of the\n"
    "         placed graph with its device, cross-device copies marked. --train places\n"
    "         the training graph (gradients of every argument). --dot prints the placed\n"
    "         graph as Graphviz instead (a fill colour per device, copies as ellipses):\n"
    "         weft place m.json --group2ctx a=cpu(1) --dot | dot -Tsvg > m.svg\n"
    "ops      lists the registered operators with their parameters, defaults and docs.\n";

[[noreturn]] void Usage(const std::string& msg) { throw Exit{2, "weft: " + msg + "\n\n" + kUsage}; }

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

// ---------------------------------------------------------------------- ops

struct ParamInfo {
  std::string name, type, doc;
  bool required = false;
  std::string def;
};
struct OpInfo {
  std::string name, doc;
  std::vector<ParamInfo> params;
};

std::vector<OpInfo> ListOps() {
  size_t n = 0;
  Check(weft_op_count(&n), "ops");
  std::vector<OpInfo> ops(n);
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    const char* doc = nullptr;
    size_t np = 0;
    Check(weft_op_name(i, &name), "ops");
    Check(weft_op_info(name, &doc, &np), "ops");
    ops[i].name = name;
    ops[i].doc = doc ? doc : "";
    for (size_t k = 0; k < np; ++k) {
      const char *pn = nullptr, *pt = nullptr, *pd = nullptr, *pdoc = nullptr;
      Check(weft_op_param(name, k, &pn, &pt, &pd, &pdoc), "ops");
      ParamInfo p;
      p.name = pn;
      p.type = pt;
      p.required = pd == nullptr;
      p.def = pd ? pd : "";
      p.doc = pdoc ? pdoc : "";
      ops[i].params.push_back(std::move(p));
    }
  }
  return ops;
}

// Prints `text` with every line indented by `indent` spaces.
void PrintIndented(const std::string& text, int indent) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    std::printf("%*s%s\n", line.empty() ? 0 : indent, "", line.c_str());
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
}

int Ops(int argc, char** argv) {
  bool json = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
    else
      Usage(std::string("ops: unexpected argument '") + argv[i] + "'");
  }
  std::vector<OpInfo> ops = ListOps();
  if (json) {
    std::printf("[\n");
    for (size_t i = 0; i < ops.size(); ++i) {
      const OpInfo& op = ops[i];
      std::printf("  {\"name\": %s, \"doc\": %s, \"params\": [", JsonString(op.name).c_str(),
                  JsonString(op.doc).c_str());
      for (size_t k = 0; k < op.params.size(); ++k) {
        const ParamInfo& p = op.params[k];
        std::printf("%s\n    {\"name\": %s, \"type\": %s, \"required\": %s, \"default\": %s, "
                    "\"doc\": %s}",
                    k ? "," : "", JsonString(p.name).c_str(), JsonString(p.type).c_str(),
                    p.required ? "true" : "false",
                    p.required ? "null" : JsonString(p.def).c_str(), JsonString(p.doc).c_str());
      }
      std::printf("%s]}%s\n", op.params.empty() ? "" : "\n  ", i + 1 < ops.size() ? "," : "");
    }
    std::printf("]\n");
    return 0;
  }
  std::printf("%zu operators\n", ops.size());
  for (const OpInfo& op : ops) {
    std::printf("\n%s\n", op.name.c_str());
    if (!op.doc.empty()) PrintIndented(op.doc, 4);
    for (const ParamInfo& p : op.params) {
      std::string head = "  " + p.name + " : " + p.type +
                         (p.required ? std::string(", required") : ", default " + p.def);
      std::printf("%s\n", head.c_str());
      if (!p.doc.empty()) PrintIndented(p.doc, 6);
    }
  }
  return 0;
}

int Run(int argc, char** argv) {
  if (argc < 2) Usage("no command given");
  std::string cmd = argv[1];
  if (cmd == "--version" || cmd == "version") {
    if (argc > 2) Usage("--version takes no arguments");
    std::printf("weft %s (C ABI %d)\n", weft_version(), weft_abi_version());
    return 0;
  }
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(kUsage, stdout);
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
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", e.message.c_str());
    return e.code;
  }
}
