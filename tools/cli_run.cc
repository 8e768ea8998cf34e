// `weft run` (bind a model to .npy inputs and .params, forward, write .npy
// outputs) and `weft plan` (the memory plan of a model bound from shapes),
// over the public C ABI only.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {
namespace {

std::string ShapeOf(const WeftNDArray* a, const char* ctx) {
  int ndim = 0;
  Check(weft_ndarray_ndim(a, &ndim), ctx);
  std::vector<int64_t> dims(static_cast<size_t>(ndim));
  if (ndim > 0) Check(weft_ndarray_shape(a, dims.data(), dims.size()), ctx);
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

std::string DTypeOf(const WeftNDArray* a, const char* ctx) {
  int code = -1;
  Check(weft_ndarray_dtype(a, &code), ctx);
  return code >= 0 && code < 7 ? kDTypeNames[code] : "?";
}

// A file name for an output: characters other than [A-Za-z0-9._-] become '_'.
std::string FileName(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return s;
}

void PrintMemory(const WeftExecutor* exec, const char* ctx) {
  WeftExecutorMemory m;
  Check(weft_executor_memory(exec, &m), ctx);
  double pct = m.naive_bytes ? 100.0 * static_cast<double>(m.planned_bytes) / m.naive_bytes : 0.0;
  std::printf("memory: planned %zu bytes in %zu blocks, naive %zu bytes (%.1f%%); %zu in place, "
              "%zu reused\n",
              m.planned_bytes, m.num_storage, m.naive_bytes, pct, m.num_inplace, m.num_reused);
}

}  // namespace

int RunModel(int argc, char** argv) {
  std::string symbol_file, params_file, out_dir = ".";
  std::vector<std::pair<std::string, std::string>> inputs;
  bool train = false;
  for (Args a{argc, argv}; a.i < argc; ++a.i) {
    std::string s = argv[a.i];
    if (a.Is(s, "--symbol")) {
      symbol_file = a.Value(s, "--symbol");
    } else if (a.Is(s, "--params")) {
      params_file = a.Value(s, "--params");
    } else if (a.Is(s, "--input")) {
      auto kv = SplitAssign(a.Value(s, "--input"), "--input");
      for (const auto& in : inputs)
        if (in.first == kv.first) Usage("--input " + kv.first + " given twice");
      inputs.push_back(kv);
    } else if (a.Is(s, "--output-dir")) {
      out_dir = a.Value(s, "--output-dir");
    } else if (s == "--train-mode") {
      train = true;
    } else {
      Usage("run: unexpected argument '" + s + "'");
    }
  }
  if (symbol_file.empty()) Usage("run: --symbol S.json is required");
  if (inputs.empty()) Usage("run: at least one --input NAME=FILE.npy is required");

  Sym sym;
  Check(weft_symbol_from_json_file(symbol_file.c_str(), sym.out()), "run");
  std::map<std::string, Array> values;  // by argument / aux name
  if (!params_file.empty()) {
    ArrayList list;
    Check(weft_ndarray_load_file(params_file.c_str(), list.out()), "run");
    size_t n = 0;
    int named = 0;
    Check(weft_ndarray_list_size(list.get(), &n, &named), "run");
    if (!named) throw Exit{1, "weft run: error: " + params_file + " has no array names (need arg:/aux: names)"};
    for (size_t k = 0; k < n; ++k) {
      const char* name = nullptr;
      Check(weft_ndarray_list_name(list.get(), k, &name), "run");
      std::string key = name;
      if (key.rfind("arg:", 0) == 0 || key.rfind("aux:", 0) == 0) key = key.substr(4);
      Array arr;
      Check(weft_ndarray_list_get(list.get(), k, arr.out()), "run");
      values.erase(key);
      values.emplace(key, std::move(arr));
    }
  }
  for (const auto& in : inputs) {
    Array arr;
    Check(weft_ndarray_load_npy(in.second.c_str(), arr.out()), "run --input " + in.first);
    values.erase(in.first);
    values.emplace(in.first, std::move(arr));
  }

  WeftStringList* l = nullptr;
  Check(weft_symbol_list_arguments(sym.get(), &l), "run");
  std::vector<std::string> arg_names = Strings(l, "run");
  Check(weft_symbol_list_auxiliary_states(sym.get(), &l), "run");
  std::vector<std::string> aux_names = Strings(l, "run");
  std::vector<WeftNDArray*> args, aux;
  for (const std::string& name : arg_names) {
    auto it = values.find(name);
    if (it == values.end())
      throw Exit{1, "weft run: error: argument '" + name + "' has no value: give --input " + name +
                        "=FILE.npy or a --params file with arg:" + name};
    args.push_back(it->second.get());
  }
  for (const std::string& name : aux_names) {
    auto it = values.find(name);
    if (it == values.end())
      throw Exit{1, "weft run: error: auxiliary state '" + name + "' has no value in the --params file (aux:" +
                        name + ")"};
    aux.push_back(it->second.get());
  }
  for (const auto& in : inputs) {
    bool known = false;
    for (const std::string& n : arg_names) known = known || n == in.first;
    if (!known) Usage("--input " + in.first + ": the model has no argument of that name");
  }

  Exec exec;
  Check(weft_executor_bind(sym.get(), WEFT_CPU, 0, args.data(), args.size(), nullptr, nullptr, aux.data(),
                           aux.size(), exec.out()),
        "run");
  Check(weft_executor_forward(exec.get(), train ? 1 : 0), "run");
  Check(weft_symbol_list_outputs(sym.get(), &l), "run");
  std::vector<std::string> out_names = Strings(l, "run");
  ArrayList outs;
  Check(weft_executor_outputs(exec.get(), outs.out()), "run");
  for (size_t k = 0; k < out_names.size(); ++k) {
    Array arr;
    Check(weft_ndarray_list_get(outs.get(), k, arr.out()), "run");
    std::string path = out_dir + "/" + FileName(out_names[k]) + ".npy";
    Check(weft_ndarray_save_npy(arr.get(), path.c_str()), "run");
    std::printf("%s %s %s -> %s\n", out_names[k].c_str(), ShapeOf(arr.get(), "run").c_str(),
                DTypeOf(arr.get(), "run").c_str(), path.c_str());
  }
  PrintMemory(exec.get(), "run");
  return 0;
}

int Plan(int argc, char** argv) {
  std::string file;
  std::vector<ShapeArg> shapes;
  std::vector<DTypeArg> dtypes;
  bool train = false;
  for (Args a{argc, argv}; a.i < argc; ++a.i) {
    std::string s = argv[a.i];
    if (a.Is(s, "--shape")) {
      shapes.push_back(ParseShape(a.Value(s, "--shape")));
    } else if (a.Is(s, "--dtype")) {
      dtypes.push_back(ParseDType(a.Value(s, "--dtype")));
    } else if (s == "--train") {
      train = true;
    } else if (s.size() > 1 && s[0] == '-') {
      Usage("plan: unknown option '" + s + "'");
    } else if (file.empty()) {
      file = s;
    } else {
      Usage("plan: more than one file given ('" + file + "', '" + s + "')");
    }
  }
  if (file.empty()) Usage("plan: no symbol file given");
  if (shapes.empty()) Usage("plan: at least one --shape NAME=D1,D2,... is required");
  std::vector<const char*> names, type_names;
  std::vector<size_t> ind_ptr{0};
  std::vector<int64_t> dims;
  for (const ShapeArg& s : shapes) {
    for (int64_t d : s.dims)
      if (d == 0) Usage("--shape " + s.name + ": plan needs every extent known (no 0 or ?)");
    names.push_back(s.name.c_str());
    dims.insert(dims.end(), s.dims.begin(), s.dims.end());
    ind_ptr.push_back(dims.size());
  }
  std::vector<int> codes;
  for (const DTypeArg& d : dtypes) {
    type_names.push_back(d.name.c_str());
    codes.push_back(d.code);
  }
  Sym sym;
  Check(weft_symbol_from_json_file(file.c_str(), sym.out()), "plan");
  Exec exec;
  Check(weft_executor_simple_bind(sym.get(), WEFT_CPU, 0, names.size(), names.data(), ind_ptr.data(),
                                  dims.data(), codes.size(), type_names.data(), codes.data(),
                                  train ? "write" : "null", exec.out()),
        "plan");
  std::printf("graph: %s\n", train ? "training (forward + gradients)" : "inference");
  PrintMemory(exec.get(), "plan");
  WeftStringList* l = nullptr;
  Check(weft_executor_print(exec.get(), &l), "plan");
  std::vector<std::string> text = Strings(l, "plan");
  std::printf("\n%s", text.empty() ? "" : text[0].c_str());
  if (!text.empty() && !text[0].empty() && text[0].back() != '\n') std::printf("\n");
  return 0;
}

}  // namespace weft_cli
