// ONNX export of MXNet 1.9's interleaved attention matmuls (GluonNLP's
// BERT/Transformer exports; semantics in core/src/op/contrib_transformer.cc):
// the projection blocks are cut out of the interleaved arrays with
// Reshape/Slice/Transpose and multiplied with MatMul.
#include <cmath>

#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

// Block `which` of `k` interleaved per-head blocks of x (L, B, heads*k*D),
// as (B*heads, L, D).
std::string HeadBlock(Context& cx, const std::string& x, const Shape& s, int64_t heads, int64_t k,
                      int64_t which, const std::string& name) {
  const int64_t l = s[0], b = s[1], d = s[2] / (heads * k);
  std::string v = x;
  if (k > 1) {
    v = ReshapeTo(cx, v, {l, b, heads, k, d}, name + "_split");
    v = cx.Add1("Slice",
                {v, cx.ConstInts(name + "_starts", {which}),
                 cx.ConstInts(name + "_ends", {which + 1}), cx.ConstInts(name + "_axes", {3})},
                name + "_block");
  }
  v = ReshapeTo(cx, v, {l, b * heads, d}, name + "_heads");
  const std::string t = cx.Fresh(name + "_t");
  SetInts(cx.Add("Transpose", {v}, {t}, name + "_t"), "perm", {1, 0, 2});
  return t;
}

std::string Transposed(Context& cx, const std::string& x, const std::vector<int64_t>& perm,
                       const std::string& name) {
  const std::string t = cx.Fresh(name);
  SetInts(cx.Add("Transpose", {x}, {t}, name), "perm", perm);
  return t;
}

// q . k^T / sqrt(D) of (B*heads, Lq, D) and (B*heads, Lk, D).
void ScaledScores(Context& cx, const ExportNode& n, const std::string& q, const std::string& k,
                  int64_t d) {
  const std::string kt = Transposed(cx, k, {0, 2, 1}, n.name() + "_kt");
  const std::string s = cx.Add1("MatMul", {q, kt}, n.name() + "_scores");
  cx.Add(
      "Div",
      {s, cx.ConstScalar(n.name() + "_sqrt_d", std::sqrt(static_cast<double>(d)), n.in_types[0])},
      {n.outputs[0]}, n.name());
}

// attention (B*heads, Lq, Lk) x v (B*heads, Lk, D) into (Lq, B, E).
void Weighted(Context& cx, const ExportNode& n, const std::string& att, const std::string& v) {
  const std::string o = cx.Add1("MatMul", {att, v}, n.name() + "_weighted");
  const std::string t = Transposed(cx, o, {1, 0, 2}, n.name() + "_weighted_t");
  ReshapeTo(cx, t, Dims(n.out_shapes[0]), n.name(), n.outputs[0]);
}

int64_t HeadsOf(const ExportNode& n) { return n.params().GetInt("heads"); }

void SelfAttQK(Context& cx, const ExportNode& n) {
  const Shape& s = n.in_shapes[0];
  const int64_t h = HeadsOf(n);
  const std::string q = HeadBlock(cx, n.inputs[0], s, h, 3, 0, n.name() + "_q");
  const std::string k = HeadBlock(cx, n.inputs[0], s, h, 3, 1, n.name() + "_k");
  ScaledScores(cx, n, q, k, s[2] / (3 * h));
}

void SelfAttValAtt(Context& cx, const ExportNode& n) {
  const std::string v =
      HeadBlock(cx, n.inputs[0], n.in_shapes[0], HeadsOf(n), 3, 2, n.name() + "_v");
  Weighted(cx, n, n.inputs[1], v);
}

void EncDecQK(Context& cx, const ExportNode& n) {
  const int64_t h = HeadsOf(n);
  const std::string q = HeadBlock(cx, n.inputs[0], n.in_shapes[0], h, 1, 0, n.name() + "_q");
  const std::string k = HeadBlock(cx, n.inputs[1], n.in_shapes[1], h, 2, 0, n.name() + "_k");
  ScaledScores(cx, n, q, k, n.in_shapes[0][2] / h);
}

void EncDecValAtt(Context& cx, const ExportNode& n) {
  const std::string v =
      HeadBlock(cx, n.inputs[0], n.in_shapes[0], HeadsOf(n), 2, 1, n.name() + "_v");
  Weighted(cx, n, n.inputs[1], v);
}

}  // namespace

void AddAttentionConverters(ConverterTable* t) {
  (*t)["_contrib_interleaved_matmul_selfatt_qk"] = SelfAttQK;
  (*t)["_contrib_interleaved_matmul_selfatt_valatt"] = SelfAttValAtt;
  (*t)["_contrib_interleaved_matmul_encdec_qk"] = EncDecQK;
  (*t)["_contrib_interleaved_matmul_encdec_valatt"] = EncDecValAtt;
}

}  // namespace onnx_export
}  // namespace weft
