// Optimizer state save/load (MXNet's Updater.get_states/set_states with the
// optimizer dumped; the layout is documented in weft/optimizer.h): an
// NDArray list of named entries, parsed and checked completely before
// anything in the optimizer changes.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <utility>

#include "weft/ndarray_io.h"
#include "weft/optimizer.h"
#include "weft/status.h"

namespace weft {

namespace {

constexpr int64_t kStatesFormat = 1;
constexpr int kMaxNdim = 32;
constexpr int64_t kMaxElements = int64_t{1} << 40;
// begin_num_update's bound: counts beyond it are no training's, and count + 1
// stays far from overflow.
constexpr int64_t kMaxCount = 9000000000000000;

NDArray Int64s(const std::vector<int64_t>& v, Runtime* rt) {
  NDArray a(Shape({static_cast<int64_t>(v.size())}), Context::CPU(), DType::kInt64, rt);
  a.CopyFromHost(v.data(), v.size() * sizeof(int64_t));
  return a;
}

NDArray Float64(double v, Runtime* rt) {
  NDArray a(Shape({1}), Context::CPU(), DType::kFloat64, rt);
  a.CopyFromHost(&v, sizeof(v));
  return a;
}

NDArray Text(const std::string& s, Runtime* rt) {
  NDArray a(Shape({static_cast<int64_t>(s.size())}), Context::CPU(), DType::kUint8, rt);
  a.CopyFromHost(s.data(), s.size());
  return a;
}

template <typename... Args>
[[noreturn]] void Bad(const std::string& entry, const Args&... args) {
  Fail(StatusCode::kInvalidArgument, "optimizer states: entry '", entry, "': ", args...);
}

std::string Describe(const NDArray& a) {
  return a.is_none() ? std::string("an empty array")
                     : StrCat(DTypeName(a.dtype()), " ", a.shape().ToString());
}

// The int64 values of a 1-D int64 array of `n` elements (n < 0: any).
std::vector<int64_t> Int64Values(const NDArray& a, const std::string& entry, int64_t n) {
  if (a.is_none() || a.dtype() != DType::kInt64 || a.shape().ndim() != 1 ||
      (n >= 0 && a.shape()[0] != n))
    Bad(entry, "expected an int64 array of shape ", n >= 0 ? StrCat("(", n, ",)") : "(n,)",
        ", found ", Describe(a));
  std::vector<int64_t> v(static_cast<size_t>(a.Size()));
  a.CopyToHost(v.data(), v.size() * sizeof(int64_t));
  return v;
}

// `text` as a decimal int (a parameter index or a state number).
int ParseIndex(const std::string& text, const std::string& entry) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(begin, &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX ||
      !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9')))
    Bad(entry, "'", text, "' is not a parameter index (an int)");
  return static_cast<int>(v);
}

}  // namespace

// The entries of a states file, decoded one by one (Add), then checked
// against the optimizer that loads them (Check).
struct Optimizer::Loaded {
  std::set<std::string> seen;
  std::string optimizer;
  bool has_format = false, has_name = false, has_num = false;
  int64_t num_update = 0;
  std::map<std::string, double> extra;
  std::map<int, int64_t> counts;
  std::map<int, WeightSig> sigs;
  std::map<int, std::map<int64_t, NDArray>> states;  // index -> j -> state

  void Add(const std::string& name, const NDArray& a);
  void AddIndexed(const std::string& name, const NDArray& a);
  void Check(const Optimizer& opt) const;
  void CheckStates(const Optimizer& opt, int index, const WeightSig& sig) const;
};

void Optimizer::Loaded::Add(const std::string& name, const NDArray& a) {
  if (!seen.insert(name).second) Bad(name, "appears twice");
  if (name == "meta:format") {
    const int64_t v = Int64Values(a, name, 1)[0];
    if (v != kStatesFormat)
      Bad(name, "layout version ", v, " is not supported (this build reads version ", kStatesFormat,
          ")");
    has_format = true;
  } else if (name == "meta:optimizer") {
    if (a.is_none() || a.dtype() != DType::kUint8 || a.shape().ndim() != 1)
      Bad(name, "expected a uint8 array of shape (n,) holding a name, found ", Describe(a));
    optimizer.resize(static_cast<size_t>(a.Size()));
    a.CopyToHost(&optimizer[0], optimizer.size());
    has_name = true;
  } else if (name == "meta:num_update") {
    num_update = Int64Values(a, name, 1)[0];
    if (num_update < 0 || num_update > kMaxCount)
      Bad(name, "expected a count in [0, 9e15], found ", num_update);
    has_num = true;
  } else if (name.compare(0, 6, "extra:") == 0) {
    if (a.is_none() || a.dtype() != DType::kFloat64 || a.shape() != Shape({1}))
      Bad(name, "expected a float64 array of shape (1,), found ", Describe(a));
    a.CopyToHost(&extra[name.substr(6)], sizeof(double));
  } else {
    AddIndexed(name, a);
  }
}

// "count:<i>", "weight:<i>" and "state:<i>:<j>".
void Optimizer::Loaded::AddIndexed(const std::string& name, const NDArray& a) {
  if (name.compare(0, 6, "count:") == 0) {
    const int index = ParseIndex(name.substr(6), name);
    counts[index] = Int64Values(a, name, 1)[0];
    if (counts[index] < 0 || counts[index] > kMaxCount)
      Bad(name, "expected a count in [0, 9e15], found ", counts[index]);
  } else if (name.compare(0, 7, "weight:") == 0) {
    const int index = ParseIndex(name.substr(7), name);
    const std::vector<int64_t> v = Int64Values(a, name, -1);
    if (v.empty() || v.size() > kMaxNdim + 1)
      Bad(name, "expected 1 to ", kMaxNdim + 1, " values (dtype code, then the shape), found ",
          v.size());
    if (v[0] < 0 || v[0] > 2)
      Bad(name, "dtype code ", v[0], " is not a weight dtype (0 float32, 1 float64, 2 float16)");
    const DType dt = static_cast<DType>(v[0]);
    std::vector<int64_t> dims(v.begin() + 1, v.end());
    int64_t elements = 0;
    for (int64_t d : dims)
      if (d < 1) Bad(name, "extent ", d, " is not >= 1");
    if (!Shape(dims).CheckedSize(&elements) || elements > kMaxElements)
      Bad(name, "a weight of shape ", Shape(dims).ToString(), " has more than 2^40 elements");
    sigs[index] = WeightSig{Shape(dims), dt, Context::CPU(), false};
  } else if (name.compare(0, 6, "state:") == 0) {
    const std::string rest = name.substr(6);
    const size_t colon = rest.find(':');
    if (colon == std::string::npos) Bad(name, "expected \"state:<index>:<j>\"");
    const int index = ParseIndex(rest.substr(0, colon), name);
    const int j = ParseIndex(rest.substr(colon + 1), name);
    if (j < 0) Bad(name, "state number ", j, " is negative");
    if (a.is_none()) Bad(name, "the state is an empty array");
    states[index][j] = a;
  } else {
    Bad(name, "unknown entry (expected meta:*, extra:*, count:*, weight:* or state:*)");
  }
}

void Optimizer::Loaded::Check(const Optimizer& opt) const {
  if (!has_format)
    Fail(StatusCode::kInvalidArgument,
         "optimizer states: no 'meta:format' entry; not an optimizer states file");
  if (!has_name || !has_num)
    Fail(StatusCode::kInvalidArgument,
         "optimizer states: the entry 'meta:", has_name ? "num_update" : "optimizer",
         "' is missing");
  if (optimizer != opt.name_)
    Fail(StatusCode::kInvalidArgument, "optimizer states: saved by optimizer '", optimizer,
         "', cannot be loaded into optimizer '", opt.name_, "'");
  const std::map<std::string, double> want = opt.ExtraStates();
  for (const auto& kv : want)
    if (!extra.count(kv.first))
      Fail(StatusCode::kInvalidArgument, "optimizer states: the entry 'extra:", kv.first,
           "' of optimizer '", opt.name_, "' is missing");
  for (const auto& kv : extra)
    if (!want.count(kv.first))
      Bad("extra:" + kv.first, "optimizer '", opt.name_, "' has no such state");
  for (const auto& kv : states)
    if (!sigs.count(kv.first))
      Bad(StrCat("state:", kv.first, ":", kv.second.begin()->first), "no 'weight:", kv.first,
          "' entry describes its weight");
  for (const auto& kv : sigs) {
    if (!counts.count(kv.first))
      Bad(StrCat("weight:", kv.first), "no 'count:", kv.first, "' entry gives its update count");
    CheckStates(opt, kv.first, kv.second);
  }
}

// The states of `index`: as many as `opt` creates for the recorded weight,
// numbered 0..n-1, each of the weight's shape and the expected dtype.
void Optimizer::Loaded::CheckStates(const Optimizer& opt, int index, const WeightSig& sig) const {
  const std::string w = StrCat("weight:", index);
  const bool mp = sig.dtype == DType::kFloat16;
  if (mp && !opt.multi_precision_)
    Bad(w, "a float16 weight's states (saved with multi_precision=True) cannot be loaded into ",
        "optimizer '", opt.name_, "' without multi_precision");
  const size_t n = mp ? 1 + opt.NumStates() : opt.NumStates();
  const DType dt = mp ? DType::kFloat32 : sig.dtype;
  auto it = states.find(index);
  const size_t found = it == states.end() ? 0 : it->second.size();
  if (found != n)
    Bad(w, "optimizer '", opt.name_, "' (as configured) keeps ", n,
        " state array(s) for this weight, the file has ", found);
  if (n == 0) return;
  int64_t j = 0;
  for (const auto& [k, a] : it->second) {
    const std::string entry = StrCat("state:", index, ":", k);
    if (k != j++) Bad(entry, "states of index ", index, " must be numbered 0 to ", n - 1);
    if (a.shape() != sig.shape || a.dtype() != dt)
      Bad(entry, "expected ", DTypeName(dt), " ", sig.shape.ToString(), " (", w, "), found ",
          Describe(a));
  }
}

NDArrayList Optimizer::StateList(Runtime* rt) const {
  WEFT_CHECK(rt) << "optimizer '" << name_ << "': save states: no runtime given";
  NDArrayList list;
  auto add = [&list](std::string name, NDArray a) {
    list.names.push_back(std::move(name));
    list.arrays.push_back(std::move(a));
  };
  add("meta:format", Int64s({kStatesFormat}, rt));
  add("meta:optimizer", Text(name_, rt));
  add("meta:num_update", Int64s({num_update_}, rt));
  for (const auto& kv : ExtraStates()) add("extra:" + kv.first, Float64(kv.second, rt));
  for (const auto& [index, count] : counts_) {
    add(StrCat("count:", index), Int64s({count}, rt));
    auto sig = first_weight_.find(index);
    if (sig == first_weight_.end()) continue;  // counted, but creating its states failed
    std::vector<int64_t> w{static_cast<int64_t>(sig->second.dtype)};
    for (int d = 0; d < sig->second.shape.ndim(); ++d) w.push_back(sig->second.shape[d]);
    add(StrCat("weight:", index), Int64s(w, rt));
    const std::vector<NDArray>& s = states_.at(index);
    for (size_t j = 0; j < s.size(); ++j) add(StrCat("state:", index, ":", j), s[j]);
  }
  return list;
}

Optimizer::Loaded Optimizer::ParseStates(const NDArrayList& list) const {
  if (list.names.size() != list.arrays.size())
    Fail(StatusCode::kInvalidArgument,
         "optimizer states: the NDArray list has no names; not an optimizer states file");
  Loaded l;
  for (size_t i = 0; i < list.arrays.size(); ++i) l.Add(list.names[i], list.arrays[i]);
  l.Check(*this);
  return l;
}

std::string Optimizer::SaveStatesToBytes(Runtime* rt) const { return SaveNDArrays(StateList(rt)); }

void Optimizer::SaveStates(const std::string& path, Runtime* rt) const {
  SaveNDArraysFile(StateList(rt), path);
}

void Optimizer::LoadStatesFromBytes(const void* data, size_t size, Runtime* rt) {
  WEFT_CHECK(rt) << "optimizer '" << name_ << "': load states: no runtime given";
  Loaded l = ParseStates(LoadNDArrays(data, size, rt));
  SetExtraStates(l.extra);  // first: it may still reject a value
  num_update_ = l.num_update;
  counts_ = std::move(l.counts);
  first_weight_ = std::move(l.sigs);
  states_.clear();
  for (const auto& [index, sig] : first_weight_) {
    std::vector<NDArray>& s = states_[index];
    for (auto& kv : l.states[index]) s.push_back(kv.second);
  }
}

void Optimizer::LoadStates(const std::string& path, Runtime* rt) {
  std::ifstream f(path, std::ios::binary);
  if (!f) Fail(StatusCode::kIO, "optimizer states: cannot open '", path, "' for reading");
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) Fail(StatusCode::kIO, "optimizer states: cannot read '", path, "'");
  try {
    LoadStatesFromBytes(bytes.data(), bytes.size(), rt);
  } catch (const Error& e) {
    throw Error(e.code(), StrCat(path, ": ", e.what()));
  }
}

}  // namespace weft
