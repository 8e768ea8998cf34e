// Autograd (autograd.h): the per-thread flags, marking variables, recording
// op calls, Detach and GetSymbol. Back-propagation is autograd_backward.cc.
#include "weft/autograd.h"

#include <atomic>

#include "imperative/autograd_tape.h"
#include "weft/status.h"

namespace weft {
namespace autograd {

namespace {

thread_local bool t_recording = false;
thread_local bool t_training = false;

// Names of recorded nodes, as MXNet numbers them (process-wide).
std::atomic<uint64_t> g_vars{0}, g_consts{0}, g_nodes{0};

std::shared_ptr<const Entry> VariableEntry(const NDArray& value, const std::string& name,
                                           GradReq req, const NDArray& grad) {
  auto tape = std::make_shared<TapeNode>();
  tape->is_variable = true;
  tape->values.push_back(Detach(value));
  tape->req = req;
  tape->grad = grad;
  return std::make_shared<const Entry>(Entry{NodeEntry{MakeVariable(name), 0, 0}, tape});
}

}  // namespace

bool IsRecording() { return t_recording; }
bool SetIsRecording(bool on) { return std::exchange(t_recording, on); }
bool IsTraining() { return t_training; }
bool SetIsTraining(bool on) { return std::exchange(t_training, on); }

RecordScope::RecordScope(bool train_mode)
    : prev_recording_(SetIsRecording(true)), prev_training_(SetIsTraining(train_mode)) {}

RecordScope::~RecordScope() {
  SetIsRecording(prev_recording_);
  SetIsTraining(prev_training_);
}

void MarkVariables(const std::vector<NDArray*>& vars, const std::vector<GradReq>& reqs,
                   const std::vector<NDArray>& grads) {
  if (reqs.size() != vars.size() || grads.size() != vars.size())
    Fail(StatusCode::kInvalidArgument, "mark_variables: ", vars.size(), " variable(s), ",
         reqs.size(), " request(s) and ", grads.size(), " gradient buffer(s); expected as many");
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!vars[i] || vars[i]->is_none())
      Fail(StatusCode::kInvalidArgument, "mark_variables: variable ", i, " is an empty array");
    if (reqs[i] == GradReq::kNull) continue;
    const NDArray& v = *vars[i];
    const NDArray& g = grads[i];
    if (g.is_none() || g.shape() != v.shape() || g.dtype() != v.dtype() || g.ctx() != v.ctx())
      Fail(StatusCode::kShape, "mark_variables: the gradient buffer of variable ", i, " is ",
           g.is_none() ? std::string("empty")
                       : StrCat(g.shape().ToString(), " ", DTypeName(g.dtype()), " on ",
                                g.ctx().ToString()),
           ", expected ", v.shape().ToString(), " ", DTypeName(v.dtype()), " on ",
           v.ctx().ToString(), " (as the variable)");
  }
  for (size_t i = 0; i < vars.size(); ++i)
    vars[i]->set_autograd_entry(VariableEntry(*vars[i], StrCat("var", g_vars++), reqs[i],
                                              reqs[i] == GradReq::kNull ? NDArray() : grads[i]));
}

NDArray GetGrad(const NDArray& a) {
  const auto& e = a.autograd_entry();
  return e && e->tape->is_variable ? e->tape->grad : NDArray();
}

namespace {

std::shared_ptr<TapeNode> Record(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                                 std::vector<NDArray>* outputs) {
  for (size_t o = 0; o < outputs->size(); ++o)
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].autograd_entry() && !(*outputs)[o].is_none() &&
          (*outputs)[o].chunk() == inputs[i].chunk())
        Fail(StatusCode::kInvalidArgument, "autograd: operator ", attrs.op->name, " writes output ",
             o, " into its input ", i,
             ", an array autograd records; in-place updates are not recorded (compute into a new "
             "array, or stop recording)");
  auto tape = std::make_shared<TapeNode>();
  NodePtr node = std::make_shared<Node>();
  node->attrs = attrs;
  node->attrs.name = StrCat("node", g_nodes++);
  for (const NDArray& in : inputs) {
    std::shared_ptr<const Entry> e = in.autograd_entry();
    if (!e) e = VariableEntry(in, StrCat("const", g_consts++), GradReq::kNull, NDArray());
    node->inputs.push_back(e->node_entry);
    tape->inputs.push_back(std::move(e));
  }
  for (size_t o = 0; o < outputs->size(); ++o) {
    NDArray& out = (*outputs)[o];
    tape->values.push_back(Detach(out));
    out.set_autograd_entry(
        std::make_shared<const Entry>(Entry{NodeEntry{node, static_cast<uint32_t>(o), 0}, tape}));
  }
  return tape;
}

}  // namespace

void RecordOp(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
              std::vector<NDArray>* outputs) {
  Record(attrs, inputs, outputs);
}

void RecordFunction(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                    std::vector<NDArray>* outputs, FunctionBackward backward) {
  WEFT_CHECK(backward) << "autograd: function " << attrs.name << " recorded without a backward";
  Record(attrs, inputs, outputs)->backward = std::move(backward);
}

NDArray Detach(const NDArray& a) {
  NDArray d = a;
  d.set_autograd_entry(nullptr);
  return d;
}

Symbol GetSymbol(const NDArray& a) {
  const auto& e = a.autograd_entry();
  if (!e)
    Fail(StatusCode::kInvalidArgument,
         "get_symbol: the array was not recorded (compute it while autograd records)");
  Symbol s;
  s.outputs.push_back(e->node_entry);
  return s;
}

}  // namespace autograd
}  // namespace weft
