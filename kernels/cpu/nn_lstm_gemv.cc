// Batch-few LSTM inference sweeps (see nn_lstm_gemv.h).
#include "cpu/nn_lstm_gemv.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cstring>

#include "cpu/cpu_util.h"
#include "cpu/fast_math.h"

namespace weft {
namespace cpu {

namespace {

// Hidden units per tile: one 512-bit vector of float32 per gate.
constexpr int64_t kLanes = 16;
constexpr int64_t kTileFloats = 4 * kLanes;
// How far ahead of the weights being read the sweep prefetches (floats).
constexpr int64_t kAhead = 48 * kTileFloats;

// The tile loop also gets an AVX-512 clone: one vector per gate row there.
#if WEFT_HAVE_TARGET_CLONES
#define WEFT_LSTM_GEMV_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WEFT_LSTM_GEMV_CLONES
#endif

// 16 floats as one value (GCC/clang vector extension); only ever a local,
// never passed by value, so no clone's ABI depends on it.
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

int64_t Tiles(int64_t H) { return (H + kLanes - 1) / kLanes; }

// One time step of one direction.
struct Step {
  const float* w;   // packed W_h2h: [tile][k][gate][lane]
  const float* gx;  // input projection plus biases: N rows of 4H
  const float* hp;  // previous state: N rows, hp_stride apart
  int64_t hp_stride;
  float* c;  // cell state: N rows of H, updated in place
  float* h;  // new state: N rows, h_stride apart
  int64_t h_stride;
  int64_t H;
};

// Tiles [tile0, tile1) of step `s` for NB batch rows: the four gate rows'
// products with every row's previous state, then gates, cell and state.
template <int NB>
WEFT_LSTM_GEMV_CLONES void RunTiles(const Step& s, int64_t tile0, int64_t tile1) {
  const int64_t H = s.H;
  for (int64_t tile = tile0; tile < tile1; ++tile) {
    Lanes ai[NB], af[NB], ag[NB], ao[NB];
    for (int b = 0; b < NB; ++b) ai[b] = af[b] = ag[b] = ao[b] = Lanes{};
    const float* wt = s.w + tile * H * kTileFloats;
    for (int64_t k = 0; k < H; ++k, wt += kTileFloats) {
      for (int64_t q = 0; q < kTileFloats; q += kLanes) __builtin_prefetch(wt + kAhead + q);
      Lanes wi, wf, wg, wo;
      std::memcpy(&wi, wt, sizeof(Lanes));
      std::memcpy(&wf, wt + kLanes, sizeof(Lanes));
      std::memcpy(&wg, wt + 2 * kLanes, sizeof(Lanes));
      std::memcpy(&wo, wt + 3 * kLanes, sizeof(Lanes));
      for (int b = 0; b < NB; ++b) {
        const float hk = s.hp[b * s.hp_stride + k];
        ai[b] += hk * wi;
        af[b] += hk * wf;
        ag[b] += hk * wg;
        ao[b] += hk * wo;
      }
    }
    const int64_t u0 = tile * kLanes, lanes = std::min(kLanes, H - u0);
    for (int b = 0; b < NB; ++b) {
      float pre[4][kLanes];
      std::memcpy(pre[0], &ai[b], sizeof(pre[0]));
      std::memcpy(pre[1], &af[b], sizeof(pre[1]));
      std::memcpy(pre[2], &ag[b], sizeof(pre[2]));
      std::memcpy(pre[3], &ao[b], sizeof(pre[3]));
      const float* gx = s.gx + b * 4 * H + u0;
      float* c = s.c + b * H + u0;
      float* h = s.h + b * s.h_stride + u0;
      for (int64_t j = 0; j < lanes; ++j) {
        const float i = FastSigmoid(pre[0][j] + gx[j]);
        const float f = FastSigmoid(pre[1][j] + gx[H + j]);
        const float g = FastTanh(pre[2][j] + gx[2 * H + j]);
        const float o = FastSigmoid(pre[3][j] + gx[3 * H + j]);
        const float cv = f * c[j] + i * g;
        c[j] = cv;
        h[j] = o * FastTanh(cv);
      }
    }
  }
}

void RunTilesFor(int64_t N, const Step& s, int64_t tile0, int64_t tile1) {
  switch (N) {
    case 1:
      return RunTiles<1>(s, tile0, tile1);
    case 2:
      return RunTiles<2>(s, tile0, tile1);
    case 3:
      return RunTiles<3>(s, tile0, tile1);
    default:
      return RunTiles<4>(s, tile0, tile1);
  }
}

// Direction d of one layer: gx (T, N, 4H) the input projections with the
// biases, hx / cx (N, H) the initial state; writes the states into y's
// columns [d*H, (d+1)*H) (rows of D*H) and leaves the last cell state in c.
void Sweep(const RnnConfig& cfg, int64_t d, const float* w, const float* gx, const float* hx,
           const float* cx, float* y, float* c) {
  const int64_t T = cfg.T, N = cfg.N, H = cfg.H, DH = cfg.D * H, tiles = Tiles(H);
  std::memcpy(c, cx, sizeof(float) * static_cast<size_t>(N * H));
  float* yd = y + d * H;
  // Small layers stay on one thread: a barrier per step would cost more.
  const bool parallel = tiles > 1 && 4 * H * H >= 2 * kParallelGrain;
#pragma omp parallel if (parallel)
  {
#ifdef _OPENMP
    const int64_t nt = omp_get_num_threads(), id = omp_get_thread_num();
#else
    const int64_t nt = 1, id = 0;
#endif
    const int64_t tile0 = tiles * id / nt, tile1 = tiles * (id + 1) / nt;
    for (int64_t s = 0; s < T; ++s) {
      const int64_t t = d ? T - 1 - s : s;
      const int64_t prev = d ? t + 1 : t - 1;
      const Step step{w,
                      gx + t * N * 4 * H,
                      s == 0 ? hx : yd + prev * N * DH,
                      s == 0 ? H : DH,
                      c,
                      yd + t * N * DH,
                      DH,
                      H};
      RunTilesFor(N, step, tile0, tile1);
#pragma omp barrier
    }
  }
}

}  // namespace

bool LstmGemvCovers(const RnnConfig& cfg) {
  return cfg.mode == RnnMode::kLstm && cfg.P == 0 && !cfg.clip && !cfg.lengths &&
         !cfg.use_sequence_length && cfg.N >= 1 && cfg.N <= kLstmGemvMaxBatch && cfg.T >= 1 &&
         cfg.H >= 1 && cfg.sgemm != nullptr;
}

LstmGemvWeights PackLstmGemv(const RnnConfig& cfg, const float* w) {
  const int64_t H = cfg.H, tiles = Tiles(H);
  LstmGemvWeights p;
  p.H = H;
  for (int64_t l = 0; l < cfg.L; ++l) {
    for (int64_t d = 0; d < cfg.D; ++d) {
      const int64_t In = cfg.In(l);
      const float* wx = w + cfg.WeightOffset(l, d);  // (4H x In)
      std::vector<float> layer(static_cast<size_t>(In * 4 * H));
      for (int64_t r = 0; r < 4 * H; ++r)
        for (int64_t k = 0; k < In; ++k) layer[static_cast<size_t>(k * 4 * H + r)] = wx[r * In + k];
      p.layer.push_back(std::move(layer));
      const float* wh = wx + 4 * H * In;  // (4H x H)
      std::vector<float> packed(static_cast<size_t>(tiles * H * kTileFloats), 0.0f);
      for (int64_t tile = 0; tile < tiles; ++tile)
        for (int64_t k = 0; k < H; ++k)
          for (int64_t g = 0; g < 4; ++g)
            for (int64_t j = 0; j < kLanes && tile * kLanes + j < H; ++j)
              packed[static_cast<size_t>(((tile * H + k) * 4 + g) * kLanes + j)] =
                  wh[(g * H + tile * kLanes + j) * H + k];
      p.iter.push_back(std::move(packed));
      const float* bx = w + cfg.BiasOffset(l, d);
      std::vector<float> bias(static_cast<size_t>(4 * H));
      for (int64_t r = 0; r < 4 * H; ++r) bias[static_cast<size_t>(r)] = bx[r] + bx[4 * H + r];
      p.bias.push_back(std::move(bias));
    }
  }
  return p;
}

void LstmGemvForward(const RnnConfig& cfg, const LstmGemvWeights& packed, const float* x,
                     const float* hx, const float* cx, float* y, float* hy, float* cy) {
  const int64_t L = cfg.L, D = cfg.D, T = cfg.T, N = cfg.N, H = cfg.H, TN = T * N, G = 4 * H;
  // Per-thread buffers kept between calls (no allocation or page faults in
  // steady state): projections, cell state, two layer outputs.
  thread_local std::vector<float> buffer;
  const int64_t layer_out = L > 1 ? TN * D * H : 0;
  buffer.resize(static_cast<size_t>(TN * G + N * H + 2 * layer_out));
  float* gx = buffer.data();
  float* c = gx + TN * G;
  float* mid[2] = {c + N * H, c + N * H + layer_out};
  const float* in = x;
  for (int64_t l = 0; l < L; ++l) {
    float* out = y;
    if (l < L - 1) {
      out = mid[l % 2];
    }
    const int64_t In = cfg.In(l);
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ld = l * D + d;
      const float* bias = packed.bias[static_cast<size_t>(ld)].data();
      for (int64_t r = 0; r < TN; ++r)
        std::memcpy(gx + r * G, bias, sizeof(float) * static_cast<size_t>(G));
      cfg.sgemm(false, false, TN, G, In, in, In, packed.layer[static_cast<size_t>(ld)].data(), G,
                1.0f, gx, G);
      Sweep(cfg, d, packed.iter[static_cast<size_t>(ld)].data(), gx, hx + ld * N * H,
            cx + ld * N * H, out, c);
      if (hy) {
        const float* last = out + (d ? 0 : T - 1) * N * D * H + d * H;
        for (int64_t b = 0; b < N; ++b)
          std::memcpy(hy + (ld * N + b) * H, last + b * D * H, sizeof(float) * H);
      }
      if (cy) std::memcpy(cy + ld * N * H, c, sizeof(float) * static_cast<size_t>(N * H));
    }
    in = out;
  }
}

}  // namespace cpu
}  // namespace weft
