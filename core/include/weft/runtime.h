// Runtime: owns the registries, device hooks, storage pools and RNG state.
//
// The constructor registers every operator and the CPU DeviceAPI; kernels
// (and the CUDA DeviceAPI) are installed by whoever assembles the runtime:
// the process runtime `Global()`, defined by the assembly unit
// init/runtime_global.cc (not by core), is created on first use with every
// built-in kernel (kernels/register_kernels.h) and lives until process exit;
// it also gives the global engine its device hooks. Core never calls
// Global(): its functions and objects receive a Runtime (or one of its
// registries) from their caller, or use the one their arrays, executor,
// predictor or module were created with; the C ABI, the CLI, tests and
// benchmarks pass Global(). Tests may build fresh Runtimes with a chosen set
// of kernels. Registries are read-only once the runtime is in use (extend
// them through mutable_ops/kernels first); pool and RNG access is
// synchronised internally.
#ifndef WEFT_RUNTIME_H_
#define WEFT_RUNTIME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>

#include "weft/device.h"
#include "weft/mutex.h"
#include "weft/op.h"
#include "weft/storage.h"

namespace weft {

namespace engine {
class Var;
}  // namespace engine

// Per-context random generator; ops that draw numbers lock `mu`. `var` is
// its engine variable: ops with OpDef::uses_rng write it, so random ops run
// one at a time in push order and results are reproducible.
struct RandomState {
  Mutex mu;
  std::mt19937_64 engine WEFT_GUARDED_BY(mu){0};
  engine::Var* var = nullptr;
};

class Runtime {
 public:
  Runtime();
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  static Runtime& Global();

  const OpRegistry& ops() const { return ops_; }
  const KernelRegistry& kernels() const { return kernels_; }
  // Registries to extend (tests, embedders adding their own operators).
  // REQUIRES: no other thread uses this runtime meanwhile; call before
  // binding or invoking anything on it.
  OpRegistry* mutable_ops() { return &ops_; }
  KernelRegistry* mutable_kernels() { return &kernels_; }

  // The DeviceAPI for `t`; throws Error(kDevice) when it is not compiled in.
  DeviceAPI* device_api(DeviceType t) const;
  // Installs the hooks for a device type (kernels/cuda does this for GPUs).
  void SetDeviceAPI(DeviceType t, DeviceAPI* api);
  // Throws Error(kDevice) naming `ctx` and the number of devices found when
  // this build or machine has no such device (gpu(0) without CUDA or GPU).
  void CheckDevice(Context ctx) const;
  // The pool serving `ctx`; throws Error(kDevice) if the device is missing.
  std::shared_ptr<StoragePool> storage(Context ctx);
  // Sum of live bytes over every pool.
  size_t live_bytes() const;
  // The random state of `ctx`.
  RandomState* rng(Context ctx);
  // Reseeds every context's generator (context i gets seed mixed with its
  // id), as an engine write on each state's variable, i.e. after every
  // random op pushed before and before every one pushed after.
  void Seed(uint64_t seed);

 private:
  OpRegistry ops_;
  KernelRegistry kernels_;
  std::map<DeviceType, DeviceAPI*> apis_;
  mutable Mutex mu_;
  std::map<Context, std::shared_ptr<StoragePool>> pools_ WEFT_GUARDED_BY(mu_);
  std::map<Context, std::unique_ptr<RandomState>> rngs_ WEFT_GUARDED_BY(mu_);
  uint64_t seed_ WEFT_GUARDED_BY(mu_) = 0;
};

}  // namespace weft

#endif  // WEFT_RUNTIME_H_
