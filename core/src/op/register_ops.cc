// The one visible list of every operator definition, in a fixed order.
#include "weft/custom_op.h"
#include "weft/op.h"

namespace weft {
namespace op {
void RegisterQuadratic(OpRegistry* reg);
void RegisterElemwiseUnary(OpRegistry* reg);
void RegisterElemwiseBinary(OpRegistry* reg);
void RegisterBroadcast(OpRegistry* reg);
void RegisterElemwiseScalar(OpRegistry* reg);
void RegisterElemwiseUnaryMath(OpRegistry* reg);
void RegisterElemwiseCompare(OpRegistry* reg);
void RegisterNNLRN(OpRegistry* reg);
void RegisterNNRnn(OpRegistry* reg);
void RegisterNNRnnParamConcat(OpRegistry* reg);
void RegisterContribTransformer(OpRegistry* reg);
void RegisterNNSequence(OpRegistry* reg);
void RegisterNNNormInst(OpRegistry* reg);
void RegisterNNLayerNorm(OpRegistry* reg);
void RegisterNNLossExtra(OpRegistry* reg);
void RegisterNNCTC(OpRegistry* reg);
void RegisterNNMisc(OpRegistry* reg);
void RegisterIndexOps(OpRegistry* reg);
void RegisterAmpOps(OpRegistry* reg);
void RegisterSortOps(OpRegistry* reg);
void RegisterGatherOps(OpRegistry* reg);
void RegisterShapeOpsJoin(OpRegistry* reg);
void RegisterShapeOps(OpRegistry* reg);
void RegisterShapeOpsSlice(OpRegistry* reg);
void RegisterShapeOpsTile(OpRegistry* reg);
void RegisterShapeOpsRange(OpRegistry* reg);
void RegisterNNDeconv(OpRegistry* reg);
void RegisterNNDense(OpRegistry* reg);
void RegisterNNActivation(OpRegistry* reg);
void RegisterNNSoftmax(OpRegistry* reg);
void RegisterNNLoss(OpRegistry* reg);
void RegisterNNNorm(OpRegistry* reg);
void RegisterNNPool(OpRegistry* reg);
void RegisterNNConv(OpRegistry* reg);
void RegisterInferenceOps(OpRegistry* reg);
void RegisterFusedElemwise(OpRegistry* reg);
void RegisterControlFlowOps(OpRegistry* reg);
void RegisterSubgraphOps(OpRegistry* reg);
void RegisterQuantizeOps(OpRegistry* reg);
void RegisterQuantizedNN(OpRegistry* reg);
void RegisterQuantizedElemwise(OpRegistry* reg);
void RegisterAssign(OpRegistry* reg);
void RegisterReduce(OpRegistry* reg);
void RegisterDot(OpRegistry* reg);
void RegisterEinsum(OpRegistry* reg);
void RegisterInit(OpRegistry* reg);
void RegisterRandom(OpRegistry* reg);
void RegisterElemwiseSum(OpRegistry* reg);
void RegisterAutogradFunction(OpRegistry* reg);
void RegisterOptimizerOps(OpRegistry* reg);
void RegisterVisionBox(OpRegistry* reg);
void RegisterOnnxNms(OpRegistry* reg);
void RegisterVisionMultiBox(OpRegistry* reg);
void RegisterVisionROI(OpRegistry* reg);
void RegisterVisionResize(OpRegistry* reg);
void RegisterVisionSampling(OpRegistry* reg);
void RegisterImageOps(OpRegistry* reg);
void RegisterImageCvOps(OpRegistry* reg);
}  // namespace op

void RegisterAllOps(OpRegistry* reg) {
  op::RegisterQuadratic(reg);
  op::RegisterElemwiseUnary(reg);
  op::RegisterElemwiseBinary(reg);
  op::RegisterBroadcast(reg);
  op::RegisterElemwiseScalar(reg);
  op::RegisterElemwiseUnaryMath(reg);
  op::RegisterElemwiseCompare(reg);
  op::RegisterNNLRN(reg);
  op::RegisterNNRnn(reg);
  op::RegisterNNRnnParamConcat(reg);
  op::RegisterContribTransformer(reg);
  op::RegisterNNSequence(reg);
  op::RegisterNNNormInst(reg);
  op::RegisterNNLayerNorm(reg);
  op::RegisterNNLossExtra(reg);
  op::RegisterNNCTC(reg);
  op::RegisterNNMisc(reg);
  op::RegisterIndexOps(reg);
  op::RegisterAmpOps(reg);
  op::RegisterSortOps(reg);
  op::RegisterGatherOps(reg);
  op::RegisterShapeOpsJoin(reg);
  op::RegisterShapeOps(reg);
  op::RegisterShapeOpsSlice(reg);
  op::RegisterShapeOpsTile(reg);
  op::RegisterShapeOpsRange(reg);
  op::RegisterNNDeconv(reg);
  op::RegisterNNDense(reg);
  op::RegisterNNActivation(reg);
  op::RegisterNNSoftmax(reg);
  op::RegisterNNLoss(reg);
  op::RegisterNNNorm(reg);
  op::RegisterNNPool(reg);
  op::RegisterNNConv(reg);
  // After Convolution and FullyConnected: the fused ops take their parameters.
  op::RegisterInferenceOps(reg);
  op::RegisterFusedElemwise(reg);
  op::RegisterSubgraphOps(reg);
  op::RegisterControlFlowOps(reg);
  // After the float ops whose parameters they take.
  op::RegisterQuantizeOps(reg);
  op::RegisterQuantizedNN(reg);
  op::RegisterQuantizedElemwise(reg);
  op::RegisterAssign(reg);
  op::RegisterReduce(reg);
  op::RegisterDot(reg);
  op::RegisterEinsum(reg);
  op::RegisterInit(reg);
  op::RegisterRandom(reg);
  op::RegisterElemwiseSum(reg);
  op::RegisterAutogradFunction(reg);
  op::RegisterOptimizerOps(reg);
  op::RegisterVisionBox(reg);
  op::RegisterOnnxNms(reg);
  op::RegisterVisionMultiBox(reg);
  op::RegisterVisionROI(reg);
  op::RegisterVisionResize(reg);
  op::RegisterVisionSampling(reg);
  op::RegisterImageOps(reg);
  op::RegisterImageCvOps(reg);
  RegisterCustomOpDefs(reg);
}

}  // namespace weft
