// See import_fuse.h.
#include "import_fuse.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <vector>

#include "weft/symbol.h"

namespace weft {
namespace onnx_import {
namespace {

bool IsDefault(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// The graph as the matchers see it: who writes and who reads each value,
// the constants, and the static shapes ONNX's inference found.
class GraphView {
 public:
  GraphView(const onnx::GraphProto& g, const std::map<std::string, ConstTensor>& inits,
            const std::string& model_dir, const std::string& what)
      : g_(g), consts_(inits) {
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& n = g.node(i);
      for (const auto& in : n.input())
        if (!in.empty()) readers_[in].insert(i);
      for (const auto& o : n.output()) writer_[o] = i;
      if (n.op_type() == "Constant" && IsDefault(n.domain()) && n.output_size() == 1)
        ReadConstant(n, model_dir, what);
    }
    for (const auto& o : g.output()) outputs_.insert(o.name());
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
      for (const auto& v : *list) AddShape(v);
  }

  const onnx::NodeProto& node(int i) const { return g_.node(i); }

  // The node reading `name` when it is the only one and `name` is no graph
  // output; -1 otherwise.
  int OnlyReader(const std::string& name) const {
    auto it = readers_.find(name);
    if (outputs_.count(name) || it == readers_.end() || it->second.size() != 1) return -1;
    return *it->second.begin();
  }
  // The readers of `name` (empty when it is a graph output: it must stay).
  std::set<int> Readers(const std::string& name) const {
    auto it = readers_.find(name);
    if (outputs_.count(name) || it == readers_.end()) return {};
    return it->second;
  }
  // The node writing `name`, when it is an `op` of the default domain.
  int Writer(const std::string& name, const char* op) const {
    auto it = writer_.find(name);
    return it != writer_.end() && Is(it->second, op) ? it->second : -1;
  }
  const ConstTensor* Const(const std::string& name) const {
    auto it = consts_.find(name);
    return it == consts_.end() ? nullptr : &it->second;
  }
  std::optional<double> Scalar(const std::string& name) const {
    const ConstTensor* t = Const(name);
    if (!t || t->size() != 1) return std::nullopt;
    return t->real(0);
  }
  // Static dims of `name` (0: unknown extent); empty when the rank is unknown.
  std::vector<int64_t> Dims(const std::string& name) const {
    auto it = dims_.find(name);
    return it == dims_.end() ? std::vector<int64_t>{} : it->second;
  }
  bool Is(int i, const char* op) const {
    return i >= 0 && g_.node(i).op_type() == op && IsDefault(g_.node(i).domain());
  }

 private:
  void ReadConstant(const onnx::NodeProto& n, const std::string& model_dir,
                    const std::string& what) {
    const onnx::AttributeProto* v = FindAttr(n, "value");
    const onnx::AttributeProto* f = FindAttr(n, "value_float");
    try {
      if (v && v->has_t()) consts_[n.output(0)] = ReadTensor(v->t(), model_dir, what);
    } catch (const std::exception&) {
      // Left to the converters, which report it with the node.
    }
    if (f) {
      ConstTensor t;
      t.reals = {f->f()};
      consts_[n.output(0)] = t;
    }
  }
  void AddShape(const onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto& d : v.type().tensor_type().shape().dim())
      dims.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : 0);
    dims_[v.name()] = dims;
  }

  const onnx::GraphProto& g_;
  std::map<std::string, ConstTensor> consts_;
  std::map<std::string, std::set<int>> readers_;
  std::map<std::string, int> writer_;
  std::set<std::string> outputs_;
  std::map<std::string, std::vector<int64_t>> dims_;
};

// A match: the nodes it replaces and the fused node that stands for them.
struct Group {
  std::vector<int> nodes;
  onnx::NodeProto fused;
};

Group MakeGroup(const GraphView& v, std::vector<int> nodes, const char* op,
                const std::vector<std::string>& inputs, const std::string& output) {
  Group grp;
  grp.nodes = std::move(nodes);
  grp.fused.set_op_type(op);
  grp.fused.set_domain(kFusedDomain);
  grp.fused.set_name(v.node(grp.nodes.back()).name());
  for (const auto& in : inputs) grp.fused.add_input(in);
  grp.fused.add_output(output);
  return grp;
}

// The operand of binary node `i` that is not `name` ("" when neither is).
std::string Other(const GraphView& v, int i, const std::string& name) {
  const auto& n = v.node(i);
  if (n.input_size() != 2) return "";
  if (n.input(0) == name) return n.input(1);
  if (n.input(1) == name) return n.input(0);
  return "";
}

bool Near(std::optional<double> s, double want) {
  return s && std::fabs(*s - want) <= 1e-5 * std::fabs(want);
}

// ReduceMean over the last axis of `x`, keeping it.
bool MeanOfLastAxis(const GraphView& v, int i, const std::string& x) {
  if (!v.Is(i, "ReduceMean") || v.node(i).input(0) != x) return false;
  const auto& n = v.node(i);
  if (AttrInt(n, "keepdims", 1) != 1) return false;
  std::vector<int64_t> axes = AttrInts(n, "axes");
  if (n.input_size() > 1) {
    const ConstTensor* t = v.Const(n.input(1));
    if (!t) return false;
    axes = t->AsInts();
  }
  const int64_t rank = static_cast<int64_t>(v.Dims(x).size());
  return axes.size() == 1 && (axes[0] == -1 || (rank > 0 && axes[0] == rank - 1));
}

// A 1-D constant operand of binary node `i` beside `name`.
std::string VectorOperand(const GraphView& v, int i, const std::string& name) {
  const std::string other = Other(v, i, name);
  const ConstTensor* t = v.Const(other);
  return t && t->dims.size() == 1 ? other : "";
}

// ReduceMean(x) -> Sub(x, mean) = d -> Pow(d, 2) | Mul(d, d) -> ReduceMean ->
// Add(eps) -> Sqrt -> Div(d, .) [-> Mul gamma] [-> Add beta].
std::optional<Group> MatchLayerNorm(const GraphView& v, int r1) {
  if (!v.Is(r1, "ReduceMean")) return std::nullopt;
  const std::string x = v.node(r1).input(0);
  if (!MeanOfLastAxis(v, r1, x)) return std::nullopt;
  const int sub = v.OnlyReader(v.node(r1).output(0));
  if (!v.Is(sub, "Sub") || v.node(sub).input(0) != x) return std::nullopt;
  const std::string d = v.node(sub).output(0);
  const std::set<int> dr = v.Readers(d);
  if (dr.size() != 2) return std::nullopt;
  int sq = -1, div = -1;
  for (int i : dr) {
    const auto& n = v.node(i);
    if (v.Is(i, "Div") && n.input(0) == d) div = i;
    if ((v.Is(i, "Pow") && n.input(0) == d && Near(v.Scalar(n.input(1)), 2.0)) ||
        (v.Is(i, "Mul") && n.input(0) == d && n.input(1) == d))
      sq = i;
  }
  if (sq < 0 || div < 0) return std::nullopt;
  const int r2 = v.OnlyReader(v.node(sq).output(0));
  if (!MeanOfLastAxis(v, r2, v.node(sq).output(0))) return std::nullopt;
  const int add = v.OnlyReader(v.node(r2).output(0));
  if (!v.Is(add, "Add")) return std::nullopt;
  const std::optional<double> eps = v.Scalar(Other(v, add, v.node(r2).output(0)));
  if (!eps) return std::nullopt;
  const int sqrt = v.OnlyReader(v.node(add).output(0));
  if (!v.Is(sqrt, "Sqrt") || v.OnlyReader(v.node(sqrt).output(0)) != div ||
      v.node(div).input(1) != v.node(sqrt).output(0))
    return std::nullopt;
  std::vector<int> nodes = {r1, sub, sq, r2, add, sqrt, div};
  std::string out = v.node(div).output(0), gamma, beta;
  const int mul = v.OnlyReader(out);
  if (v.Is(mul, "Mul") && !(gamma = VectorOperand(v, mul, out)).empty()) {
    nodes.push_back(mul);
    out = v.node(mul).output(0);
  }
  const int bias = v.OnlyReader(out);
  if (v.Is(bias, "Add") && !(beta = VectorOperand(v, bias, out)).empty()) {
    nodes.push_back(bias);
    out = v.node(bias).output(0);
  }
  Group grp = MakeGroup(v, nodes, "LayerNorm", {x, gamma, beta}, out);
  onnx::AttributeProto* a = grp.fused.add_attribute();
  a->set_name("epsilon");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(*eps));
  return grp;
}

// Div(x, sqrt 2) | Mul(x, 1/sqrt 2) -> Erf -> Add 1 -> then either
// Mul(x, .) -> Mul 0.5, or Mul(Mul(x, 0.5), .).
std::optional<Group> MatchGelu(const GraphView& v, int erf) {
  if (!v.Is(erf, "Erf")) return std::nullopt;
  const std::string t = v.node(erf).input(0);
  int scale = v.Writer(t, "Div");
  std::string x;
  if (scale >= 0 && Near(v.Scalar(v.node(scale).input(1)), std::sqrt(2.0))) {
    x = v.node(scale).input(0);
  } else if ((scale = v.Writer(t, "Mul")) >= 0) {
    for (int k = 0; k < 2 && x.empty(); ++k)
      if (Near(v.Scalar(v.node(scale).input(1 - k)), std::sqrt(0.5))) x = v.node(scale).input(k);
  }
  if (x.empty() || v.OnlyReader(t) != erf) return std::nullopt;
  const int one = v.OnlyReader(v.node(erf).output(0));
  if (!v.Is(one, "Add") || !Near(v.Scalar(Other(v, one, v.node(erf).output(0))), 1.0))
    return std::nullopt;
  const int m1 = v.OnlyReader(v.node(one).output(0));
  if (!v.Is(m1, "Mul")) return std::nullopt;
  const std::string y = Other(v, m1, v.node(one).output(0));
  if (y == x) {
    const int m2 = v.OnlyReader(v.node(m1).output(0));
    if (!v.Is(m2, "Mul") || !Near(v.Scalar(Other(v, m2, v.node(m1).output(0))), 0.5))
      return std::nullopt;
    return MakeGroup(v, {scale, erf, one, m1, m2}, "Gelu", {x}, v.node(m2).output(0));
  }
  const int half = v.Writer(y, "Mul");
  if (half < 0 || v.OnlyReader(y) != m1 || !Near(v.Scalar(Other(v, half, x)), 0.5))
    return std::nullopt;
  return MakeGroup(v, {scale, half, erf, one, m1}, "Gelu", {x}, v.node(m1).output(0));
}

// MatMul(x, W) [-> Add b], W a 2-D constant, b a 1-D one of W's width.
std::optional<Group> MatchDense(const GraphView& v, int mm) {
  if (!v.Is(mm, "MatMul")) return std::nullopt;
  const auto& n = v.node(mm);
  const ConstTensor* w = v.Const(n.input(1));
  const std::vector<int64_t> xd = v.Dims(n.input(0));
  if (!w || w->dims.size() != 2 || xd.size() == 1) return std::nullopt;
  std::string out = n.output(0), bias;
  std::vector<int> nodes = {mm};
  const int add = v.OnlyReader(out);
  if (v.Is(add, "Add") && !(bias = VectorOperand(v, add, out)).empty()) {
    nodes.push_back(add);
    out = v.node(add).output(0);
  }
  return MakeGroup(v, nodes, "Dense", {n.input(0), n.input(1), bias}, out);
}

// Converters of the fused nodes.

// The scale and shift go into LayerNorm when they have the normalised
// axis' length; a vector that broadcasts otherwise (length 1) is applied
// after it, as the graph did.
void ConvertLayerNorm(ImportContext& c) {
  const auto& n = *c.node;
  const int64_t h = c.KnownShape(n.input(0), "input").dims().back();
  auto fits = [&](int i) { return !n.input(i).empty() && c.ShapeOf(n.input(i)) == Shape({h}); };
  auto param = [&](int i, double fill, const char* suffix) {
    if (fits(i)) return c.Sym(n.input(i));
    ConstTensor t;
    t.dims = {h};
    t.reals.assign(static_cast<size_t>(h), fill);
    return c.NewParam(suffix, t);
  };
  const Symbol gamma = param(1, 1.0, "_gamma"), beta = param(2, 0.0, "_beta");
  Symbol y = ImportContext::First(
      c.Op("LayerNorm", {c.Sym(n.input(0)), gamma, beta},
           {{"axis", "-1"}, {"eps", FormatScalar(AttrFloat(n, "epsilon", 1e-5f))}}));
  if (!n.input(1).empty() && !fits(1))
    y = c.Op("broadcast_mul", {y, c.Sym(n.input(1))}, {}, "_scale");
  if (!n.input(2).empty() && !fits(2))
    y = c.Op("broadcast_add", {y, c.Sym(n.input(2))}, {}, "_shift");
  c.SetOut(0, y);
}

void ConvertGelu(ImportContext& c) {
  c.SetOut(0, c.Op("LeakyReLU", {c.Sym(c.node->input(0))}, {{"act_type", "gelu"}}));
}

// FullyConnected takes its weight as (units, K): W (K, units) transposed;
// a bias of another length than `units` (1: it broadcasts) is added after.
// An input of rank 1 stays a dot.
void ConvertDense(ImportContext& c) {
  const auto& n = *c.node;
  const Shape xs = c.ShapeOf(n.input(0));
  const bool bias = !n.input(2).empty();
  if (!xs.ndim_known() || xs.ndim() < 2) {
    if (xs.ndim_known() && xs.ndim() == 1) {
      const Symbol y = c.Op("dot", {c.Sym(n.input(0)), c.Sym(n.input(1))}, {}, bias ? "_dot" : "");
      c.SetOut(0, bias ? c.Op("broadcast_add", {y, c.Sym(n.input(2))}) : y);
      return;
    }
    c.Unsupported("a MatMul input of unknown rank");
  }
  const ConstTensor& w = c.Const(n.input(1), "weight");
  const int64_t k = w.dims[0], units = w.dims[1];
  ConstTensor wt;
  wt.dims = {units, k};
  wt.reals.resize(w.size());
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < units; ++j) wt.reals[j * k + i] = w.real(i * units + j);
  std::vector<Symbol> args = {c.Sym(n.input(0)), c.NewParam("_weight", wt)};
  const bool fits = bias && c.ShapeOf(n.input(2)) == Shape({units});
  if (fits) args.push_back(c.Sym(n.input(2)));
  Symbol y = c.Op("FullyConnected", args,
                  {{"num_hidden", std::to_string(units)},
                   {"flatten", "False"},
                   {"no_bias", fits ? "False" : "True"}},
                  bias && !fits ? "_fc" : "");
  c.SetOut(0, bias && !fits ? c.Op("broadcast_add", {y, c.Sym(n.input(2))}) : y);
}

}  // namespace

int FuseDecompositions(onnx::GraphProto* g, const std::map<std::string, ConstTensor>& consts,
                       const std::string& model_dir, const std::string& what) {
  std::map<int, Group> at;  // by the index of the group's last node
  {
    const GraphView v(*g, consts, model_dir, what);
    std::set<int> taken;
    for (auto* match : {MatchLayerNorm, MatchGelu, MatchDense}) {
      for (int i = 0; i < g->node_size(); ++i) {
        if (taken.count(i)) continue;
        std::optional<Group> grp = match(v, i);
        if (!grp) continue;
        bool free = true;
        for (int k : grp->nodes) free = free && !taken.count(k);
        if (!free) continue;
        taken.insert(grp->nodes.begin(), grp->nodes.end());
        const int last = *std::max_element(grp->nodes.begin(), grp->nodes.end());
        at.emplace(last, std::move(*grp));
      }
    }
  }
  if (at.empty()) return 0;
  std::set<int> dropped;
  for (const auto& [last, grp] : at) dropped.insert(grp.nodes.begin(), grp.nodes.end());
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (int i = 0; i < g->node_size(); ++i) {
    auto it = at.find(i);
    if (it != at.end())
      *nodes.Add() = it->second.fused;
    else if (!dropped.count(i))
      *nodes.Add() = g->node(i);
  }
  g->mutable_node()->Swap(&nodes);
  return static_cast<int>(at.size());
}

void AddFusedConverters(ConverterMap* m) {
  (*m)["LayerNorm"] = ConvertLayerNorm;
  (*m)["Gelu"] = ConvertGelu;
  (*m)["Dense"] = ConvertDense;
}

}  // namespace onnx_import
}  // namespace weft
