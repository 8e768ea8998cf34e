// Recorded device graphs (WEFT_CUDA_GRAPHS=1, core/src/executor/segment_graph.h):
// a residual conv net bound for inference on gpu(0) with recording on gives
// exactly what the same net bound without it gives, run after run on new
// inputs (the first run eager, the second recorded, the rest replayed), and
// its forward operations are recorded; re-pointing an argument
// (BorrowArgument) drops the recordings and the outputs follow the lent
// buffer. Without the variable nothing is recordable; a value other than
// 0/1 fails the bind. Skipped without a CUDA device (but the bad value).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "util/backend_harness.h"
#include "weft/engine.h"
#include "weft/executor.h"
#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace {

Symbol Op(const std::string& op, const std::vector<Symbol>& args, const std::string& name,
          const StringMap& params = {}) {
  return Symbol::Apply(Runtime::Global().ops(), op, args, params, name);
}

// conv-bn-relu, conv-bn + residual, relu, global pooling, dense, softmax:
// the inference passes fold and fuse it as they do ResNets.
Symbol ResidualNet() {
  Symbol x = Op("Convolution", {Symbol::CreateVariable("data")}, "c0",
                {{"kernel", "(3,3)"}, {"num_filter", "8"}, {"pad", "(1,1)"}});
  Symbol y = Op("Convolution", {x}, "c1",
                {{"kernel", "(3,3)"}, {"num_filter", "8"}, {"pad", "(1,1)"}, {"no_bias", "True"}});
  y = Op("BatchNorm", {y}, "bn1", {{"fix_gamma", "False"}});
  y = Op("Activation", {y}, "r1", {{"act_type", "relu"}});
  y = Op("Convolution", {y}, "c2",
         {{"kernel", "(3,3)"}, {"num_filter", "8"}, {"pad", "(1,1)"}, {"no_bias", "True"}});
  y = Op("BatchNorm", {y}, "bn2", {{"fix_gamma", "False"}});
  y = Op("elemwise_add", {y, x}, "add");
  y = Op("Activation", {y}, "r2", {{"act_type", "relu"}});
  y = Op("Pooling", {y}, "pool",
         {{"global_pool", "True"}, {"kernel", "(1,1)"}, {"pool_type", "avg"}});
  y = Op("FullyConnected", {Op("Flatten", {y}, "flat")}, "fc", {{"num_hidden", "5"}});
  return Op("softmax", {y}, "prob");
}

// Sets WEFT_CUDA_GRAPHS for its lifetime (unset when `value` is null).
class GraphsEnv {
 public:
  explicit GraphsEnv(const char* value) {
    if (value)
      setenv("WEFT_CUDA_GRAPHS", value, 1);
    else
      unsetenv("WEFT_CUDA_GRAPHS");
  }
  ~GraphsEnv() { unsetenv("WEFT_CUDA_GRAPHS"); }
};

std::unique_ptr<Executor> Bind(const char* graphs) {
  GraphsEnv env(graphs);
  auto ex =
      Executor::SimpleBind(&Runtime::Global(), ResidualNet(), Context::GPU(0),
                           {{"data", Shape{2, 3, 12, 12}}}, {}, GradReqSpec::All(GradReq::kNull));
  for (size_t i = 0; i < ex->arg_names().size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    const bool var = ex->arg_names()[i].find("gamma") != std::string::npos;
    test::RandomArray(a.shape(), DType::kFloat32, var ? 0.8 : -0.5, var ? 1.2 : 0.5,
                      static_cast<unsigned>(30 + i))
        .CopyTo(&a);
  }
  for (size_t i = 0; i < ex->aux_arrays().size(); ++i) {
    NDArray a = ex->aux_arrays()[i];
    test::RandomArray(a.shape(), DType::kFloat32, 0.5, 1.5, static_cast<unsigned>(60 + i))
        .CopyTo(&a);
  }
  return ex;
}

// Forward on `input` (seeded values), the output on the host.
std::vector<double> RunOn(Executor* ex, unsigned seed) {
  NDArray data = ex->arg_arrays()[0];
  test::RandomArray(data.shape(), DType::kFloat32, -1, 1, seed).CopyTo(&data);
  ex->Forward(false);
  return test::Values(ex->outputs()[0].Copy(Context::CPU(0)));
}

TEST(CudaGraphs, ReplaysEqualEagerRuns) {
  if (test::GpuCount() == 0) GTEST_SKIP() << "no CUDA device";
  auto eager = Bind(nullptr);
  auto graphs = Bind("1");
  EXPECT_EQ(eager->RecordableSegments(), 0u);
  ASSERT_GT(graphs->RecordableSegments(), 0u);
  for (unsigned run = 0; run < 4; ++run) {
    const std::vector<double> want = RunOn(eager.get(), 100 + run);
    EXPECT_EQ(RunOn(graphs.get(), 100 + run), want) << "run " << run;
  }
  Engine::Get()->WaitForAll();
  EXPECT_EQ(graphs->RecordedSegments(), graphs->RecordableSegments()) << graphs->DebugString();

  // A lent input: the recordings are dropped and the outputs follow it.
  NDArray lent = test::RandomArray({2, 3, 12, 12}, DType::kFloat32, -1, 1, 7).Copy(Context::GPU(0));
  lent.WaitToRead();
  NDArray data = eager->arg_arrays()[0];
  lent.CopyTo(&data);
  eager->Forward(false);
  const std::vector<double> want = test::Values(eager->outputs()[0].Copy(Context::CPU(0)));
  if (graphs->BorrowArgument(0, lent.dptr())) {
    EXPECT_EQ(graphs->RecordedSegments(), 0u);
    for (int run = 0; run < 3; ++run) {
      graphs->Forward(false);
      EXPECT_EQ(test::Values(graphs->outputs()[0].Copy(Context::CPU(0))), want) << "lent " << run;
    }
    graphs->BorrowArgument(0, nullptr);
    Engine::Get()->WaitForAll();
  }
}

TEST(CudaGraphs, BadValueFailsTheBind) {
  GraphsEnv env("yes");
  test::ExpectError(
      [] {
        Executor::SimpleBind(&Runtime::Global(), ResidualNet(), Context::CPU(0),
                             {{"data", Shape{2, 3, 12, 12}}}, {}, GradReqSpec::All(GradReq::kNull));
      },
      StatusCode::kInvalidArgument, {"WEFT_CUDA_GRAPHS", "yes"});
}

}  // namespace
}  // namespace weft
