// The one visible list of every kernel registration, in a fixed order:
// CPU reference kernels first, then the backends that override some of them.
#include "register_kernels.h"

#include "cpu/selfatt_int8.h"

namespace weft {
namespace cpu {
void RegisterQuadraticCpu(KernelRegistry* reg);
void RegisterCustomOpCpu(KernelRegistry* reg);
void RegisterElemwiseUnaryCpu(KernelRegistry* reg);
void RegisterElemwiseBinaryCpu(KernelRegistry* reg);
void RegisterBroadcastCpu(KernelRegistry* reg);
void RegisterElemwiseScalarCpu(KernelRegistry* reg);
void RegisterElemwiseUnaryMathCpu(KernelRegistry* reg);
void RegisterElemwiseCompareCpu(KernelRegistry* reg);
void RegisterNNLRNCpu(KernelRegistry* reg);
void RegisterNNRnnCpu(KernelRegistry* reg);
void RegisterNNSequenceCpu(KernelRegistry* reg);
void RegisterNNNormInstCpu(KernelRegistry* reg);
void RegisterNNLayerNormCpu(KernelRegistry* reg);
void RegisterNNLossExtraCpu(KernelRegistry* reg);
void RegisterNNCTCCpu(KernelRegistry* reg);
void RegisterNNMiscCpu(KernelRegistry* reg);
void RegisterIndexOpsCpu(KernelRegistry* reg);
void RegisterSortOpsCpu(KernelRegistry* reg);
void RegisterGatherOpsCpu(KernelRegistry* reg);
void RegisterShapeOpsJoinCpu(KernelRegistry* reg);
void RegisterNNRnnParamConcatCpu(KernelRegistry* reg);
void RegisterContribTransformerCpu(KernelRegistry* reg);
void RegisterShapeOpsCpu(KernelRegistry* reg);
void RegisterShapeOpsViewCpu(KernelRegistry* reg);
void RegisterNNDeconvCpu(KernelRegistry* reg);
void RegisterNNDenseCpu(KernelRegistry* reg);
void RegisterNNActivationCpu(KernelRegistry* reg);
void RegisterNNSoftmaxCpu(KernelRegistry* reg);
void RegisterNNLossCpu(KernelRegistry* reg);
void RegisterNNNormCpu(KernelRegistry* reg);
void RegisterNNPoolCpu(KernelRegistry* reg);
void RegisterNNConvCpu(KernelRegistry* reg);
void RegisterInferenceOpsCpu(KernelRegistry* reg);
void RegisterQuantizeOpsCpu(KernelRegistry* reg);
void RegisterQuantizedNNCpu(KernelRegistry* reg);
void RegisterQuantizedMiscCpu(KernelRegistry* reg);
void RegisterQuantizedElemwiseCpu(KernelRegistry* reg);
void RegisterSgConvInt8Cpu(KernelRegistry* reg);
void RegisterSgFcInt8Cpu(KernelRegistry* reg);
// Run other ops' kernels: need the op registry too (InstallBuiltinKernels).
void RegisterFusedElemwiseCpu(const OpRegistry& ops, KernelRegistry* reg);
void RegisterControlFlowCpu(const OpRegistry& ops, KernelRegistry* reg);
void RegisterAssignCpu(KernelRegistry* reg);
void RegisterReduceCpu(KernelRegistry* reg);
void RegisterDotCpu(KernelRegistry* reg);
void RegisterInitCpu(KernelRegistry* reg);
void RegisterRandomCpu(KernelRegistry* reg);
void RegisterElemwiseSumCpu(KernelRegistry* reg);
void RegisterOptimizerOpsCpu(KernelRegistry* reg);
void RegisterVisionBoxCpu(KernelRegistry* reg);
void RegisterOnnxNmsCpu(KernelRegistry* reg);
void RegisterVisionMultiBoxCpu(KernelRegistry* reg);
void RegisterVisionROICpu(KernelRegistry* reg);
void RegisterVisionResizeCpu(KernelRegistry* reg);
void RegisterVisionSamplingCpu(KernelRegistry* reg);
void RegisterImageOpsCpu(KernelRegistry* reg);
void RegisterImageColorOpsCpu(KernelRegistry* reg);
void RegisterImageCvOpsCpu(KernelRegistry* reg);
}  // namespace cpu
namespace blas {
void RegisterDotBlas(KernelRegistry* reg);
}  // namespace blas
#if WEFT_USE_DNNL
namespace onednn {
void RegisterNNDenseDnnl(KernelRegistry* reg);
void RegisterNNConvDnnl(KernelRegistry* reg);
void RegisterNNPoolDnnl(KernelRegistry* reg);
void RegisterNNRnnDnnl(KernelRegistry* reg);
void RegisterDotDnnl(KernelRegistry* reg);
void RegisterContribTransformerDnnl(KernelRegistry* reg);
void RegisterQuantizedDnnl(KernelRegistry* reg);
cpu::SelfAttSums SelfAttInt8Sums();
}  // namespace onednn
#endif
#if WEFT_USE_CUDA
namespace cuda {
void RegisterQuadraticCuda(KernelRegistry* reg);
void RegisterElemwiseCuda(KernelRegistry* reg);
void RegisterNNDenseCuda(KernelRegistry* reg);
void RegisterNNConvCuda(KernelRegistry* reg);
void RegisterNNPoolCuda(KernelRegistry* reg);
void RegisterNNActivationCuda(KernelRegistry* reg);
void RegisterNNNormCuda(KernelRegistry* reg);
void RegisterNNLayerNormCuda(KernelRegistry* reg);
void RegisterNNRnnCuda(KernelRegistry* reg);
void RegisterVisionROICuda(KernelRegistry* reg);
void RegisterVisionBoxCuda(KernelRegistry* reg);
void RegisterVisionMultiBoxCuda(KernelRegistry* reg);
void RegisterContribTransformerCuda(KernelRegistry* reg);
void RegisterNNSequenceCuda(KernelRegistry* reg);
void RegisterNNSoftmaxCuda(KernelRegistry* reg);
void RegisterNNLossCuda(KernelRegistry* reg);
void RegisterInitCuda(KernelRegistry* reg);
void RegisterCastCuda(KernelRegistry* reg);
void RegisterInferenceOpsCuda(KernelRegistry* reg);
void RegisterShapeOpsCuda(KernelRegistry* reg);
void RegisterShapeOpsJoinCuda(KernelRegistry* reg);
void RegisterOptimizerCuda(KernelRegistry* reg);
void RegisterReduceCuda(KernelRegistry* reg);
void RegisterDotCuda(KernelRegistry* reg);
void RegisterNNDropoutEmbeddingCuda(KernelRegistry* reg);
void RegisterNNLeakyCuda(KernelRegistry* reg);
void RegisterCudaDeviceAPI(Runtime* rt);
}  // namespace cuda
#endif

namespace {

// The int32 sums of the int8 fused attention ops beside backend `b` of the
// contrib ones: oneDNN's integer gemms beside "dnnl", else the reference.
cpu::SelfAttSums Sums(const std::string& b) {
#if WEFT_USE_DNNL
  if (b == "dnnl") return onednn::SelfAttInt8Sums();
#else
  (void)b;
#endif
  return cpu::ReferenceSelfAttSums();
}

// The reference kernels and the OpenBLAS ones, which every build has.
void RegisterCpuKernels(KernelRegistry* reg) {
  cpu::RegisterQuadraticCpu(reg);
  cpu::RegisterCustomOpCpu(reg);
  cpu::RegisterElemwiseUnaryCpu(reg);
  cpu::RegisterElemwiseBinaryCpu(reg);
  cpu::RegisterBroadcastCpu(reg);
  cpu::RegisterElemwiseScalarCpu(reg);
  cpu::RegisterElemwiseUnaryMathCpu(reg);
  cpu::RegisterElemwiseCompareCpu(reg);
  cpu::RegisterNNLRNCpu(reg);
  cpu::RegisterNNRnnCpu(reg);
  cpu::RegisterNNSequenceCpu(reg);
  cpu::RegisterNNNormInstCpu(reg);
  cpu::RegisterNNLayerNormCpu(reg);
  cpu::RegisterNNLossExtraCpu(reg);
  cpu::RegisterNNCTCCpu(reg);
  cpu::RegisterNNMiscCpu(reg);
  cpu::RegisterIndexOpsCpu(reg);
  cpu::RegisterSortOpsCpu(reg);
  cpu::RegisterGatherOpsCpu(reg);
  cpu::RegisterShapeOpsJoinCpu(reg);
  cpu::RegisterNNRnnParamConcatCpu(reg);  // after Concat: runs its kernel
  cpu::RegisterContribTransformerCpu(reg);
  cpu::RegisterShapeOpsCpu(reg);
  cpu::RegisterShapeOpsViewCpu(reg);
  cpu::RegisterNNDeconvCpu(reg);
  cpu::RegisterNNDenseCpu(reg);
  cpu::RegisterNNActivationCpu(reg);
  cpu::RegisterNNSoftmaxCpu(reg);
  cpu::RegisterNNLossCpu(reg);
  cpu::RegisterNNNormCpu(reg);
  cpu::RegisterNNPoolCpu(reg);
  cpu::RegisterNNConvCpu(reg);
  cpu::RegisterInferenceOpsCpu(reg);  // after Convolution: the fused convolution calls it
  cpu::RegisterQuantizeOpsCpu(reg);
  cpu::RegisterQuantizedNNCpu(reg);
  cpu::RegisterQuantizedMiscCpu(reg);
  cpu::RegisterQuantizedElemwiseCpu(reg);
  cpu::RegisterSgConvInt8Cpu(reg);
  cpu::RegisterSgFcInt8Cpu(reg);
  cpu::RegisterAssignCpu(reg);
  cpu::RegisterReduceCpu(reg);
  cpu::RegisterDotCpu(reg);
  cpu::RegisterInitCpu(reg);
  cpu::RegisterRandomCpu(reg);
  cpu::RegisterElemwiseSumCpu(reg);
  cpu::RegisterOptimizerOpsCpu(reg);
  cpu::RegisterVisionBoxCpu(reg);
  cpu::RegisterOnnxNmsCpu(reg);
  cpu::RegisterVisionMultiBoxCpu(reg);
  cpu::RegisterVisionROICpu(reg);
  cpu::RegisterVisionResizeCpu(reg);
  cpu::RegisterVisionSamplingCpu(reg);
  cpu::RegisterImageOpsCpu(reg);
  cpu::RegisterImageColorOpsCpu(reg);
  cpu::RegisterImageCvOpsCpu(reg);
  blas::RegisterDotBlas(reg);
}

}  // namespace

void RegisterAllKernels(KernelRegistry* reg) {
  RegisterCpuKernels(reg);
#if WEFT_USE_DNNL
  // After the cpu kernels: they are the fallback of these.
  onednn::RegisterNNDenseDnnl(reg);
  onednn::RegisterNNConvDnnl(reg);
  onednn::RegisterNNPoolDnnl(reg);
  onednn::RegisterNNRnnDnnl(reg);
  onednn::RegisterDotDnnl(reg);
  onednn::RegisterContribTransformerDnnl(reg);
  onednn::RegisterQuantizedDnnl(reg);
#endif
#if WEFT_USE_CUDA
  cuda::RegisterQuadraticCuda(reg);
  cuda::RegisterElemwiseCuda(reg);
  cuda::RegisterNNDenseCuda(reg);
  cuda::RegisterNNConvCuda(reg);
  cuda::RegisterNNPoolCuda(reg);
  cuda::RegisterNNActivationCuda(reg);
  cuda::RegisterNNNormCuda(reg);
  cuda::RegisterNNLayerNormCuda(reg);
  cuda::RegisterNNRnnCuda(reg);
  cuda::RegisterVisionROICuda(reg);
  cuda::RegisterVisionBoxCuda(reg);
  cuda::RegisterVisionMultiBoxCuda(reg);
  cuda::RegisterContribTransformerCuda(reg);
  cuda::RegisterNNSequenceCuda(reg);
  cuda::RegisterNNSoftmaxCuda(reg);
  cuda::RegisterNNLossCuda(reg);
  cuda::RegisterInitCuda(reg);
  cuda::RegisterCastCuda(reg);
  cuda::RegisterInferenceOpsCuda(reg);
  cuda::RegisterShapeOpsCuda(reg);
  cuda::RegisterShapeOpsJoinCuda(reg);
  cuda::RegisterOptimizerCuda(reg);
  cuda::RegisterReduceCuda(reg);
  cuda::RegisterDotCuda(reg);
  cuda::RegisterNNDropoutEmbeddingCuda(reg);
  cuda::RegisterNNLeakyCuda(reg);
#endif
  // MXNet's oneDNN-fused attention ops compute what the contrib ones do:
  // their kernels, every backend, and the int8 kernels for quantized=true.
  for (const char* op : {"selfatt_qk", "selfatt_valatt"}) {
    const std::string base = std::string("_contrib_interleaved_matmul_") + op;
    for (DeviceType dev : {DeviceType::kCPU, DeviceType::kGPU})
      for (const std::string& b : reg->Backends(base, dev))
        reg->Add(std::string("_sg_mkldnn_") + op, dev,
                 cpu::FusedSelfAttKernel(op, dev, *reg->FindBackend(base, dev, b), Sums(b)));
  }
}

void InstallBuiltinKernels(Runtime* rt) {
  RegisterAllKernels(rt->mutable_kernels());
  cpu::RegisterFusedElemwiseCpu(rt->ops(), rt->mutable_kernels());
  cpu::RegisterControlFlowCpu(rt->ops(), rt->mutable_kernels());
  RegisterDeviceAPIs(rt);
}

void RegisterDeviceAPIs(Runtime* rt) {
#if WEFT_USE_CUDA
  cuda::RegisterCudaDeviceAPI(rt);
#else
  (void)rt;
#endif
}

}  // namespace weft
