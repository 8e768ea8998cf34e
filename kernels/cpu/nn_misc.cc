// CPU kernels of UpSampling (nearest), Pad and their gradients (semantics in
// core/src/op/nn_misc.cc). Planes (n, c) are independent and split over
// OpenMP threads.
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// ---------------------------------------------------------------- UpSampling

template <typename T>
void UpForward(const std::vector<TBlob>& in, bool sum, OpReq req, const TBlob& out) {
  const Shape& os = out.shape;
  const int64_t N = os[0], OC = os[1], OH = os[2], OW = os[3];
  T* y = out.data<T>();
  int64_t c_off = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const Shape& s = in[k].shape;
    const int64_t C = s[1], H = s[2], W = s[3], fy = OH / H, fx = OW / W;
    const T* x = in[k].data<T>();
    // The first input writes (or adds under kAdd); later 'sum' inputs add.
    const bool add = req == OpReq::kAdd || (sum && k > 0);
#pragma omp parallel for schedule(static) if (N * C * OH * OW >= kParallelGrain)
    for (int64_t nc = 0; nc < N * C; ++nc) {
      const int64_t n = nc / C, c = nc % C;
      const T* xp = x + nc * H * W;
      T* yp = y + ((n * OC) + c_off + c) * OH * OW;
      for (int64_t oy = 0; oy < OH; ++oy) {
        const T* xr = xp + (oy / fy) * W;
        T* yr = yp + oy * OW;
        if (add) {
          for (int64_t ox = 0; ox < OW; ++ox) yr[ox] += xr[ox / fx];
        } else {
          for (int64_t ox = 0; ox < OW; ++ox) yr[ox] = xr[ox / fx];
        }
      }
    }
    if (!sum) c_off += C;
  }
}

template <typename T>
void UpBackward(const TBlob& dy_blob, bool sum, const std::vector<OpReq>& req,
                const std::vector<TBlob>& out) {
  const Shape& os = dy_blob.shape;
  const int64_t N = os[0], OC = os[1], OH = os[2], OW = os[3];
  const T* dy = dy_blob.data<T>();
  int64_t c_off = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    const Shape& s = out[k].shape;
    const int64_t C = s[1], H = s[2], W = s[3], fy = OH / H, fx = OW / W;
    T* dx = out[k].data<T>();
    const OpReq r = req[k];
    if (r != OpReq::kNull) {
#pragma omp parallel for schedule(static) if (N * C * OH * OW >= kParallelGrain)
      for (int64_t nc = 0; nc < N * C; ++nc) {
        const int64_t n = nc / C, c = nc % C;
        const T* dp = dy + ((n * OC) + c_off + c) * OH * OW;
        T* xp = dx + nc * H * W;
        std::vector<T> acc(static_cast<size_t>(H * W), T(0));
        for (int64_t oy = 0; oy < OH; ++oy) {
          T* ar = acc.data() + (oy / fy) * W;
          const T* dr = dp + oy * OW;
          for (int64_t ox = 0; ox < OW; ++ox) ar[ox / fx] += dr[ox];
        }
        for (int64_t i = 0; i < H * W; ++i) Store(r, &xp[i], acc[i]);
      }
    }
    if (!sum) c_off += C;
  }
}

// UpSampling's multi_input_mode, decoded once per node (ParamValues::Decoded).
struct UpSamplingParams {
  bool sum = false;  // multi_input_mode "sum"
  static UpSamplingParams Decode(const ParamValues& p) {
    return {p.GetString("multi_input_mode") == "sum"};
  }
};

void UpSamplingCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool sum = attrs.params.Decoded<UpSamplingParams>().sum;
  DispatchFloat(in[0].dtype, "UpSampling", [&](auto t) {
    using T = decltype(t);
    UpForward<T>(in, sum, req[0], out[0]);
  });
}

void UpSamplingBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const bool sum = attrs.params.Decoded<UpSamplingParams>().sum;
  DispatchFloat(in[0].dtype, "_backward_UpSampling", [&](auto t) {
    using T = decltype(t);
    UpBackward<T>(in[0], sum, req, out);
  });
}

// ----------------------------------------------------------------------- Pad

// Source index of output position o on one axis of extent n padded by
// `before`, or -1 for the constant fill.
int64_t PadSource(int64_t o, int64_t n, int64_t before, int mode) {
  int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  if (mode == 0) return -1;                 // constant
  if (mode == 1) return i < 0 ? 0 : n - 1;  // edge
  return i < 0 ? -i : 2 * (n - 1) - i;      // reflect (pad < n)
}

// Spatial index maps of a pad: for the 2 or 3 trailing axes, the source
// index of every output position (-1 = constant).
struct PadMaps {
  int64_t planes = 1;
  std::vector<int64_t> in_ext, out_ext;  // spatial extents
  std::vector<std::vector<int64_t>> src;
};

// Pad's parameters, decoded once per node (ParamValues::Decoded).
struct PadParams {
  int mode = 0;  // 0 constant, 1 edge, 2 reflect
  Shape pad_width;
  double fill = 0;  // constant_value
  static PadParams Decode(const ParamValues& p) {
    const std::string& mode = p.GetString("mode");
    return {mode == "constant" ? 0
            : mode == "edge"   ? 1
                               : 2,
            p.GetShape("pad_width"), p.GetFloat("constant_value")};
  }
};

PadMaps MakePadMaps(const ParamValues& p, const Shape& in, const Shape& out) {
  PadMaps m;
  const PadParams& q = p.Decoded<PadParams>();
  const int mode = q.mode;
  const Shape& pw = q.pad_width;
  m.planes = in[0] * in[1];
  for (int a = 2; a < in.ndim(); ++a) {
    m.in_ext.push_back(in[a]);
    m.out_ext.push_back(out[a]);
    std::vector<int64_t> s(static_cast<size_t>(out[a]));
    for (int64_t o = 0; o < out[a]; ++o) s[o] = PadSource(o, in[a], pw[2 * a], mode);
    m.src.push_back(std::move(s));
  }
  // Rank 4 is rank 5 with a leading spatial axis of extent 1.
  if (m.src.size() == 2) {
    m.in_ext.insert(m.in_ext.begin(), 1);
    m.out_ext.insert(m.out_ext.begin(), 1);
    m.src.insert(m.src.begin(), std::vector<int64_t>{0});
  }
  return m;
}

template <typename T>
void PadForward(const PadMaps& m, T fill, const T* x, OpReq req, T* y) {
  if (req == OpReq::kNull) return;
  const int64_t D = m.in_ext[0], H = m.in_ext[1], W = m.in_ext[2];
  const int64_t OD = m.out_ext[0], OH = m.out_ext[1], OW = m.out_ext[2];
#pragma omp parallel for schedule(static) if (m.planes * OD * OH * OW >= kParallelGrain)
  for (int64_t pl = 0; pl < m.planes; ++pl) {
    const T* xp = x + pl * D * H * W;
    T* yp = y + pl * OD * OH * OW;
    for (int64_t od = 0; od < OD; ++od) {
      const int64_t sd = m.src[0][od];
      for (int64_t oy = 0; oy < OH; ++oy) {
        const int64_t sy = m.src[1][oy];
        T* yr = yp + (od * OH + oy) * OW;
        if (sd < 0 || sy < 0) {
          for (int64_t ox = 0; ox < OW; ++ox) Store(req, &yr[ox], fill);
          continue;
        }
        const T* xr = xp + (sd * H + sy) * W;
        for (int64_t ox = 0; ox < OW; ++ox) {
          const int64_t sx = m.src[2][ox];
          Store(req, &yr[ox], sx < 0 ? fill : xr[sx]);
        }
      }
    }
  }
}

template <typename T>
void PadBackward(const PadMaps& m, const T* dy, OpReq req, T* dx) {
  if (req == OpReq::kNull) return;
  const int64_t D = m.in_ext[0], H = m.in_ext[1], W = m.in_ext[2];
  const int64_t OD = m.out_ext[0], OH = m.out_ext[1], OW = m.out_ext[2];
#pragma omp parallel for schedule(static) if (m.planes * OD * OH * OW >= kParallelGrain)
  for (int64_t pl = 0; pl < m.planes; ++pl) {
    T* xp = dx + pl * D * H * W;
    const T* dp = dy + pl * OD * OH * OW;
    if (req != OpReq::kAdd)
      for (int64_t i = 0; i < D * H * W; ++i) xp[i] = T(0);
    for (int64_t od = 0; od < OD; ++od) {
      const int64_t sd = m.src[0][od];
      if (sd < 0) continue;
      for (int64_t oy = 0; oy < OH; ++oy) {
        const int64_t sy = m.src[1][oy];
        if (sy < 0) continue;
        const T* dr = dp + (od * OH + oy) * OW;
        T* xr = xp + (sd * H + sy) * W;
        for (int64_t ox = 0; ox < OW; ++ox) {
          const int64_t sx = m.src[2][ox];
          if (sx >= 0) xr[sx] += dr[ox];
        }
      }
    }
  }
}

void PadCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const PadMaps m = MakePadMaps(attrs.params, in[0].shape, out[0].shape);
  const double fill = attrs.params.Decoded<PadParams>().fill;
  DispatchFloat(in[0].dtype, "Pad", [&](auto t) {
    using T = decltype(t);
    PadForward(m, static_cast<T>(fill), in[0].data<T>(), req[0], out[0].data<T>());
  });
}

void PadBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const PadMaps m = MakePadMaps(attrs.params, in[1].shape, in[0].shape);
  DispatchFloat(in[0].dtype, "_backward_Pad", [&](auto t) {
    using T = decltype(t);
    PadBackward(m, in[0].data<T>(), req[0], out[0].data<T>());
  });
}

}  // namespace

void RegisterNNMiscCpu(KernelRegistry* reg) {
  reg->Add("UpSampling", DeviceType::kCPU, {"cpu", 0, UpSamplingCpu, true});
  reg->Add("_backward_UpSampling", DeviceType::kCPU, {"cpu", 0, UpSamplingBackwardCpu, true});
  reg->Add("Pad", DeviceType::kCPU, {"cpu", 0, PadCpu, true});
  reg->Add("_backward_Pad", DeviceType::kCPU, {"cpu", 0, PadBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
