// weft_symbol_infer_shape*/infer_type* and the result handles
// weft_shape_result_* / weft_type_result_*.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_symbol_internal.h"
#include "weft/graph.h"
#include "weft/pass.h"

namespace weft {
namespace capi {
// `names[0..num)` as strings: none NULL, no name twice.
std::vector<std::string> InputNames(size_t num, const char* const* names, const char* arg) {
  CheckArray(names, num, arg);
  std::vector<std::string> out;
  for (size_t i = 0; i < num; ++i) {
    if (!names[i]) Fail(StatusCode::kInvalidArgument, "argument '", arg, "[", i, "]' is NULL");
    for (size_t j = 0; j < i; ++j) {
      if (out[j] == names[i])
        Fail(StatusCode::kInvalidArgument, "argument '", arg, "': input '", names[i],
             "' is given twice (", arg, "[", j, "] and ", arg, "[", i, "])");
    }
    out.push_back(names[i]);
  }
  return out;
}

pass::ShapeMap ShapeInputs(size_t num, const char* const* names, const char* names_arg,
                           const size_t* ind_ptr, const int64_t* dims, bool require_known) {
  std::vector<std::string> keys = InputNames(num, names, names_arg);
  pass::ShapeMap map;
  if (num == 0) return map;
  CheckNotNull(ind_ptr, "ind_ptr");
  if (ind_ptr[0] != 0)
    Fail(StatusCode::kInvalidArgument, "argument 'ind_ptr': ind_ptr[0] is ", ind_ptr[0],
         ", expected 0");
  for (size_t i = 0; i < num; ++i) {
    if (ind_ptr[i + 1] < ind_ptr[i])
      Fail(StatusCode::kInvalidArgument, "argument 'ind_ptr': ind_ptr[", i + 1, "] is ",
           ind_ptr[i + 1], ", less than ind_ptr[", i, "] = ", ind_ptr[i],
           " (offsets must not decrease)");
    if (ind_ptr[i + 1] - ind_ptr[i] > static_cast<size_t>(kMaxNdim))
      Fail(StatusCode::kInvalidArgument, "argument 'ind_ptr': input '", keys[i], "' has rank ",
           ind_ptr[i + 1] - ind_ptr[i], ", expected at most ", kMaxNdim);
  }
  CheckArray(dims, ind_ptr[num], "dims");
  const int64_t min_extent = require_known ? 1 : 0;
  for (size_t i = 0; i < num; ++i) {
    std::vector<int64_t> d(dims + ind_ptr[i], dims + ind_ptr[i + 1]);
    for (size_t k = 0; k < d.size(); ++k) {
      if (d[k] < min_extent)
        Fail(StatusCode::kShape, "input '", keys[i], "': extent ", k, " is ", d[k], " in shape ",
             Shape(d).ToString(),
             require_known ? "; expected > 0" : "; expected >= 0 (0 = unknown)");
    }
    map[keys[i]] = Shape(std::move(d));
  }
  return map;
}

pass::DTypeMap DTypeInputs(size_t num, const char* const* names, const char* names_arg,
                           const int* dtypes) {
  std::vector<std::string> keys = InputNames(num, names, names_arg);
  CheckArray(dtypes, num, "dtypes");
  pass::DTypeMap map;
  for (size_t i = 0; i < num; ++i) {
    if (!IsValidDType(dtypes[i]))
      Fail(StatusCode::kDType, "argument 'dtypes[", i, "]' (input '", keys[i], "') is ", dtypes[i],
           ", expected a WeftDType code 0..6 (float32, float64, float16, uint8, int32, int8, "
           "int64)");
    map[keys[i]] = static_cast<DType>(dtypes[i]);
  }
  return map;
}

}  // namespace capi
}  // namespace weft

using weft::Shape;
using weft::StatusCode;
using weft::capi::CheckArray;
using weft::capi::CheckIndex;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;
using weft::capi::GroupArg;
using weft::capi::ShapeResultObject;
using weft::capi::TypeResultObject;

namespace {

const char* const kGroupWhat[3] = {"the arguments group", "the outputs group",
                                   "the auxiliary states group"};

// Names of the arguments, outputs and aux states of `g`, in the order of the
// pass results (ShapeResult::arg_shapes, out_shapes, aux_shapes).
void GroupNames(const weft::IndexedGraph& g, std::vector<std::string> names[3]) {
  for (uint32_t nid : g.argument_nodes())
    names[WEFT_GROUP_ARGUMENTS].push_back(g.node(nid).attrs.name);
  for (const auto& e : g.outputs())
    names[WEFT_GROUP_OUTPUTS].push_back(g.entry_name(g.entry_id(e)));
  for (uint32_t nid : g.aux_nodes()) names[WEFT_GROUP_AUX_STATES].push_back(g.node(nid).attrs.name);
}

// The unknown entries as "a, b (2,0), ...": at most eight, each with its
// partial shape when `what` has one.
std::string JoinUnknown(const std::vector<std::string>& names,
                        const std::vector<std::string>& what) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i == 8) {
      s += weft::StrCat(", ... (", names.size() - 8, " more)");
      break;
    }
    s += (i ? ", " : "") + names[i] + (what.empty() ? "" : " " + what[i]);
  }
  return s;
}

std::shared_ptr<ShapeResultObject> RunInferShape(const WeftSymbolHandle* sym, size_t num,
                                                 const char* const* names, const size_t* ind_ptr,
                                                 const int64_t* dims, WeftShapeResult** out) {
  auto s = GetObject(sym, "sym");
  weft::pass::ShapeMap inputs = weft::capi::ShapeInputs(num, names, "names", ind_ptr, dims, false);
  CheckNotNull(out, "out");
  weft::IndexedGraph g(s->sym.outputs);
  weft::pass::ShapeResult r = weft::pass::InferShape(g, inputs);
  auto res = std::make_shared<ShapeResultObject>();
  GroupNames(g, res->names);
  res->values[WEFT_GROUP_ARGUMENTS] = std::move(r.arg_shapes);
  res->values[WEFT_GROUP_OUTPUTS] = std::move(r.out_shapes);
  res->values[WEFT_GROUP_AUX_STATES] = std::move(r.aux_shapes);
  res->unknown = std::move(r.unknown_names);
  for (uint32_t eid : r.unknown) res->unknown_partial.push_back(r.shapes[eid].ToString());
  return res;
}

std::shared_ptr<TypeResultObject> RunInferType(const WeftSymbolHandle* sym, size_t num,
                                               const char* const* names, const int* dtypes,
                                               WeftTypeResult** out) {
  auto s = GetObject(sym, "sym");
  weft::pass::DTypeMap inputs = weft::capi::DTypeInputs(num, names, "names", dtypes);
  CheckNotNull(out, "out");
  weft::IndexedGraph g(s->sym.outputs);
  weft::pass::TypeResult r = weft::pass::InferType(g, inputs);
  auto res = std::make_shared<TypeResultObject>();
  GroupNames(g, res->names);
  auto codes = [](const std::vector<weft::DType>& v) {
    std::vector<int> c;
    for (weft::DType t : v) c.push_back(static_cast<int>(t));
    return c;
  };
  res->values[WEFT_GROUP_ARGUMENTS] = codes(r.arg_types);
  res->values[WEFT_GROUP_OUTPUTS] = codes(r.out_types);
  res->values[WEFT_GROUP_AUX_STATES] = codes(r.aux_types);
  res->unknown = std::move(r.unknown_names);
  return res;
}

// The accessors weft_shape_result_* and weft_type_result_* share; `Handle`
// is WeftShapeResult or WeftTypeResult.
template <typename Handle>
void ResultComplete(const Handle* res, int* out) {
  auto r = GetObject(res, "res");
  CheckNotNull(out, "out");
  *out = r->unknown.empty() ? 1 : 0;
}

template <typename Handle>
void ResultCount(const Handle* res, int group, size_t* out) {
  auto r = GetObject(res, "res");
  int g = GroupArg(group);
  CheckNotNull(out, "out");
  *out = r->values[g].size();
}

template <typename Handle>
void ResultName(const Handle* res, int group, size_t index, const char** out_name) {
  auto r = GetObject(res, "res");
  int g = GroupArg(group);
  CheckNotNull(out_name, "out_name");
  CheckIndex(index, r->names[g].size(), kGroupWhat[g]);
  *out_name = r->names[g][index].c_str();  // owned by the (immutable) result
}

// Entry `index` of `group` into `*out` through `get` (the result stays alive
// while `get` runs).
template <typename Handle, typename Out, typename Get>
void ResultValue(const Handle* res, int group, size_t index, Out* out, Get get) {
  auto r = GetObject(res, "res");
  int g = GroupArg(group);
  CheckNotNull(out, "out");
  CheckIndex(index, r->values[g].size(), kGroupWhat[g]);
  *out = get(r->values[g][index]);
}

template <typename Handle>
void ResultNumUnknown(const Handle* res, size_t* out) {
  auto r = GetObject(res, "res");
  CheckNotNull(out, "out");
  *out = r->unknown.size();
}

template <typename Handle>
void ResultUnknownName(const Handle* res, size_t index, const char** out_name) {
  auto r = GetObject(res, "res");
  CheckNotNull(out_name, "out_name");
  CheckIndex(index, r->unknown.size(), "the list of unknown entries");
  *out_name = r->unknown[index].c_str();
}

}  // namespace

extern "C" {

/* ------------------------------------------------------------------ shape */

WeftStatus weft_symbol_infer_shape_partial(const WeftSymbolHandle* sym, size_t num_inputs,
                                           const char* const* names, const size_t* ind_ptr,
                                           const int64_t* dims, WeftShapeResult** out) {
  WEFT_API_BEGIN();
  auto res = RunInferShape(sym, num_inputs, names, ind_ptr, dims, out);
  *out = weft::capi::NewHandle<WeftShapeResult>(std::move(res));
  WEFT_API_END();
}

WeftStatus weft_symbol_infer_shape(const WeftSymbolHandle* sym, size_t num_inputs,
                                   const char* const* names, const size_t* ind_ptr,
                                   const int64_t* dims, WeftShapeResult** out) {
  WEFT_API_BEGIN();
  auto res = RunInferShape(sym, num_inputs, names, ind_ptr, dims, out);
  if (!res->unknown.empty())
    weft::Fail(StatusCode::kShape, "shape inference is incomplete: ", res->unknown.size(), " entr",
               res->unknown.size() == 1 ? "y stays" : "ies stay",
               " unknown (name and partial shape, 0 = unknown extent): ",
               JoinUnknown(res->unknown, res->unknown_partial),
               "; give more input shapes or use weft_symbol_infer_shape_partial");
  *out = weft::capi::NewHandle<WeftShapeResult>(std::move(res));
  WEFT_API_END();
}

WeftStatus weft_shape_result_complete(const WeftShapeResult* res, int* out) {
  WEFT_API_BEGIN();
  ResultComplete(res, out);
  WEFT_API_END();
}

WeftStatus weft_shape_result_count(const WeftShapeResult* res, int group, size_t* out) {
  WEFT_API_BEGIN();
  ResultCount(res, group, out);
  WEFT_API_END();
}

WeftStatus weft_shape_result_name(const WeftShapeResult* res, int group, size_t index,
                                  const char** out_name) {
  WEFT_API_BEGIN();
  ResultName(res, group, index, out_name);
  WEFT_API_END();
}

WeftStatus weft_shape_result_ndim(const WeftShapeResult* res, int group, size_t index, int* out) {
  WEFT_API_BEGIN();
  ResultValue(res, group, index, out, [](const Shape& s) { return s.ndim(); });
  WEFT_API_END();
}

WeftStatus weft_shape_result_dims(const WeftShapeResult* res, int group, size_t index,
                                  int64_t* out_dims, size_t capacity) {
  WEFT_API_BEGIN();
  auto r = GetObject(res, "res");
  int g = GroupArg(group);
  CheckIndex(index, r->values[g].size(), kGroupWhat[g]);
  const Shape& s = r->values[g][index];
  const size_t n = s.ndim_known() ? static_cast<size_t>(s.ndim()) : 0;
  CheckArray(out_dims, capacity, "out_dims");
  if (n > 0) CheckNotNull(out_dims, "out_dims");
  if (capacity < n)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity,
               ", but the shape ", s.ToString(), " of '", r->names[g][index], "' has rank ", n);
  for (size_t i = 0; i < n; ++i) out_dims[i] = s.dims()[i];
  WEFT_API_END();
}

WeftStatus weft_shape_result_num_unknown(const WeftShapeResult* res, size_t* out) {
  WEFT_API_BEGIN();
  ResultNumUnknown(res, out);
  WEFT_API_END();
}

WeftStatus weft_shape_result_unknown_name(const WeftShapeResult* res, size_t index,
                                          const char** out_name) {
  WEFT_API_BEGIN();
  ResultUnknownName(res, index, out_name);
  WEFT_API_END();
}

WeftStatus weft_shape_result_free(WeftShapeResult* res) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(res, "res");
  WEFT_API_END();
}

/* ------------------------------------------------------------------- type */

WeftStatus weft_symbol_infer_type_partial(const WeftSymbolHandle* sym, size_t num_inputs,
                                          const char* const* names, const int* dtypes,
                                          WeftTypeResult** out) {
  WEFT_API_BEGIN();
  auto res = RunInferType(sym, num_inputs, names, dtypes, out);
  *out = weft::capi::NewHandle<WeftTypeResult>(std::move(res));
  WEFT_API_END();
}

WeftStatus weft_symbol_infer_type(const WeftSymbolHandle* sym, size_t num_inputs,
                                  const char* const* names, const int* dtypes,
                                  WeftTypeResult** out) {
  WEFT_API_BEGIN();
  auto res = RunInferType(sym, num_inputs, names, dtypes, out);
  if (!res->unknown.empty())
    weft::Fail(StatusCode::kDType, "type inference is incomplete: ", res->unknown.size(), " entr",
               res->unknown.size() == 1 ? "y stays" : "ies stay",
               " unknown: ", JoinUnknown(res->unknown, {}),
               "; give more input dtypes or use weft_symbol_infer_type_partial");
  *out = weft::capi::NewHandle<WeftTypeResult>(std::move(res));
  WEFT_API_END();
}

WeftStatus weft_type_result_complete(const WeftTypeResult* res, int* out) {
  WEFT_API_BEGIN();
  ResultComplete(res, out);
  WEFT_API_END();
}

WeftStatus weft_type_result_count(const WeftTypeResult* res, int group, size_t* out) {
  WEFT_API_BEGIN();
  ResultCount(res, group, out);
  WEFT_API_END();
}

WeftStatus weft_type_result_name(const WeftTypeResult* res, int group, size_t index,
                                 const char** out_name) {
  WEFT_API_BEGIN();
  ResultName(res, group, index, out_name);
  WEFT_API_END();
}

WeftStatus weft_type_result_dtype(const WeftTypeResult* res, int group, size_t index, int* out) {
  WEFT_API_BEGIN();
  ResultValue(res, group, index, out, [](int code) { return code; });
  WEFT_API_END();
}

WeftStatus weft_type_result_num_unknown(const WeftTypeResult* res, size_t* out) {
  WEFT_API_BEGIN();
  ResultNumUnknown(res, out);
  WEFT_API_END();
}

WeftStatus weft_type_result_unknown_name(const WeftTypeResult* res, size_t index,
                                         const char** out_name) {
  WEFT_API_BEGIN();
  ResultUnknownName(res, index, out_name);
  WEFT_API_END();
}

WeftStatus weft_type_result_free(WeftTypeResult* res) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(res, "res");
  WEFT_API_END();
}

}  // extern "C"
