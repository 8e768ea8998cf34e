// The batch-few LSTM inference sweeps (kernels/cpu/nn_lstm_gemv.h) against
// the reference layer sweeps (RnnForwardSweep, C library exp/tanh, BLAS
// products): outputs and final states, for one to four batch rows, both
// directions, several layers, hidden sizes that leave a partial tile and
// sizes that split the tiles over a team of two threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "cpu/nn_lstm_gemv.h"
#include "cpu/nn_rnn.h"

namespace weft {
namespace cpu {
namespace {

// A plain row-major GEMM for the sweep's input projections.
void NaiveSgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += double(ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      c[i * ldc + j] = static_cast<float>(s + (beta != 0 ? beta * c[i * ldc + j] : 0.0f));
    }
}

std::vector<float> Random(int64_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

// Largest |a - b| over the largest |b| (at least 1).
double RelDiff(const float* a, const float* b, int64_t n) {
  double diff = 0, ref = 1;
  for (int64_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::fabs(double(a[i]) - b[i]));
    ref = std::max(ref, std::fabs(double(b[i])));
  }
  return diff / ref;
}

struct Geometry {
  int64_t L, D, T, N, I, H;
};

void ExpectSweepsAgree(const Geometry& g) {
  RnnConfig cfg;
  cfg.mode = RnnMode::kLstm;
  cfg.L = g.L;
  cfg.D = g.D;
  cfg.T = g.T;
  cfg.N = g.N;
  cfg.I = g.I;
  cfg.H = g.H;
  const int64_t states = g.L * g.D * g.N * g.H;
  const std::vector<float> x = Random(g.T * g.N * g.I, 1.0f, 1);
  // Weights of scale ~1/sqrt(H) keep the gates away from saturation.
  const std::vector<float> w = Random(cfg.ParamSize(), 1.5f / std::sqrt(float(g.H)), 2);
  const std::vector<float> hx = Random(states, 1.0f, 3), cx = Random(states, 1.0f, 4);

  RnnWork<float> work;
  RnnForwardSweep<float>(cfg, x.data(), w.data(), hx.data(), cx.data(), &work);

  cfg.sgemm = NaiveSgemm;
  ASSERT_TRUE(LstmGemvCovers(cfg));
  const LstmGemvWeights packed = PackLstmGemv(cfg, w.data());
  std::vector<float> y(static_cast<size_t>(g.T * g.N * g.D * g.H)), hy(states), cy(states);
  LstmGemvForward(cfg, packed, x.data(), hx.data(), cx.data(), y.data(), hy.data(), cy.data());

  EXPECT_LT(RelDiff(y.data(), work.y[g.L - 1].get(), g.T * g.N * g.D * g.H), 2e-6);
  // Final states of (l, d): slot T (forward) or 0 (reverse) of its buffers.
  const int64_t NH = g.N * g.H;
  for (int64_t ld = 0; ld < g.L * g.D; ++ld) {
    const int64_t slot = ld % g.D ? 0 : g.T;
    const auto& dir = work.dirs[static_cast<size_t>(ld)];
    EXPECT_LT(RelDiff(hy.data() + ld * NH, dir.h.get() + slot * NH, NH), 2e-6) << "h of " << ld;
    EXPECT_LT(RelDiff(cy.data() + ld * NH, dir.c.get() + slot * NH, NH), 2e-6) << "c of " << ld;
  }
  // Without state outputs only y is written.
  std::vector<float> y2(y.size());
  LstmGemvForward(cfg, packed, x.data(), hx.data(), cx.data(), y2.data(), nullptr, nullptr);
  EXPECT_EQ(y2, y);
}

// One thread per call, several tiles and a partial one (H = 20: 16 + 4).
TEST(LstmGemv, MatchesReferenceSweepsOnOneThread) {
  const int team = omp_get_max_threads();
  omp_set_num_threads(1);
  ExpectSweepsAgree({2, 2, 5, 3, 7, 20});
  ExpectSweepsAgree({1, 1, 4, 1, 3, 5});
  omp_set_num_threads(team);
}

// Hidden sizes large enough to split the tiles over two threads (one
// barrier per step), every batch row count the sweep takes.
TEST(LstmGemv, MatchesReferenceSweepsOnTwoThreads) {
  const int team = omp_get_max_threads();
  omp_set_num_threads(2);
  for (int64_t n = 1; n <= kLstmGemvMaxBatch; ++n) ExpectSweepsAgree({2, 1, 6, n, 9, 130});
  ExpectSweepsAgree({1, 2, 4, 2, 5, 144});
  omp_set_num_threads(team);
}

TEST(LstmGemv, CoversOnlyPlainLstmsOverFewRows) {
  RnnConfig cfg;
  cfg.T = 3;
  cfg.N = 1;
  cfg.I = 2;
  cfg.H = 4;
  cfg.sgemm = NaiveSgemm;
  EXPECT_TRUE(LstmGemvCovers(cfg));
  RnnConfig c = cfg;
  c.N = kLstmGemvMaxBatch + 1;
  EXPECT_FALSE(LstmGemvCovers(c));
  c = cfg;
  c.mode = RnnMode::kGru;
  EXPECT_FALSE(LstmGemvCovers(c));
  c = cfg;
  c.P = 2;
  EXPECT_FALSE(LstmGemvCovers(c));
  c = cfg;
  c.clip = true;
  EXPECT_FALSE(LstmGemvCovers(c));
  c = cfg;
  c.sgemm = nullptr;
  EXPECT_FALSE(LstmGemvCovers(c));
}

}  // namespace
}  // namespace cpu
}  // namespace weft
