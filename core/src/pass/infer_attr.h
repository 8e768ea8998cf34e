// InferAttr: the bidirectional inference InferShape and InferType share (as
// nnvm's InferAttr): entries start unknown, variables take the value given by
// name or their hint attribute, then forward and backward sweeps call each
// op's inference function on copies of its entries and merge the results
// back, until a forward and a backward sweep both change nothing (or every
// entry is known). What differs per attribute is a traits class:
//
//   struct Traits {
//     using Value = Shape;                       // the attribute
//     static constexpr const char* kPass;        // "InferShape": error prefix
//     static constexpr const char* kHint;        // "__shape__"
//     static constexpr const char* kWhat;        // "shape": "provided shape ..."
//     static constexpr StatusCode kConflict;     // kShape
//     static const Fn& Infer(const OpDef&);      // op.infer_shape
//     static Value Unknown();
//     static bool Known(const Value&);
//     static std::string Str(const Value&);
//     static Value ParseHint(const std::string&);   // throws Error
//     static void CheckGiven(const std::string& name, const Value&);  // throws
//     // Merges `inferred` into `*cur`; false on a conflict. May throw for an
//     // invalid inferred value (naming `node`).
//     static bool Merge(Value* cur, const Value& inferred, const std::string& node);
//   };
//
// Internal to core/src/pass (infer_shape.cc, infer_type.cc).
#ifndef WEFT_CORE_SRC_PASS_INFER_ATTR_H_
#define WEFT_CORE_SRC_PASS_INFER_ATTR_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "weft/graph_algorithm.h"
#include "weft/op.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace pass {
namespace infer_attr {

inline std::string NodeLabel(const Node& n) {
  return StrCat("node '", n.attrs.name, "' (", n.op()->name, ")");
}

// The name of input i of node `n` ("lhs"), or its index.
inline std::string InputName(const std::vector<std::string>& names, size_t i) {
  return i < names.size() ? names[i] : StrCat("input", i);
}

template <typename Traits>
class Inference {
 public:
  using Value = typename Traits::Value;

  Inference(const IndexedGraph& g, const std::map<std::string, Value>& inputs)
      : g_(g), values_(g.num_node_entries(), Traits::Unknown()) {
    SeedVariables(inputs);
    // Every sweep either fills something or counts towards the end.
    int idle = 0;
    for (int sweep = 0; idle < 2; ++sweep) {
      const std::vector<Value> before = values_;
      auto visit = [this](uint32_t nid) { InferNode(nid); };
      if (sweep % 2 == 0)
        ForwardVisit(g_, visit);
      else
        ReverseVisit(g_, visit);
      idle = before == values_ ? idle + 1 : 0;
      if (AllKnown()) break;
    }
  }

  const std::vector<Value>& values() const { return values_; }

  // Fills a ShapeResult/TypeResult-like result: the unknown entries and
  // their names, and the values of the arguments, auxiliary states and
  // outputs.
  template <typename Result>
  void Collect(std::vector<Value>* all, Result* r, std::vector<Value>* args,
               std::vector<Value>* auxs, std::vector<Value>* outs) const {
    *all = values_;
    for (uint32_t eid = 0; eid < values_.size(); ++eid) {
      if (Traits::Known(values_[eid])) continue;
      r->unknown.push_back(eid);
      r->unknown_names.push_back(g_.entry_name(eid));
    }
    for (uint32_t nid : g_.argument_nodes()) args->push_back(values_[g_.entry_id(nid, 0)]);
    for (uint32_t nid : g_.aux_nodes()) auxs->push_back(values_[g_.entry_id(nid, 0)]);
    for (const auto& e : g_.outputs()) outs->push_back(values_[g_.entry_id(e)]);
  }

 private:
  bool AllKnown() const {
    for (const Value& v : values_)
      if (!Traits::Known(v)) return false;
    return true;
  }

  // "lhs=a (2,3), rhs=b None": the node's inputs, their sources and values.
  std::string DescribeInputs(uint32_t nid) const {
    const auto& in = g_[nid];
    const Node& n = *in.node;
    const std::vector<std::string> names = n.op()->InputNames(n.attrs.params);
    std::string s;
    for (size_t i = 0; i < in.inputs.size(); ++i) {
      const uint32_t eid = g_.entry_id(in.inputs[i]);
      s += StrCat(i ? ", " : "", InputName(names, i), "=", g_.entry_name(eid), " ",
                  Traits::Str(values_[eid]));
    }
    return s;
  }

  // Merges `inferred` into entry `eid`; on a conflict names both values.
  void Merge(uint32_t nid, const std::string& what, uint32_t eid, const Value& inferred) {
    Value merged = values_[eid];
    if (!Traits::Merge(&merged, inferred, NodeLabel(g_.node(nid))))
      Fail(Traits::kConflict, Traits::kPass, ": ", NodeLabel(g_.node(nid)), ", ", what, " '",
           g_.entry_name(eid), "': provided ", Traits::kWhat, " ", Traits::Str(values_[eid]),
           ", inferred ", Traits::kWhat, " ", Traits::Str(inferred));
    values_[eid] = merged;
  }

  void InferNode(uint32_t nid) {
    const auto& in = g_[nid];
    const Node& n = *in.node;
    if (n.is_variable() || !Traits::Infer(*n.op())) return;
    std::vector<Value> ins, outs;
    for (const auto& e : in.inputs) ins.push_back(values_[g_.entry_id(e)]);
    for (uint32_t i = 0; i < n.num_outputs(); ++i) outs.push_back(values_[g_.entry_id(nid, i)]);
    try {
      Traits::Infer (*n.op())(n.attrs, &ins, &outs);
    } catch (const Error& e) {
      Fail(e.code(), Traits::kPass, ": ", NodeLabel(n), " with inputs [", DescribeInputs(nid),
           "]: ", e.what());
    } catch (const std::exception& e) {
      Fail(StatusCode::kInternal, Traits::kPass, ": ", NodeLabel(n), ": ", e.what());
    }
    if (ins.size() != in.inputs.size() || outs.size() != n.num_outputs())
      Fail(StatusCode::kInternal, Traits::kPass, ": ", NodeLabel(n),
           ": its inference function resized its arguments");
    const std::vector<std::string> names = n.op()->InputNames(n.attrs.params);
    for (size_t i = 0; i < ins.size(); ++i)
      Merge(nid, StrCat("input '", i < names.size() ? names[i] : StrCat(i), "' from"),
            g_.entry_id(in.inputs[i]), ins[i]);
    for (uint32_t i = 0; i < outs.size(); ++i)
      Merge(nid, StrCat("output ", i), g_.entry_id(nid, i), outs[i]);
  }

  // Each variable's initial value: given by name, else its hint.
  void SeedVariables(const std::map<std::string, Value>& inputs) {
    std::set<std::string> used;
    for (uint32_t nid : g_.input_nodes()) {
      const Node& n = g_.node(nid);
      const uint32_t eid = g_.entry_id(nid, 0);
      auto given = inputs.find(n.attrs.name);
      if (given != inputs.end()) {
        Traits::CheckGiven(n.attrs.name, given->second);
        values_[eid] = given->second;
        used.insert(given->first);
        continue;
      }
      auto hint = n.attrs.dict.find(Traits::kHint);
      if (hint == n.attrs.dict.end()) continue;
      try {
        values_[eid] = Traits::ParseHint(hint->second);
      } catch (const Error& e) {
        Fail(StatusCode::kInvalidArgument, Traits::kPass, ": variable '", n.attrs.name,
             "' has a bad ", Traits::kHint, " hint: ", e.what());
      }
    }
    for (const auto& kv : inputs) {
      if (used.count(kv.first)) continue;
      std::string names;
      for (uint32_t nid : g_.input_nodes())
        names += (names.empty() ? "" : ", ") + g_.node(nid).attrs.name;
      Fail(StatusCode::kInvalidArgument, Traits::kPass, ": no input named '", kv.first,
           "'; inputs are: ", names.empty() ? "none" : names);
    }
  }

  const IndexedGraph& g_;
  std::vector<Value> values_;
};

}  // namespace infer_attr
}  // namespace pass
}  // namespace weft

#endif  // WEFT_CORE_SRC_PASS_INFER_ATTR_H_
