// A bulk segment's device work recorded once and replayed (CUDA graphs,
// DeviceAPI::BeginCapture): with WEFT_CUDA_GRAPHS=1 an executor's forward
// segments on a GPU run eagerly once (algorithm choices, caches), are
// recorded on their second inference-mode run, and are replayed after,
// one launch per segment. A segment whose recording fails (a kernel
// synchronises or copies from host memory) runs eagerly from then on.
// BorrowArgument re-points inputs: Invalidate, and the next run records
// again. Reshape binds a new executor (new segments).
#ifndef WEFT_CORE_EXECUTOR_SEGMENT_GRAPH_H_
#define WEFT_CORE_EXECUTOR_SEGMENT_GRAPH_H_

#include <functional>
#include <string>

#include "weft/device.h"
#include "weft/mutex.h"

namespace weft {

class SegmentGraph {
 public:
  SegmentGraph(DeviceAPI* api, Context ctx) : api_(api), ctx_(ctx) {}
  ~SegmentGraph();
  SegmentGraph(const SegmentGraph&) = delete;
  SegmentGraph& operator=(const SegmentGraph&) = delete;

  // Runs the segment on `stream`: `eager` queues its kernels, or the
  // recorded graph is replayed.
  void Run(void* stream, const std::function<void()>& eager);
  // Drops the recording; the next run records again.
  void Invalidate();
  bool recorded() const;
  // Why the last recording failed ("" when none did).
  std::string failure() const;

 private:
  DeviceAPI* api_;
  Context ctx_;
  mutable Mutex mu_;
  void* graph_ WEFT_GUARDED_BY(mu_) = nullptr;
  int runs_ WEFT_GUARDED_BY(mu_) = 0;
  bool failed_ WEFT_GUARDED_BY(mu_) = false;
  std::string why_ WEFT_GUARDED_BY(mu_);
};

}  // namespace weft

#endif  // WEFT_CORE_EXECUTOR_SEGMENT_GRAPH_H_
