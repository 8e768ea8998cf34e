// The layer sweeps of the fused RNN (see kernels/cpu/nn_rnn.h): per layer
// and direction, the input projection of every time step is one GEMM
// (T*N x G*H), then each step does one recurrent GEMM (N x G*H) and the
// cell (kernels/cpu/nn_rnn_cells.h), with a projection then one GEMM
// (N x P) for h = r . W_h2r^T. Backpropagation through time walks
// the steps in reverse with one GEMM per step for dL/dh', then the weight
// gradients of all steps are two GEMMs and the input gradient one.
#include <cblas.h>

#include <cstring>
#include <limits>

#include "cpu/nn_rnn.h"
#include "cpu/nn_rnn_cells.h"
#include "weft/status.h"

namespace weft {
namespace cpu {

int64_t RnnConfig::WeightOffset(int64_t l, int64_t d) const {
  const int64_t gh = G() * H, r = R(), proj = P * H;
  if (l == 0) return d * (gh * (I + r) + proj);
  return D * (gh * (I + r) + proj) + ((l - 1) * D + d) * (gh * (D * r + r) + proj);
}

int64_t RnnConfig::BiasOffset(int64_t l, int64_t d) const {
  const int64_t gh = G() * H;
  return WeightOffset(L, 0) + (l * D + d) * 2 * gh;
}

namespace {

RnnMode ModeOf(const std::string& m) {
  if (m == "lstm") return RnnMode::kLstm;
  if (m == "gru") return RnnMode::kGru;
  if (m == "rnn_relu") return RnnMode::kRelu;
  return RnnMode::kTanh;
}

}  // namespace

namespace {

// RNN's parameters, decoded once per node (ParamValues::Decoded): the
// shape-independent part of RnnConfig.
struct RnnParams {
  RnnConfig cfg;
  static RnnParams Decode(const ParamValues& p) {
    RnnParams r;
    RnnConfig& cfg = r.cfg;
    cfg.mode = ModeOf(p.GetString("mode"));
    cfg.L = p.GetInt("num_layers");
    cfg.D = p.GetBool("bidirectional") ? 2 : 1;
    cfg.H = p.GetInt("state_size");
    cfg.P = p.IsNone("projection_size") ? 0 : p.GetInt("projection_size");
    cfg.p = p.GetFloat("p");
    cfg.use_sequence_length = p.GetBool("use_sequence_length");
    if (!p.IsNone("lstm_state_clip_min") && !p.IsNone("lstm_state_clip_max")) {
      cfg.clip = true;
      cfg.clip_min = p.GetFloat("lstm_state_clip_min");
      cfg.clip_max = p.GetFloat("lstm_state_clip_max");
      cfg.clip_nan = p.GetBool("lstm_state_clip_nan");
    }
    return r;
  }
};

}  // namespace

RnnConfig RnnConfigOf(const NodeAttrs& attrs, const Shape& data) {
  RnnConfig cfg = attrs.params.Decoded<RnnParams>().cfg;
  cfg.T = data[0];
  cfg.N = data[1];
  cfg.I = data[2];
  return cfg;
}

namespace {

blasint Dim(int64_t v) {
  if (v > static_cast<int64_t>(std::numeric_limits<blasint>::max()))
    Fail(StatusCode::kNotImplemented, "RNN: matrix extent ", v,
         " exceeds the BLAS integer range of this OpenBLAS build");
  return static_cast<blasint>(v);
}

CBLAS_TRANSPOSE Trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

// C (m x n, ldc) = op(A) . op(B) + beta * C, row-major.
void Gemm(const RnnConfig& cfg, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (cfg.sgemm) return cfg.sgemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
  cblas_sgemm(CblasRowMajor, Trans(ta), Trans(tb), Dim(m), Dim(n), Dim(k), 1.0f, a, Dim(lda), b,
              Dim(ldb), beta, c, Dim(ldc));
}
void Gemm(const RnnConfig&, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, Trans(ta), Trans(tb), Dim(m), Dim(n), Dim(k), 1.0, a, Dim(lda), b,
              Dim(ldb), beta, c, Dim(ldc));
}

template <typename T>
std::unique_ptr<T[]> Alloc(int64_t n) {
  return std::unique_ptr<T[]>(new T[static_cast<size_t>(n)]);
}

// A uniform number in [0, 1) from (seed, stream, index) (splitmix64).
double HashUniform(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t z = seed + stream * 0x9E3779B97F4A7C15ull + index * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

// The dropout mask of layer l's input (l >= 1): 0 with probability p,
// else 1/(1-p).
template <typename T>
void FillMask(const RnnConfig& cfg, int64_t l, T* mask, int64_t n) {
  const T keep = T(1.0 / (1.0 - cfg.p));
  for (int64_t i = 0; i < n; ++i)
    mask[i] = HashUniform(cfg.seed, static_cast<uint64_t>(l), static_cast<uint64_t>(i)) < cfg.p
                  ? T(0)
                  : keep;
}

// Adds the column sums of `a` (rows x cols, row stride lda) to `out`.
template <typename T>
void AddColumnSums(const T* a, int64_t rows, int64_t cols, int64_t lda, T* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* ar = a + r * lda;
    for (int64_t j = 0; j < cols; ++j) out[j] += ar[j];
  }
}

}  // namespace

template <typename T>
void RnnForwardSweep(const RnnConfig& cfg, const T* x, const T* w, const T* hx, const T* cx,
                     RnnWork<T>* work) {
  const int64_t L = cfg.L, D = cfg.D, TT = cfg.T, N = cfg.N, H = cfg.H, R = cfg.R(), P = cfg.P;
  const int64_t GH = cfg.G() * H, NH = N * H, NR = N * R, TN = TT * N, DR = D * R;
  const bool lstm = cfg.mode == RnnMode::kLstm, gru = cfg.mode == RnnMode::kGru;
  work->dirs.resize(L * D);
  work->y.resize(L);
  work->x.resize(L);
  work->mask.resize(L);
  std::unique_ptr<T[]> gh = Alloc<T>(N * GH);
  const T* in = x;
  for (int64_t l = 0; l < L; ++l) {
    const int64_t In = cfg.In(l);
    if (l > 0) {
      in = work->y[l - 1].get();
      if (cfg.dropout) {
        work->mask[l] = Alloc<T>(TN * In);
        work->x[l] = Alloc<T>(TN * In);
        T* m = work->mask[l].get();
        T* xl = work->x[l].get();
        FillMask(cfg, l, m, TN * In);
        for (int64_t i = 0; i < TN * In; ++i) xl[i] = in[i] * m[i];
        in = xl;
      }
    }
    work->y[l] = Alloc<T>(TN * DR);
    T* y = work->y[l].get();
    for (int64_t d = 0; d < D; ++d) {
      auto& dir = work->dirs[l * D + d];
      dir.gates = Alloc<T>(TN * GH);
      dir.h = Alloc<T>((TT + 1) * NR);
      if (lstm) dir.c = Alloc<T>((TT + 1) * NH);
      if (gru) dir.hn = Alloc<T>(TN * H);
      if (P) dir.r = Alloc<T>(TN * H);
      const T* wx = w + cfg.WeightOffset(l, d);
      const T* wh = wx + GH * In;
      const T* whr = wh + GH * R;
      const T* bx = w + cfg.BiasOffset(l, d);
      const T* bh = bx + GH;
      T* gates = dir.gates.get();
      Gemm(cfg, false, true, TN, GH, In, in, In, wx, In, T(0), gates, GH);
      // Biases: GRU keeps b_hn for the recurrent side (it is gated by r).
      const int64_t nb = gru ? 2 * H : GH;
#pragma omp parallel for schedule(static) if (TN * GH >= (1 << 16))
      for (int64_t r = 0; r < TN; ++r) {
        T* gr = gates + r * GH;
        for (int64_t j = 0; j < nb; ++j) gr[j] += bx[j] + bh[j];
        for (int64_t j = nb; j < GH; ++j) gr[j] += bx[j];
      }
      const int64_t s0 = d ? TT : 0;
      std::memcpy(dir.h.get() + s0 * NR, hx + (l * D + d) * NR, sizeof(T) * NR);
      if (lstm) std::memcpy(dir.c.get() + s0 * NH, cx + (l * D + d) * NH, sizeof(T) * NH);
      for (int64_t k = 0; k < TT; ++k) {
        const int64_t t = d ? TT - 1 - k : k;
        const T* hp = dir.h.get() + PrevSlot(t, d) * NR;
        T* hc = dir.h.get() + CurSlot(t, d) * NR;
        const T* cp = lstm ? dir.c.get() + PrevSlot(t, d) * NH : nullptr;
        T* cc = lstm ? dir.c.get() + CurSlot(t, d) * NH : nullptr;
        Gemm(cfg, false, true, N, GH, R, hp, R, wh, R, T(0), gh.get(), GH);
        if (P) {
          // The cell writes r = o * tanh(c) (zero on inactive rows), then
          // h = r . W_h2r^T; inactive rows carry h' through.
          T* rt = dir.r.get() + t * NH;
          rnn::CellForward<T>(cfg, t, gates + t * N * GH, gh.get(), bh + 2 * H, nullptr, cp, rt, cc,
                              nullptr);
          Gemm(cfg, false, true, N, P, H, rt, H, whr, H, T(0), hc, P);
          for (int64_t b = 0; b < N; ++b)
            if (!cfg.Active(t, b)) std::memcpy(hc + b * P, hp + b * P, sizeof(T) * P);
        } else {
          rnn::CellForward(cfg, t, gates + t * N * GH, gh.get(), bh + 2 * H, hp, cp, hc, cc,
                           gru ? dir.hn.get() + t * NH : nullptr);
        }
        for (int64_t b = 0; b < N; ++b) {
          T* yb = y + (t * N + b) * DR + d * R;
          if (cfg.Active(t, b))
            std::memcpy(yb, hc + b * R, sizeof(T) * R);
          else
            std::memset(yb, 0, sizeof(T) * R);
        }
      }
    }
  }
}

template <typename T>
void RnnBackwardSweep(const RnnConfig& cfg, const T* x, const T* w, const T* dy, const T* dhy,
                      const T* dcy, T* dx, bool dx_add, T* dw, T* dhx, T* dcx, RnnWork<T>* work) {
  const int64_t L = cfg.L, D = cfg.D, TT = cfg.T, N = cfg.N, H = cfg.H, R = cfg.R(), P = cfg.P;
  const int64_t GH = cfg.G() * H, NH = N * H, NR = N * R, TN = TT * N, DR = D * R;
  const bool lstm = cfg.mode == RnnMode::kLstm, gru = cfg.mode == RnnMode::kGru;
  std::unique_ptr<T[]> dh = Alloc<T>(NR), dc = Alloc<T>(NH), dprev;
  std::unique_ptr<T[]> dr = P ? Alloc<T>(NH) : nullptr;
  const T* dyl = dy;
  for (int64_t l = L - 1; l >= 0; --l) {
    const int64_t In = cfg.In(l);
    const T* in = l == 0 ? x : cfg.dropout ? work->x[l].get() : work->y[l - 1].get();
    std::unique_ptr<T[]> dxl_buf;
    T* dxl = dx;
    if (l > 0) {
      dxl_buf = Alloc<T>(TN * In);
      dxl = dxl_buf.get();
    }
    for (int64_t d = 0; d < D; ++d) {
      auto& dir = work->dirs[l * D + d];
      const int64_t idx = l * D + d;
      const T* wx = w + cfg.WeightOffset(l, d);
      const T* wh = wx + GH * In;
      const T* whr = wh + GH * R;
      T* dwx = dw + cfg.WeightOffset(l, d);
      T* dwh = dwx + GH * In;
      T* dwhr = dwh + GH * R;
      T* dbx = dw + cfg.BiasOffset(l, d);
      T* dbh = dbx + GH;
      T* gates = dir.gates.get();
      if (dhy)
        std::memcpy(dh.get(), dhy + idx * NR, sizeof(T) * NR);
      else
        std::memset(dh.get(), 0, sizeof(T) * NR);
      if (lstm) {
        if (dcy)
          std::memcpy(dc.get(), dcy + idx * NH, sizeof(T) * NH);
        else
          std::memset(dc.get(), 0, sizeof(T) * NH);
      }
      for (int64_t k = 0; k < TT; ++k) {
        const int64_t t = d ? k : TT - 1 - k;
        for (int64_t b = 0; b < N; ++b) {
          if (!cfg.Active(t, b)) continue;
          const T* g = dyl + (t * N + b) * DR + d * R;
          T* db = dh.get() + b * R;
          for (int64_t j = 0; j < R; ++j) db[j] += g[j];
        }
        const T* hp = dir.h.get() + PrevSlot(t, d) * NR;
        const T* hc = dir.h.get() + CurSlot(t, d) * NR;
        const T* cp = lstm ? dir.c.get() + PrevSlot(t, d) * NH : nullptr;
        const T* cc = lstm ? dir.c.get() + CurSlot(t, d) * NH : nullptr;
        T* gt = gates + t * N * GH;
        T* hnt = gru ? dir.hn.get() + t * NH : nullptr;
        if (P) {
          // Through the projection: dL/dr = dh . W_h2r, dW_h2r += dh^T . r
          // (r is zero on inactive rows); then dh keeps only the inactive
          // rows' gradient (carried through) before the recurrent product.
          const T* rt = dir.r.get() + t * NH;
          Gemm(cfg, false, false, N, H, P, dh.get(), P, whr, H, T(0), dr.get(), H);
          Gemm(cfg, true, false, P, H, N, dh.get(), P, rt, H, T(1), dwhr, H);
          rnn::CellBackward(cfg, t, gt, hnt, hp, cp, rt, cc, dr.get(), dc.get());
          for (int64_t b = 0; b < N; ++b)
            if (cfg.Active(t, b)) std::memset(dh.get() + b * P, 0, sizeof(T) * P);
          Gemm(cfg, false, false, N, P, GH, gt, GH, wh, P, T(1), dh.get(), P);
          continue;
        }
        rnn::CellBackward(cfg, t, gt, hnt, hp, cp, hc, cc, dh.get(), dc.get());
        if (gru) {
          Gemm(cfg, false, false, N, H, 2 * H, gt, GH, wh, H, T(1), dh.get(), H);
          Gemm(cfg, false, false, N, H, H, hnt, H, wh + 2 * H * H, H, T(1), dh.get(), H);
        } else {
          Gemm(cfg, false, false, N, H, GH, gt, GH, wh, H, T(1), dh.get(), H);
        }
      }
      if (dhx) std::memcpy(dhx + idx * NR, dh.get(), sizeof(T) * NR);
      if (lstm && dcx) std::memcpy(dcx + idx * NH, dc.get(), sizeof(T) * NH);
      // Weight and bias gradients of every step at once.
      const T* hprev = dir.h.get() + (d ? NR : 0);
      if (gru) {
        Gemm(cfg, true, false, 2 * H, H, TN, gates, GH, hprev, H, T(1), dwh, H);
        Gemm(cfg, true, false, H, H, TN, dir.hn.get(), H, hprev, H, T(1), dwh + 2 * H * H, H);
      } else {
        Gemm(cfg, true, false, GH, R, TN, gates, GH, hprev, R, T(1), dwh, R);
      }
      Gemm(cfg, true, false, GH, In, TN, gates, GH, in, In, T(1), dwx, In);
      if (dxl) {
        const T beta = (d > 0 || (l == 0 && dx_add)) ? T(1) : T(0);
        Gemm(cfg, false, false, TN, In, GH, gates, GH, wx, In, beta, dxl, In);
      }
      AddColumnSums(gates, TN, GH, GH, dbx);
      if (gru) {
        AddColumnSums(gates, TN, 2 * H, GH, dbh);  // r, z: as the input side
        AddColumnSums(dir.hn.get(), TN, H, H, dbh + 2 * H);
      } else {
        AddColumnSums(gates, TN, GH, GH, dbh);
      }
    }
    if (l > 0) {
      if (cfg.dropout) {
        const T* m = work->mask[l].get();
        for (int64_t i = 0; i < TN * In; ++i) dxl[i] *= m[i];
      }
      dprev = std::move(dxl_buf);
      dyl = dprev.get();
    }
  }
}

#define WEFT_RNN_INSTANTIATE(T)                                                               \
  template void RnnForwardSweep<T>(const RnnConfig&, const T*, const T*, const T*, const T*,  \
                                   RnnWork<T>*);                                              \
  template void RnnBackwardSweep<T>(const RnnConfig&, const T*, const T*, const T*, const T*, \
                                    const T*, T*, bool, T*, T*, T*, RnnWork<T>*);
WEFT_RNN_INSTANTIATE(float)
WEFT_RNN_INSTANTIATE(double)
#undef WEFT_RNN_INSTANTIATE

}  // namespace cpu
}  // namespace weft
