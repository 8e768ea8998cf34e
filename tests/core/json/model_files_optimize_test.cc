// The inference passes on the shared real MXNet networks
// (../shared/testdata/mxnet-models/): bound with the passes and without,
// on the same seeded weights and data, every output agrees within 1e-5
// (|a - b| / (1 + |b|)), and the optimised graph did rewrite something.
#include <gtest/gtest.h>

#include <fstream>

#include "core/json/json_test_util.h"
#include "core/pass/inference_test_util.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

TEST(ModelFilesOptimize, RealNetworksMatchTheirUnoptimisedRun) {
  struct Case {
    const char* file;
    Shape data;
    bool fuses;  // has a convolution or dense layer with an activation the passes fuse
  };
  const Case cases[] = {
      {"pathak-ashutosh__resnet-50-symbol.json", Shape{1, 3, 224, 224},
       true},                                                         // ImageNet-11k ResNet-50
      {"miaow1988__model-symbol.json", Shape{2, 3, 227, 227}, true},  // SqueezeNet v1.2
      {"apache__save_000800.json", Shape{5, 200}, true},              // an MLP
      {"deepinsight__det1-symbol.json", Shape{2, 3, 48, 48}, false},  // MTCNN P-Net (PReLU)
  };
  size_t ran = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = test::ModelDir() + "/" + c.file;
    if (!std::ifstream(path)) continue;
    const LoadedSymbol s = LoadJSONFile(path, Runtime::Global().ops());
    std::unique_ptr<Executor> optimised;
    EXPECT_LT(test::CompareOptimized(s.symbol, {{"data", c.data}}, 11, &optimised), 1e-5);
    if (c.fuses) {
      EXPECT_NE(optimised->DebugString().find("_fused_"), std::string::npos);
    }
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << "no shared model files in '" << test::ModelDir() << "'";
}

}  // namespace
}  // namespace weft
