// `weft summary` (MXNet's print_summary with FLOPs and activation bytes) and
// `weft dot` (plot_network as Graphviz DOT, or SVG/PNG through Graphviz's
// `dot`), over weft_symbol_summary / weft_symbol_to_dot.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {
namespace {

struct ReportOptions {
  std::string file, title = "plot", format = "dot", output;
  std::vector<std::string> shapes, node_attrs;
  bool show_weights = false, no_shapes = false, memory = false;
};

// The symbol and its --shape arguments in the C ABI's CSR form.
struct ShapedSymbol {
  Sym sym;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
  std::vector<size_t> ind_ptr{0};
  std::vector<int64_t> dims;
};

void Load(const ReportOptions& o, const char* cmd, ShapedSymbol* s) {
  Check(weft_symbol_from_json_file(o.file.c_str(), s->sym.out()), cmd);
  for (const std::string& text : o.shapes) {
    const ShapeArg a = ParseShape(text);
    s->names.push_back(a.name);
    s->dims.insert(s->dims.end(), a.dims.begin(), a.dims.end());
    s->ind_ptr.push_back(s->dims.size());
  }
  for (const std::string& n : s->names) s->name_ptrs.push_back(n.c_str());
}

int Summary(const ReportOptions& o) {
  ShapedSymbol s;
  Load(o, "summary", &s);
  WeftStringList* l = nullptr;
  Check(weft_symbol_summary(s.sym.get(), s.names.size(), s.name_ptrs.data(), s.ind_ptr.data(),
                            s.dims.data(), &l),
        "summary");
  std::fputs(Strings(l, "summary").at(0).c_str(), stdout);
  return 0;
}

int Dot(const ReportOptions& o) {
  ShapedSymbol s;
  Load(o, "dot", &s);
  std::vector<std::string> keys{"title", "hide_weights", "shapes", "memory"};
  std::vector<std::string> values{o.title, o.show_weights ? "0" : "1", o.no_shapes ? "0" : "1",
                                  o.memory ? "1" : "0"};
  for (const std::string& a : o.node_attrs) {
    auto kv = SplitAssign(a, "--node-attr");
    keys.push_back("node_attr." + kv.first);
    values.push_back(kv.second);
  }
  std::vector<const char*> k, v;
  for (size_t i = 0; i < keys.size(); ++i) {
    k.push_back(keys[i].c_str());
    v.push_back(values[i].c_str());
  }
  WeftStringList* l = nullptr;
  Check(weft_symbol_to_dot(s.sym.get(), s.names.size(), s.name_ptrs.data(), s.ind_ptr.data(),
                           s.dims.data(), k.size(), k.data(), v.data(), &l),
        "dot");
  const std::string dot = Strings(l, "dot").at(0);
  if (o.format == "dot" && o.output.empty()) {
    std::fputs(dot.c_str(), stdout);
    return 0;
  }
  if (o.format == "dot") {
    FILE* f = std::fopen(o.output.c_str(), "w");
    if (!f || std::fputs(dot.c_str(), f) < 0 || std::fclose(f) != 0)
      throw Exit{1, "weft dot: error: cannot write '" + o.output + "'"};
    return 0;
  }
  if (o.output.empty()) Usage("dot: --format " + o.format + " needs -o FILE");
  // Graphviz renders: dot -T<format> -o FILE, the DOT text on its stdin.
  const std::string cmd = "dot -T" + o.format + " -o '" + o.output + "'";
  if (o.output.find('\'') != std::string::npos) Usage("dot: -o must not contain a quote");
  FILE* p = popen(cmd.c_str(), "w");
  if (!p) throw Exit{1, "weft dot: error: cannot run Graphviz's dot"};
  std::fputs(dot.c_str(), p);
  const int rc = pclose(p);
  if (rc != 0)
    throw Exit{1, "weft dot: error: '" + cmd +
                      "' failed (is Graphviz installed? Debian: apt install graphviz)"};
  return 0;
}

void AddCommon(CLI::App* app, ReportOptions* o) {
  app->add_option("FILE.json", o->file, "the symbol file")->required();
  AddList(app, "--shape", &o->shapes, "NAME=D1,D2,...", "an input's shape (0 or ? unknown)");
}

}  // namespace

Runner DefineSummary(CLI::App* app) {
  auto o = std::make_shared<ReportOptions>();
  app->description(
      "prints MXNet's print_summary table of a symbol: per layer its output\n"
      "shape (without the batch axis), parameters, previous layers, FLOPs and\n"
      "activation bytes, then the totals.");
  AddCommon(app, o.get());
  return [o] { return Summary(*o); };
}

Runner DefineDot(CLI::App* app) {
  auto o = std::make_shared<ReportOptions>();
  app->description(
      "draws a symbol as MXNet's plot_network does: Graphviz DOT on stdout\n"
      "(or -o FILE), or SVG/PNG through Graphviz's dot; edges carry shapes.");
  AddCommon(app, o.get());
  app->add_flag("--show-weights", o->show_weights, "draw the learned arguments and aux states");
  app->add_flag("--no-shapes", o->no_shapes, "no shapes on the edges");
  app->add_flag("--memory", o->memory,
                "colour nodes by the memory plan's block (needs every shape)");
  app->add_option("--title", o->title, "the graph's name (default plot)");
  AddList(app, "--node-attr", &o->node_attrs, "KEY=VALUE", "a Graphviz node attribute");
  AddChoice(app, "--format", &o->format, {"dot", "svg", "png", "pdf"},
            "output format (default dot)");
  app->add_option("-o,--output", o->output, "the output file")->type_name("FILE");
  return [o] { return Dot(*o); };
}

}  // namespace weft_cli
