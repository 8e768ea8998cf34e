// Helpers of the CUDA kernel tests: the device count, and running one op on
// cpu(0) and gpu(0) with the same inputs (write and add requests) and
// comparing every output and every input afterwards (inputs an op mutates,
// such as BatchNorm's moving statistics, must match too).
#ifndef WEFT_TESTS_KERNELS_CUDA_TEST_UTIL_H_
#define WEFT_TESTS_KERNELS_CUDA_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "util/test_util.h"

namespace weft {
namespace test {

// GPUs usable by this process: 0 without CUDA, a driver or a device.
inline int GpuCount() {
  try {
    return Runtime::Global().device_api(DeviceType::kGPU)->DeviceCount();
  } catch (const Error&) {
    return 0;  // not compiled with CUDA
  }
}

// An input of a comparison: shape and the uniform range of its values.
struct In {
  Shape shape;
  double lo = -1, hi = 1;
};

struct DeviceRun {
  std::vector<std::vector<double>> outs, ins;
};

// Runs `op` on `ctx` with copies of `in`; with kAdd the outputs start as
// copies of `init`.
inline DeviceRun RunOn(Context ctx, const std::string& op, const std::vector<NDArray>& in,
                       const StringMap& params, bool train, OpReq req,
                       const std::vector<NDArray>& init) {
  std::vector<NDArray> ins, outs;
  for (const auto& a : in) ins.push_back(a.Copy(ctx));
  InvokeOptions opts;
  opts.is_train = train;
  if (req == OpReq::kAdd) {
    for (const auto& a : init) outs.push_back(a.Copy(ctx));
    opts.reqs.assign(init.size(), OpReq::kAdd);
  }
  Invoke(nullptr, op, ins, params, &outs, opts);
  DeviceRun r;
  for (const auto& a : outs) r.outs.push_back(Values(a.Copy(Context::CPU(0))));
  for (const auto& a : ins) r.ins.push_back(Values(a.Copy(Context::CPU(0))));
  return r;
}

// Element-wise |gpu - cpu| <= rtol * (|cpu| + 1e-2 * max|cpu| + 1e-2): the
// last term is an absolute floor for outputs whose exact value is 0 and
// whose reference holds only rounding (LayerNorm's gradient over one
// element), which the tests' O(1) inputs make safe.
inline void ExpectClose(const std::vector<double>& gpu, const std::vector<double>& cpu, double rtol,
                        const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  double scale = 0;
  for (double v : cpu) scale = std::max(scale, std::fabs(v));
  int bad = 0;
  for (size_t i = 0; i < cpu.size() && bad < 5; ++i) {
    const double tol = rtol * (std::fabs(cpu[i]) + 1e-2 * scale + 1e-2);
    if (!(std::fabs(gpu[i] - cpu[i]) <= tol)) {
      ADD_FAILURE() << what << " element " << i << ": gpu " << gpu[i] << " cpu " << cpu[i];
      ++bad;
    }
  }
}

// Compares `op` on gpu(0) against cpu(0) on the given arrays, with kWrite
// and kAdd requests.
inline void CompareArrays(const std::string& op, const std::vector<NDArray>& in,
                          const StringMap& params, bool train = false) {
  const DType t = in.at(0).dtype();
  const double rtol = t == DType::kFloat64 ? 1e-10 : 1e-4;
  const std::string label = op + " (" + DTypeName(t) + (train ? ", train" : "") + ")";
  for (OpReq req : {OpReq::kWrite, OpReq::kAdd}) {
    std::vector<NDArray> init;
    if (req == OpReq::kAdd) {
      std::vector<NDArray> probe;
      std::vector<NDArray> ins;
      for (const auto& a : in) ins.push_back(a.Copy(Context::CPU(0)));
      InvokeOptions opts;
      opts.is_train = train;
      Invoke(nullptr, op, ins, params, &probe, opts);
      unsigned seed = 100;
      for (const auto& p : probe) init.push_back(RandomArray(p.shape(), t, -1, 1, seed++));
    }
    const DeviceRun c = RunOn(Context::CPU(0), op, in, params, train, req, init);
    const DeviceRun g = RunOn(Context::GPU(0), op, in, params, train, req, init);
    const std::string how = label + (req == OpReq::kAdd ? " req=add" : " req=write");
    for (size_t i = 0; i < c.outs.size(); ++i)
      ExpectClose(g.outs[i], c.outs[i], rtol, how + " output " + std::to_string(i));
    for (size_t i = 0; i < c.ins.size(); ++i)
      ExpectClose(g.ins[i], c.ins[i], rtol, how + " input " + std::to_string(i) + " afterwards");
  }
}

// CompareArrays on random inputs, once in float32 and once in float64.
inline void Compare(const std::string& op, const std::vector<In>& in, const StringMap& params,
                    bool train = false) {
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    std::vector<NDArray> arrays;
    unsigned seed = 1;
    for (const In& d : in) arrays.push_back(RandomArray(d.shape, t, d.lo, d.hi, seed++));
    CompareArrays(op, arrays, params, train);
  }
}

// Random arrays (dtype t, seeds from `seed`) for the given inputs.
inline std::vector<NDArray> Randoms(const std::vector<In>& in, DType t, unsigned seed) {
  std::vector<NDArray> out;
  for (const In& d : in) out.push_back(test::RandomArray(d.shape, t, d.lo, d.hi, seed++));
  return out;
}

// Runs `fwd` on cpu(0), then compares `bwd` on (ograd, extra...) where
// `make` builds the backward inputs from the forward inputs, outputs and a
// random ograd shaped like output 0.
template <typename F>
void CompareBackward(const std::string& fwd, const std::string& bwd, const std::vector<In>& in,
                     const StringMap& params, bool train, F make) {
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    const std::vector<NDArray> x = Randoms(in, t, 1);
    std::vector<NDArray> y;
    InvokeOptions opts;
    opts.is_train = train;
    std::vector<NDArray> x_copy;
    for (const auto& a : x) x_copy.push_back(a.Copy(Context::CPU(0)));
    Invoke(nullptr, fwd, x_copy, params, &y, opts);
    for (const auto& a : y) a.WaitToRead();
    NDArray og = test::RandomArray(y[0].shape(), t, -1, 1, 77);
    CompareArrays(bwd, make(og, x, y), params, train);
  }
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_KERNELS_CUDA_TEST_UTIL_H_
