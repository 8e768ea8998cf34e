// C ABI: weft_predictor_* (thread-safe inference; weft/predictor.h).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "c_api_onnx_internal.h"
#include "c_api_symbol_internal.h"
#include "weft/runtime.h"
#include "weft/ndarray_io.h"
#include "weft/onnx_import.h"
#include "weft/predictor.h"
#include "weft/symbol_json.h"

namespace weft {
namespace capi {

namespace {

std::shared_ptr<Predictor> GetPredictor(const WeftPredictor* h, const char* arg) {
  return GetObject(h, arg);
}

}  // namespace

std::vector<Shape> ShapesArg(size_t num, const size_t* ind_ptr, const int64_t* dims) {
  CheckArray(ind_ptr, num ? num + 1 : 0, "ind_ptr");
  std::vector<Shape> shapes;
  for (size_t i = 0; i < num; ++i) {
    if (ind_ptr[i + 1] < ind_ptr[i] || ind_ptr[i + 1] - ind_ptr[i] > static_cast<size_t>(kMaxNdim))
      Fail(StatusCode::kInvalidArgument, "argument 'ind_ptr' gives shape ", i, " ",
           ind_ptr[i + 1] - ind_ptr[i], " extents (from ", ind_ptr[i], " to ", ind_ptr[i + 1],
           "), expected 0..", kMaxNdim);
    const int ndim = static_cast<int>(ind_ptr[i + 1] - ind_ptr[i]);
    if (ndim > 0) CheckNotNull(dims, "dims");
    const std::string what = StrCat("dims of shape ", i);
    shapes.push_back(ShapeArg(ndim ? dims + ind_ptr[i] : nullptr, ndim, what.c_str(), "ind_ptr"));
  }
  return shapes;
}

std::vector<std::string> Names(size_t num, const char* const* names, const char* arg) {
  CheckArray(names, num, arg);
  std::vector<std::string> out;
  for (size_t i = 0; i < num; ++i) {
    if (!names[i]) Fail(StatusCode::kInvalidArgument, "argument '", arg, "[", i, "]' is NULL");
    out.emplace_back(names[i]);
  }
  return out;
}

namespace {

int IntOption(const std::string& key, const char* value, int lo) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (!*value || *end || v < lo || v > (1 << 20))
    Fail(StatusCode::kInvalidArgument, "option '", key, "' is '", value,
         "', expected an integer >= ", lo);
  return static_cast<int>(v);
}

PredictorOptions OptionsArg(size_t num_outputs, const char* const* output_names, size_t num,
                            const char* const* keys, const char* const* values) {
  PredictorOptions o;
  o.outputs = Names(num_outputs, output_names, "output_names");
  CheckArray(keys, num, "option_keys");
  CheckArray(values, num, "option_values");
  for (size_t i = 0; i < num; ++i) {
    if (!keys[i] || !values[i])
      Fail(StatusCode::kInvalidArgument, "option ", i, " has a NULL key or value");
    const std::string key = keys[i];
    if (key == "max_executors") {
      o.max_executors = IntOption(key, values[i], 0);
    } else if (key == "max_shapes") {
      o.max_shapes = IntOption(key, values[i], 1);
    } else if (key == "bulk_max_nodes") {
      o.executor.bulk_max_nodes = IntOption(key, values[i], 0);
    } else if (key == "optimize_inference") {
      o.executor.optimize_inference = IntOption(key, values[i], 0) != 0;
    } else if (key == "max_batch") {
      o.max_batch = IntOption(key, values[i], 0);
    } else if (key == "batch_delay_us") {
      o.batch_delay_us = IntOption(key, values[i], 0);
    } else if (key == "batch_queue") {
      const std::string v = values[i];
      if (v != "mutex" && v != "lockfree")
        Fail(StatusCode::kInvalidArgument, "option 'batch_queue' is '", v,
             "', expected 'mutex' or 'lockfree'");
      o.batch_queue = v == "lockfree" ? BatchQueue::kLockfree : BatchQueue::kMutex;
    } else {
      Fail(StatusCode::kInvalidArgument, "unknown option '", key,
           "' (known: max_executors, max_shapes, bulk_max_nodes, optimize_inference, max_batch, "
           "batch_delay_us, "
           "batch_queue)");
    }
  }
  return o;
}

WeftPredictor* Create(Runtime* rt, const Symbol& symbol, const NDArrayList& params,
                      size_t num_inputs, const char* const* input_names, const size_t* ind_ptr,
                      const int64_t* dims, int dev_type, int dev_id, size_t num_outputs,
                      const char* const* output_names, size_t num_options,
                      const char* const* option_keys, const char* const* option_values) {
  const std::vector<std::string> names = Names(num_inputs, input_names, "input_names");
  const std::vector<Shape> shapes = ShapesArg(num_inputs, ind_ptr, dims);
  std::vector<std::pair<std::string, Shape>> inputs;
  for (size_t i = 0; i < num_inputs; ++i) inputs.emplace_back(names[i], shapes[i]);
  PredictorOptions opts =
      OptionsArg(num_outputs, output_names, num_options, option_keys, option_values);
  opts.copy_params = false;  // `params` was loaded for this predictor alone
  const Context ctx = ContextArg(dev_type, dev_id);
  const std::vector<std::string> aux_names = symbol.ListAuxiliaryStates();
  std::shared_ptr<Predictor> p =
      Predictor::Create(rt, symbol, SplitParams(params, &aux_names), inputs, ctx, opts);
  return NewHandle<WeftPredictor>(std::move(p));
}

}  // namespace
}  // namespace capi
}  // namespace weft

using weft::capi::GetPredictor;

WeftStatus weft_predictor_create(const char* symbol_json, const void* params, size_t params_size,
                                 size_t num_inputs, const char* const* input_names,
                                 const size_t* ind_ptr, const int64_t* dims, int dev_type,
                                 int dev_id, size_t num_outputs, const char* const* output_names,
                                 size_t num_options, const char* const* option_keys,
                                 const char* const* option_values, WeftPredictor** out) {
  WEFT_API_BEGIN();
  weft::capi::CheckNotNull(symbol_json, "symbol_json");
  weft::capi::CheckArray(params, params_size, "params");
  weft::capi::CheckNotNull(out, "out");
  weft::Runtime* rt = &weft::Runtime::Global();
  const weft::LoadedSymbol l = weft::LoadJSON(symbol_json, rt->ops());
  const weft::NDArrayList list = weft::LoadNDArrays(params, params_size, rt);
  *out = weft::capi::Create(rt, l.symbol, list, num_inputs, input_names, ind_ptr, dims, dev_type,
                            dev_id, num_outputs, output_names, num_options, option_keys,
                            option_values);
  WEFT_API_END();
}

WeftStatus weft_predictor_create_from_files(const char* symbol_path, const char* params_path,
                                            size_t num_inputs, const char* const* input_names,
                                            const size_t* ind_ptr, const int64_t* dims,
                                            int dev_type, int dev_id, size_t num_outputs,
                                            const char* const* output_names, size_t num_options,
                                            const char* const* option_keys,
                                            const char* const* option_values, WeftPredictor** out) {
  WEFT_API_BEGIN();
  weft::capi::CheckNotNull(symbol_path, "symbol_path");
  weft::capi::CheckNotNull(out, "out");
  weft::Runtime* rt = &weft::Runtime::Global();
  weft::Symbol symbol;
  weft::NDArrayList list;
  if (weft::IsOnnxPath(symbol_path)) {
    symbol = weft::capi::ImportOnnxForPredictor(rt, symbol_path, params_path, num_inputs,
                                                input_names, ind_ptr, dims, &list);
  } else {
    weft::capi::CheckNotNull(params_path, "params_path");
    symbol = weft::LoadJSONFile(symbol_path, rt->ops()).symbol;
    list = weft::LoadNDArraysFile(params_path, rt);
  }
  *out =
      weft::capi::Create(rt, symbol, list, num_inputs, input_names, ind_ptr, dims, dev_type, dev_id,
                         num_outputs, output_names, num_options, option_keys, option_values);
  WEFT_API_END();
}

WeftStatus weft_predictor_list_inputs(const WeftPredictor* pred, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto p = GetPredictor(pred, "pred");
  weft::capi::CheckNotNull(out, "out");
  *out = weft::capi::NewStringList(p->input_names());
  WEFT_API_END();
}

WeftStatus weft_predictor_list_outputs(const WeftPredictor* pred, WeftStringList** out) {
  WEFT_API_BEGIN();
  auto p = GetPredictor(pred, "pred");
  weft::capi::CheckNotNull(out, "out");
  *out = weft::capi::NewStringList(p->output_names());
  WEFT_API_END();
}

WeftStatus weft_predictor_output_shape(WeftPredictor* pred, size_t num_inputs,
                                       const size_t* ind_ptr, const int64_t* dims, size_t index,
                                       int64_t* out_dims, size_t capacity, size_t* out_ndim) {
  WEFT_API_BEGIN();
  auto p = GetPredictor(pred, "pred");
  weft::capi::CheckArray(out_dims, capacity, "out_dims");
  weft::capi::CheckNotNull(out_ndim, "out_ndim");
  const std::vector<weft::Shape> shapes =
      p->OutputShapes(weft::capi::ShapesArg(num_inputs, ind_ptr, dims));
  weft::capi::CheckIndex(index, shapes.size(), "the predictor's output list");
  const weft::Shape& s = shapes[index];
  if (static_cast<size_t>(s.ndim()) > capacity)
    weft::Fail(weft::StatusCode::kInvalidArgument, "output ", index, " has ", s.ndim(),
               " extents, more than 'capacity' (", capacity, ")");
  for (int i = 0; i < s.ndim(); ++i) out_dims[i] = s[i];
  *out_ndim = static_cast<size_t>(s.ndim());
  WEFT_API_END();
}

namespace {

// Where weft_predictor_predict_shaped() reports the outputs' shapes.
struct ShapesOut {
  size_t* ind_ptr;
  int64_t* dims;
  size_t capacity;
};

// Writes `shapes` to `out` (CSR); throws when they have more extents than
// its capacity.
void WriteShapes(const std::vector<weft::Shape>& shapes, const ShapesOut& out) {
  size_t total = 0;
  for (const weft::Shape& s : shapes) total += static_cast<size_t>(s.ndim());
  if (total > out.capacity)
    weft::Fail(weft::StatusCode::kInvalidArgument, "the outputs' shapes have ", total,
               " extents, more than 'capacity' (", out.capacity, ")");
  size_t k = 0;
  out.ind_ptr[0] = 0;
  for (size_t j = 0; j < shapes.size(); ++j) {
    for (int d = 0; d < shapes[j].ndim(); ++d) out.dims[k++] = shapes[j][d];
    out.ind_ptr[j + 1] = k;
  }
}

// weft_predictor_predict()'s body (for it and the _packed and _shaped
// variants); with `shapes_out`, the output buffers are capacities and the
// outputs' shapes of this call are written there.
void Predict(WeftPredictor* pred, size_t num_inputs, const void* const* input_data,
             const size_t* input_bytes, const size_t* ind_ptr, const int64_t* dims,
             size_t num_outputs, void* const* output_data, const size_t* output_bytes,
             const ShapesOut* shapes_out = nullptr) {
  auto p = GetPredictor(pred, "pred");
  if (shapes_out) {
    weft::capi::CheckArray(shapes_out->ind_ptr, num_outputs + 1, "out_ind_ptr");
    weft::capi::CheckArray(shapes_out->dims, shapes_out->capacity, "out_dims");
  }
  weft::capi::CheckArray(input_data, num_inputs, "input_data");
  weft::capi::CheckArray(input_bytes, num_inputs, "input_bytes");
  weft::capi::CheckArray(output_data, num_outputs, "output_data");
  weft::capi::CheckArray(output_bytes, num_outputs, "output_bytes");
  const std::vector<weft::Shape> shapes = weft::capi::ShapesArg(num_inputs, ind_ptr, dims);
  std::vector<weft::HostInput> in(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    in[i].data = input_data[i];
    in[i].bytes = input_bytes[i];
    in[i].shape = shapes[i];
  }
  std::vector<weft::HostOutput> outs(num_outputs);
  std::vector<weft::Shape> out_shapes(shapes_out ? num_outputs : 0);
  for (size_t i = 0; i < num_outputs; ++i) {
    outs[i].data = output_data[i];
    outs[i].bytes = output_bytes[i];
    if (shapes_out) outs[i].shape = &out_shapes[i];
  }
  p->Predict(in, outs);
  if (shapes_out) WriteShapes(out_shapes, *shapes_out);
}

// The start of each of the `num` packed blocks of `bytes[i]` bytes at `base`
// (named `base_arg` and `bytes_arg` in messages).
template <typename T>
std::vector<T*> Unpack(T* base, size_t num, const size_t* bytes, const char* base_arg,
                       const char* bytes_arg) {
  weft::capi::CheckArray(bytes, num, bytes_arg);
  std::vector<size_t> offsets(num);
  size_t total = 0;
  for (size_t i = 0; i < num; ++i) {
    offsets[i] = total;
    if (bytes[i] > SIZE_MAX - total)
      weft::Fail(weft::StatusCode::kInvalidArgument, "argument '", bytes_arg,
                 "' sums past SIZE_MAX at element ", i);
    total += bytes[i];
  }
  weft::capi::CheckArray(base, total, base_arg);
  using Byte = typename std::conditional<std::is_const<T>::value, const char, char>::type;
  std::vector<T*> starts(num, nullptr);
  for (size_t i = 0; i < num; ++i)
    if (base) starts[i] = static_cast<Byte*>(base) + offsets[i];
  return starts;
}

// weft_predictor_predict_packed()'s body (and _packed_shaped's): the packed
// blocks unpacked, then Predict.
void PredictPacked(WeftPredictor* pred, size_t num_inputs, const void* input_data,
                   const size_t* input_bytes, const size_t* ind_ptr, const int64_t* dims,
                   size_t num_outputs, void* output_data, const size_t* output_bytes,
                   const ShapesOut* shapes_out) {
  GetPredictor(pred, "pred");
  const std::vector<const void*> in =
      Unpack(input_data, num_inputs, input_bytes, "input_data", "input_bytes");
  const std::vector<void*> out =
      Unpack(output_data, num_outputs, output_bytes, "output_data", "output_bytes");
  Predict(pred, num_inputs, in.data(), input_bytes, ind_ptr, dims, num_outputs, out.data(),
          output_bytes, shapes_out);
}

}  // namespace

WeftStatus weft_predictor_predict(WeftPredictor* pred, size_t num_inputs,
                                  const void* const* input_data, const size_t* input_bytes,
                                  const size_t* ind_ptr, const int64_t* dims, size_t num_outputs,
                                  void* const* output_data, const size_t* output_bytes) {
  WEFT_API_BEGIN();
  Predict(pred, num_inputs, input_data, input_bytes, ind_ptr, dims, num_outputs, output_data,
          output_bytes);
  WEFT_API_END();
}

WeftStatus weft_predictor_predict_packed(WeftPredictor* pred, size_t num_inputs,
                                         const void* input_data, const size_t* input_bytes,
                                         const size_t* ind_ptr, const int64_t* dims,
                                         size_t num_outputs, void* output_data,
                                         const size_t* output_bytes) {
  WEFT_API_BEGIN();
  PredictPacked(pred, num_inputs, input_data, input_bytes, ind_ptr, dims, num_outputs, output_data,
                output_bytes, nullptr);
  WEFT_API_END();
}

WeftStatus weft_predictor_predict_shaped(WeftPredictor* pred, size_t num_inputs,
                                         const void* const* input_data, const size_t* input_bytes,
                                         const size_t* ind_ptr, const int64_t* dims,
                                         size_t num_outputs, void* const* output_data,
                                         const size_t* output_bytes, size_t* out_ind_ptr,
                                         int64_t* out_dims, size_t capacity) {
  WEFT_API_BEGIN();
  const ShapesOut shapes{out_ind_ptr, out_dims, capacity};
  Predict(pred, num_inputs, input_data, input_bytes, ind_ptr, dims, num_outputs, output_data,
          output_bytes, &shapes);
  WEFT_API_END();
}

WeftStatus weft_predictor_predict_packed_shaped(WeftPredictor* pred, size_t num_inputs,
                                                const void* input_data, const size_t* input_bytes,
                                                const size_t* ind_ptr, const int64_t* dims,
                                                size_t num_outputs, void* output_data,
                                                const size_t* output_bytes, size_t* out_ind_ptr,
                                                int64_t* out_dims, size_t capacity) {
  WEFT_API_BEGIN();
  const ShapesOut shapes{out_ind_ptr, out_dims, capacity};
  PredictPacked(pred, num_inputs, input_data, input_bytes, ind_ptr, dims, num_outputs, output_data,
                output_bytes, &shapes);
  WEFT_API_END();
}

namespace {

// The predictor behind `pred` when it takes weft_predictor_predict_float's
// one float32 input and output; `shape` (`ndim` extents) parsed into *s.
std::shared_ptr<weft::Predictor> FloatPredictor(WeftPredictor* pred, const int64_t* shape,
                                                size_t ndim, const char* fn, weft::Shape* s) {
  auto p = GetPredictor(pred, "pred");
  if (ndim > static_cast<size_t>(weft::capi::kMaxNdim))
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'ndim' is ", ndim,
               ", expected at most ", weft::capi::kMaxNdim);
  *s = weft::capi::ShapeArg(shape, static_cast<int>(ndim), "shape", "ndim");
  if (p->input_names().size() != 1 || p->output_names().size() != 1)
    weft::Fail(weft::StatusCode::kInvalidArgument, "the model has ", p->input_names().size(),
               " input(s) and ", p->output_names().size(), " output(s); ", fn,
               " needs one of each");
  if (p->input_dtypes()[0] != weft::DType::kFloat32 ||
      p->output_dtypes()[0] != weft::DType::kFloat32)
    weft::Fail(weft::StatusCode::kDType, fn, " needs float32 input and output, the model has ",
               weft::DTypeName(p->input_dtypes()[0]), " and ",
               weft::DTypeName(p->output_dtypes()[0]));
  return p;
}

}  // namespace

WeftStatus weft_predictor_predict_float(WeftPredictor* pred, const float* input, size_t input_len,
                                        const int64_t* shape, size_t ndim, float* output,
                                        size_t output_len) {
  WEFT_API_BEGIN();
  weft::Shape s;
  auto p = FloatPredictor(pred, shape, ndim, "weft_predictor_predict_float", &s);
  weft::capi::CheckArray(input, input_len, "input");
  weft::capi::CheckArray(output, output_len, "output");
  weft::HostInput in;
  in.data = input;
  in.bytes = input_len * sizeof(float);
  in.shape = s;
  weft::HostOutput out;
  out.data = output;
  out.bytes = output_len * sizeof(float);
  p->Predict({in}, {out});
  WEFT_API_END();
}

WeftStatus weft_predictor_predict_float_with(WeftPredictor* pred, WeftPredictorCopyIn copy_in,
                                             WeftPredictorCopyOut copy_out, void* user,
                                             size_t input_len, const int64_t* shape, size_t ndim,
                                             size_t output_len) {
  WEFT_API_BEGIN();
  weft::Shape s;
  auto p = FloatPredictor(pred, shape, ndim, "weft_predictor_predict_float_with", &s);
  if (!copy_in || !copy_out)
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument '", copy_in ? "copy_out" : "copy_in",
               "' is null");
  weft::HostInput in;
  in.bytes = input_len * sizeof(float);
  in.shape = s;
  in.fill = [copy_in, user](void* dst, size_t bytes) {
    if (copy_in(user, dst, bytes) != 0)
      weft::Fail(weft::StatusCode::kInvalidArgument, "copy_in failed writing ", bytes,
                 " bytes of input");
  };
  weft::HostOutput out;
  out.bytes = output_len * sizeof(float);
  out.drain = [copy_out, user](const void* src, size_t bytes) {
    if (copy_out(user, src, bytes) != 0)
      weft::Fail(weft::StatusCode::kInvalidArgument, "copy_out failed reading ", bytes,
                 " bytes of output");
  };
  p->Predict({in}, {out});
  WEFT_API_END();
}

WeftStatus weft_predictor_stats(const WeftPredictor* pred, WeftPredictorStats* out) {
  WEFT_API_BEGIN();
  auto p = GetPredictor(pred, "pred");
  weft::capi::CheckNotNull(out, "out");
  const weft::PredictorStats s = p->stats();
  *out =
      WeftPredictorStats{s.executors, s.shape_sets, s.in_use, s.weight_bytes, s.activation_bytes};
  WEFT_API_END();
}

WeftStatus weft_predictor_free(WeftPredictor* pred) {
  WEFT_API_BEGIN();
  if (!pred) return WEFT_OK;
  auto p = weft::capi::TakeHandle(pred, "pred");
  p->Close();  // calls in flight still hold it; they finish before Close returns
  WEFT_API_END();
}
