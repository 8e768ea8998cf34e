#include "dnnl/conv_dims.h"

#include "nn_geometry.h"
#include "dnnl/dnnl_util.h"
#include "weft/param.h"

namespace weft {
namespace onednn {

namespace {

using dnnl::memory;

ConvDims DimsOf(const ConvGeom& g) {
  ConvDims d;
  const int64_t G = g.groups;
  d.src = {g.n, g.c, g.h, g.w};
  d.dst = {g.n, g.f, g.oh, g.ow};
  d.wei =
      G == 1 ? memory::dims{g.f, g.c, g.kh, g.kw} : memory::dims{G, g.f / G, g.c / G, g.kh, g.kw};
  d.bias = {g.f};
  d.strides = {g.sh, g.sw};
  d.dilates = {g.dh - 1, g.dw - 1};
  d.pad_l = {g.ph, g.pw};
  d.pad_r = {PadRight(g.h, g.oh, g.kh, g.sh, g.ph, g.dh),
             PadRight(g.w, g.ow, g.kw, g.sw, g.pw, g.dw)};
  return d;
}

// 3-D data (N, C, D, H, W) to out (N, F, OD, OH, OW).
ConvDims DimsOf3d(const ParamValues& p, const Shape& data, const Shape& out) {
  ConvDims d;
  const WindowParams& w = p.Decoded<WindowParams>();
  const int64_t G = w.num_group, C = data[1], F = out[1];
  const Shape &k = w.kernel, &s = w.stride, &pad = w.pad, &dil = w.dilate;
  d.src = {data[0], C, data[2], data[3], data[4]};
  d.dst = {out[0], F, out[2], out[3], out[4]};
  d.wei = G == 1 ? memory::dims{F, C, k[0], k[1], k[2]}
                 : memory::dims{G, F / G, C / G, k[0], k[1], k[2]};
  d.bias = {F};
  for (int i = 0; i < 3; ++i) {
    const int64_t si = s.ndim() == 3 ? s[i] : 1, pi = pad.ndim() == 3 ? pad[i] : 0,
                  di = dil.ndim() == 3 ? dil[i] : 1;
    d.strides.push_back(si);
    d.dilates.push_back(di - 1);
    d.pad_l.push_back(pi);
    d.pad_r.push_back(PadRight(data[2 + i], out[2 + i], k[i], si, pi, di));
  }
  return d;
}

}  // namespace

ConvDims DimsOf(const ParamValues& p, const Shape& data, const Shape& out) {
  return data.ndim() == 5 ? DimsOf3d(p, data, out) : DimsOf(MakeConvGeom(p, data, out));
}

std::vector<int64_t> Key(const ConvDims& d, bool bias, memory::data_type dt) {
  std::vector<int64_t> key{static_cast<int64_t>(dt)};
  for (const memory::dims* v :
       {&d.src, &d.wei, &d.dst, &d.strides, &d.dilates, &d.pad_l, &d.pad_r}) {
    key.push_back(static_cast<int64_t>(v->size()));
    key.insert(key.end(), v->begin(), v->end());
  }
  key.push_back(bias ? 1 : 0);
  return key;
}

}  // namespace onednn
}  // namespace weft
