// `weft run` (bind a model to .npy inputs and .params, or --init values,
// forward, write .npy outputs) and `weft plan` (the memory plan of a model
// bound from shapes), over the public C ABI only.
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "cli_init.h"
#include "cli_profile.h"
#include "cli_util.h"

namespace weft_cli {
namespace {

namespace fs = std::filesystem;

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
  return DTypeCodeName(code) ? DTypeCodeName(code) : "?";
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
  std::printf(
      "memory: planned %zu bytes in %zu blocks, naive %zu bytes (%.1f%%); %zu in place, "
      "%zu reused\n",
      m.planned_bytes, m.num_storage, m.naive_bytes, pct, m.num_inplace, m.num_reused);
}

// "a, b, c" (at most `limit` names, then "and N more").
std::string NameList(const std::vector<std::string>& names, size_t limit = 12) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < limit; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > limit) s += " and " + std::to_string(names.size() - limit) + " more";
  return s;
}

// Creates `dir` and its parents when missing (before anything is bound).
void MakeOutputDir(const std::string& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw Exit{1, "weft run: error: cannot create output directory '" + dir +
                      "': " + (ec ? ec.message() : std::string("a file of that name exists"))};
}

struct RunOptions {
  std::string symbol_file, params_file, out_dir = ".", init;
  std::vector<std::string> input_args;                      // NAME=FILE.npy as given
  std::vector<std::pair<std::string, std::string>> inputs;  // split, each name once
  std::vector<std::string> shape_args;                      // NAME=D1,D2,...: zeros
  uint64_t seed = 1;
  bool seed_given = false, train = false;
  // `weft profile`: warm-up and timed forwards, the trace, the table's order.
  bool profile = false;
  int warmup = 2, iters = 10, threads = 0;
  std::string trace = "profile.json", sort_by = "total";
};

// Checks what CLI11 cannot: the --input values and the need for values.
void CheckRun(RunOptions* o) {
  for (const std::string& text : o->input_args) {
    auto kv = SplitAssign(text, "--input");
    for (const auto& in : o->inputs)
      if (in.first == kv.first) Usage("--input " + kv.first + " given twice");
    o->inputs.push_back(kv);
  }
  if (o->out_dir.empty()) Usage("--output-dir needs a directory name");
  if (o->inputs.empty() && o->init.empty() && o->shape_args.empty())
    Usage(
        "run: at least one --input NAME=FILE.npy is required (or --init to fill a model's shapes "
        "from hints)");
}

// Loads the --params file (names without arg:/aux:) and the --inputs into
// `values`; an input replaces a parameter of the same name.
void LoadValues(const RunOptions& o, std::map<std::string, Array>* values) {
  if (!o.params_file.empty()) {
    ArrayList list;
    Check(weft_ndarray_load_file(o.params_file.c_str(), list.out()), "run");
    size_t n = 0;
    int named = 0;
    Check(weft_ndarray_list_size(list.get(), &n, &named), "run");
    if (!named)
      throw Exit{
          1, "weft run: error: " + o.params_file + " has no array names (need arg:/aux: names)"};
    for (size_t k = 0; k < n; ++k) {
      const char* name = nullptr;
      Check(weft_ndarray_list_name(list.get(), k, &name), "run");
      std::string key = name;
      if (key.rfind("arg:", 0) == 0 || key.rfind("aux:", 0) == 0) key = key.substr(4);
      Array arr;
      Check(weft_ndarray_list_get(list.get(), k, arr.out()), "run");
      values->erase(key);
      values->emplace(key, std::move(arr));
    }
  }
  for (const auto& in : o.inputs) {
    Array arr;
    Check(weft_ndarray_load_npy(in.second.c_str(), arr.out()), "run --input " + in.first);
    values->erase(in.first);
    values->emplace(in.first, std::move(arr));
  }
  for (const std::string& text : o.shape_args) {
    const ShapeArg s = ParseShape(text);
    for (int64_t d : s.dims)
      if (d <= 0) Usage("--shape " + s.name + ": every extent must be known (> 0)");
    Array arr;
    Check(weft_ndarray_create(s.dims.data(), static_cast<int>(s.dims.size()), 0, WEFT_CPU, 0,
                              arr.out()),
          "run --shape " + s.name);
    Owned<WeftInitializer, weft_initializer_free> zero;
    Check(weft_initializer_create("zero", nullptr, nullptr, 0, 0, zero.out()), "run --shape");
    Check(weft_initializer_init(zero.get(), s.name.c_str(), arr.get()), "run --shape " + s.name);
    values->erase(s.name);
    values->emplace(s.name, std::move(arr));
  }
}

// The symbol file, or an ONNX model (.onnx) with its parameters in
// `values` (the --shape options fix its inputs' shapes at import).
void LoadSymbol(const RunOptions& o, Sym* sym, std::map<std::string, Array>* values) {
  const std::string& f = o.symbol_file;
  if (f.size() < 5 || f.compare(f.size() - 5, 5, ".onnx") != 0) {
    Check(weft_symbol_from_json_file(f.c_str(), sym->out()), "run");
    return;
  }
  // The input shapes fix the model's dynamic extents at import (so that
  // its shape computations fold): --shape, and the --input arrays' shapes.
  std::vector<ShapeArg> shapes;
  std::vector<const char*> names;
  std::vector<size_t> ind_ptr = {0};
  std::vector<int64_t> dims;
  for (const std::string& text : o.shape_args) shapes.push_back(ParseShape(text));
  for (const auto& in : o.inputs) {
    Array arr;
    Check(weft_ndarray_load_npy(in.second.c_str(), arr.out()), "run --input " + in.first);
    int ndim = 0;
    Check(weft_ndarray_ndim(arr.get(), &ndim), "run");
    ShapeArg s{in.first, std::vector<int64_t>(static_cast<size_t>(ndim))};
    Check(weft_ndarray_shape(arr.get(), s.dims.data(), s.dims.size()), "run");
    shapes.push_back(std::move(s));
  }
  for (const ShapeArg& s : shapes) {
    names.push_back(s.name.c_str());
    dims.insert(dims.end(), s.dims.begin(), s.dims.end());
    ind_ptr.push_back(dims.size());
  }
  ArrayList args, aux;
  Check(weft_onnx_import(f.c_str(), names.size(), names.data(), ind_ptr.data(), dims.data(),
                         sym->out(), args.out(), aux.out()),
        "run");
  for (ArrayList* list : {&args, &aux}) {
    NamedArrays a = TakeList(list->get(), "run");
    for (size_t k = 0; k < a.names.size(); ++k) values->emplace(a.names[k], std::move(a.arrays[k]));
  }
}

// `weft profile`: warm-up forwards, then `iters` timed ones with the
// profiler on; prints their latency and the operator table, writes the trace.
int ProfileForward(const RunOptions& o, WeftExecutor* exec) {
  for (int i = 0; i < o.warmup; ++i) {
    Check(weft_executor_forward(exec, o.train ? 1 : 0), "profile");
    Check(weft_wait_all(), "profile");
  }
  StartProfiler(o.trace);
  std::vector<double> ms;
  for (int i = 0; i < o.iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    Check(weft_executor_forward(exec, o.train ? 1 : 0), "profile");
    Check(weft_wait_all(), "profile");
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const char* threads = std::getenv("OMP_NUM_THREADS");
  std::printf(
      "profile: %d forwards (after %d warm-up), threads %s: median %.3f ms, min %.3f ms, "
      "max %.3f ms\n",
      o.iters, o.warmup, threads ? threads : "default", sorted[sorted.size() / 2], sorted.front(),
      sorted.back());
  FinishProfiler(o.trace, o.sort_by);
  return 0;
}

}  // namespace

int RunModel(RunOptions* opts) {
  CheckRun(opts);
  const RunOptions& o = *opts;
  Sym sym;
  std::map<std::string, Array> values;  // by argument / aux name
  LoadSymbol(o, &sym, &values);
  WeftStringList* l = nullptr;
  Check(weft_symbol_list_arguments(sym.get(), &l), "run");
  const std::vector<std::string> arg_names = Strings(l, "run");
  Check(weft_symbol_list_auxiliary_states(sym.get(), &l), "run");
  const std::vector<std::string> aux_names = Strings(l, "run");
  std::vector<std::string> variables = arg_names;
  variables.insert(variables.end(), aux_names.begin(), aux_names.end());
  for (const auto& in : o.inputs) {
    if (std::find(variables.begin(), variables.end(), in.first) == variables.end())
      Usage("--input " + in.first + ": the model has no argument or auxiliary state of that name");
  }
  if (o.seed_given) Check(weft_random_seed(o.seed), "run --seed");

  LoadValues(o, &values);
  std::vector<std::string> missing;
  for (const std::string& name : variables)
    if (!values.count(name)) missing.push_back(name);
  if (!missing.empty() && o.init.empty())
    throw Exit{1,
               "weft run: error: " + std::to_string(missing.size()) +
                   " argument(s)/auxiliary state(s) have no value: " + NameList(missing) +
                   "; give them with --params P.params (arg:/aux: names) or --input NAME=FILE.npy, "
                   "or fill them with --init xavier|uniform|normal [--seed N] to try the model "
                   "without weights"};
  if (!missing.empty()) {
    InitReport r = FillMissing(sym.get(), variables, missing, o.init, o.seed, &values);
    std::printf("init: %s (seed %llu) filled %zu of %zu arguments/auxiliary states", o.init.c_str(),
                static_cast<unsigned long long>(o.seed), missing.size(), variables.size());
    if (!r.from_attr.empty()) std::printf("; by __init__: %s", NameList(r.from_attr).c_str());
    if (!r.zero_inputs.empty())
      std::printf("; zeros for inputs: %s", NameList(r.zero_inputs).c_str());
    std::printf("\n");
  }
  std::vector<WeftNDArray*> args, aux;
  for (const std::string& name : arg_names) args.push_back(values.at(name).get());
  for (const std::string& name : aux_names) aux.push_back(values.at(name).get());

  // The output directory exists before anything runs: a failure to write
  // an output must not leave forward work pending.
  if (!o.profile) MakeOutputDir(o.out_dir);
  Exec exec;
  Check(weft_executor_bind(sym.get(), WEFT_CPU, 0, args.data(), args.size(), nullptr, nullptr,
                           aux.data(), aux.size(), exec.out()),
        "run");
  if (o.profile) return ProfileForward(o, exec.get());
  Check(weft_executor_forward(exec.get(), o.train ? 1 : 0), "run");
  Check(weft_symbol_list_outputs(sym.get(), &l), "run");
  std::vector<std::string> out_names = Strings(l, "run");
  ArrayList outs;
  Check(weft_executor_outputs(exec.get(), outs.out()), "run");
  for (size_t k = 0; k < out_names.size(); ++k) {
    Array arr;
    Check(weft_ndarray_list_get(outs.get(), k, arr.out()), "run");
    std::string path = o.out_dir + "/" + FileName(out_names[k]) + ".npy";
    Check(weft_ndarray_save_npy(arr.get(), path.c_str()), "run");
    std::printf("%s %s %s -> %s\n", out_names[k].c_str(), ShapeOf(arr.get(), "run").c_str(),
                DTypeOf(arr.get(), "run").c_str(), path.c_str());
  }
  PrintMemory(exec.get(), "run");
  return 0;
}

struct PlanOptions {
  std::string file;
  std::vector<std::string> shapes, dtypes;
  bool train = false;
};

int Plan(const PlanOptions& o) {
  const std::string& file = o.file;
  const bool train = o.train;
  std::vector<ShapeArg> shapes;
  std::vector<DTypeArg> dtypes;
  for (const std::string& text : o.shapes) shapes.push_back(ParseShape(text));
  for (const std::string& text : o.dtypes) dtypes.push_back(ParseDType(text));
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
  Check(weft_executor_simple_bind(sym.get(), WEFT_CPU, 0, names.size(), names.data(),
                                  ind_ptr.data(), dims.data(), codes.size(), type_names.data(),
                                  codes.data(), train ? "write" : "null", exec.out()),
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

// The options `run` and `profile` share; returns --seed.
CLI::Option* AddModelOptions(CLI::App* app, RunOptions* o) {
  app->add_option("--symbol", o->symbol_file,
                  "the symbol file, or an ONNX model (M.onnx, its weights included)")
      ->type_name("S.json")
      ->required();
  app->add_option("--params", o->params_file, "parameters (MXNet .params, arg:/aux: names)")
      ->type_name("P.params");
  AddList(app, "--input", &o->input_args, "NAME=FILE.npy",
          "an argument or auxiliary state (e.g. a BatchNorm's moving_mean); overrides --params");
  AddList(app, "--shape", &o->shape_args, "NAME=D1,D2,...", "an input of zeros of this shape");
  app->add_option("--init", o->init, "initializer for what is not given")
      ->type_name("xavier|uniform|normal|zero|one");
  app->add_flag("--train-mode", o->train,
                "forward with training behaviour (batch statistics, Dropout)");
  return AddInt(app, "--seed", &o->seed, uint64_t{0},
                "seeds --init and random operators (default 1)");
}

Runner DefineRun(CLI::App* app) {
  auto o = std::make_shared<RunOptions>();
  app->description(
      "binds a model (shapes from the inputs, parameters from an MXNet .params\n"
      "file with arg:/aux: names), runs forward and writes every output as\n"
      "DIR/<output>.npy (DIR created with its parents when missing); prints\n"
      "outputs and planned memory. --init fills what neither --params nor\n"
      "--input gives with MXNet's initializer (weights by the rule,\n"
      "*bias/*beta/*moving_mean 0, *gamma/*moving_var 1, __init__ attributes\n"
      "honoured; inputs named *data/*label get zeros).");
  CLI::Option* seed = AddModelOptions(app, o.get());
  app->add_option("--output-dir", o->out_dir, "where the outputs go (default .)")->type_name("DIR");
  return [o, seed] {
    o->seed_given = seed->count() > 0;
    return RunModel(o.get());
  };
}

Runner DefineProfile(CLI::App* app) {
  auto o = std::make_shared<RunOptions>();
  o->profile = true;
  app->description(
      "times a model's operators (a model-level perf test): binds it as `run`\n"
      "does, runs --warmup forwards, then --iters forwards with the profiler\n"
      "on; prints their latency and the per-operator table and writes the\n"
      "Chrome trace (--output).");
  CLI::Option* seed = AddModelOptions(app, o.get());
  AddInt(app, "--iters", &o->iters, 1, "timed forwards (default 10)");
  AddInt(app, "--warmup", &o->warmup, 0, "forwards before timing (default 2)");
  AddInt(app, "--threads", &o->threads, 1, "OpenMP threads per operator (default: OpenMP's)");
  app->add_option("--output", o->trace, "the trace file (default profile.json)")
      ->type_name("FILE.json");
  AddChoice(app, "--sort", &o->sort_by, {"total", "avg", "min", "max", "count"},
            "the table's order (default total)");
  return [o, seed] {
    o->seed_given = seed->count() > 0;
    UseThreads(o->threads);
    return RunModel(o.get());
  };
}

Runner DefinePlan(CLI::App* app) {
  auto o = std::make_shared<PlanOptions>();
  app->description(
      "binds a model from input shapes and prints its memory plan: naive vs\n"
      "planned bytes, in-place and reuse counts, and each node's storage.");
  app->add_option("FILE.json", o->file, "the symbol file")->required();
  AddList(app, "--shape", &o->shapes, "NAME=D1,D2,...", "an input's shape (every extent known)")
      ->required();
  AddList(app, "--dtype", &o->dtypes, "NAME=TYPE", "an input's type (float32, ...)");
  app->add_flag("--train", o->train,
                "plan the training graph (gradients of every non-data argument)");
  return [o] { return Plan(*o); };
}

}  // namespace weft_cli
