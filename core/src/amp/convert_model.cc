// amp::DefaultLists, the list checks of convert_symbol, the __dtype__
// codes a converted graph gives its parameters, and amp::ConvertModel.
#include <algorithm>
#include <set>

#include "amp/amp_lists.h"
#include "weft/amp.h"
#include "weft/imperative.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace amp {

namespace {

std::string Join(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

void CheckDisjoint(const std::set<std::string>& a, const std::set<std::string>& b,
                   const char* what) {
  std::set<std::string> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                        std::inserter(common, common.begin()));
  if (!common.empty())
    Fail(StatusCode::kInvalidArgument, "amp: operators in two lists (", what, "): ", Join(common));
}

}  // namespace

OpLists DefaultLists(DType target) {
  if (target == DType::kFloat16) return Float16Lists();
  if (target == DType::kBFloat16) return BFloat16Lists();
  Fail(StatusCode::kDType, "amp: target dtype ", DTypeName(target),
       " is not supported (expected float16 or bfloat16)");
}

Lists CheckedLists(const ConvertOptions& opts) {
  const OpLists d = DefaultLists(opts.target_dtype);
  auto set = [](const std::vector<std::string>& v) {
    return std::set<std::string>(v.begin(), v.end());
  };
  Lists l;
  l.target = set(opts.target_dtype_ops.empty() ? d.target_dtype_ops : opts.target_dtype_ops);
  l.fp32 = set(opts.fp32_ops.empty() ? d.fp32_ops : opts.fp32_ops);
  l.widest = set(d.widest_dtype_ops);
  l.excluded = set(opts.excluded_sym_names);
  const auto& cond = opts.override_conditional ? opts.conditional_fp32_ops : d.conditional_fp32_ops;
  std::set<std::string> cond_ops;
  for (const ConditionalOp& c : cond) {
    auto& values = l.conditional[c.op][c.param];
    values.insert(values.end(), c.values.begin(), c.values.end());
    cond_ops.insert(c.op);
  }
  CheckDisjoint(l.target, l.fp32, "target_dtype_ops and fp32_ops");
  CheckDisjoint(l.target, cond_ops, "target_dtype_ops and conditional_fp32_ops");
  CheckDisjoint(cond_ops, l.fp32, "fp32_ops and conditional_fp32_ops");
  std::set<std::string> known = set(d.target_dtype_ops);
  for (const auto* v : {&d.fp32_ops, &d.neutral_ops}) known.insert(v->begin(), v->end());
  for (const ConditionalOp& c : d.conditional_fp32_ops) known.insert(c.op);
  std::set<std::string> chosen = l.target;
  chosen.insert(l.fp32.begin(), l.fp32.end());
  chosen.insert(cond_ops.begin(), cond_ops.end());
  std::set<std::string> unknown;
  for (const auto& op : chosen)
    if (!known.count(op)) unknown.insert(op);
  if (!unknown.empty())
    Fail(StatusCode::kInvalidArgument, "amp: operators in no AMP list of ",
         DTypeName(opts.target_dtype),
         " (target, float32, neutral or conditional): ", Join(unknown));
  return l;
}

void SetParamDTypes(Symbol* sym, const std::set<std::string>& data_names) {
  IndexedGraph g(Graph{sym->outputs});
  pass::DTypeMap data;
  for (const auto& n : data_names) data[n] = DType::kFloat32;
  for (auto it = data.begin(); it != data.end();) {  // names the graph no longer has
    bool found = false;
    for (uint32_t nid : g.input_nodes()) found = found || g.node(nid).attrs.name == it->first;
    it = found ? std::next(it) : data.erase(it);
  }
  const pass::TypeResult t = pass::InferType(g, data);
  for (uint32_t nid : g.input_nodes()) {
    Node& v = *g[nid].node;
    if (data_names.count(v.attrs.name)) continue;
    const DType d = t.dtypes[g.entry_id(nid, 0)];
    v.attrs.dict["__dtype__"] =
        std::to_string(static_cast<int>(d == DType::kUnknown ? DType::kFloat32 : d));
  }
}

Model ConvertModel(const OpRegistry& reg, const Symbol& sym,
                   const std::map<std::string, NDArray>& args,
                   const std::map<std::string, NDArray>& aux, ConvertOptions opts) {
  opts.data_names.clear();
  IndexedGraph g(Graph{sym.outputs});
  for (uint32_t nid : g.input_nodes()) {
    const std::string& n = g.node(nid).attrs.name;
    if (!args.count(n) && !aux.count(n)) opts.data_names.push_back(n);
  }
  Model m;
  m.symbol = ConvertSymbol(reg, sym, opts);
  std::map<std::string, DType> typed;
  IndexedGraph cg(Graph{m.symbol.outputs});
  for (uint32_t nid : cg.input_nodes()) {
    const Node& v = cg.node(nid);
    auto it = v.attrs.dict.find("__dtype__");
    if (it != v.attrs.dict.end()) typed[v.attrs.name] = ParseDType(it->second);
  }
  auto cast = [&](const std::map<std::string, NDArray>& in, std::map<std::string, NDArray>* out) {
    for (const auto& [name, a] : in) {
      auto t = typed.find(name);
      const bool to_reduced =
          t != typed.end() && IsReducedFloat(t->second) && a.dtype() != t->second;
      (*out)[name] =
          to_reduced ? Invoke(a.runtime(), "Cast", {a}, {{"dtype", DTypeName(t->second)}})[0] : a;
    }
  };
  cast(args, &m.args);
  cast(aux, &m.aux);
  return m;
}

}  // namespace amp
}  // namespace weft
