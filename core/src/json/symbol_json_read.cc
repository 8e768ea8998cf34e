// Reading the JSON text into a RawGraph: every type, key and id is checked.
#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_raw.h"
#include "weft/status.h"

namespace weft {
namespace json_internal {

namespace {

using nlohmann::json;

template <typename... Args>
[[noreturn]] void Bad(const Args&... args) {
  Fail(StatusCode::kInvalidArgument, "symbol JSON: ", args...);
}

const char* TypeOf(const json& v) { return v.type_name(); }

uint32_t ReadId(const json& v, const std::string& what, size_t limit) {
  if (!v.is_number_integer()) Bad(what, " must be a non-negative integer, got ", TypeOf(v));
  if (v.is_number_unsigned() ? v.get<uint64_t>() >= limit : true)
    Bad(what, " = ", v.dump(), " is out of range (must be below ", limit, ")");
  return static_cast<uint32_t>(v.get<uint64_t>());
}

RawEntry ReadEntry(const json& v, const std::string& what, size_t num_nodes) {
  if (!v.is_array()) Bad(what, " must be an array [node, index, version], got ", TypeOf(v));
  if (v.size() != 2 && v.size() != 3) Bad(what, " must have 2 or 3 elements, got ", v.size());
  constexpr size_t kMax = std::numeric_limits<uint32_t>::max();
  RawEntry e;
  e.node = ReadId(v[0], what + " node id", num_nodes);
  e.index = ReadId(v[1], what + " output index", kMax);
  if (v.size() == 3) e.version = ReadId(v[2], what + " version", kMax);
  return e;
}

std::vector<RawEntry> ReadEntries(const json& v, const std::string& what, size_t num_nodes) {
  if (!v.is_array()) Bad(what, " must be an array, got ", TypeOf(v));
  std::vector<RawEntry> out;
  for (size_t i = 0; i < v.size(); ++i)
    out.push_back(ReadEntry(v[i], StrCat(what, "[", i, "]"), num_nodes));
  return out;
}

std::vector<uint32_t> ReadIds(const json& v, const std::string& what, size_t limit) {
  if (!v.is_array()) Bad(what, " must be an array, got ", TypeOf(v));
  std::vector<uint32_t> out;
  for (size_t i = 0; i < v.size(); ++i)
    out.push_back(ReadId(v[i], StrCat(what, "[", i, "]"), limit));
  return out;
}

void ReadDict(const json& v, const std::string& what, StringMap* dict) {
  if (!v.is_object()) Bad(what, " must be an object of strings, got ", TypeOf(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it.value().is_string())
      Bad(what, " key '", it.key(), "' must have a string value, got ", TypeOf(it.value()));
    (*dict)[it.key()] = it.value().get<std::string>();
  }
}

const json& Require(const json& obj, const char* key, const std::string& what) {
  auto it = obj.find(key);
  if (it == obj.end()) Bad(what, " has no \"", key, "\" field");
  return *it;
}

RawGraph ReadGraph(const json& root, const std::string& prefix);

// A node's "subgraphs": an array of graph objects.
std::vector<RawGraph> ReadSubgraphs(const json& v, const std::string& what) {
  if (!v.is_array()) Bad(what, " field \"subgraphs\" must be an array, got ", TypeOf(v));
  std::vector<RawGraph> out;
  for (size_t k = 0; k < v.size(); ++k)
    out.push_back(ReadGraph(v[k], StrCat(what, " subgraph ", k, ": ")));
  return out;
}

RawNode ReadNode(const json& v, size_t i, size_t num_nodes, const std::string& prefix) {
  std::string what = StrCat(prefix, "node ", i);
  if (!v.is_object()) Bad(what, " must be an object, got ", TypeOf(v));
  static const char* kKnown[] = {"op",           "name",      "inputs",
                                 "attrs",        "attr",      "param",
                                 "control_deps", "subgraphs", "backward_source_id"};
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known) Bad(what, ": unknown field \"", it.key(), "\"");
  }
  RawNode n;
  const json& op = Require(v, "op", what);
  const json& name = Require(v, "name", what);
  if (!op.is_string()) Bad(what, " field \"op\" must be a string, got ", TypeOf(op));
  if (!name.is_string()) Bad(what, " field \"name\" must be a string, got ", TypeOf(name));
  n.op = op.get<std::string>();
  n.name = name.get<std::string>();
  if (n.name.find('\0') != std::string::npos)
    Bad(what, " field \"name\" contains a NUL character (\\u0000) at offset ", n.name.find('\0'));
  what = StrCat(prefix, "node ", i, " '", n.name, "'");
  n.inputs = ReadEntries(Require(v, "inputs", what), what + " inputs", num_nodes);
  auto dict = [&](const char* key, bool* flag) {
    auto it = v.find(key);
    if (it == v.end()) return;
    *flag = true;
    ReadDict(*it, StrCat(what, " field \"", key, "\""), &n.dict);
  };
  dict("param", &n.has_param);
  dict("attr", &n.has_attr);
  dict("attrs", &n.has_attrs);
  if (auto it = v.find("control_deps"); it != v.end())
    n.control_deps = ReadIds(*it, what + " control_deps", num_nodes);
  if (auto it = v.find("subgraphs"); it != v.end()) n.subgraphs = ReadSubgraphs(*it, what);
  if (auto it = v.find("backward_source_id"); it != v.end() && !it->is_number_integer())
    Bad(what, " field \"backward_source_id\" must be an integer, got ", TypeOf(*it));
  return n;
}

void ReadGraphAttrs(const json& v, const std::string& prefix, RawGraph* g) {
  if (!v.is_object()) Bad(prefix, "\"attrs\" must be an object, got ", TypeOf(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    const json& a = it.value();
    if (!a.is_array() || a.size() != 2 || !a[0].is_string())
      Bad(prefix, "graph attribute '", it.key(), "' must be an array [type, value]");
    if (it.key() != "mxnet_version") continue;
    if (a[0].get<std::string>() != "int" || !a[1].is_number_integer() || a[1].get<int64_t>() < 0 ||
        a[1].get<int64_t>() > std::numeric_limits<int>::max())
      Bad(prefix, "graph attribute mxnet_version must be [\"int\", version], got ", a.dump());
    g->mxnet_version = static_cast<int>(a[1].get<int64_t>());
    g->has_version = true;
  }
}

// The deepest array/object nesting a symbol file may use. MXNet files nest
// at most 4 levels; the bound keeps nlohmann's recursive parser, dump() and
// destructor within a small thread stack.
constexpr int kMaxDepth = 64;

// The object keys on the way to the current depth, e.g. "attrs.mxnet_version"
// (the first 4, each cut at 40 characters), or "the top level".
std::string KeyPath(const std::vector<std::string>& keys) {
  std::string path;
  for (size_t k = 0; k < keys.size() && k < 4; ++k)
    if (!keys[k].empty()) path += (path.empty() ? "" : ".") + keys[k];
  return path.empty() ? "the top level" : "\"" + path + "\"";
}

// Refuses nesting deeper than kMaxDepth before the recursive parser runs
// (brackets inside strings do not count), naming the keys that lead there.
void CheckDepth(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  size_t start = 0;               // the opening quote of the current string
  std::vector<std::string> keys;  // keys[d]: the last key read at depth d + 1
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        size_t j = i + 1;
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
        if (j < text.size() && text[j] == ':' && depth > 0) {
          keys.resize(static_cast<size_t>(depth));
          keys.back() = text.substr(start + 1, std::min<size_t>(i - start - 1, 40));
        }
      }
    } else if (c == '"') {
      in_string = true;
      start = i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        Bad("arrays and objects nest too deep under ", KeyPath(keys), " at byte offset ", i,
            " (the limit is ", kMaxDepth, " levels; MXNet files use 4)");
    } else if ((c == ']' || c == '}') && depth > 0) {
      if (keys.size() > static_cast<size_t>(--depth)) keys.resize(static_cast<size_t>(depth));
    }
  }
}

// A graph object: the document (`prefix` empty) or a node's subgraph
// (`prefix` "node 3 'sg' subgraph 0: ", which every message starts with).
RawGraph ReadGraph(const json& root, const std::string& prefix) {
  const std::string doc = prefix.empty() ? "the document" : prefix + "the subgraph";
  if (!root.is_object()) Bad(doc, " must be an object, got ", TypeOf(root));
  static const char* kKnown[] = {"nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"};
  for (auto it = root.begin(); it != root.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known)
      Bad(prefix, "unknown ", prefix.empty() ? "top-level " : "", "field \"", it.key(), "\"");
  }
  RawGraph g;
  const json& nodes = Require(root, "nodes", doc);
  if (!nodes.is_array()) Bad(prefix, "\"nodes\" must be an array, got ", TypeOf(nodes));
  if (nodes.size() >= std::numeric_limits<uint32_t>::max()) Bad(prefix, "too many nodes");
  for (size_t i = 0; i < nodes.size(); ++i)
    g.nodes.push_back(ReadNode(nodes[i], i, nodes.size(), prefix));
  g.arg_nodes = ReadIds(Require(root, "arg_nodes", doc), prefix + "arg_nodes", nodes.size());
  g.heads = ReadEntries(Require(root, "heads", doc), prefix + "heads", nodes.size());
  if (auto it = root.find("node_row_ptr"); it != root.end()) {
    std::vector<uint32_t> row_ptr =
        ReadIds(*it, prefix + "node_row_ptr", std::numeric_limits<uint32_t>::max());
    if (row_ptr.size() != nodes.size() + 1 || row_ptr[0] != 0)
      Bad(prefix, "node_row_ptr must have ", nodes.size() + 1, " offsets starting at 0, got ",
          row_ptr.size());
    for (size_t i = 0; i + 1 < row_ptr.size(); ++i)
      if (row_ptr[i + 1] < row_ptr[i])
        Bad(prefix, "node_row_ptr must not decrease (at ", i + 1, ")");
  }
  if (auto it = root.find("attrs"); it != root.end()) ReadGraphAttrs(*it, prefix, &g);
  return g;
}

// Nested graphs carry no version of their own: they take the document's.
void InheritVersion(RawGraph* g) {
  for (RawNode& n : g->nodes)
    for (RawGraph& sub : n.subgraphs) {
      sub.mxnet_version = g->mxnet_version;
      sub.has_version = g->has_version;
      InheritVersion(&sub);
    }
}

}  // namespace

RawGraph ReadRawGraph(const std::string& text) {
  CheckDepth(text);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    Bad("not valid JSON: ", e.what());
  }
  RawGraph g = ReadGraph(root, "");
  InheritVersion(&g);
  return g;
}

}  // namespace json_internal
}  // namespace weft
