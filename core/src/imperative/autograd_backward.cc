// Autograd's Backward and Grad (autograd.h): the recorded graph behind the
// heads, its gradient graph by pass::Gradient, and the gradient nodes run
// imperatively on the recorded values.
#include <map>
#include <utility>

#include "imperative/autograd_tape.h"
#include "weft/imperative.h"
#include "weft/pass.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace autograd {

namespace {

// The recorded nodes behind `heads` by node, and the marked variables
// reached (in the order first reached).
struct Recorded {
  std::map<const Node*, std::shared_ptr<TapeNode>> tapes;
  std::map<const Node*, NodePtr> nodes;  // the same nodes, owned
  std::vector<std::shared_ptr<const Entry>> marked;
};

Recorded Collect(const std::vector<std::shared_ptr<const Entry>>& heads) {
  Recorded r;
  std::vector<std::shared_ptr<const Entry>> stack(heads.rbegin(), heads.rend());
  while (!stack.empty()) {
    std::shared_ptr<const Entry> e = std::move(stack.back());
    stack.pop_back();
    const Node* node = e->node_entry.node.get();
    if (!r.tapes.emplace(node, e->tape).second) continue;
    r.nodes.emplace(node, e->node_entry.node);
    if (e->tape->freed)
      Fail(StatusCode::kInvalidArgument,
           "backward: the graph was freed by an earlier backward (its recorded values are gone); "
           "pass retain_graph=true to back-propagate through it twice");
    if (e->tape->is_variable && e->tape->req != GradReq::kNull) r.marked.push_back(e);
    for (auto it = e->tape->inputs.rbegin(); it != e->tape->inputs.rend(); ++it)
      stack.push_back(*it);
  }
  return r;
}

// The recorded function whose backward node `node` is ("_backward_<op>"
// of its control_deps[0], RecordFunction), or null.
const TapeNode* FunctionOf(const Node& node, const Recorded& r) {
  if (node.control_deps.empty() || node.control_deps[0]->is_variable()) return nullptr;
  const Node& fwd = *node.control_deps[0];
  if (node.op()->name != FunctionBackwardOpName(fwd.op()->name)) return nullptr;
  const auto it = r.tapes.find(&fwd);
  return it != r.tapes.end() && it->second->backward ? it->second.get() : nullptr;
}

// The gradients of `heads` for the variables `xs` (entries of `r`'s
// variables), computed on the recorded values.
std::vector<NDArray> Differentiate(Runtime* rt, const std::vector<NDArray>& heads,
                                   const std::vector<std::shared_ptr<const Entry>>& head_entries,
                                   const std::vector<NDArray>& head_grads, const Recorded& r,
                                   const std::vector<std::shared_ptr<const Entry>>& xs,
                                   bool train_mode, bool create_graph = false) {
  Graph forward;
  std::vector<NodeEntry> head_vars;
  std::map<const Node*, size_t> head_of;
  for (size_t i = 0; i < head_entries.size(); ++i) {
    forward.outputs.push_back(head_entries[i]->node_entry);
    head_vars.push_back(NodeEntry{MakeVariable(StrCat("head_grad", i)), 0, 0});
    head_of[head_vars.back().node.get()] = i;
  }
  pass::GradientSpec spec;
  for (const auto& x : xs) spec.xs.push_back(x->node_entry);
  spec.head_grads = head_vars;
  const Graph g = pass::Gradient(rt->ops(), forward, spec);
  const IndexedGraph idx(g);
  std::vector<NDArray> vals(idx.num_node_entries());
  InvokeOptions opts;
  opts.is_train = train_mode;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    const Node& node = idx.node(nid);
    auto hv = head_of.find(&node);
    if (hv != head_of.end()) {
      const size_t i = hv->second;
      const bool given = i < head_grads.size() && !head_grads[i].is_none();
      vals[idx.entry_id(nid, 0)] =
          given ? head_grads[i] : Invoke(rt, "ones_like", {Detach(heads[i])})[0];
      continue;
    }
    auto tp = r.tapes.find(&node);
    if (tp != r.tapes.end()) {  // recorded: its values (with their entries to record through)
      for (uint32_t o = 0; o < node.num_outputs(); ++o) {
        NDArray v = tp->second->values.at(o);
        if (create_graph)
          v.set_autograd_entry(
              std::make_shared<const Entry>(Entry{NodeEntry{r.nodes.at(&node), o, 0}, tp->second}));
        vals[idx.entry_id(nid, o)] = v;
      }
      continue;
    }
    WEFT_CHECK(!node.is_variable())
        << "backward: variable " << node.attrs.name << " is neither recorded nor a head gradient";
    std::vector<NDArray> in, out;
    for (const auto& e : idx[nid].inputs) in.push_back(vals[idx.entry_id(e)]);
    if (const TapeNode* fn = FunctionOf(node, r)) {
      if (create_graph)
        Fail(StatusCode::kNotImplemented, "grad: create_graph through ",
             node.control_deps[0]->op()->name,
             " (a recorded CachedOp call: its backward runs in its executor, unrecorded) is not "
             "supported; record the block's operators instead (inline_limit)");
      out = fn->backward(in);
      WEFT_CHECK(out.size() == node.num_outputs())
          << "backward: " << node.op()->name << " gave " << out.size() << " gradient(s), expected "
          << node.num_outputs();
    } else {
      Invoke(rt, node.op()->name, in, node.attrs.dict, &out, opts);
    }
    for (uint32_t o = 0; o < out.size(); ++o) vals[idx.entry_id(nid, o)] = out[o];
  }
  std::vector<NDArray> grads;
  for (size_t k = 0; k < xs.size(); ++k)
    grads.push_back(vals[idx.entry_id(idx.outputs()[head_entries.size() + k])]);
  return grads;
}

std::vector<std::shared_ptr<const Entry>> HeadEntries(const std::vector<NDArray>& heads,
                                                      const std::vector<NDArray>& head_grads) {
  if (heads.empty()) Fail(StatusCode::kInvalidArgument, "backward: no heads given");
  if (!head_grads.empty() && head_grads.size() != heads.size())
    Fail(StatusCode::kInvalidArgument, "backward: ", heads.size(), " head(s) but ",
         head_grads.size(), " head gradient(s)");
  std::vector<std::shared_ptr<const Entry>> entries;
  for (size_t i = 0; i < heads.size(); ++i) {
    if (!heads[i].autograd_entry())
      Fail(StatusCode::kInvalidArgument, "backward: head ", i,
           " was not recorded (compute it while autograd records)");
    const NDArray& hg = i < head_grads.size() ? head_grads[i] : NDArray();
    if (!hg.is_none() && (hg.shape() != heads[i].shape() || hg.dtype() != heads[i].dtype()))
      Fail(StatusCode::kShape, "backward: head gradient ", i, " is ", hg.shape().ToString(), " ",
           DTypeName(hg.dtype()), ", expected ", heads[i].shape().ToString(), " ",
           DTypeName(heads[i].dtype()), " (as head ", i, ")");
    entries.push_back(heads[i].autograd_entry());
  }
  return entries;
}

void Free(const Recorded& r) {
  for (const auto& kv : r.tapes) {
    if (kv.second->is_variable) continue;
    kv.second->values.clear();
    kv.second->backward = nullptr;
    kv.second->freed = true;
  }
}

}  // namespace

void Backward(Runtime* rt, const std::vector<NDArray>& heads,
              const std::vector<NDArray>& head_grads, bool retain_graph, bool train_mode) {
  WEFT_CHECK(rt) << "backward: no runtime given";
  PauseRecording pause;
  const auto head_entries = HeadEntries(heads, head_grads);
  const Recorded r = Collect(head_entries);
  if (r.marked.empty())
    Fail(StatusCode::kInvalidArgument,
         "backward: the heads depend on no variable marked for gradients (mark_variables or "
         "attach_grad with a request other than null)");
  const std::vector<NDArray> grads =
      Differentiate(rt, heads, head_entries, head_grads, r, r.marked, train_mode);
  for (size_t k = 0; k < r.marked.size(); ++k) {
    const TapeNode& v = *r.marked[k]->tape;
    NDArray buffer = v.grad;
    if (v.req == GradReq::kAdd) {
      std::vector<NDArray> out{buffer};
      Invoke(rt, "elemwise_add", {Detach(buffer), grads[k]}, {}, &out);
    } else {
      grads[k].CopyTo(&buffer);
    }
  }
  if (!retain_graph) Free(r);
}

std::vector<NDArray> Grad(Runtime* rt, const std::vector<NDArray>& heads,
                          const std::vector<NDArray>& variables,
                          const std::vector<NDArray>& head_grads, bool retain_graph,
                          bool train_mode, bool create_graph) {
  WEFT_CHECK(rt) << "grad: no runtime given";
  PauseRecording pause;
  // create_graph: the gradient computation is recorded in turn (and the
  // graph kept, as MXNet's retain_graph defaults to create_graph).
  RecordScope record_grads(train_mode);
  if (!create_graph) SetIsRecording(false);
  const auto head_entries = HeadEntries(heads, head_grads);
  Recorded r = Collect(head_entries);
  std::vector<std::shared_ptr<const Entry>> xs;
  for (size_t i = 0; i < variables.size(); ++i) {
    const auto& e = variables[i].autograd_entry();
    if (!e || !e->tape->is_variable || e->tape->req == GradReq::kNull)
      Fail(StatusCode::kInvalidArgument, "grad: variable ", i,
           " is not marked for gradients (mark_variables or attach_grad first)");
    xs.push_back(e);
    r.tapes.emplace(e->node_entry.node.get(), e->tape);  // a variable the heads do not reach
    r.nodes.emplace(e->node_entry.node.get(), e->node_entry.node);
  }
  if (xs.empty()) Fail(StatusCode::kInvalidArgument, "grad: no variables given");
  std::vector<NDArray> grads =
      Differentiate(rt, heads, head_entries, head_grads, r, xs, train_mode, create_graph);
  if (!retain_graph && !create_graph) Free(r);
  return grads;
}

}  // namespace autograd
}  // namespace weft
