// The usage texts of the `weft` command-line tool: one synopsis and one
// description per subcommand. `weft --help` prints them all; `weft CMD
// --help` (or -h, or `weft help CMD`) prints CMD's alone.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli_util.h"

namespace weft_cli {
namespace {

struct CommandHelp {
  const char* name;
  const char* synopsis;  // after "usage: "; continuation lines indented to match
  const char* text;      // plain lines, indented when printed
};

const CommandHelp kCommands[] = {
    {"inspect", "weft inspect FILE.json [--shape NAME=D1,D2,...]... [--dtype NAME=TYPE]... [--json]\n",
     "loads an MXNet symbol file (1.x, 0.9 or 0.8 format) and prints the\n"
     "format generation, arguments, auxiliary states and outputs with their\n"
     "inferred shapes and dtypes. --shape gives an input shape (0 or ? for an\n"
     "unknown extent, nothing after '=' for a scalar); --dtype an input type\n"
     "(float32, float64, float16, uint8, int32, int8, int64). Unknown extents\n"
     "print as ? (0 in --json), unknown dtypes as ? (null in --json).\n"},
    {"run",
     "weft run --symbol S.json [--params P.params] [--input NAME=FILE.npy]... [--output-dir DIR]\n"
     "                [--init xavier|uniform|normal|zero|one] [--seed N] [--train-mode]\n",
     "binds a model (shapes from the inputs, parameters from an MXNet .params\n"
     "file with arg:/aux: names), runs forward and writes every output as\n"
     "DIR/<output>.npy (DIR defaults to .; created with its parents when\n"
     "missing); prints outputs and planned memory. --input sets an argument or\n"
     "an auxiliary state (e.g. a BatchNorm's moving_mean), overriding --params.\n"
     "--init fills what neither gives with MXNet's initializer (weights by the\n"
     "rule, *bias/*beta/*moving_mean 0, *gamma/*moving_var 1, __init__\n"
     "attributes honoured; inputs named *data/*label get zeros), seeded by\n"
     "--seed (default 1; it also seeds random operators). --train-mode runs\n"
     "forward with training behaviour (batch statistics, Dropout).\n"},
    {"plan", "weft plan FILE.json --shape NAME=D1,D2,...... [--dtype NAME=TYPE]... [--train]\n",
     "binds a model from input shapes and prints its memory plan: naive vs\n"
     "planned bytes, in-place and reuse counts, and each node's storage.\n"
     "--train plans the training graph (gradients of every non-data argument).\n"},
    {"train",
     "weft train --symbol S.json [--data-dir DIR] [--epochs N] [--batch-size B]\n"
     "                [--optimizer sgd|adam] [--lr X] [--momentum M] [--wd W] [--init NAME]\n"
     "                [--seed S] [--limit N] [--save PREFIX] [--progress auto|bar|lines|epoch|none]\n",
     "trains a model on MNIST-format IDX files (DIR defaults to Debian's\n"
     "/usr/share/datasets/fashion-mnist): shuffled batches (default 64), SGD with\n"
     "momentum 0.9 (lr 0.05) or Adam (lr 0.001), Xavier init; prints progress, the\n"
     "test accuracy and images/s, and with --save writes PREFIX-symbol.json and\n"
     "PREFIX-<epoch>.params (MXNet's checkpoint). --limit trains on the first N.\n"},
    {"predict",
     "weft predict --checkpoint PREFIX --epoch N [--data-dir DIR] [--set t10k|train]\n"
     "                [--limit N] [--batch-size B] [--out FILE]\n",
     "classifies MNIST-format images (DIR/SET-images-idx3-ubyte.gz, default the\n"
     "t10k set of Debian's Fashion-MNIST; --limit: the first N) with the\n"
     "checkpoint PREFIX-symbol.json + PREFIX-<epoch>.params (inputs data and\n"
     "softmax_label; batches of 100, last one padded), prints the accuracy and\n"
     "with --out writes each image's predicted class (arg max), one per line.\n"},
    {"place",
     "weft place FILE.json [--group2ctx GROUP=DEV]... [--bind NAME=DEV]... [--default DEV]\n"
     "                [--train] [--dot]\n",
     "assigns every node a device (DEV is cpu(N) or gpu(N)): --group2ctx maps\n"
     "a ctx_group attribute to a device, --bind fixes a variable's device (a\n"
     "bound array), --default places the rest (cpu(0)); prints each node of the\n"
     "placed graph with its device, cross-device copies marked. --train places\n"
     "the training graph (gradients of every argument). --dot prints the placed\n"
     "graph as Graphviz instead (a fill colour per device, copies as ellipses):\n"
     "weft place m.json --group2ctx a=cpu(1) --dot | dot -Tsvg > m.svg\n"},
    {"ops", "weft ops [--json]\n",
     "lists the registered operators with their aliases, parameters, defaults\n"
     "and docs.\n"},
    {"version", "weft --version | weft version\n", "prints the library version and its C ABI version.\n"},
    {"help", "weft --help | -h | help [COMMAND]\n",
     "prints this help, or COMMAND's usage alone (as weft COMMAND --help does).\n"},
};

const CommandHelp* Find(const std::string& name) {
  for (const CommandHelp& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

// `text` with every non-empty line prefixed by `first` (first line) or `rest`.
std::string Indent(const char* text, const std::string& first, const std::string& rest) {
  std::string out;
  bool line_start = true, first_line = true;
  for (const char* p = text; *p; ++p) {
    if (line_start && *p != '\n') out += first_line ? first : rest;
    if (line_start) first_line = false;
    out += *p;
    line_start = *p == '\n';
  }
  return out;
}

std::string FullUsage() {
  std::string s;
  bool first = true;
  for (const CommandHelp& c : kCommands) {
    if (std::strcmp(c.name, "help") == 0 || std::strcmp(c.name, "version") == 0) continue;
    s += (first ? "usage: " : "       ") + std::string(c.synopsis);
    first = false;
  }
  s += "       weft --version | --help | COMMAND --help\n\n";
  for (const CommandHelp& c : kCommands) {
    if (std::strcmp(c.name, "help") == 0 || std::strcmp(c.name, "version") == 0) continue;
    std::string name = c.name;
    name.resize(9, ' ');
    s += Indent(c.text, name, std::string(9, ' '));
  }
  return s;
}

}  // namespace

bool IsCommand(const std::string& name) { return Find(name) != nullptr; }

void PrintHelp(const std::string& command) {
  const CommandHelp* c = Find(command);
  if (!c) {
    std::fputs(FullUsage().c_str(), stdout);
    return;
  }
  std::printf("usage: %s\n%s", c->synopsis, Indent(c->text, "  ", "  ").c_str());
}

[[noreturn]] void Usage(const std::string& msg) { throw Exit{2, "weft: " + msg + "\n\n" + FullUsage()}; }

}  // namespace weft_cli
