// `weft place`: the device placement of a model (PlaceDevice through
// weft_symbol_place_device), one line per node of the placed graph with its
// device, the inserted _CrossDeviceCopy nodes marked; or, with --dot, the
// placed graph as Graphviz (cli_place_dot.cc). C ABI only.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli_place.h"
#include "cli_util.h"

namespace weft_cli {
namespace {

struct Ctx {
  int type;
  int id;
};

// "cpu(1)", "gpu(0)", "cpu" or "gpu" given to `opt` for `what`.
Ctx ParseCtx(const std::string& text, const std::string& what) {
  for (const auto& [prefix, type] :
       {std::pair<std::string, int>{"cpu", WEFT_CPU}, {"gpu", WEFT_GPU}}) {
    if (text.compare(0, prefix.size(), prefix) != 0) continue;
    std::string rest = text.substr(prefix.size());
    if (rest.empty()) return {type, 0};
    if (rest.size() > 2 && rest.front() == '(' && rest.back() == ')') {
      std::string digits = rest.substr(1, rest.size() - 2);
      char* end = nullptr;
      long id = std::strtol(digits.c_str(), &end, 10);
      if (!digits.empty() && *end == '\0' && digits[0] != '-' && digits[0] != '+' && id <= 1 << 20)
        return {type, static_cast<int>(id)};
    }
  }
  Usage(what + ": device '" + text + "' is not cpu(N) or gpu(N)");
}

// NAME=DEVICE options of one kind, in order, no name twice.
struct CtxOptions {
  std::vector<std::string> names;
  std::vector<int> types, ids;
  void Add(const std::string& text, const char* opt) {
    auto kv = SplitAssign(text, opt);
    for (const std::string& n : names)
      if (n == kv.first) Usage(std::string(opt) + " " + kv.first + " given twice");
    Ctx c = ParseCtx(kv.second, std::string(opt) + " " + kv.first);
    names.push_back(kv.first);
    types.push_back(c.type);
    ids.push_back(c.id);
  }
  std::vector<const char*> CNames() const {
    std::vector<const char*> out;
    for (const std::string& n : names) out.push_back(n.c_str());
    return out;
  }
};

struct PlaceOptions {
  std::string file, default_device;
  std::vector<std::string> group2ctx, bind;
  bool train = false, dot = false;
};

int Place(const PlaceOptions& opts) {
  const std::string& file = opts.file;
  const bool train = opts.train, dot = opts.dot;
  CtxOptions groups, fixed;
  for (const std::string& text : opts.group2ctx) groups.Add(text, "--group2ctx");
  for (const std::string& text : opts.bind) fixed.Add(text, "--bind");
  Ctx def{WEFT_CPU, 0};
  if (!opts.default_device.empty()) def = ParseCtx(opts.default_device, "--default");
  Sym sym;
  Check(weft_symbol_from_json_file(file.c_str(), sym.out()), "place");
  std::vector<const char*> group_names = groups.CNames(), fixed_names = fixed.CNames();
  if (dot) {
    Sym placed;
    size_t num_copies = 0;
    Check(weft_symbol_place_device_graph(
              sym.get(), train ? 1 : 0, def.type, def.id, group_names.size(), group_names.data(),
              groups.types.data(), groups.ids.data(), fixed_names.size(), fixed_names.data(),
              fixed.types.data(), fixed.ids.data(), placed.out(), &num_copies),
          "place");
    WeftStringList* json = nullptr;
    Check(weft_symbol_to_json(placed.get(), &json), "place");
    PrintPlacementDot(Strings(json, "place").at(0));
    return 0;
  }
  WeftStringList *names = nullptr, *ops = nullptr, *devices = nullptr;
  size_t copies = 0;
  Check(weft_symbol_place_device(sym.get(), train ? 1 : 0, def.type, def.id, group_names.size(),
                                 group_names.data(), groups.types.data(), groups.ids.data(),
                                 fixed_names.size(), fixed_names.data(), fixed.types.data(),
                                 fixed.ids.data(), &names, &ops, &devices, &copies),
        "place");
  std::vector<std::string> n = Strings(names, "place"), o = Strings(ops, "place"),
                           d = Strings(devices, "place");
  std::map<std::string, size_t> per_device;
  size_t width = 4;
  for (size_t i = 0; i < n.size(); ++i) {
    ++per_device[d[i]];
    width = std::max(width, n[i].size());
  }
  std::printf("graph: %s\n", train ? "training (forward + gradients)" : "inference");
  std::printf("placement: %zu nodes on %zu device(s), %zu cross-device copies inserted\n", n.size(),
              per_device.size(), copies);
  for (const auto& [dev, count] : per_device) std::printf("  %s: %zu nodes\n", dev.c_str(), count);
  std::printf("\n");
  for (size_t i = 0; i < n.size(); ++i) {
    const bool copy = o[i] == "_CrossDeviceCopy";
    std::printf("%4zu  %-*s  %-8s  %s%s\n", i, static_cast<int>(width), n[i].c_str(), d[i].c_str(),
                o[i].c_str(), copy ? "  <- copy" : "");
  }
  return 0;
}

}  // namespace

Runner DefinePlace(CLI::App* app) {
  auto o = std::make_shared<PlaceOptions>();
  app->description(
      "assigns every node a device (DEV is cpu(N) or gpu(N)) and prints each\n"
      "node of the placed graph with its device, cross-device copies marked;\n"
      "with --dot the placed graph as Graphviz (a fill colour per device,\n"
      "copies as ellipses):\n"
      "weft place m.json --group2ctx a=cpu(1) --dot | dot -Tsvg > m.svg");
  app->add_option("FILE.json", o->file, "the symbol file")->required();
  AddList(app, "--group2ctx", &o->group2ctx, "GROUP=DEV", "the device of a ctx_group attribute");
  AddList(app, "--bind", &o->bind, "NAME=DEV", "a variable's fixed device (a bound array)");
  app->add_option("--default", o->default_device, "the device of the rest (cpu(0))")
      ->type_name("DEV");
  app->add_flag("--train", o->train, "place the training graph (gradients of every argument)");
  app->add_flag("--dot", o->dot, "print the placed graph as Graphviz");
  return [o] { return Place(*o); };
}

}  // namespace weft_cli
