// Whole models on gpu(0) against the same models on cpu(0): a small
// convolutional net (Convolution, BatchNorm, Activation, Pooling, Flatten,
// FullyConnected, SoftmaxOutput) bound with SimpleBind on each device from
// the same initial values, trained 20 SGD steps (forward, backward, then
// w -= lr * g with imperative ops on the arrays' device) with no node
// falling back; outputs, weights and BatchNorm's moving statistics agree
// within 1e-4 relative at every step. A net with a clip (no GPU
// kernel) between two FullyConnected layers runs it on cpu(0) with copies
// (ExecutorOptions::allow_fallback) and still matches the CPU, forward and
// backward; with fallback off it fails the bind naming the option.
// Module trains LeNet (SGD with momentum and weight decay) and an MLP
// (Adam) 100 steps on gpu(0) with no fallback node, the optimizer updates
// running on the GPU, and the parameters equal the same run on cpu(0)
// within 1e-4. Real third-party symbol files (ImageNet-11k ResNet-50,
// SqueezeNet, MTCNN P-Net) bound for inference on gpu(0) give the CPU's
// outputs within 1e-4 with Xavier weights.
// Skipped without a CUDA device; builds without CUDA.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "util/backend_harness.h"
#include "weft/runtime.h"
#include "weft/executor.h"
#include "weft/initializer.h"
#include "weft/module.h"
#include "weft/optimizer.h"
#include "weft/symbol_json.h"
#include "weft/symbol.h"

namespace weft {
namespace {

bool NoGpu() { return test::GpuCount() == 0; }

Symbol Op(const std::string& op, const std::vector<Symbol>& args, const std::string& name,
          const StringMap& params = {}) {
  return Symbol::Apply(Runtime::Global().ops(), op, args, params, name);
}

Symbol SmallConvNet() {
  Symbol x = Symbol::CreateVariable("data"), label = Symbol::CreateVariable("softmax_label");
  // No bias before BatchNorm (its gradient would be 0 up to rounding).
  Symbol y = Op("Convolution", {x}, "conv",
                {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"pad", "(1,1)"}, {"no_bias", "True"}});
  y = Op("BatchNorm", {y}, "bn", {{"fix_gamma", "False"}});
  y = Op("Activation", {y}, "relu", {{"act_type", "relu"}});
  y = Op("Pooling", {y}, "pool", {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}});
  y = Op("Flatten", {y}, "flat");
  y = Op("FullyConnected", {y}, "fc", {{"num_hidden", "5"}});
  return Op("SoftmaxOutput", {y, label}, "softmax");
}

const pass::ShapeMap kShapes = {{"data", Shape{4, 2, 8, 8}}, {"softmax_label", Shape{4}}};

std::unique_ptr<Executor> Bind(Context ctx, bool allow_fallback = true) {
  ExecutorOptions o;
  o.allow_fallback = allow_fallback;
  return Executor::SimpleBind(&Runtime::Global(), SmallConvNet(), ctx, kShapes, {},
                              GradReqSpec::All(GradReq::kWrite), o);
}

// Same initial values on both executors: labels are class indices, BatchNorm
// gamma near 1, the moving variance positive.
void Initialise(Executor* cpu, Executor* gpu) {
  const std::vector<std::string>& names = cpu->arg_names();
  for (size_t i = 0; i < names.size(); ++i) {
    const Shape s = cpu->arg_arrays()[i].shape();
    NDArray v;
    if (names[i] == "softmax_label") {
      std::vector<double> l(static_cast<size_t>(s.Size()));
      for (size_t k = 0; k < l.size(); ++k) l[k] = static_cast<double>((k * 3 + 1) % 5);
      v = test::Array(s, l, DType::kFloat32);
    } else if (names[i] == "bn_gamma") {
      v = test::RandomArray(s, DType::kFloat32, 0.8, 1.2, 11);
    } else {
      v = test::RandomArray(s, DType::kFloat32, -0.5, 0.5, static_cast<unsigned>(20 + i));
    }
    NDArray c = cpu->arg_arrays()[i], g = gpu->arg_arrays()[i];
    v.CopyTo(&c);
    v.CopyTo(&g);
  }
  for (size_t i = 0; i < cpu->aux_arrays().size(); ++i) {
    const Shape s = cpu->aux_arrays()[i].shape();
    const NDArray v =
        test::RandomArray(s, DType::kFloat32, 0.5, 1.5, static_cast<unsigned>(40 + i));
    NDArray c = cpu->aux_arrays()[i], g = gpu->aux_arrays()[i];
    v.CopyTo(&c);
    v.CopyTo(&g);
  }
}

// w -= lr * g with ops that run where w is.
void SgdStep(Executor* ex, double lr) {
  for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
    const NDArray& g = ex->grad_arrays()[i];
    if (g.is_none()) continue;
    std::vector<NDArray> step, next;
    Invoke(&Runtime::Global(), "_mul_scalar", {g}, {{"scalar", std::to_string(lr)}}, &step);
    Invoke(&Runtime::Global(), "elemwise_sub", {ex->arg_arrays()[i], step[0]}, {}, &next);
    NDArray w = ex->arg_arrays()[i];
    next[0].CopyTo(&w);
  }
}

void ExpectSame(const NDArray& gpu, const NDArray& cpu, const std::string& what) {
  test::ExpectClose(test::Values(gpu.Copy(Context::CPU(0))), test::Values(cpu), 1e-4, what);
}

TEST(CudaModel, SmallConvNetTrainsAsOnTheCpu) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  auto cpu = Bind(Context::CPU(0));
  auto gpu = Bind(Context::GPU(0));
  const ExecutorPlacement pl = gpu->placement();
  EXPECT_TRUE(pl.fallback_nodes.empty()) << "first: " << pl.fallback_nodes[0];
  EXPECT_EQ(pl.num_copies, 0u);
  Initialise(cpu.get(), gpu.get());
  for (int step = 0; step < 20; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    for (Executor* ex : {cpu.get(), gpu.get()}) {
      ex->Forward(true);
      ex->Backward();
    }
    ExpectSame(gpu->outputs()[0], cpu->outputs()[0], "softmax output");
    for (size_t i = 0; i < cpu->grad_arrays().size(); ++i)
      if (!cpu->grad_arrays()[i].is_none())
        ExpectSame(gpu->grad_arrays()[i], cpu->grad_arrays()[i],
                   "gradient of " + cpu->arg_names()[i]);
    SgdStep(cpu.get(), 0.1);
    SgdStep(gpu.get(), 0.1);
  }
  for (size_t i = 0; i < cpu->arg_arrays().size(); ++i)
    ExpectSame(gpu->arg_arrays()[i], cpu->arg_arrays()[i], "argument " + cpu->arg_names()[i]);
  for (size_t i = 0; i < cpu->aux_arrays().size(); ++i)
    ExpectSame(gpu->aux_arrays()[i], cpu->aux_arrays()[i], "aux state " + std::to_string(i));
  // Inference on the trained weights too.
  cpu->Forward(false);
  gpu->Forward(false);
  ExpectSame(gpu->outputs()[0], cpu->outputs()[0], "inference output");
}

// x (4, 5) -> FullyConnected(6) -> clip -> FullyConnected(3): clip and its
// gradient have no GPU kernel.
Symbol ClipNet() {
  Symbol x = Symbol::CreateVariable("data");
  Symbol y = Op("FullyConnected", {x}, "fc1", {{"num_hidden", "6"}});
  y = Op("clip", {y}, "t", {{"a_min", "-0.5"}, {"a_max", "0.5"}});
  return Op("FullyConnected", {y}, "fc2", {{"num_hidden", "3"}});
}

std::unique_ptr<Executor> BindClipNet(Context ctx, bool allow_fallback = true) {
  ExecutorOptions o;
  o.allow_fallback = allow_fallback;
  return Executor::SimpleBind(&Runtime::Global(), ClipNet(), ctx, {{"data", Shape{4, 5}}}, {},
                              GradReqSpec::All(GradReq::kWrite), o);
}

TEST(CudaModel, FallbackNodesRunOnTheCpuAndCanBeRefused) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const KernelRegistry& k = Runtime::Global().kernels();
  if (k.Find("clip", DeviceType::kGPU)) GTEST_SKIP() << "clip has a GPU kernel: pick another op";
  auto cpu = BindClipNet(Context::CPU(0));
  auto gpu = BindClipNet(Context::GPU(0));
  const ExecutorPlacement pl = gpu->placement();
  ASSERT_FALSE(pl.fallback_nodes.empty());
  EXPECT_EQ(pl.fallback_nodes[0], "t");
  IndexedGraph g(gpu->graph());
  for (const std::string& name : pl.fallback_nodes) {
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      if (g.node(nid).attrs.name != name) continue;
      EXPECT_EQ(k.Find(g.node(nid).op()->name, DeviceType::kGPU), nullptr) << name;
      EXPECT_EQ(gpu->node_devices()[nid], Context::CPU(0)) << name;
    }
  }
  EXPECT_GE(pl.num_copies, 2u);
  EXPECT_EQ(pl.forward_copy_bytes, 2u * 4 * 6 * sizeof(float));  // fc1's output there, t's back
  EXPECT_NE(gpu->DebugString().find("fall back to cpu(0): t"), std::string::npos);
  for (size_t i = 0; i < cpu->arg_arrays().size(); ++i) {
    const NDArray v = test::RandomArray(cpu->arg_arrays()[i].shape(), DType::kFloat32, -1, 1,
                                        static_cast<unsigned>(60 + i));
    NDArray c = cpu->arg_arrays()[i], w = gpu->arg_arrays()[i];
    v.CopyTo(&c);
    v.CopyTo(&w);
  }
  const NDArray head = test::RandomArray({4, 3}, DType::kFloat32, -1, 1, 70);
  cpu->Forward(true);
  cpu->Backward({head});
  gpu->Forward(true);
  gpu->Backward({head.Copy(Context::GPU(0))});
  ExpectSame(gpu->outputs()[0], cpu->outputs()[0], "output");
  for (size_t i = 0; i < cpu->grad_arrays().size(); ++i)
    if (!cpu->grad_arrays()[i].is_none())
      ExpectSame(gpu->grad_arrays()[i], cpu->grad_arrays()[i],
                 "gradient of " + cpu->arg_names()[i]);
  test::ExpectError([] { BindClipNet(Context::GPU(0), false); }, StatusCode::kNotImplemented,
                    {"clip", "has no kernel for device", "allow_fallback"});
}

// data (8, 1, 16, 16) -> conv5x5(6) -> tanh -> max pool -> conv3x3(8) ->
// tanh -> max pool -> FC(32) -> tanh -> FC(10) -> SoftmaxOutput.
Symbol LeNet() {
  Symbol y = Op("Convolution", {Symbol::CreateVariable("data")}, "conv1",
                {{"kernel", "(5,5)"}, {"num_filter", "6"}});
  y = Op("Activation", {y}, "tanh1", {{"act_type", "tanh"}});
  y = Op("Pooling", {y}, "pool1", {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}});
  y = Op("Convolution", {y}, "conv2", {{"kernel", "(3,3)"}, {"num_filter", "8"}});
  y = Op("Activation", {y}, "tanh2", {{"act_type", "tanh"}});
  y = Op("Pooling", {y}, "pool2", {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}});
  y = Op("Flatten", {y}, "flat");
  y = Op("FullyConnected", {y}, "fc1", {{"num_hidden", "32"}});
  y = Op("Activation", {y}, "tanh3", {{"act_type", "tanh"}});
  y = Op("FullyConnected", {y}, "fc2", {{"num_hidden", "10"}});
  return Op("SoftmaxOutput", {y, Symbol::CreateVariable("softmax_label")}, "softmax");
}

// Four fixed batches of random images with labels 0..9.
std::vector<DataBatch> Batches(const Shape& data, int classes) {
  std::vector<DataBatch> out;
  for (unsigned b = 0; b < 4; ++b) {
    std::vector<double> l(static_cast<size_t>(data[0]));
    for (size_t k = 0; k < l.size(); ++k) l[k] = static_cast<double>((k * 7 + b * 3) % classes);
    DataBatch batch;
    batch.data = {test::RandomArray(data, DType::kFloat32, -1, 1, 200 + b)};
    batch.label = {test::Array(Shape{data[0]}, l, DType::kFloat32)};
    out.push_back(batch);
  }
  return out;
}

// Trains `cpu` and `gpu` (bound, the GPU one initialised from the CPU one)
// `steps` steps on the batches and compares every parameter at the end.
void TrainBoth(Module* cpu, Module* gpu, const std::vector<DataBatch>& batches, int steps) {
  for (int step = 0; step < steps; ++step) {
    const DataBatch& b = batches[static_cast<size_t>(step) % batches.size()];
    for (Module* m : {cpu, gpu}) {
      m->Forward(b, true);
      m->Backward();
      m->Update();
    }
  }
  const auto c = cpu->arg_params(), g = gpu->arg_params();
  ASSERT_EQ(c.size(), g.size());
  for (const auto& [name, value] : c)
    ExpectSame(g.at(name), value, "parameter " + name + " after training");
  ExpectSame(gpu->outputs()[0], cpu->outputs()[0], "output of the last step");
}

TEST(CudaModel, ModuleTrainsLeNetWithMomentumAsOnTheCpu) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape data{8, 1, 16, 16};
  Module cpu(&Runtime::Global(), LeNet()),
      gpu(&Runtime::Global(), LeNet(), {"data"}, {"softmax_label"}, Context::GPU(0));
  for (Module* m : {&cpu, &gpu}) m->Bind({{"data", data}}, {{"softmax_label", Shape{8}}}, true);
  const ExecutorPlacement pl = gpu.executor()->placement();
  EXPECT_TRUE(pl.fallback_nodes.empty()) << "first: " << pl.fallback_nodes[0];
  auto init = Initializer::Create("xavier", {}, 3);
  cpu.InitParams(init.get());
  gpu.InitParams(nullptr, cpu.arg_params(), cpu.aux_params(), false);
  const StringMap opt = {{"learning_rate", "0.02"}, {"momentum", "0.9"}, {"wd", "0.0001"}};
  cpu.InitOptimizer(Optimizer::Create("sgd", opt));
  gpu.InitOptimizer(Optimizer::Create("sgd", opt));
  TrainBoth(&cpu, &gpu, Batches(data, 10), 100);
}

TEST(CudaModel, ModuleTrainsAnMlpWithAdamAsOnTheCpu) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  Symbol y = Op("FullyConnected", {Symbol::CreateVariable("data")}, "fc1", {{"num_hidden", "64"}});
  y = Op("Activation", {y}, "relu1", {{"act_type", "relu"}});
  y = Op("FullyConnected", {y}, "fc2", {{"num_hidden", "4"}});
  const Symbol mlp = Op("SoftmaxOutput", {y, Symbol::CreateVariable("softmax_label")}, "softmax");
  const Shape data{16, 20};
  Module cpu(&Runtime::Global(), mlp),
      gpu(&Runtime::Global(), mlp, {"data"}, {"softmax_label"}, Context::GPU(0));
  for (Module* m : {&cpu, &gpu}) m->Bind({{"data", data}}, {{"softmax_label", Shape{16}}}, true);
  EXPECT_TRUE(gpu.executor()->placement().fallback_nodes.empty());
  auto init = Initializer::Create("uniform", {{"scale", "0.2"}}, 5);
  cpu.InitParams(init.get());
  gpu.InitParams(nullptr, cpu.arg_params(), cpu.aux_params(), false);
  const StringMap opt = {{"learning_rate", "0.001"}};
  cpu.InitOptimizer(Optimizer::Create("adam", opt));
  gpu.InitOptimizer(Optimizer::Create("adam", opt));
  TrainBoth(&cpu, &gpu, Batches(data, 4), 100);
}

// Binds `file` (shared test data) for inference on cpu(0) and gpu(0) with
// the same Xavier weights (aux states by their names' rules), runs both on
// one random batch and compares every output; returns the fallback nodes.
std::vector<std::string> CompareModelFile(const std::string& file, const Shape& data) {
  const Symbol sym =
      LoadJSONFile(test::SharedTestDataDir() + "/mxnet-models/" + file, Runtime::Global().ops())
          .symbol;
  const pass::ShapeMap shapes = {{"data", data}};
  auto cpu = Executor::SimpleBind(&Runtime::Global(), sym, Context::CPU(0), shapes, {},
                                  GradReqSpec::All(GradReq::kNull));
  auto gpu = Executor::SimpleBind(&Runtime::Global(), sym, Context::GPU(0), shapes, {},
                                  GradReqSpec::All(GradReq::kNull));
  auto init = Initializer::Create("xavier", {}, 11);
  auto fill = [&](const std::string& name, NDArray c, NDArray g, unsigned seed) {
    NDArray v(c.shape(), Context::CPU(0), c.dtype(), &Runtime::Global());
    if (name == "data")
      v = test::RandomArray(c.shape(), c.dtype(), -1, 1, seed);
    else if (name.find("label") != std::string::npos)
      v = test::RandomArray(c.shape(), c.dtype(), 0, 0, seed);
    else
      init->Init(name, &v, {});
    v.CopyTo(&c);
    v.CopyTo(&g);
  };
  for (size_t i = 0; i < cpu->arg_names().size(); ++i)
    fill(cpu->arg_names()[i], cpu->arg_arrays()[i], gpu->arg_arrays()[i], static_cast<unsigned>(i));
  for (size_t i = 0; i < cpu->aux_names().size(); ++i)
    fill(cpu->aux_names()[i], cpu->aux_arrays()[i], gpu->aux_arrays()[i], 0);
  cpu->Forward(false);
  gpu->Forward(false);
  for (size_t i = 0; i < cpu->outputs().size(); ++i)
    ExpectSame(gpu->outputs()[i], cpu->outputs()[i], file + " output " + std::to_string(i));
  return gpu->placement().fallback_nodes;
}

TEST(CudaModel, RealModelFilesInferAsOnTheCpu) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  if (!std::ifstream(test::SharedTestDataDir() + "/mxnet-models/deepinsight__det1-symbol.json"))
    GTEST_SKIP() << "no shared model files";
  EXPECT_EQ(CompareModelFile("pathak-ashutosh__resnet-50-symbol.json", Shape{2, 3, 224, 224}),
            std::vector<std::string>{});
  EXPECT_EQ(CompareModelFile("miaow1988__model-symbol.json", Shape{1, 3, 227, 227}),
            std::vector<std::string>{});
  // MTCNN P-Net: PReLU (LeakyReLU act_type=prelu), two outputs.
  EXPECT_EQ(CompareModelFile("deepinsight__det1-symbol.json", Shape{1, 3, 48, 48}),
            std::vector<std::string>{});
}

}  // namespace
}  // namespace weft
