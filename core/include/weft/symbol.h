// Symbol: the user-facing handle on a symbolic graph, with MXNet semantics.
//
// A Symbol is a list of output entries; the graph is whatever those entries
// reach. Symbols are cheap values that share nodes: copying a Symbol copies
// pointers, `Copy()` clones the graph. Building never edits a node another
// Symbol can reach, except the explicit attribute setter `SetAttr` (MXNet's
// `_set_attr`, visible to every Symbol sharing the node).
//
// Construction follows MXNet: `CreateVariable` (hints stored as the hidden
// attributes __shape__, __dtype__, __init__, __lr_mult__, __wd_mult__),
// `CreateAtomic(reg, op, params)` then `Compose(args, kwargs, name)`; names left
// empty come from the thread's NameManager ("<lowercase op><counter>"), and
// inputs left open become variables "<node>_<input>" (fc1_weight). The
// thread's AttrScope stack adds attributes to every node created inside it.
// NameManager and AttrScope state is thread-local; Symbols themselves are
// not synchronised (read-only use from several threads is safe).
#ifndef WEFT_SYMBOL_H_
#define WEFT_SYMBOL_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weft/graph.h"
#include "weft/node.h"
#include "weft/op.h"

namespace weft {

// Optional hints a variable carries into inference and initialisation.
struct VariableHints {
  Shape shape;                    // unknown rank = no hint; 0 dims allowed
  DType dtype = DType::kUnknown;  // kUnknown = no hint
  std::string init;               // initializer description, "" = none
  std::optional<double> lr_mult, wd_mult;
  StringMap attrs;  // more attributes; hidden keys are wrapped
};

class Symbol {
 public:
  std::vector<NodeEntry> outputs;

  // A variable named `name` (non-empty; else Error(kInvalidArgument)) with
  // the current AttrScope attributes, then `hints`.
  static Symbol CreateVariable(const std::string& name, const VariableHints& hints = {});

  // An uncomposed op node: parameters are parsed and checked now (except a
  // missing variadic count such as num_args, filled in by Compose). Keys that
  // are MXNet hidden keys (lr_mult, ctx_group, ...) are stored as __key__;
  // keys ending in "_<hidden key>" (weight_lr_mult) are rejected as in MXNet.
  // Throws Error(kNotFound) for an unknown op, kInvalidArgument for params.
  static Symbol CreateAtomic(const OpRegistry& reg, const std::string& op,
                             const StringMap& params = {});

  // Composes this symbol with `args` (positional) and `kwargs` (by input
  // name), naming the node `name` (or NameManager::Current()->Get("", hint)).
  // Atomic symbol: inputs are filled positionally, then by name; the rest
  // become variables "<name>_<input>" carrying a copy of the node's
  // attributes. Otherwise: positional args replace ListInputs() in order,
  // kwargs replace variables by name, on a copy of the graph (`name` must
  // then be empty). Every argument must have exactly one output. This
  // Symbol is replaced by the result; other Symbols are unaffected.
  // Throws Error(kInvalidArgument) naming the op, node and input.
  void Compose(const std::vector<Symbol>& args, const std::map<std::string, Symbol>& kwargs = {},
               const std::string& name = "");

  // CreateAtomic + Compose in one call.
  static Symbol Apply(const OpRegistry& reg, const std::string& op, const std::vector<Symbol>& args,
                      const StringMap& params = {}, const std::string& name = "",
                      const std::map<std::string, Symbol>& kwargs = {});

  // All outputs of `symbols`, in order.
  static Symbol Group(const std::vector<Symbol>& symbols);
  // Output `i` alone; Error(kInvalidArgument) when out of range.
  Symbol GetOutput(size_t i) const;
  Symbol operator[](size_t i) const { return GetOutput(i); }
  size_t num_outputs() const { return outputs.size(); }
  // Every output of every node (variables included), in topological order.
  Symbol GetInternals() const;
  // The inputs of the output nodes, in order (empty for variables).
  Symbol GetChildren() const;
  // Deep copy: new nodes, same structure and attributes.
  Symbol Copy() const;

  // Read-only inputs (arguments) in topological order.
  std::vector<std::string> ListArguments() const;
  // Inputs some op mutates (OpDef::mutate_inputs), in topological order.
  std::vector<std::string> ListAuxiliaryStates() const;
  // Every variable (arguments and auxiliary states), in topological order.
  std::vector<std::string> ListInputs() const;
  // Output names: the variable name or "<node>_<output name>".
  std::vector<std::string> ListOutputs() const;

  // The name of the node when all outputs come from one node, else nullopt.
  std::optional<std::string> GetName() const;
  // Shallow attribute of the single output node (hidden keys are looked up
  // as given, then as __key__); nullopt if absent. Error(kInvalidArgument)
  // for a grouped symbol.
  std::optional<std::string> GetAttr(const std::string& key) const;
  // Sets an attribute on the single output node (hidden keys stored as
  // __key__). Error(kInvalidArgument) for a grouped symbol.
  void SetAttr(const std::string& key, const std::string& value);
  // The single output node's attributes (Error(kInvalidArgument) if grouped).
  StringMap ListAttrShallow() const;
  // Every node's attributes, recursively, keyed "<node>$<key>" (nnvm form).
  StringMap ListAttr() const;
  // Every node's attributes, recursively, by node name (MXNet attr_dict).
  std::map<std::string, StringMap> AttrDict() const;

  // True when this is one uncomposed op node (fresh from CreateAtomic).
  bool is_atomic() const;

 private:
  void ComposeAtomic(const std::vector<Symbol>& args, const std::map<std::string, Symbol>& kwargs,
                     const std::string& name);
  void ComposeGraph(const std::vector<Symbol>& args, const std::map<std::string, Symbol>& kwargs);

  // Naming hint of an uncomposed op: the op name as requested, lowercased.
  std::string hint_;
};

// Arithmetic as MXNet's Python operators: symbol (op) symbol maps to
// _Plus/_Minus/_Mul/_Div (elemwise_add/sub/mul/div), symbol (op) scalar to
// _PlusScalar/_MinusScalar/_MulScalar/_DivScalar and scalar - symbol,
// scalar / symbol to _RMinusScalar/_RDivScalar, resolved in core's built-in
// operator list (RegisterAllOps, the definitions every Runtime registers)
// and automatic names (_plus0, _mulscalar1, ...).
Symbol operator+(const Symbol& a, const Symbol& b);
Symbol operator-(const Symbol& a, const Symbol& b);
Symbol operator*(const Symbol& a, const Symbol& b);
Symbol operator/(const Symbol& a, const Symbol& b);
Symbol operator+(const Symbol& a, double s);
Symbol operator-(const Symbol& a, double s);
Symbol operator*(const Symbol& a, double s);
Symbol operator/(const Symbol& a, double s);
Symbol operator+(double s, const Symbol& a);
Symbol operator-(double s, const Symbol& a);
Symbol operator*(double s, const Symbol& a);
Symbol operator/(double s, const Symbol& a);

// Shortest decimal text that reads back as `v` (as a float when `v` is
// exactly a float): 2 -> "2", 0.1f -> "0.1". Used for scalar parameters.
std::string FormatScalar(double v);

// MXNet's hidden attribute keys: ctx_group, lr_mult, wd_mult,
// force_mirroring, mirror_stage, profiler_scope.
const std::vector<std::string>& HiddenKeys();
bool IsHiddenKey(const std::string& key);
// "lr_mult" -> "__lr_mult__"; any other key unchanged.
std::string HiddenKeyForm(const std::string& key);

// Automatic node names. The current manager is the innermost NameScope of
// the calling thread (a process-wide-per-thread default otherwise).
class NameManager {
 public:
  explicit NameManager(std::string prefix = "") : prefix_(std::move(prefix)) {}
  // `name` if non-empty, else hint + counter (per hint, from 0); the prefix
  // is prepended to both (MXNet's Prefix manager).
  std::string Get(const std::string& name, const std::string& hint);
  static NameManager* Current();

 private:
  std::string prefix_;
  std::map<std::string, int> counters_;
};

// RAII: installs a fresh NameManager (counters restart) until destroyed.
class NameScope {
 public:
  explicit NameScope(const std::string& prefix = "");
  ~NameScope();
  NameScope(const NameScope&) = delete;
  NameScope& operator=(const NameScope&) = delete;

 private:
  std::unique_ptr<NameManager> manager_;
  NameManager* previous_;
};

// RAII: attributes (hidden keys wrapped as __key__) merged onto the
// enclosing scope's and added to every node created on this thread until
// destroyed; explicit attributes win over scope ones. Variables get every
// scope attribute, op nodes only the __key__ ones (other keys would be taken
// for operator parameters).
class AttrScope {
 public:
  explicit AttrScope(const StringMap& attrs);
  ~AttrScope();
  AttrScope(const AttrScope&) = delete;
  AttrScope& operator=(const AttrScope&) = delete;
  // The attributes in effect on this thread.
  static const StringMap& Current();

 private:
  StringMap previous_;
};

}  // namespace weft

#endif  // WEFT_SYMBOL_H_
