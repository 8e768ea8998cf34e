// `weft ops`: every registered operator with its aliases, documentation and
// parameters (type, default or required, doc), as text or --json, through
// the C ABI's weft_op_* listing; --load PATH loads operator libraries first
// (weft_load_library), whose operators are marked as such.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli_util.h"

namespace weft_cli {
namespace {

struct ParamInfo {
  std::string name, type, doc;
  bool required = false;
  std::string def;
};
struct OpInfo {
  std::string name, doc;
  bool library = false;
  std::vector<std::string> aliases;
  std::vector<ParamInfo> params;
};

// Every registered operator (canonical names, sorted) through weft_op_*.
std::vector<OpInfo> ListOps() {
  size_t n = 0;
  Check(weft_op_count(&n), "ops");
  std::vector<OpInfo> ops(n);
  WeftStringList* loaded = nullptr;
  Check(weft_loaded_ops(&loaded), "ops");
  const std::vector<std::string> library = Strings(loaded, "ops");
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    const char* doc = nullptr;
    size_t np = 0;
    Check(weft_op_name(i, &name), "ops");
    Check(weft_op_info(name, &doc, &np), "ops");
    ops[i].name = name;
    ops[i].doc = doc ? doc : "";
    ops[i].library = std::find(library.begin(), library.end(), ops[i].name) != library.end();
    WeftStringList* aliases = nullptr;
    Check(weft_op_aliases(name, &aliases), "ops");
    ops[i].aliases = Strings(aliases, "ops");
    for (size_t k = 0; k < np; ++k) {
      const char *pn = nullptr, *pt = nullptr, *pd = nullptr, *pdoc = nullptr;
      Check(weft_op_param(name, k, &pn, &pt, &pd, &pdoc), "ops");
      ParamInfo p;
      p.name = pn;
      p.type = pt;
      p.required = pd == nullptr;
      p.def = pd ? pd : "";
      p.doc = pdoc ? pdoc : "";
      ops[i].params.push_back(std::move(p));
    }
  }
  return ops;
}

// Prints `text` with every line indented by `indent` spaces.
void PrintIndented(const std::string& text, int indent) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    std::printf("%*s%s\n", line.empty() ? 0 : indent, "", line.c_str());
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
}

int Ops(bool json, const std::vector<std::string>& libraries) {
  for (const std::string& path : libraries) Check(weft_load_library(path.c_str()), "ops");
  std::vector<OpInfo> ops = ListOps();
  if (json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const OpInfo& op : ops) {
      nlohmann::ordered_json params = nlohmann::ordered_json::array();
      for (const ParamInfo& p : op.params) {
        nlohmann::ordered_json def = nullptr;
        if (!p.required) def = p.def;
        params.push_back({{"name", p.name},
                          {"type", p.type},
                          {"required", p.required},
                          {"default", def},
                          {"doc", p.doc}});
      }
      nlohmann::ordered_json entry = {
          {"name", op.name}, {"doc", op.doc}, {"aliases", op.aliases}, {"params", params}};
      if (op.library) entry["library"] = true;
      out.push_back(std::move(entry));
    }
    std::printf("%s\n", JsonText(out, 3).c_str());
    return 0;
  }
  std::printf("%zu operators\n", ops.size());
  for (const OpInfo& op : ops) {
    std::printf("\n%s\n", op.name.c_str());
    if (op.library) std::printf("  from an operator library\n");
    if (!op.aliases.empty()) {
      std::string line = "  aliases: ";
      for (size_t k = 0; k < op.aliases.size(); ++k) line += (k ? ", " : "") + op.aliases[k];
      std::printf("%s\n", line.c_str());
    }
    if (!op.doc.empty()) PrintIndented(op.doc, 4);
    for (const ParamInfo& p : op.params) {
      std::string head = "  " + p.name + " : " + p.type +
                         (p.required ? std::string(", required") : ", default " + p.def);
      std::printf("%s\n", head.c_str());
      if (!p.doc.empty()) PrintIndented(p.doc, 6);
    }
  }
  return 0;
}

}  // namespace

Runner DefineOps(CLI::App* app) {
  auto json = std::make_shared<bool>(false);
  auto libraries = std::make_shared<std::vector<std::string>>();
  app->description(
      "lists the registered operators with their aliases, parameters, defaults\nand docs.");
  app->add_flag("--json", *json, "print the list as JSON");
  AddList(app, "--load", libraries.get(), "LIB.so", "load an operator library first");
  return [json, libraries] { return Ops(*json, *libraries); };
}

}  // namespace weft_cli
