// The torchvision detection head of nms_head.onnx (scripts/make_onnx_import_models.py)
// with a score threshold, so that an input can keep no box at all: the
// tests of the empty result (onnx_import_nms_test.cc, predictor_dynamic_test.cc).
#ifndef WEFT_TESTS_CORE_ONNX_NMS_HEAD_UTIL_H_
#define WEFT_TESTS_CORE_ONNX_NMS_HEAD_UTIL_H_

#include <string>
#include <vector>

#include "weft/onnx_import.h"
#include "weft/runtime.h"

namespace weft {
namespace test {

// The score threshold the thresholded head uses: below every score PyTorch's
// stored outputs keep (0.32 .. 0.58), so the stored input gives the stored
// outputs.
constexpr float kNmsScoreThreshold = 0.25f;

// nms_head.onnx with NonMaxSuppression's optional score_threshold input set
// to kNmsScoreThreshold (the exporter writes none), imported on `rt`.
OnnxModel ImportThresholdedNmsHead(Runtime* rt);

// Features (16, 8) for which every score of the head (sigmoid of its
// `score` layer) is below sigmoid(-10), far below the threshold: no box
// passes it. `m` is either head (they share the weights).
std::vector<float> FeaturesScoringNothing(const OnnxModel& m);

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_ONNX_NMS_HEAD_UTIL_H_
