// The one harness for operators with more than one kernel backend. An op's
// "cpu" kernel is the reference; every other backend this build registered
// for it (the CPU's "blas" and "dnnl", the GPU's "cuda"/"cudnn"/"cublas"
// when a device is present) runs on the same inputs, with write and add
// requests, and every output and every input afterwards (inputs an op
// mutates, such as BatchNorm's moving statistics) must match the reference.
//
// Cases are data: a test file adds them to the table with
// WEFT_BACKEND_CASES, and tests/kernels/backend_harness_test.cc runs the
// table and checks that every multi-backend op of the build has a case
// (ggml's test-backend-ops, in GoogleTest).
#ifndef WEFT_TESTS_UTIL_BACKEND_HARNESS_H_
#define WEFT_TESTS_UTIL_BACKEND_HARNESS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/test_util.h"

namespace weft {
namespace test {

// GPUs usable by this process: 0 without CUDA, a driver or a device.
int GpuCount();

// One kernel of an op: where it runs and the backend that registered it.
struct Backend {
  DeviceType dev;
  std::string name;
  std::string Label() const;  // "cpu/blas", "gpu/cudnn"
};

// Every backend registered for `op` in this build (CPU ones first, "cpu"
// first among them), whether or not a GPU is present.
std::vector<Backend> BackendsOf(const std::string& op, const Runtime& rt = Runtime::Global());
// Ops with more than one backend in this build.
std::vector<std::string> MultiBackendOps();

// An input of a case: shape and the uniform range of its values.
struct In {
  Shape shape;
  double lo = -1, hi = 1;
};

struct CompareOptions {
  bool train = false;
  // Outputs and inputs must equal the reference exactly (NaN equals NaN),
  // for ops that select or compare rather than compute.
  bool exact = false;
  // Element-wise |got - ref| <= rtol * (|ref| + 1e-2 * max|ref| + 1e-2);
  // the last terms are an absolute floor for outputs whose exact value is 0
  // and whose reference holds only rounding.
  double rtol32 = 1e-4, rtol64 = 1e-10;
  // A wider float32 tolerance for the backends named (labels, "gpu/cudnn"):
  // a library whose algorithms reduce in another order than the direct sums.
  std::map<std::string, double> rtol32_of;
  // Requests tried, one per output in turn: write, add, and (for ops with
  // more than one output) the mix "first skipped, second added, rest
  // written".
  bool add = true;
  bool mixed = false;
  // The runtime whose kernels run (the global one when null).
  Runtime* rt = nullptr;
  // Backends (labels, "gpu/cudnn") that do not take this case: they reject
  // it with kNotImplemented by design (3-D convolution is CPU only).
  std::vector<std::string> skip;
  // Also run the op through Invoke on cpu(0) (labelled "cpu/invoke"): the
  // path the GPU comparison takes, checked on any machine.
  bool cpu_invoke = false;
  // An absolute tolerance added to the relative one: a level of a quantized
  // output, where backends may round a tie apart.
  double atol = 0;
  // The op's nested graphs (NodeAttrs::subgraphs, e.g. a fused convolution's
  // layers); such a case runs the CPU backends' kernels directly (no Invoke).
  std::vector<std::shared_ptr<const Graph>> subgraphs;
};

// Fails (at most 5 elements reported) where |got - ref| exceeds the
// tolerance of CompareOptions (or got != ref when `exact`).
void ExpectClose(const std::vector<double>& got, const std::vector<double>& ref, double rtol,
                 const std::string& what, bool exact = false, double atol = 0);

// Runs `op` on every backend of BackendsOf(op) usable here and compares it
// with the reference on `in` (cpu(0) arrays). Returns how many backends
// were compared (0 when only the reference is usable here).
int CompareBackends(const std::string& op, const std::vector<NDArray>& in, const StringMap& params,
                    const CompareOptions& opts = {});

// A case of the table. Inputs are random (float32 and float64, seeds 1, 2,
// ...) from `in`, or built per dtype by `make` (a backward op's inputs from
// a forward run, values with ties).
struct BackendCase {
  BackendCase(std::string op_name, std::vector<In> inputs, StringMap p = {}, CompareOptions o = {})
      : op(std::move(op_name)), in(std::move(inputs)), params(std::move(p)), opts(o) {}
  // Inputs from `make_inputs` instead of random ones.
  BackendCase(std::string op_name, std::function<std::vector<NDArray>(DType)> make_inputs,
              StringMap p = {}, CompareOptions o = {})
      : op(std::move(op_name)), params(std::move(p)), opts(o), make(std::move(make_inputs)) {}

  std::string op;
  std::string group;  // the WEFT_BACKEND_CASES name that added it
  std::vector<In> in;
  StringMap params;
  CompareOptions opts;
  std::function<std::vector<NDArray>(DType)> make;
  std::vector<DType> dtypes = {DType::kFloat32, DType::kFloat64};
};

// A backward op's case: `fwd` runs on the reference path with random `in`
// (seeds 1, 2, ...), and `bwd`'s inputs are `make(ograd, x, y)` with a
// random ograd shaped like output 0.
using BackwardInputs = std::function<std::vector<NDArray>(
    const NDArray& ograd, const std::vector<NDArray>& x, const std::vector<NDArray>& y)>;
BackendCase BackwardCase(const std::string& fwd, const std::string& bwd, const std::vector<In>& in,
                         const StringMap& params, BackwardInputs make, CompareOptions opts = {});
// The usual backward inputs: (ograd, x0), (ograd, x0, x1), (ograd, x0, y0),
// (ograd, y0) and (ograd, every x).
std::vector<NDArray> OgradData(const NDArray& og, const std::vector<NDArray>& x,
                               const std::vector<NDArray>& y);
std::vector<NDArray> OgradDataWeight(const NDArray& og, const std::vector<NDArray>& x,
                                     const std::vector<NDArray>& y);
std::vector<NDArray> OgradDataOut(const NDArray& og, const std::vector<NDArray>& x,
                                  const std::vector<NDArray>& y);
std::vector<NDArray> OgradOutput(const NDArray& og, const std::vector<NDArray>& x,
                                 const std::vector<NDArray>& y);
std::vector<NDArray> OgradInputs(const NDArray& og, const std::vector<NDArray>& x,
                                 const std::vector<NDArray>& y);

// Runs `c` for each of its dtypes; returns the backends compared in all.
int RunCase(const BackendCase& c);

// `base` with the entries of `extra` added or replaced: a case's parameters
// as a variation of a group's common ones.
StringMap With(StringMap base, const StringMap& extra);

// Random arrays (dtype t, seeds from `seed`) for the given inputs.
std::vector<NDArray> Randoms(const std::vector<In>& in, DType t, unsigned seed);
// The outputs of `op` on cpu(0) of `rt` (the global runtime when null; the
// reference path), e.g. to build a backward case's inputs.
std::vector<NDArray> RunCpu(const std::string& op, const std::vector<NDArray>& in,
                            const StringMap& params, bool train = false, Runtime* rt = nullptr);
// The dtypes of `op`'s inputs and outputs once its float32 inputs become
// the reduced float `t`: the first float32 input (the data) is `t`, each
// other float32 input what the op's type inference asks for given that
// (a BatchNorm's parameters stay float32), else `t`; the outputs as then
// inferred (kUnknown where inference does not say).
struct CaseDTypes {
  std::vector<DType> in, out;
};
CaseDTypes ReducedDTypes(const std::string& op, const StringMap& params,
                         const std::vector<NDArray>& in, DType t);
// The outputs of `op` invoked on `ctx` (its preferred kernel there) on
// copies of `in`, returned on cpu(0).
std::vector<NDArray> RunOn(Context ctx, const std::string& op, const std::vector<NDArray>& in,
                           const StringMap& params, bool train = false, Runtime* rt = nullptr);

// The table: every case added by WEFT_BACKEND_CASES, in link order, and
// the names of its groups.
std::vector<BackendCase>& BackendCases();
std::vector<std::string> BackendCaseGroups();
struct BackendCaseAdder {
  BackendCaseAdder(const char* group, std::vector<BackendCase> cases);
};

}  // namespace test
}  // namespace weft

// WEFT_BACKEND_CASES(name) { return {...cases...}; } adds a group of cases
// to the table; `name` must be unique in the test binary.
#define WEFT_BACKEND_CASES(name)                                                 \
  static std::vector<::weft::test::BackendCase> WeftBackendCases_##name();       \
  static const ::weft::test::BackendCaseAdder weft_backend_cases_##name##_adder( \
      #name, WeftBackendCases_##name());                                         \
  static std::vector<::weft::test::BackendCase> WeftBackendCases_##name()

#endif  // WEFT_TESTS_UTIL_BACKEND_HARNESS_H_
