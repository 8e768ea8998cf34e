#include "executor/segment_graph.h"

#include <exception>
#include <string>

#include "weft/status.h"

namespace weft {

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
  if (failed_ || runs_++ == 0) {  // the first run eagerly: algorithm choices, caches
    eager();
    return;
  }
  std::string why;
  try {
    if (!stream)
      why = "no stream (this device's work runs on its default stream)";
    else if (!api_->BeginCapture(ctx_, stream))
      why = "the device cannot record graphs";
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) {
    failed_ = true;
    why_ = why;
    eager();
    return;
  }
  try {
    eager();  // recorded, not run
  } catch (const std::exception& e) {
    why = e.what();
  }
  void* g = nullptr;
  try {
    g = api_->EndCapture(ctx_, stream);
  } catch (const std::exception& e) {
    why += (why.empty() ? "" : "; ") + std::string(e.what());
  }
  if (!why.empty() || !g) {
    if (g) api_->FreeGraph(ctx_, g);
    failed_ = true;
    why_ = why.empty() ? "no graph support" : why;
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
  why_.clear();
}

std::string SegmentGraph::failure() const {
  MutexLock lock(&mu_);
  return why_;
}

bool SegmentGraph::recorded() const {
  MutexLock lock(&mu_);
  return graph_ != nullptr;
}

}  // namespace weft
