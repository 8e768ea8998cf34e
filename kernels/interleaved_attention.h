// The geometry of the interleaved attention matmuls (semantics in
// core/src/op/contrib_transformer.cc), shared by the reference kernels
// (kernels/cpu/contrib_transformer.cc) and oneDNN's
// (kernels/dnnl/contrib_transformer_dnnl.cc). The projections are read in
// place: the D values of head block bh = b * heads + h at position i of an
// (L, B, heads * k * D) array start at i * row + bh * blk (+ D for the
// second block of an interleaved pair, + 2 * D for the third).
#ifndef WEFT_KERNELS_INTERLEAVED_ATTENTION_H_
#define WEFT_KERNELS_INTERLEAVED_ATTENTION_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#include "weft/op.h"

namespace weft {
namespace attention {

// One projection inside an interleaved array: element (i, bh) at
// p + i * row + bh * blk (p null: no such array, a gradient not wanted).
template <typename T>
struct Side {
  T* p;
  int64_t row, blk;
  T* at(int64_t i, int64_t bh) const { return p + i * row + bh * blk; }
  operator Side<const T>() const { return {p, row, blk}; }  // NOLINT: read-only view
};

struct Dims {
  int64_t bh, lq, lk, d;  // B*heads, query length, key length, head_dim
  int64_t Work() const { return bh * lq * lk * d; }
  double Scale() const { return 1.0 / std::sqrt(static_cast<double>(d)); }
};

// The ops' number of heads, decoded once per node (ParamValues::Decoded).
struct HeadsParams {
  int64_t heads = 1;
  static HeadsParams Decode(const ParamValues& p) { return {p.GetInt("heads")}; }
};

inline int64_t Heads(const NodeAttrs& attrs) { return attrs.params.Decoded<HeadsParams>().heads; }

// Self-attention: qkv (L, B, heads * 3 * D), blocks q, k, v (which = 0, 1, 2).
inline Dims SelfDims(const Shape& qkv, int64_t heads) {
  return {qkv[1] * heads, qkv[0], qkv[0], qkv[2] / (3 * heads)};
}
template <typename T>
Side<T> SelfSide(T* qkv, const Shape& s, const Dims& n, int which) {
  return {qkv ? qkv + which * n.d : nullptr, s[1] * s[2], 3 * n.d};
}

// Encoder-decoder: queries (Lq, B, heads * D) and keys_values (Lk, B,
// heads * 2 * D), blocks k, v (which = 0, 1).
inline Dims EncDecDims(const Shape& kv, int64_t lq, int64_t heads) {
  return {kv[1] * heads, lq, kv[0], kv[2] / (2 * heads)};
}
template <typename T>
Side<T> QuerySide(T* q, const Shape& s, const Dims& n) {
  return {q, s[1] * s[2], n.d};
}
template <typename T>
Side<T> KVSide(T* kv, const Shape& s, const Dims& n, int which) {
  return {kv ? kv + which * n.d : nullptr, s[1] * s[2], 2 * n.d};
}

// The (Lq, B, heads * D) output of a values product (and its gradient).
template <typename T>
Side<T> ValuesSide(T* y, const Dims& n) {
  return {y, n.bh * n.d, n.d};
}

// Gradients accumulate into their interleaved arrays: a kWrite one is
// cleared first (this also zeroes the blocks a gradient does not reach).
inline void ClearForWrite(OpReq req, const TBlob& b) {
  if (req == OpReq::kWrite || req == OpReq::kInplace) std::memset(b.dptr, 0, b.Bytes());
}

// The gradient array `out`'s data (nullptr for a kNull request).
template <typename T>
T* Grad(OpReq req, const TBlob& out) {
  return req == OpReq::kNull ? nullptr : out.data<T>();
}

}  // namespace attention
}  // namespace weft

#endif  // WEFT_KERNELS_INTERLEAVED_ATTENTION_H_
