// CPU kernels of GridGenerator, BilinearSampler, SpatialTransformer and
// their backward ops (semantics in core/src/op/vision_sampling.cc). Samples
// of one image are independent in the forward passes (images split over
// threads); the backward passes scatter, one image per thread.
#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// Normalised target coordinate of index i along an axis of extent n.
inline double GridCoord(int64_t i, int64_t n) {
  return -1.0 + static_cast<double>(i) * (2.0 / (n - 1));
}

// grid (N, 2, H, W) = loc (N, 2x3) @ (x_w, y_h, 1) over the target (H, W).
template <typename T>
void AffineGrid(const T* loc, int64_t n, int64_t h, int64_t w, T* grid) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) {
        const T x = static_cast<T>(GridCoord(j, w)), y = static_cast<T>(GridCoord(i, h));
        const T* a = loc + b * 6;
        grid[((b * 2) * h + i) * w + j] = a[0] * x + a[1] * y + a[2];
        grid[((b * 2 + 1) * h + i) * w + j] = a[3] * x + a[4] * y + a[5];
      }
}

// gloc (N, 6) += ggrid (N, 2, H, W) @ (x_w, y_h, 1)^T.
template <typename T>
void AffineGridBackward(const T* ggrid, int64_t n, int64_t h, int64_t w, T* gloc) {
  for (int64_t b = 0; b < n; ++b)
    for (int r = 0; r < 2; ++r) {
      T acc[3] = {0, 0, 0};
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) {
          const T g = ggrid[((b * 2 + r) * h + i) * w + j];
          acc[0] += g * static_cast<T>(GridCoord(j, w));
          acc[1] += g * static_cast<T>(GridCoord(i, h));
          acc[2] += g;
        }
      for (int k = 0; k < 3; ++k) gloc[b * 6 + r * 3 + k] += acc[k];
    }
}

// Bilinear sampling of data (N, C, H, W) at grid (N, 2, Ho, Wo) into out
// (N, C, Ho, Wo); with `back`, scatters dy into gdata and ggrid instead.
template <typename T>
void Sample(const Shape& ds, const Shape& gs, const T* data, const T* grid, T* out, const T* dy,
            T* gdata, T* ggrid) {
  const int64_t n = ds[0], c = ds[1], ih = ds[2], iw = ds[3], oh = gs[2], ow = gs[3], m = oh * ow;
#pragma omp parallel for schedule(static) if (n > 1 && n * c * m >= kParallelGrain)
  for (int64_t b = 0; b < n; ++b)
    for (int64_t p = 0; p < m; ++p) {
      const T* g = grid + b * 2 * m + p;
      const T yr = (g[m] + 1) * (ih - 1) / 2, xr = (g[0] + 1) * (iw - 1) / 2;
      const int64_t y0 = static_cast<int64_t>(std::floor(yr)),
                    x0 = static_cast<int64_t>(std::floor(xr));
      const T wy = 1 - (yr - y0), wx = 1 - (xr - x0);
      const bool iny0 = y0 >= 0 && y0 <= ih - 1, iny1 = y0 + 1 >= 0 && y0 + 1 <= ih - 1;
      const bool inx0 = x0 >= 0 && x0 <= iw - 1, inx1 = x0 + 1 >= 0 && x0 + 1 <= iw - 1;
      T gy = 0, gx = 0;
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t plane = (b * c + ch) * ih * iw, at = plane + y0 * iw + x0;
        const T v00 = iny0 && inx0 ? data[at] : T(0), v01 = iny0 && inx1 ? data[at + 1] : T(0);
        const T v10 = iny1 && inx0 ? data[at + iw] : T(0),
                v11 = iny1 && inx1 ? data[at + iw + 1] : T(0);
        const int64_t o = (b * c + ch) * m + p;
        if (out) {
          out[o] =
              v00 * wy * wx + v01 * wy * (1 - wx) + v10 * (1 - wy) * wx + v11 * (1 - wy) * (1 - wx);
          continue;
        }
        const T d = dy[o];
        if (gdata) {
          if (iny0 && inx0) gdata[at] += d * wy * wx;
          if (iny0 && inx1) gdata[at + 1] += d * wy * (1 - wx);
          if (iny1 && inx0) gdata[at + iw] += d * (1 - wy) * wx;
          if (iny1 && inx1) gdata[at + iw + 1] += d * (1 - wy) * (1 - wx);
        }
        gy -= d * (v01 - v11 + (v00 - v01 - v10 + v11) * wx);
        gx -= d * (v10 - v11 + (v00 - v01 - v10 + v11) * wy);
      }
      if (!out && ggrid) {
        ggrid[b * 2 * m + m + p] += gy * (ih - 1) / 2;
        ggrid[b * 2 * m + p] += gx * (iw - 1) / 2;
      }
    }
}

template <typename T>
void Zero(const TBlob& b, OpReq req) {
  if (req != OpReq::kAdd && req != OpReq::kNull)
    std::fill(b.data<T>(), b.data<T>() + b.shape.Size(), T(0));
}

// GridGenerator's transform_type, decoded once per node (ParamValues::Decoded).
struct GridParams {
  bool affine = false;  // transform_type "affine"
  static GridParams Decode(const ParamValues& p) {
    return {p.GetString("transform_type") == "affine"};
  }
};

void GridCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool affine = attrs.params.Decoded<GridParams>().affine;
  const Shape& os = out[0].shape;
  DispatchFloat(in[0].dtype, "GridGenerator", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    std::vector<T> y(static_cast<size_t>(os.Size()));
    if (affine) {
      AffineGrid(x, os[0], os[2], os[3], y.data());
    } else {
      const T sx = static_cast<T>((static_cast<T>(os[3]) - 1.0) / 2.0),
              sy = static_cast<T>((static_cast<T>(os[2]) - 1.0) / 2.0);
      for (int64_t b = 0; b < os[0]; ++b)
        for (int64_t i = 0; i < os[2]; ++i)
          for (int64_t j = 0; j < os[3]; ++j) {
            const int64_t px = ((b * 2) * os[2] + i) * os[3] + j, py = px + os[2] * os[3];
            y[px] = (x[px] + static_cast<T>(j)) / sx - T(1);
            y[py] = (x[py] + static_cast<T>(i)) / sy - T(1);
          }
    }
    for (size_t i = 0; i < y.size(); ++i) Store(req[0], out[0].data<T>() + i, y[i]);
  });
}

void GridBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool affine = attrs.params.Decoded<GridParams>().affine;
  const Shape& gs = in[0].shape;
  DispatchFloat(in[0].dtype, "_backward_GridGenerator", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    T* dx = out[0].data<T>();
    Zero<T>(out[0], req[0]);
    if (affine) {
      AffineGridBackward(dy, gs[0], gs[2], gs[3], dx);
      return;
    }
    const T sx = static_cast<T>((static_cast<T>(gs[3]) - 1.0) / 2.0),
            sy = static_cast<T>((static_cast<T>(gs[2]) - 1.0) / 2.0);
    const int64_t m = gs[2] * gs[3];
    for (int64_t i = 0; i < gs.Size(); ++i) dx[i] += dy[i] / ((i / m) % 2 == 0 ? sx : sy);
  });
}

void SamplerCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  DispatchFloat(in[0].dtype, "BilinearSampler", [&](auto t) {
    using T = decltype(t);
    std::vector<T> y(static_cast<size_t>(out[0].shape.Size()));
    Sample<T>(in[0].shape, in[1].shape, in[0].data<T>(), in[1].data<T>(), y.data(), nullptr,
              nullptr, nullptr);
    for (size_t i = 0; i < y.size(); ++i) Store(req[0], out[0].data<T>() + i, y[i]);
  });
}

void SamplerBackwardCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  DispatchFloat(in[0].dtype, "_backward_BilinearSampler", [&](auto t) {
    using T = decltype(t);
    Zero<T>(out[0], req[0]);
    Zero<T>(out[1], req[1]);
    Sample<T>(in[1].shape, in[2].shape, in[1].data<T>(), in[2].data<T>(), nullptr, in[0].data<T>(),
              req[0] == OpReq::kNull ? nullptr : out[0].data<T>(),
              req[1] == OpReq::kNull ? nullptr : out[1].data<T>());
  });
}

void TransformerCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& os = out[0].shape;
  const Shape gs({os[0], 2, os[2], os[3]});
  DispatchFloat(in[0].dtype, "SpatialTransformer", [&](auto t) {
    using T = decltype(t);
    std::vector<T> grid(static_cast<size_t>(gs.Size())), y(static_cast<size_t>(os.Size()));
    AffineGrid(in[1].data<T>(), os[0], os[2], os[3], grid.data());
    Sample<T>(in[0].shape, gs, in[0].data<T>(), grid.data(), y.data(), nullptr, nullptr, nullptr);
    for (size_t i = 0; i < y.size(); ++i) Store(req[0], out[0].data<T>() + i, y[i]);
  });
}

void TransformerBackwardCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Shape& os = in[0].shape;
  const Shape gs({os[0], 2, os[2], os[3]});
  DispatchFloat(in[0].dtype, "_backward_SpatialTransformer", [&](auto t) {
    using T = decltype(t);
    std::vector<T> grid(static_cast<size_t>(gs.Size())), ggrid(grid.size(), T(0));
    AffineGrid(in[2].data<T>(), os[0], os[2], os[3], grid.data());
    Zero<T>(out[0], req[0]);
    Zero<T>(out[1], req[1]);
    Sample<T>(in[1].shape, gs, in[1].data<T>(), grid.data(), nullptr, in[0].data<T>(),
              req[0] == OpReq::kNull ? nullptr : out[0].data<T>(), ggrid.data());
    if (req[1] != OpReq::kNull)
      AffineGridBackward(ggrid.data(), os[0], os[2], os[3], out[1].data<T>());
  });
}

}  // namespace

void RegisterVisionSamplingCpu(KernelRegistry* reg) {
  reg->Add("GridGenerator", DeviceType::kCPU, {"cpu", 0, GridCpu, true});
  reg->Add("_backward_GridGenerator", DeviceType::kCPU, {"cpu", 0, GridBackwardCpu, true});
  reg->Add("BilinearSampler", DeviceType::kCPU, {"cpu", 0, SamplerCpu, true});
  reg->Add("_backward_BilinearSampler", DeviceType::kCPU, {"cpu", 0, SamplerBackwardCpu, true});
  reg->Add("SpatialTransformer", DeviceType::kCPU, {"cpu", 0, TransformerCpu, true});
  reg->Add("_backward_SpatialTransformer", DeviceType::kCPU,
           {"cpu", 0, TransformerBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
