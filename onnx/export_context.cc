// Context of one ONNX export: names, nodes, constants, attributes and the
// per-opset forms converters share.
#include "export_context.h"

#include <cstring>
#include <type_traits>

#include "weft/float16.h"
#include "weft/status.h"

namespace weft {
namespace onnx_export {

void ThrowUnsupported(const std::string& reason) { throw Unsupported{reason}; }

void OnlyFirstOutput(const ExportNode& n) {
  for (size_t i = 1; i < n.out_used.size(); ++i)
    if (n.out_used[i]) ThrowUnsupported("output " + std::to_string(i) + " is read");
}

int OnnxElemType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return onnx::TensorProto::FLOAT;
    case DType::kFloat64:
      return onnx::TensorProto::DOUBLE;
    case DType::kFloat16:
      return onnx::TensorProto::FLOAT16;
    case DType::kBFloat16:
      return onnx::TensorProto::BFLOAT16;
    case DType::kUint8:
      return onnx::TensorProto::UINT8;
    case DType::kInt8:
      return onnx::TensorProto::INT8;
    case DType::kInt32:
      return onnx::TensorProto::INT32;
    case DType::kInt64:
      return onnx::TensorProto::INT64;
    default:
      ThrowUnsupported(std::string("dtype ") + DTypeName(t) + " has no ONNX element type");
  }
}

std::string Context::Fresh(const std::string& base) {
  std::string name = base.empty() ? "v" : base;
  for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

onnx::NodeProto* Context::Add(const std::string& op_type, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto* n = graph_->add_node();
  n->set_op_type(op_type);
  n->set_name(Fresh(name));
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

std::string Context::Add1(const std::string& op_type, const std::vector<std::string>& inputs,
                          const std::string& name) {
  const std::string out = Fresh(name);
  Add(op_type, inputs, {out}, name);
  return out;
}

std::string Context::ConstInts(const std::string& name, const std::vector<int64_t>& values,
                               bool scalar) {
  onnx::TensorProto* t = graph_->add_initializer();
  t->set_name(Fresh(name));
  t->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
  return t->name();
}

std::string Context::ConstFloats(const std::string& name, const std::vector<float>& values,
                                 const std::vector<int64_t>& dims) {
  onnx::TensorProto* t = graph_->add_initializer();
  t->set_name(Fresh(name));
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(float));
  return t->name();
}

std::string Context::ConstScalar(const std::string& name, double value, DType t) {
  onnx::TensorProto* p = graph_->add_initializer();
  p->set_name(Fresh(name));
  p->set_data_type(OnnxElemType(t));
  switch (t) {
    case DType::kFloat64:
      p->add_double_data(value);
      break;
    case DType::kInt64:
      p->add_int64_data(static_cast<int64_t>(value));
      break;
    case DType::kInt32:
      p->add_int32_data(static_cast<int32_t>(value));
      break;
    case DType::kFloat16:
      p->add_int32_data(ToHalf(static_cast<float>(value)).bits);
      break;
    case DType::kFloat32:
      p->add_float_data(static_cast<float>(value));
      break;
    default:
      ThrowUnsupported(std::string("a scalar of dtype ") + DTypeName(t));
  }
  return p->name();
}

void Context::AddArray(const std::string& name, const NDArray& array) {
  onnx::TensorProto* t = graph_->add_initializer();
  t->set_name(name);
  used_.insert(name);
  t->set_data_type(OnnxElemType(array.dtype()));
  for (int i = 0; i < array.shape().ndim(); ++i) t->add_dims(array.shape()[i]);
  std::string bytes(array.Bytes(), '\0');
  if (!bytes.empty()) array.CopyToHost(bytes.data(), bytes.size());
  t->set_raw_data(std::move(bytes));
}

const NDArray* Context::Param(const std::string& onnx_name) const {
  auto it = params_.find(onnx_name);
  return it == params_.end() ? nullptr : &it->second;
}

void Context::Note(const ExportNode& n, const std::string& text) {
  notes_.push_back({n.op(), n.name(), text});
}

void SetInt(onnx::NodeProto* n, const std::string& key, int64_t v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void SetFloat(onnx::NodeProto* n, const std::string& key, float v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void SetString(onnx::NodeProto* n, const std::string& key, const std::string& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void SetInts(onnx::NodeProto* n, const std::string& key, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void SetFloats(onnx::NodeProto* n, const std::string& key, const std::vector<float>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}

std::vector<int64_t> Dims(const Shape& s) {
  std::vector<int64_t> d;
  for (int i = 0; i < s.ndim(); ++i) d.push_back(s[i]);
  return d;
}

std::vector<float> HostFloats(const NDArray& a) {
  std::vector<float> out(static_cast<size_t>(a.Size()));
  DispatchDType(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> raw(out.size());
    if (!raw.empty()) a.CopyToHost(raw.data(), raw.size() * sizeof(T));
    for (size_t i = 0; i < raw.size(); ++i) {
      if constexpr (kIsReducedFloat<T>)
        out[i] = ToFloat(raw[i]);
      else
        out[i] = static_cast<float>(raw[i]);
    }
  });
  return out;
}

namespace {

// Squeeze/Unsqueeze: axes an attribute before opset 13, an input from 13.
std::string AxesOp(Context& cx, const std::string& op, const std::string& x,
                   const std::vector<int64_t>& axes, const std::string& name,
                   const std::string& out) {
  const std::string o = out.empty() ? cx.Fresh(name) : out;
  if (cx.opset() >= 13)
    cx.Add(op, {x, cx.ConstInts(name + "_axes", axes)}, {o}, name);
  else
    SetInts(cx.Add(op, {x}, {o}, name), "axes", axes);
  return o;
}

}  // namespace

std::string Unsqueeze(Context& cx, const std::string& x, const std::vector<int64_t>& axes,
                      const std::string& name, const std::string& out) {
  return AxesOp(cx, "Unsqueeze", x, axes, name, out);
}

std::string Squeeze(Context& cx, const std::string& x, const std::vector<int64_t>& axes,
                    const std::string& name, const std::string& out) {
  return AxesOp(cx, "Squeeze", x, axes, name, out);
}

std::string SliceRange(Context& cx, const std::string& x, int64_t begin, int64_t end, int64_t axis,
                       const std::string& name) {
  return cx.Add1("Slice",
                 {x, cx.ConstInts(name + "_starts", {begin}), cx.ConstInts(name + "_ends", {end}),
                  cx.ConstInts(name + "_axes", {axis})},
                 name);
}

std::string CastTo(Context& cx, const std::string& x, int to, const std::string& name) {
  const std::string out = cx.Fresh(name);
  SetInt(cx.Add("Cast", {x}, {out}, name), "to", to);
  return out;
}

std::string ReshapeTo(Context& cx, const std::string& x, const std::vector<int64_t>& shape,
                      const std::string& name, const std::string& out) {
  const std::string o = out.empty() ? cx.Fresh(name) : out;
  cx.Add("Reshape", {x, cx.ConstInts(name + "_shape", shape)}, {o}, name);
  return o;
}

void SplitInto(Context& cx, const std::string& x, int64_t axis, const std::vector<int64_t>& sizes,
               const std::vector<std::string>& outs, const std::string& name) {
  onnx::NodeProto* n;
  if (cx.opset() >= 13) {
    n = cx.Add("Split", {x, cx.ConstInts(name + "_split", sizes)}, outs, name);
  } else {
    n = cx.Add("Split", {x}, outs, name);
    SetInts(n, "split", sizes);
  }
  SetInt(n, "axis", axis);
}

onnx::NodeProto* Reduce(Context& cx, const std::string& op_type, const std::string& x,
                        const std::vector<int64_t>& axes, bool keepdims, const std::string& out,
                        const std::string& name) {
  const bool axes_input = op_type == "ReduceSum" ? cx.opset() >= 13 : cx.opset() >= 18;
  onnx::NodeProto* n;
  if (axes.empty()) {  // every axis
    n = cx.Add(op_type, {x}, {out}, name);
  } else if (axes_input) {
    n = cx.Add(op_type, {x, cx.ConstInts(name + "_axes", axes)}, {out}, name);
  } else {
    n = cx.Add(op_type, {x}, {out}, name);
    SetInts(n, "axes", axes);
  }
  SetInt(n, "keepdims", keepdims ? 1 : 0);
  return n;
}

}  // namespace onnx_export
}  // namespace weft
