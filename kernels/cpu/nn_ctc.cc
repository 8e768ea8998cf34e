// CPU kernels of CTCLoss and _backward_CTCLoss (semantics in
// core/src/op/nn_ctc.cc). Each sequence of the batch is independent (split
// over OpenMP threads): log-softmax of its frames, then the CTC forward
// (alpha) and, for the gradient, backward (beta) recursions over the label
// with blanks interleaved, all in log space and double precision.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/label_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

// One sequence's frames and label (without blanks).
struct CTCSeq {
  int64_t frames = 0;
  std::vector<int64_t> label;
};

// CTCLoss's parameters, decoded once per node (ParamValues::Decoded).
struct CTCParams {
  bool data_lengths = false, label_lengths = false;  // use_data_lengths, use_label_lengths
  bool blank_first = false;                          // blank_label "first"
  static CTCParams Decode(const ParamValues& p) {
    return {p.GetBool("use_data_lengths"), p.GetBool("use_label_lengths"),
            p.GetString("blank_label") == "first"};
  }
};

// The batch's sequences from the op inputs (data, label[, data_lengths][,
// label_lengths]), validated.
std::vector<CTCSeq> ReadSequences(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                                  int64_t blank) {
  const CTCParams& p = attrs.params.Decoded<CTCParams>();
  const int64_t T = in[0].shape[0], B = in[0].shape[1], A = in[0].shape[2], L = in[1].shape[1];
  const std::vector<int64_t> labels = IntValues(in[1], "CTCLoss", "label");
  std::vector<int64_t> dl, ll;
  size_t next = 2;
  if (p.data_lengths) dl = IntValues(in[next++], "CTCLoss", "data_lengths");
  if (p.label_lengths) ll = IntValues(in[next++], "CTCLoss", "label_lengths");
  const int64_t pad = p.blank_first ? 0 : -1;
  std::vector<CTCSeq> seqs(B);
  for (int64_t b = 0; b < B; ++b) {
    CTCSeq& s = seqs[b];
    s.frames = dl.empty() ? T : dl[b];
    if (s.frames < 0 || s.frames > T)
      Fail(StatusCode::kInvalidArgument, "operator CTCLoss: data_lengths[", b, "] = ", s.frames,
           " is outside [0, ", T, "]");
    const int64_t* row = labels.data() + b * L;
    int64_t len = L;
    if (!ll.empty()) {
      len = ll[b];
      if (len < 0 || len > L)
        Fail(StatusCode::kInvalidArgument, "operator CTCLoss: label_lengths[", b, "] = ", len,
             " is outside [0, ", L, "]");
    } else {
      len = std::find(row, row + L, pad) - row;
    }
    for (int64_t i = 0; i < len; ++i) {
      if (row[i] < 0 || row[i] >= A || row[i] == blank)
        Fail(StatusCode::kInvalidArgument, "operator CTCLoss: label[", b, ", ", i, "] = ", row[i],
             " is not a non-blank class in [0, ", A, ") (blank ", blank, ")");
      s.label.push_back(row[i]);
    }
  }
  return seqs;
}

// Loss of sequence b; when `grad` is set, also writes d loss / d data for
// its frames (scaled by `scale`; frames past its length get 0) with `req`.
template <typename T>
double SequenceCTC(const T* x, int64_t T_max, int64_t B, int64_t A, int64_t b, const CTCSeq& seq,
                   int64_t blank, T* grad, OpReq req, double scale) {
  const int64_t Tb = seq.frames, L = static_cast<int64_t>(seq.label.size()), S = 2 * L + 1;
  auto put_grad = [&](int64_t t, int64_t k, double v) {
    if (grad) Store(req, &grad[(t * B + b) * A + k], static_cast<T>(v * scale));
  };
  int64_t repeats = 0;
  for (int64_t i = 1; i < L; ++i) repeats += seq.label[i] == seq.label[i - 1] ? 1 : 0;
  if (Tb == 0 || L + repeats > Tb) {  // infeasible: loss 0, gradient 0 (warp-ctc)
    for (int64_t t = 0; t < T_max; ++t)
      for (int64_t k = 0; k < A; ++k) put_grad(t, k, 0.0);
    return 0.0;
  }
  std::vector<double> lp(Tb * A);
  for (int64_t t = 0; t < Tb; ++t) {
    const T* xt = x + (t * B + b) * A;
    double mx = xt[0];
    for (int64_t k = 1; k < A; ++k) mx = std::max(mx, static_cast<double>(xt[k]));
    double sum = 0;
    for (int64_t k = 0; k < A; ++k) sum += std::exp(xt[k] - mx);
    const double lse = mx + std::log(sum);
    for (int64_t k = 0; k < A; ++k) lp[t * A + k] = xt[k] - lse;
  }
  auto lab = [&](int64_t s) { return s % 2 == 0 ? blank : seq.label[s / 2]; };
  // Whether position s may be reached from s - 2 (skipping a blank).
  auto skip = [&](int64_t s) { return s >= 2 && s % 2 == 1 && lab(s) != lab(s - 2); };
  std::vector<double> alpha(Tb * S, kNegInf);
  alpha[0] = lp[blank];
  if (S > 1) alpha[1] = lp[lab(1)];
  for (int64_t t = 1; t < Tb; ++t)
    for (int64_t s = 0; s < S; ++s) {
      double a = alpha[(t - 1) * S + s];
      if (s >= 1) a = LogAdd(a, alpha[(t - 1) * S + s - 1]);
      if (skip(s)) a = LogAdd(a, alpha[(t - 1) * S + s - 2]);
      alpha[t * S + s] = a == kNegInf ? kNegInf : a + lp[t * A + lab(s)];
    }
  double logp = alpha[(Tb - 1) * S + S - 1];
  if (S > 1) logp = LogAdd(logp, alpha[(Tb - 1) * S + S - 2]);
  if (!grad) return -logp;
  std::vector<double> beta(Tb * S, kNegInf);
  beta[(Tb - 1) * S + S - 1] = lp[(Tb - 1) * A + blank];
  if (S > 1) beta[(Tb - 1) * S + S - 2] = lp[(Tb - 1) * A + lab(S - 2)];
  for (int64_t t = Tb - 2; t >= 0; --t)
    for (int64_t s = 0; s < S; ++s) {
      double v = beta[(t + 1) * S + s];
      if (s + 1 < S) v = LogAdd(v, beta[(t + 1) * S + s + 1]);
      if (s + 2 < S && skip(s + 2)) v = LogAdd(v, beta[(t + 1) * S + s + 2]);
      beta[t * S + s] = v == kNegInf ? kNegInf : v + lp[t * A + lab(s)];
    }
  std::vector<double> occ(A);  // log sum of alpha * beta per class at frame t
  for (int64_t t = 0; t < T_max; ++t) {
    if (t >= Tb) {
      for (int64_t k = 0; k < A; ++k) put_grad(t, k, 0.0);
      continue;
    }
    std::fill(occ.begin(), occ.end(), kNegInf);
    for (int64_t s = 0; s < S; ++s)
      occ[lab(s)] = LogAdd(occ[lab(s)], alpha[t * S + s] + beta[t * S + s]);
    for (int64_t k = 0; k < A; ++k) {
      const double y = std::exp(lp[t * A + k]);
      put_grad(t, k, occ[k] == kNegInf ? y : y - std::exp(occ[k] - lp[t * A + k] - logp));
    }
  }
  return -logp;
}

int64_t BlankOf(const NodeAttrs& attrs, int64_t A) {
  return attrs.params.Decoded<CTCParams>().blank_first ? 0 : A - 1;
}

void CTCLossCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const int64_t T = in[0].shape[0], B = in[0].shape[1], A = in[0].shape[2];
  const int64_t blank = BlankOf(attrs, A);
  const std::vector<CTCSeq> seqs = ReadSequences(attrs, in, blank);
  DispatchFloat(in[0].dtype, "CTCLoss", [&](auto t) {
    using T_ = decltype(t);
    const T_* x = in[0].data<T_>();
    T_* loss = out[0].data<T_>();
#pragma omp parallel for schedule(dynamic) if (T * B * A >= kParallelGrain)
    for (int64_t b = 0; b < B; ++b)
      Store(req[0], &loss[b],
            static_cast<T_>(SequenceCTC<T_>(x, T, B, A, b, seqs[b], blank, nullptr, req[0], 1.0)));
  });
}

// in: ograd (B,), data, label[, data_lengths][, label_lengths]; out: data_grad.
void CTCLossBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const std::vector<TBlob> fin(in.begin() + 1, in.end());
  const int64_t T = fin[0].shape[0], B = fin[0].shape[1], A = fin[0].shape[2];
  const int64_t blank = BlankOf(attrs, A);
  const std::vector<CTCSeq> seqs = ReadSequences(attrs, fin, blank);
  DispatchFloat(fin[0].dtype, "_backward_CTCLoss", [&](auto t) {
    using T_ = decltype(t);
    const T_ *og = in[0].data<T_>(), *x = fin[0].data<T_>();
    T_* dx = out[0].data<T_>();
#pragma omp parallel for schedule(dynamic) if (T * B * A >= kParallelGrain)
    for (int64_t b = 0; b < B; ++b)
      SequenceCTC<T_>(x, T, B, A, b, seqs[b], blank, dx, req[0], og[b]);
  });
}

}  // namespace

void RegisterNNCTCCpu(KernelRegistry* reg) {
  reg->Add("CTCLoss", DeviceType::kCPU, {"cpu", 0, CTCLossCpu, true});
  reg->Add("_backward_CTCLoss", DeviceType::kCPU, {"cpu", 0, CTCLossBackwardCpu, true});
}

}  // namespace cpu
}  // namespace weft
