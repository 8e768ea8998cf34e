// Symbol construction: variables, atomic op symbols, composition, grouping.
#include "weft/symbol.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <unordered_map>

#include "weft/graph_algorithm.h"
#include "weft/status.h"

namespace weft {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsWrappedKey(const std::string& key) {
  return key.size() > 4 && key.compare(0, 2, "__") == 0 &&
         key.compare(key.size() - 2, 2, "__") == 0;
}

std::string Label(const Node& n) {
  return StrCat("operator ", n.op()->name, " (node '", n.attrs.name, "')");
}

// Parses `n`'s parameters; a missing variadic count (num_args) is `count`.
void ParseNodeParams(Node* n, size_t count) {
  const OpDef* op = n->op();
  StringMap dict = n->attrs.dict;
  if (!op->key_var_num_args.empty() && !dict.count(op->key_var_num_args))
    dict[op->key_var_num_args] = std::to_string(count);
  n->attrs.params = ParseParams(op->name, &op->params, dict);
}

const NodeEntry& SingleOutput(const Symbol& s, const std::string& what) {
  if (s.outputs.size() != 1)
    Fail(StatusCode::kInvalidArgument, what, " must be a single-output symbol, but it has ",
         s.outputs.size(), " outputs");
  const Node* n = s.outputs[0].node.get();
  if (s.is_atomic() && n->op()->NumInputs(n->attrs.params) > 0)
    Fail(StatusCode::kInvalidArgument, what, " is an uncomposed ", n->op()->name,
         " symbol (from create_atomic); compose it with its inputs first");
  return s.outputs[0];
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

}  // namespace

Symbol Symbol::CreateVariable(const std::string& name, const VariableHints& hints) {
  if (name.empty()) Fail(StatusCode::kInvalidArgument, "a variable needs a non-empty name");
  NodePtr n = MakeVariable(name);
  StringMap& dict = n->attrs.dict;
  dict = AttrScope::Current();
  if (hints.shape.ndim_known()) dict["__shape__"] = hints.shape.ToString();
  if (hints.dtype != DType::kUnknown) {
    if (!IsValidDType(static_cast<int>(hints.dtype)))
      Fail(StatusCode::kDType, "variable '", name, "': invalid dtype code ",
           static_cast<int>(hints.dtype));
    dict["__dtype__"] = std::to_string(static_cast<int>(hints.dtype));
  }
  if (!hints.init.empty()) dict["__init__"] = hints.init;
  if (hints.lr_mult) dict["__lr_mult__"] = FormatScalar(*hints.lr_mult);
  if (hints.wd_mult) dict["__wd_mult__"] = FormatScalar(*hints.wd_mult);
  for (const auto& kv : hints.attrs) dict[HiddenKeyForm(kv.first)] = kv.second;
  Symbol s;
  s.outputs.push_back(NodeEntry{n, 0, 0});
  return s;
}

Symbol Symbol::CreateAtomic(const OpRegistry& reg, const std::string& op_name,
                            const StringMap& params) {
  const OpDef& op = reg.Get(op_name);
  auto n = std::make_shared<Node>();
  n->attrs.op = &op;
  for (const auto& kv : AttrScope::Current())
    if (IsWrappedKey(kv.first)) n->attrs.dict[kv.first] = kv.second;
  for (const auto& kv : params) {
    const std::string& key = kv.first;
    if (!IsHiddenKey(key)) {
      for (const auto& hk : HiddenKeys()) {
        if (key.size() > hk.size() + 1 && key.compare(key.size() - hk.size(), hk.size(), hk) == 0 &&
            key[key.size() - hk.size() - 1] == '_')
          Fail(StatusCode::kInvalidArgument, "operator ", op.name,
               ": setting variable attributes with '", key,
               "' is not supported; create the variable with ", hk, "=", kv.second,
               " and pass it as input '", key.substr(0, key.size() - hk.size() - 1), "'");
      }
    }
    n->attrs.dict[HiddenKeyForm(key)] = kv.second;
  }
  ParseNodeParams(n.get(), 1);
  Symbol s;
  s.hint_ = Lower(op_name);
  for (uint32_t i = 0; i < n->num_outputs(); ++i) s.outputs.push_back(NodeEntry{n, i, 0});
  return s;
}

bool Symbol::is_atomic() const {
  if (outputs.empty() || !outputs[0].node) return false;
  const Node* n = outputs[0].node.get();
  for (const NodeEntry& e : outputs)
    if (e.node.get() != n) return false;
  return !n->is_variable() && n->inputs.empty() && n->control_deps.empty();
}

void Symbol::Compose(const std::vector<Symbol>& args, const std::map<std::string, Symbol>& kwargs,
                     const std::string& name) {
  if (is_atomic()) {
    ComposeAtomic(args, kwargs, name);
    return;
  }
  if (!name.empty())
    Fail(StatusCode::kInvalidArgument, "compose: a name ('", name,
         "') can only be given when composing an atomic (single operator) symbol");
  ComposeGraph(args, kwargs);
}

void Symbol::ComposeAtomic(const std::vector<Symbol>& args,
                           const std::map<std::string, Symbol>& kwargs, const std::string& name) {
  auto n = std::make_shared<Node>(*outputs[0].node);
  const OpDef* op = n->op();
  n->attrs.name = NameManager::Current()->Get(name, hint_.empty() ? Lower(op->name) : hint_);
  if (!op->key_var_num_args.empty() && !n->attrs.dict.count(op->key_var_num_args)) {
    n->attrs.dict[op->key_var_num_args] = std::to_string(args.size() + kwargs.size());
    ParseNodeParams(n.get(), args.size() + kwargs.size());
  }
  const std::vector<std::string> in_names = op->InputNames(n->attrs.params);
  const size_t num_in = static_cast<size_t>(op->NumInputs(n->attrs.params));
  if (args.size() > num_in)
    Fail(StatusCode::kInvalidArgument, Label(*n), ": too many positional arguments: given ",
         args.size(), ", the operator takes ", num_in, " (", JoinNames(in_names), ")");
  auto in_name = [&](size_t i) { return i < in_names.size() ? in_names[i] : StrCat("input", i); };
  std::vector<std::optional<NodeEntry>> inputs(num_in);
  for (size_t i = 0; i < args.size(); ++i)
    inputs[i] = SingleOutput(args[i], StrCat(Label(*n), ": argument ", i, " ('", in_name(i), "')"));
  for (const auto& kv : kwargs) {
    auto it = std::find(in_names.begin(), in_names.end(), kv.first);
    if (it == in_names.end())
      Fail(StatusCode::kInvalidArgument, Label(*n), ": no input named '", kv.first,
           "'; inputs are: ", JoinNames(in_names));
    size_t i = static_cast<size_t>(it - in_names.begin());
    if (i >= num_in || inputs[i])
      Fail(StatusCode::kInvalidArgument, Label(*n), ": input '", kv.first,
           "' is given both positionally and by keyword");
    inputs[i] = SingleOutput(kv.second, StrCat(Label(*n), ": input '", kv.first, "'"));
  }
  n->inputs.clear();
  for (size_t i = 0; i < num_in; ++i) {
    if (inputs[i]) {
      n->inputs.push_back(*inputs[i]);
      continue;
    }
    // As nnvm: an automatic variable carries a copy of the node's attributes.
    NodePtr var = MakeVariable(n->attrs.name + "_" + in_name(i));
    var->attrs.dict = n->attrs.dict;
    n->inputs.push_back(NodeEntry{var, 0, 0});
  }
  for (NodeEntry& e : outputs) e.node = n;
  hint_.clear();
}

void Symbol::ComposeGraph(const std::vector<Symbol>& args,
                          const std::map<std::string, Symbol>& kwargs) {
  std::vector<NodeEntry> copy = CopyGraph(outputs);
  std::vector<NodePtr> vars;
  DFSVisit(copy, [&](const NodePtr& n) {
    if (n->is_variable()) vars.push_back(n);
  });
  if (args.size() > vars.size())
    Fail(StatusCode::kInvalidArgument, "compose: too many positional arguments: given ",
         args.size(), ", the symbol has ", vars.size(), " inputs");
  std::unordered_map<const Node*, NodeEntry> replace;
  for (size_t i = 0; i < args.size(); ++i)
    replace[vars[i].get()] =
        SingleOutput(args[i], StrCat("compose: argument ", i, " ('", vars[i]->attrs.name, "')"));
  for (const auto& kv : kwargs) {
    bool found = false;
    for (const NodePtr& v : vars) {
      if (v->attrs.name != kv.first) continue;
      found = true;
      if (replace.count(v.get()))
        Fail(StatusCode::kInvalidArgument, "compose: input '", kv.first,
             "' is given both positionally and by keyword");
      replace[v.get()] = SingleOutput(kv.second, StrCat("compose: input '", kv.first, "'"));
    }
    if (!found) {
      std::vector<std::string> names;
      for (const NodePtr& v : vars) names.push_back(v->attrs.name);
      Fail(StatusCode::kInvalidArgument, "compose: no input named '", kv.first,
           "'; inputs are: ", JoinNames(names));
    }
  }
  auto swap = [&](NodeEntry* e) {
    auto it = replace.find(e->node.get());
    if (it != replace.end()) *e = it->second;
  };
  DFSVisit(copy, [&](const NodePtr& n) {
    for (NodeEntry& e : n->inputs) swap(&e);
  });
  for (NodeEntry& e : copy) swap(&e);
  outputs = std::move(copy);
  hint_.clear();
}

Symbol Symbol::Apply(const OpRegistry& reg, const std::string& op, const std::vector<Symbol>& args,
                     const StringMap& params, const std::string& name,
                     const std::map<std::string, Symbol>& kwargs) {
  Symbol s = CreateAtomic(reg, op, params);
  s.Compose(args, kwargs, name);
  return s;
}

Symbol Symbol::Group(const std::vector<Symbol>& symbols) {
  Symbol s;
  for (const Symbol& x : symbols)
    s.outputs.insert(s.outputs.end(), x.outputs.begin(), x.outputs.end());
  return s;
}

Symbol Symbol::GetOutput(size_t i) const {
  if (i >= outputs.size())
    Fail(StatusCode::kInvalidArgument, "output index ", i, " out of range: the symbol has ",
         outputs.size(), " outputs");
  Symbol s;
  s.outputs.push_back(outputs[i]);
  return s;
}

Symbol Symbol::Copy() const {
  Symbol s;
  s.outputs = CopyGraph(outputs);
  s.hint_ = hint_;
  return s;
}

}  // namespace weft
