// Predictor: thread-safe inference for services, over one read-only copy of
// a model's weights.
//
// Created from a symbol, its parameters (ParamMaps: "arg:"/"aux:" of a
// .params file) and the names and shapes of its inputs; every other
// argument is a weight and must be given. At creation the forward graph is
// rewritten for inference (the executor's inference passes, executor.h)
// and frozen: every node computable from the weights alone (the folded
// BatchNorm weights, say) is computed once and its result becomes a
// weight of its own, so executors hold no per-executor copy of it. The
// predictor keeps its own copies of the parameters it uses (unless
// PredictorOptions::copy_params is false): changing the caller's arrays
// afterwards changes nothing.
//
// Predict may be called from any number of threads at once. A call takes
// an idle executor bound for its input shapes from a pool; when none is
// idle it binds one (at most PredictorOptions::max_executors per input
// shape; beyond that it waits for one to come back, first come first served).
// Every executor binds
// the same weight arrays, so the weights, and the oneDNN convolution's
// reordered weights (kernels/dnnl CachedLayout shares them by array
// version), are held once whatever the number of callers; each executor
// adds only its planned activations and inputs. Input shapes not seen
// before bind new executors once, which are kept (at most max_shapes shape
// sets; the least recently used idle set is dropped beyond that). A call
// copies its inputs from host memory into the executor's input arrays and
// its outputs into the caller's buffers: one copy each way, no other, both
// on the calling thread for a CPU predictor (the input straight into the
// bound input array once the executor's last call no longer reads it; no
// engine hop), the input copies of a GPU one engine operations the forward
// is ordered after. A HostInput / HostOutput may instead carry a `fill` /
// `drain` function that writes the input into / reads the output from the
// bound array's memory itself (a binding copying from and into its
// language's own arrays, e.g. JNI's Get/SetFloatArrayRegion, keeps one copy
// each way so); it runs on the calling thread, on a staging buffer when
// the bound memory is not host memory or the call is batched. The caller's
// input buffers are no longer read when Predict returns.
//
// Errors (weft::Error): a wrong number of inputs/outputs, an input shape
// of the wrong rank or that the model cannot take (naming the input and
// the expected vs given shape), a buffer of the wrong size (naming the
// output, the bytes expected and given), and kernel failures naming the
// node. A failed call leaves the predictor usable.
//
// Dynamic batching (PredictorOptions::max_batch > 1): calls whose inputs
// all have one first extent b <= max_batch (the batch axis) are queued;
// collector threads (max_executors of them) each gather calls of equal
// shapes but that first extent until the batch holds max_batch samples or
// batch_delay_us have passed since its first call arrived (0, the default:
// only the calls already queued, adding no latency), run them as one batch
// through the executor pool (the inputs concatenated along the first axis,
// the outputs split back) and return each caller its own rows. Batches
// hold a power-of-two number of samples where the calls allow (the calls
// beyond lead the next batch), so single-sample calls bind at most
// log2(max_batch) + 1 shape sets. Every output must have the batch as its
// first axis (checked at Create). Calls with b > max_batch run alone, as
// without batching. A batch costs one executor run, so with many callers
// sending single samples the throughput rises (bench/README.md says by how
// much); a positive delay gathers more per batch at the price of up to
// that much latency.
//
// Data-dependent output shapes: a model holding an operator whose output
// extents depend on the input values (weft/dynamic_shape.h: ONNX's
// NonMaxSuppression, how many boxes survive) cannot be planned by an
// executor. Its calls run the frozen graph node by node as a CachedOp runs
// it (cached_op.h), on the calling thread with the kernels on the engine;
// the pool's slots hold each a set of input arrays instead of an executor
// (max_executors of them per input shape set still bound the calls running
// at once), and every call allocates its activations from the storage
// pool. OutputShapes gives each output's upper bound (InferBoundShapes:
// every box kept), a buffer size that always suffices; a call's own shapes
// come back through HostOutput::shape, whose buffers are then capacities.
// What differs: dynamic batching is refused at Create (its outputs cannot
// be split by sample), the caller's inputs are always copied (never lent to
// the kernels), a monitor cannot be set (no executor reports the nodes),
// and the stats count these slots as executors with no plans and no
// planned memory.
//
// Close(): calls waiting for an executor and later calls fail with
// Error(kInvalidArgument, "... predictor is closed"); Close waits for the
// calls already running to finish, so it returns only when no executor is
// in use. The destructor closes.
#ifndef WEFT_PREDICTOR_H_
#define WEFT_PREDICTOR_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/device.h"
#include "weft/executor.h"
#include "weft/ndarray_io.h"
#include "weft/pass.h"
#include "weft/shape.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;

// The queue between callers and the batch collectors; bench/README.md
// compares the two.
enum class BatchQueue { kMutex, kLockfree /* Boost.Lockfree */ };

struct PredictorOptions {
  // What Predict returns, in order: names of GetInternals().ListOutputs()
  // ("conv4_2_output", "softmax_output") or node names ("fc1", its first
  // output). Empty: the symbol's outputs.
  std::vector<std::string> outputs;
  // Executors per input shape set (concurrent calls of one shape); 0: twice the
  // machine's cores, at least 4 (bound only as concurrent calls need them).
  int max_executors = 0;
  // Input shape sets kept bound (>= 1).
  int max_shapes = 8;
  // false: the predictor binds the given parameter arrays themselves
  // instead of copies (no second copy while loading; the caller must then
  // never write them). The C ABI loads its own arrays and passes false.
  bool copy_params = true;
  // How each executor is bound (bulk_max_nodes, optimize_inference, ...);
  // group2ctx must be empty.
  ExecutorOptions executor;
  // Dynamic batching (see the file comment): 0 or 1 off, else the most
  // samples one batch gathers.
  int max_batch = 0;
  // How long a batch's first call waits for more, in microseconds (>= 0;
  // 0: no waiting, a batch takes the calls already queued).
  int batch_delay_us = 0;
  BatchQueue batch_queue = BatchQueue::kMutex;
};

// One input of a Predict call: `bytes` of host memory holding an array of
// `shape` in the input's dtype (float32 unless the model says otherwise).
// With `fill` set, `data` is unused: fill(dst, bytes) writes the input's
// `bytes` at dst (see the file comment).
struct HostInput {
  HostInput(const void* data = nullptr, size_t bytes = 0, Shape shape = Shape())
      : data(data), bytes(bytes), shape(std::move(shape)) {}
  const void* data;
  size_t bytes;
  Shape shape;
  std::function<void(void* dst, size_t bytes)> fill;
};

// One output buffer of a Predict call; `bytes` must equal the output's size,
// unless `shape` is set: then Predict stores the output's shape of this
// call there and `bytes` is the buffer's capacity (at least the output's
// size; the output is written at its start). A model of data-dependent
// output shape (see the file comment) knows its sizes only once a call ran.
// With `drain` set, `data` is unused: drain(src, bytes) reads the output
// (the output's bytes, not the capacity).
struct HostOutput {
  HostOutput(void* data = nullptr, size_t bytes = 0) : data(data), bytes(bytes) {}
  void* data;
  size_t bytes;
  std::function<void(const void* src, size_t bytes)> drain;
  Shape* shape = nullptr;
};

struct PredictorStats {
  size_t executors = 0;         // bound executors, over all shape sets
  size_t shape_sets = 0;        // input shape sets bound
  size_t plans = 0;             // compiled executor plans: one per shape set, shared
  size_t in_use = 0;            // executors running a call now
  size_t weight_bytes = 0;      // the frozen weights, held once
  size_t activation_bytes = 0;  // planned memory over all executors
  size_t batches = 0;           // dynamic batches run so far
  size_t batched_calls = 0;     // calls those batches served
  size_t inputs_lent = 0;       // inputs the kernels read in the caller's buffer (no copy)
  size_t inputs_copied = 0;     // inputs copied into a bound array (callbacks, batches, monitors)
};

class Predictor {
 public:
  // `inputs` names every input with its shape, in the order Predict takes
  // them (the shapes of the first executors; later calls may use others). Throws Error naming what
  // is wrong: an input that is no argument of the symbol, a weight that `params` lacks or of the
  // wrong shape, an unknown output name, options out of range, shapes the model cannot take.
  // `rt` (not null) gives the kernels, device hooks and memory; it must outlive the predictor.
  static std::unique_ptr<Predictor> Create(Runtime* rt, const Symbol& symbol,
                                           const ParamMaps& params,
                                           const std::vector<std::pair<std::string, Shape>>& inputs,
                                           Context ctx, const PredictorOptions& options = {});
  ~Predictor();
  Predictor(const Predictor&) = delete;
  Predictor& operator=(const Predictor&) = delete;

  // In the order Predict takes them.
  const std::vector<std::string>& input_names() const;
  const std::vector<DType>& input_dtypes() const;
  const std::vector<std::string>& output_names() const;
  const std::vector<DType>& output_dtypes() const;
  // True when the model holds an operator of data-dependent output shape
  // (see the file comment).
  bool dynamic_shapes() const;
  // The output shapes for these input shapes (one per input, in
  // input_names() order), from a bound executor or by shape inference; for
  // a model of data-dependent output shape, their upper bounds (see the
  // file comment).
  std::vector<Shape> OutputShapes(const std::vector<Shape>& input_shapes);
  // Runs the model on `inputs` (one per input, in input_names() order) and
  // writes `outputs` (one per output). Thread-safe; blocks until done.
  void Predict(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs);
  // See the file comment. Idempotent.
  void Close();
  PredictorStats stats() const;
  // A monitor on every executor of the predictor (Executor::SetMonitorCallback;
  // an empty callback removes it): called on the thread running Predict,
  // for the nodes of the executor it uses (the optimised inference graph's).
  // Throws Error(kNotImplemented) for a model of data-dependent output
  // shape (no executor runs its nodes).
  void SetMonitorCallback(Executor::MonitorCallback callback, bool monitor_all = false);
  // The frozen inference symbol the executors bind (for inspection).
  const Symbol& symbol() const;

 private:
  struct Impl;
  explicit Predictor(std::unique_ptr<Impl> impl);
  // Predict with the fill / drain functions run on staging buffers.
  void PredictStaged(const std::vector<HostInput>& inputs, const std::vector<HostOutput>& outputs);
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft

#endif  // WEFT_PREDICTOR_H_
