// CUDA kernel of SequenceMask (semantics as core/src/op/nn_sequence.cc and
// kernels/cpu/nn_sequence.cc), float32 and float64; its gradient is
// SequenceMask itself with value 0. Data is (T, N, rest) for axis 0 and
// (N, T, rest) for axis 1. The sequence_length input (any dtype) is copied
// to the host, where it is truncated and range-checked by the CPU's
// reader (the same errors as on the CPU), and the int64 lengths are
// uploaded for the map kernel; without it every row is kept.
#include <vector>

#include "cpu/nn_seq_lengths.h"
#include "cuda/cuda_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// y[i] (req-aware) = x[i], or `fill` where t >= len[b] (len null: keep all).
template <typename T>
__global__ void SequenceMaskKernel(const T* x, T* y, int64_t n, int64_t steps, int64_t batch,
                                   int64_t rest, bool batch_major, const int64_t* len, T fill,
                                   bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t q = i / rest;
    const int64_t t = batch_major ? q % steps : q / batch;
    const int64_t b = batch_major ? q / steps : q % batch;
    const T v = len == nullptr || t < len[b] ? x[i] : fill;
    y[i] = add ? y[i] + v : v;
  }
}

void SequenceMaskCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "SequenceMask";
  UseDevice(ctx, op);
  const Shape& s = in[0].shape;
  const SequenceParams& sp = attrs.params.Decoded<SequenceParams>();
  const bool batch_major = sp.batch_major;
  const int64_t steps = batch_major ? s[1] : s[0], batch = batch_major ? s[0] : s[1];
  const int64_t rest = s.ProdRange(2, s.ndim()), n = in[0].Size();
  cudaStream_t stream = StreamOf(ctx);
  DeviceBuffer len(ctx, sp.use_length ? static_cast<size_t>(batch) * sizeof(int64_t) : 0);
  // Copied from pageable memory: cudaMemcpyAsync returns once it is staged.
  std::vector<int64_t> lengths;
  if (len.get() != nullptr) {
    // The lengths on the host, in their dtype, read as the CPU kernel does.
    std::vector<char> raw(static_cast<size_t>(batch) * DTypeSize(in[1].dtype));
    WEFT_CUDA_CHECK(
        cudaMemcpyAsync(raw.data(), in[1].dptr, raw.size(), cudaMemcpyDeviceToHost, stream));
    WEFT_CUDA_CHECK(cudaStreamSynchronize(stream));
    TBlob host = in[1];
    host.dptr = raw.data();
    host.ctx = Context::CPU(0);
    lengths = cpu::ReadSequenceLengths(host, batch, 0, steps, op);
    WEFT_CUDA_CHECK(cudaMemcpyAsync(len.get(), lengths.data(), lengths.size() * sizeof(int64_t),
                                    cudaMemcpyHostToDevice, stream));
  }
  if (req[0] != OpReq::kNull && n > 0) {
    const double value = sp.value;
    DispatchFloat(in[0].dtype, op, [&](auto v) {
      using T = decltype(v);
      SequenceMaskKernel<T><<<GridFor(n), kBlock, 0, stream>>>(
          in[0].data<T>(), out[0].data<T>(), n, steps, batch, rest, batch_major, len.as<int64_t>(),
          static_cast<T>(value), req[0] == OpReq::kAdd);
    });
  }
  Finish(ctx, op);  // the lengths buffer is released in stream order after the kernel
}

}  // namespace

void RegisterNNSequenceCuda(KernelRegistry* reg) {
  reg->Add("SequenceMask", DeviceType::kGPU, {"cuda", 0, SequenceMaskCuda, true});
}

}  // namespace cuda
}  // namespace weft
