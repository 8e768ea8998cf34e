#include "executor/segment_graph.h"

#include <cstdlib>
#include <string>

#include "weft/status.h"

namespace weft {

bool ResolveCudaGraphs() {
  const char* env = std::getenv("WEFT_CUDA_GRAPHS");
  if (!env || !*env) return false;
  const std::string v(env);
  if (v == "0") return false;
  if (v == "1") return true;
  Fail(StatusCode::kInvalidArgument, "WEFT_CUDA_GRAPHS is '", v, "', expected 0 or 1");
}

SegmentGraph::~SegmentGraph() {
  MutexLock lock(&mu_);
  if (graph_) api_->FreeGraph(ctx_, graph_);
}

void SegmentGraph::Run(void* stream, const std::function<void()>& eager) {
  MutexLock lock(&mu_);
  if (graph_) {
    api_->LaunchGraph(ctx_, graph_, stream);
    return;
  }
  if (failed_ || runs_++ == 0 || !api_->BeginCapture(ctx_, stream)) {
    failed_ = failed_ || runs_ > 1;  // recording was tried (or is unsupported)
    eager();
    return;
  }
  bool ok = true;
  try {
    eager();  // recorded, not run
  } catch (...) {
    ok = false;
  }
  void* g = api_->EndCapture(ctx_, stream);
  if (!ok || !g) {
    if (g) api_->FreeGraph(ctx_, g);
    failed_ = true;
    eager();  // nothing recorded ran: run it now
    return;
  }
  graph_ = g;
  api_->LaunchGraph(ctx_, graph_, stream);
}

void SegmentGraph::Invalidate() {
  MutexLock lock(&mu_);
  if (graph_) api_->FreeGraph(ctx_, graph_);
  graph_ = nullptr;
  runs_ = 0;
  failed_ = false;
}

bool SegmentGraph::recorded() const {
  MutexLock lock(&mu_);
  return graph_ != nullptr;
}

}  // namespace weft
