// The CPU kernels of _npi_einsum and _backward_npi_einsum (semantics in
// core/src/op/einsum.cc and weft/einsum.h) on a GEMM functor of
// kernels/cpu/dot.h: registered by the "cpu" backend (its reference GEMM),
// "blas" (OpenBLAS) and "dnnl" (oneDNN's sgemm) beside their dot kernels.
//
// A contraction of operands into a target (the output, or in the gradient
// an operand's axes) runs one of these ways (kernels/cpu/einsum.cc):
// - two operands: each is first reduced (by the loop below) to the labels
//   the other operand or the target reads, when it has a repeated letter,
//   a broadcast axis or a label no one else reads. The labels then fall
//   into batch (both operands and the target), m (first operand and
//   target), n (second operand and target) and k (both operands, summed);
//   an operand not already in (batch, m, k) / (batch, k, n) order, or in
//   the order a transposed GEMM operand reads, is transposed into it; one
//   batched GEMM computes (batch, m, n), transposed into the target unless
//   already in its order. Products of fewer than 256 multiply-adds per
//   batch element (an elementwise product) take the loop instead.
// - more operands: pairwise from the left, each intermediate keeping the
//   labels that later operands or the target read.
// - one operand (a transpose, a diagonal, a sum), or a target with a
//   repeated letter or a broadcast axis (gradients): the reference loop over
//   every label, accumulating in double, in parallel over the target's
//   elements.
// Stateless; thread-safe.
#ifndef WEFT_KERNELS_CPU_EINSUM_H_
#define WEFT_KERNELS_CPU_EINSUM_H_

#include <functional>
#include <string>
#include <vector>

#include "cpu/dot.h"
#include "weft/einsum.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

// `batch` GEMMs on contiguous blocks: GemmForward of a backend's functor.
template <typename T>
using BatchedGemm = std::function<void(const GemmDims&, const T* a, const T* b, OpReq req, T* c)>;

// The node's subscripts bound to its operands' shapes (validated by its
// shape inference; errors name the node).
op::EinsumLayout EinsumLayoutOf(const NodeAttrs& attrs, const std::vector<TBlob>& operands);

// out = (or += under kAdd) the einsum of the operands `in`. T: float, double.
template <typename T>
void EinsumForward(const op::EinsumLayout& l, const std::vector<TBlob>& in, OpReq req,
                   const TBlob& out, const BatchedGemm<T>& gemm);

// out[i] = (or +=) the gradient of operand i, from in = (ograd, operands...).
template <typename T>
void EinsumBackward(const op::EinsumLayout& l, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out,
                    const BatchedGemm<T>& gemm);

// Registers _npi_einsum and _backward_npi_einsum of `backend` (priority
// `priority`) on CPU, their products computed with `gemm`.
template <typename Gemm>
void RegisterEinsumKernels(KernelRegistry* reg, const std::string& backend, int priority,
                           Gemm gemm) {
  auto batched = [gemm](auto t) {
    using T = decltype(t);
    return BatchedGemm<T>([gemm](const GemmDims& d, const T* a, const T* b, OpReq req, T* c) {
      GemmForward(gemm, d, a, b, req, c);
    });
  };
  KernelFn forward = [batched](const OpContext&, const NodeAttrs& attrs,
                               const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                               const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    const op::EinsumLayout l = EinsumLayoutOf(attrs, in);
    DispatchFloat(in[0].dtype, "_npi_einsum", [&](auto t) {
      using T = decltype(t);
      EinsumForward<T>(l, in, req[0], out[0], batched(t));
    });
  };
  KernelFn backward = [batched](const OpContext&, const NodeAttrs& attrs,
                                const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                                const std::vector<TBlob>& out) {
    const op::EinsumLayout l = EinsumLayoutOf(attrs, std::vector<TBlob>(in.begin() + 1, in.end()));
    DispatchFloat(in[0].dtype, "_backward_npi_einsum", [&](auto t) {
      using T = decltype(t);
      EinsumBackward<T>(l, in, req, out, batched(t));
    });
  };
  reg->Add("_npi_einsum", DeviceType::kCPU, {backend, priority, forward, true});
  reg->Add("_backward_npi_einsum", DeviceType::kCPU, {backend, priority, backward, true});
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_EINSUM_H_
