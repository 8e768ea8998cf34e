// Predictor (predictor.h): dynamic batching, the batch axis check and one
// batch's run through the executor pool.
#include <optional>

#include "predictor/host_copy.h"
#include "predictor/predictor_impl.h"
#include "weft/status.h"

namespace weft {

void Predictor::Impl::CheckBatchAxis() const {
  const IndexedGraph g(Graph{model.symbol.outputs});
  for (int64_t b : {2, 3}) {
    pass::ShapeMap known = KnownShapes({});
    for (size_t i = 0; i < input_names.size(); ++i) {
      const Shape& s = first_shapes[i];
      if (s.ndim() < 1)
        Fail(StatusCode::kInvalidArgument, "predictor: dynamic batching (max_batch ",
             opts.max_batch, ") needs inputs with a batch axis; input '", input_names[i],
             "' has shape ", s.ToString());
      std::vector<int64_t> dims = s.dims();
      dims[0] = b;
      known[input_names[i]] = Shape(dims);
    }
    const pass::ShapeResult r = pass::InferShape(g, known);
    for (size_t j = 0; j < r.out_shapes.size(); ++j) {
      const Shape& o = r.out_shapes[j];
      if (o.ndim() < 1 || o[0] != b)
        Fail(StatusCode::kInvalidArgument, "predictor: dynamic batching (max_batch ",
             opts.max_batch,
             ") needs every output to have the batch as its first axis; for a batch of ", b,
             " output '", output_names[j], "' has shape ", o.ToString());
    }
  }
}

bool Predictor::Impl::Batchable(const std::vector<HostInput>& inputs, BatchRequest* r) const {
  if (inputs.size() != input_names.size() || inputs.empty()) return false;
  const int64_t b = inputs[0].shape.ndim() >= 1 ? inputs[0].shape[0] : 0;
  if (b < 1 || b > opts.max_batch) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape;
    if (s.ndim() < 1 || s[0] != b || !s.is_known()) return false;
    const size_t bytes = static_cast<size_t>(s.Size()) * DTypeSize(input_dtypes[i]);
    if (inputs[i].bytes != bytes)
      Fail(StatusCode::kInvalidArgument, "predictor: input '", input_names[i], "' of shape ",
           s.ToString(), " (", DTypeName(input_dtypes[i]), ") needs ", bytes, " bytes, given ",
           inputs[i].bytes);
    r->sample_key.emplace_back(s.dims().begin() + 1, s.dims().end());
  }
  r->samples = b;
  return true;
}

void Predictor::Impl::RunBatch(const std::vector<BatchRequest*>& batch, int64_t total) {
  std::vector<Shape> shapes;
  for (const std::vector<int64_t>& rest : batch[0]->sample_key) {
    std::vector<int64_t> dims = {total};
    dims.insert(dims.end(), rest.begin(), rest.end());
    shapes.emplace_back(dims);
  }
  std::optional<ExecutorPool::Lease> lease;
  try {
    lease.emplace(pool->Acquire(shapes));
  } catch (...) {
    for (BatchRequest* r : batch) r->error = std::current_exception();
    return;
  }
  Executor& ex = lease->ex();
  try {
    int64_t off = 0;
    for (BatchRequest* r : batch) {
      for (size_t i = 0; i < shapes.size(); ++i)
        PushInputCopy(rt, lease->inputs()[i].Slice(off, off + r->samples), (*r->inputs)[i].data,
                      (*r->inputs)[i].bytes);
      inputs_copied += shapes.size();
      off += r->samples;
    }
    ex.Forward(false);
    // The forward completes here, whatever the callers' buffers: a batch
    // whose every output buffer is refused must not leave it running after
    // its executor is returned (or the process exits).
    for (const NDArray& o : ex.outputs()) o.WaitToRead();
    off = 0;
    for (BatchRequest* r : batch) {
      try {
        const std::vector<HostOutput>& outs = *r->outputs;
        for (size_t j = 0; j < outs.size(); ++j) {
          const NDArray part = ex.outputs()[j].Slice(off, off + r->samples);
          CheckOutputBuffer(output_names[j], part, outs[j]);
          CopyOut(part, outs[j]);  // staged: no drain
        }
      } catch (...) {
        r->error = std::current_exception();
      }
      off += r->samples;
    }
    batches.fetch_add(1);
    batched_calls.fetch_add(batch.size());
  } catch (...) {
    for (BatchRequest* r : batch)
      if (!r->error) r->error = std::current_exception();
  }
}

}  // namespace weft
