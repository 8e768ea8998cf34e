// Device-independent geometry of the NN kernels, read from an op's parsed
// parameters and its (already validated) shapes: the CPU, oneDNN and CUDA
// backends of one op decode its parameters here, once. Plain host code that
// nvcc also compiles; the small accessors are callable from CUDA kernels.
#ifndef WEFT_KERNELS_NN_GEOMETRY_H_
#define WEFT_KERNELS_NN_GEOMETRY_H_

#include <cstdint>
#include <string>

#include "host_device.h"
#include "weft/op.h"
#include "weft/status.h"

namespace weft {

// The (h, w) values of a spatial tuple parameter (kernel, stride, pad,
// dilate) of an op whose kernel has `nsp` axes: a 1-D tuple sets w only, and
// a tuple of another length (an unset one) gives `def`.
inline void SpatialPair(const Shape& t, int nsp, int64_t def, int64_t* h, int64_t* w) {
  const bool set = t.ndim() == nsp;
  *w = set ? t[nsp - 1] : def;
  if (nsp == 2) *h = set ? t[0] : def;
}

// Geometry of a convolution between an input (N, C, H, W) and an output
// (N, F, OH, OW); 1-D shapes have H = OH = 1 and a (1, k) kernel.
struct ConvGeom {
  int64_t n = 1, c = 1, h = 1, w = 1;  // input
  int64_t f = 1, oh = 1, ow = 1;       // output
  int64_t groups = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;

  int64_t InSpatial() const { return h * w; }
  int64_t OutSpatial() const { return oh * ow; }
  int64_t KernelSize() const { return kh * kw; }
  // The column matrix is the input itself (1x1 kernel, stride 1, no pad).
  bool Pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0; }
};

// A convolution's, deconvolution's or pooling's window parameters, decoded
// once per node (ParamValues::Decoded): kernel, stride, pad, and dilate,
// num_group and target_shape where the op declares them.
struct WindowParams {
  Shape kernel, stride, pad, dilate, target_shape;
  int64_t num_group = 1;
  static WindowParams Decode(const ParamValues& p) {
    WindowParams w;
    w.kernel = p.GetShape("kernel");
    w.stride = p.GetShape("stride");
    w.pad = p.GetShape("pad");
    if (p.Has("dilate")) w.dilate = p.GetShape("dilate");
    if (p.Has("num_group")) w.num_group = p.GetInt("num_group");
    if (p.Has("target_shape")) w.target_shape = p.GetShape("target_shape");
    return w;
  }
};

// Reads kernel/stride/pad, `dilate` (when `has_dilate`) and `num_group`
// (when `has_group`) with the shapes of the input `in` and output `out`,
// both channel-first of rank 3 or 4.
// 1-D and 2-D only: 3-D convolution has its own CPU kernel
// (kernels/cpu/nn_conv3d.cc), and backends built on this geometry reject it.
inline ConvGeom MakeConvGeom(const ParamValues& p, const Shape& in, const Shape& out,
                             bool has_dilate = true, bool has_group = true) {
  ConvGeom g;
  const int nd = in.ndim();
  if (nd > 4)
    Fail(StatusCode::kNotImplemented,
         "convolution geometry: this backend supports 1-D and 2-D data; ", in.ToString(),
         " needs 3-D (CPU Convolution only)");
  g.n = in[0];
  g.c = in[1];
  g.f = out[1];
  g.w = in[nd - 1];
  g.ow = out[nd - 1];
  if (nd == 4) {
    g.h = in[2];
    g.oh = out[2];
  }
  const WindowParams& wp = p.Decoded<WindowParams>();
  if (has_group) g.groups = wp.num_group;
  const int nsp = wp.kernel.ndim();
  SpatialPair(wp.kernel, nsp, 1, &g.kh, &g.kw);
  SpatialPair(wp.stride, nsp, 1, &g.sh, &g.sw);
  SpatialPair(wp.pad, nsp, 0, &g.ph, &g.pw);
  if (has_dilate) SpatialPair(wp.dilate, nsp, 1, &g.dh, &g.dw);
  return g;
}

// A deconvolution from `in` to `out` is the adjoint of the convolution from
// `out` to `in`: the geometry of that convolution (h, w = the deconvolution's
// output extents, c = num_filter, f = its input channels; the weight
// (f, c / groups, kh, kw) is the convolution's filter). With target_shape
// the pad is MXNet's: (total + 1) / 2 of the surplus.
inline ConvGeom MakeDeconvGeom(const ParamValues& p, const Shape& in, const Shape& out) {
  ConvGeom g = MakeConvGeom(p, out, in);
  const Shape& t = p.Decoded<WindowParams>().target_shape;
  if (t.ndim() > 0 && t[0] != 0) {
    const int64_t th = g.sh * (g.oh - 1) + g.dh * (g.kh - 1) + 1 - g.h;
    const int64_t tw = g.sw * (g.ow - 1) + g.dw * (g.kw - 1) + 1 - g.w;
    g.ph = (th + 1) / 2;
    g.pw = (tw + 1) / 2;
  }
  return g;
}

// FullyConnected's parameters, decoded once per node, and the (rows M,
// reduced K) view of its data: (M, K) times the (num_hidden, K) weight.
struct FCParams {
  int64_t num_hidden = 0;
  bool bias = true, flatten = true;
  static FCParams Decode(const ParamValues& p) {
    FCParams f;
    f.num_hidden = p.GetInt("num_hidden");
    f.bias = !p.GetBool("no_bias");
    f.flatten = p.GetBool("flatten");
    return f;
  }
  void Dims(const Shape& data, int64_t* m, int64_t* k) const {
    const int nd = data.ndim();
    *m = flatten ? data[0] : data.ProdRange(0, nd - 1);
    *k = flatten ? data.ProdRange(1, nd) : data[nd - 1];
  }
};

// BatchNorm's data viewed as (outer, C, inner) around the channel axis.
struct BNGeom {
  int64_t outer = 1, c = 1, inner = 1;
  double eps = 1e-3, momentum = 0.9;
  bool fix_gamma = true;
  bool batch_stats = false;  // training without use_global_stats
  WEFT_HOST_DEVICE int64_t Count() const { return outer * inner; }
};

// BatchNorm's parameters, decoded once per node (ParamValues::Decoded).
struct BNParams {
  int64_t axis = 1;
  double eps = 1e-3, momentum = 0.9;
  bool fix_gamma = true, use_global_stats = false;
  static BNParams Decode(const ParamValues& p) {
    return {p.GetInt("axis"), p.GetFloat("eps"), p.GetFloat("momentum"), p.GetBool("fix_gamma"),
            p.GetBool("use_global_stats")};
  }
};

inline BNGeom MakeBNGeom(const OpContext& ctx, const ParamValues& p, const Shape& data) {
  const BNParams& q = p.Decoded<BNParams>();
  BNGeom g;
  const int nd = data.ndim();
  int64_t ax = q.axis;
  if (ax < 0) ax += nd;
  const int a = static_cast<int>(ax);
  g.outer = data.ProdRange(0, a);
  g.c = data[a];
  g.inner = data.ProdRange(a + 1, nd);
  g.eps = q.eps;
  g.momentum = q.momentum;
  g.fix_gamma = q.fix_gamma;
  g.batch_stats = ctx.is_train && !q.use_global_stats;
  return g;
}

enum class PoolKind { kMax, kAvg, kSum };

// Geometry of a pooling from input (N, C, H, W) to output (N, C, OH, OW);
// 1-D shapes have H = OH = 1. global_pool makes the window the whole plane.
struct PoolGeom {
  int64_t planes = 1, h = 1, w = 1, oh = 1, ow = 1;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0;
  PoolKind kind = PoolKind::kMax;
  bool count_include_pad = true;
};

// Pooling's own parameters, decoded once per node (with WindowParams).
struct PoolParams {
  PoolKind kind = PoolKind::kMax;
  bool count_include_pad = true, global_pool = false, full_convention = false;
  static PoolParams Decode(const ParamValues& p) {
    PoolParams q;
    const std::string& type = p.GetString("pool_type");
    q.kind = type == "max" ? PoolKind::kMax : type == "avg" ? PoolKind::kAvg : PoolKind::kSum;
    q.count_include_pad = p.IsNone("count_include_pad") || p.GetBool("count_include_pad");
    q.global_pool = p.GetBool("global_pool");
    q.full_convention = p.GetString("pooling_convention") == "full";
    return q;
  }
};

// 1-D and 2-D only: 3-D pooling has its own CPU kernel (kernels/cpu/
// nn_pool3d.cc), and backends built on this geometry reject it.
inline PoolGeom MakePoolGeom(const ParamValues& p, const Shape& in, const Shape& out) {
  PoolGeom g;
  const int nd = in.ndim();
  if (nd > 4)
    Fail(StatusCode::kNotImplemented,
         "operator Pooling: this backend supports 1-D and 2-D pooling; data ", in.ToString(),
         " needs 3-D (CPU only)");
  g.planes = in[0] * in[1];
  g.w = in[nd - 1];
  g.ow = out[nd - 1];
  if (nd == 4) {
    g.h = in[2];
    g.oh = out[2];
  }
  const PoolParams& q = p.Decoded<PoolParams>();
  g.kind = q.kind;
  g.count_include_pad = q.count_include_pad;
  if (q.global_pool) {
    g.kh = g.h;
    g.kw = g.w;
    return g;
  }
  const WindowParams& wp = p.Decoded<WindowParams>();
  const int nsp = wp.kernel.ndim();
  SpatialPair(wp.kernel, nsp, 1, &g.kh, &g.kw);
  SpatialPair(wp.stride, nsp, 1, &g.sh, &g.sw);
  SpatialPair(wp.pad, nsp, 0, &g.ph, &g.pw);
  return g;
}

}  // namespace weft

#endif  // WEFT_KERNELS_NN_GEOMETRY_H_
