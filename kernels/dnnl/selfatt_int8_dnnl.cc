// The int32 sums of the quantized _sg_mkldnn_selfatt_qk / _valatt (the
// "dnnl" backend's; kernels/cpu/selfatt_int8.h) on oneDNN's integer gemms,
// one per head block on the projections in place through their row
// strides (as the float32 "dnnl" kernels of the contrib ops run sgemm):
// qk, q_bh k_bh^T in s8 x s8 -> s32; valatt, att[bh] v_bh in u8 x s8 -> s32.
// The sums are exact on CPUs with AVX512-VNNI, whose dot-product instruction
// accumulates in int32; elsewhere oneDNN's gemms may saturate an int16
// intermediate (its documented caveat), so there the reference loops run.
#include <dnnl.h>

#include <algorithm>

#include "cpu/selfatt_int8.h"
#include "weft/status.h"

namespace weft {
namespace onednn {

namespace {

using attention::Dims;
using attention::Side;

// Fails naming `what` when a head block's gemm returned an error (checked
// after the parallel loop: nothing throws inside it).
void Check(int st, const char* what, const Dims& n) {
  if (st != dnnl_success)
    Fail(StatusCode::kInternal, what, " (", n.lq, "x", n.lk, "x", n.d, ") failed with status ", st);
}

// acc[bh] = q_bh k_bh^T: (Lq, Lk) per head block.
void QKSums(const Dims& n, Side<const int8_t> q, Side<const int8_t> k, int32_t* acc) {
  const int32_t zero = 0;
  int st = dnnl_success;
#pragma omp parallel for schedule(static) if (n.bh > 1) reduction(max : st)
  for (int64_t b = 0; b < n.bh; ++b)
    st = std::max(st, static_cast<int>(dnnl_gemm_s8s8s32(
                          'N', 'T', 'F', n.lq, n.lk, n.d, 1.0f, q.at(0, b), q.row, 0, k.at(0, b),
                          k.row, 0, 0.0f, acc + b * n.lq * n.lk, n.lk, &zero)));
  Check(st, "_sg_mkldnn_selfatt_qk: dnnl_gemm_s8s8s32", n);
}

// acc(., bh) = att[bh] v_bh, head block bh at column bh * D of the
// (Lq, B, heads * D) output.
void ValSums(const Dims& n, const uint8_t* att, Side<const int8_t> v, int32_t* acc) {
  const int32_t zero = 0;
  int st = dnnl_success;
#pragma omp parallel for schedule(static) if (n.bh > 1) reduction(max : st)
  for (int64_t b = 0; b < n.bh; ++b)
    st = std::max(st, static_cast<int>(dnnl_gemm_u8s8s32(
                          'N', 'N', 'F', n.lq, n.d, n.lk, 1.0f, att + b * n.lq * n.lk, n.lk, 0,
                          v.at(0, b), v.row, 0, 0.0f, acc + b * n.d, n.bh * n.d, &zero)));
  Check(st, "_sg_mkldnn_selfatt_valatt: dnnl_gemm_u8s8s32", n);
}

}  // namespace

// Declared in kernels/register_kernels.cc.
cpu::SelfAttSums SelfAttInt8Sums() {
  const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
  const unsigned vnni = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni);
  if ((isa & vnni) != vnni) return cpu::ReferenceSelfAttSums();
  return {QKSums, ValSums};
}

}  // namespace onednn
}  // namespace weft
