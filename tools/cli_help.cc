// The command line of `weft` over CLI11: the command table, the option
// helpers, the usage texts generated from the option definitions (a
// synopsis per command, then CLI11's option table) and the dispatch that
// turns CLI11's parse errors into usage errors (exit 2) naming the flag.
// `weft --help` prints every command's synopsis and description; `weft CMD
// --help` (or -h anywhere among its arguments, or `weft help CMD`) CMD's
// usage alone.
#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli_profile.h"
#include "cli_util.h"

namespace weft_cli {
namespace {

constexpr size_t kWidth = 100;  // synopsis lines wrap here

// One option's synopsis token: "--shape NAME=D1,D2,...", "[--json]",
// "FILE.json", "[--dtype NAME=TYPE]..." (repeatable).
std::string Token(const CLI::Option* opt) {
  std::string t = opt->get_positional() ? opt->get_name(true, false) : opt->get_name();
  if (!opt->get_positional() && !opt->get_type_name().empty()) t += " " + opt->get_type_name();
  if (!opt->get_required()) t = "[" + t + "]";
  if (opt->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll) t += "...";
  return t;
}

// "weft CMD TOKEN..." wrapped at kWidth, continuation lines indented to
// line up after "usage: weft ". The help flag is left out.
std::string Synopsis(const CLI::App* app) {
  std::string prefix;
  if (app->get_name() == "version") prefix = "weft --version | ";
  if (app->get_name() == "help") prefix = "weft --help | -h | ";
  std::string out = prefix + "weft " + app->get_name(), line = out;
  for (const CLI::Option* opt : app->get_options()) {
    if (opt == app->get_help_ptr()) continue;
    std::string t = Token(opt);
    if (line.size() + 1 + t.size() + 7 > kWidth) {
      out += "\n" + std::string(16, ' ');
      line = std::string(16, ' ');
    } else {
      out += " ";
      line += " ";
    }
    out += t;
    line += t;
  }
  return out + "\n";
}

// `text` with every non-empty line prefixed by `first` (first line) or `rest`.
std::string Indent(const std::string& text, const std::string& first, const std::string& rest) {
  std::string out;
  bool line_start = true, first_line = true;
  for (char c : text) {
    if (line_start && c != '\n') out += first_line ? first : rest;
    if (line_start) first_line = false;
    out += c;
    line_start = c == '\n';
  }
  return out;
}

// A command's help: the synopsis, the description, CLI11's option table.
class Formatter : public CLI::Formatter {
 public:
  Formatter() {
    label("Positionals", "arguments");
    label("REQUIRED", "(required)");
    column_width(34);
  }
  std::string make_usage(const CLI::App* app, std::string) const override {
    return "usage: " + Synopsis(app);
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_positional()) return opt->get_required() ? " (required)" : "";
    return CLI::Formatter::make_option_opts(opt);
  }
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    return make_usage(app, name) + Indent(app->get_description() + "\n", "  ", "  ") +
           make_positionals(app) + make_groups(app, mode);
  }
};

struct Command {
  std::unique_ptr<CLI::App> app;
  Runner run;
};

// A fresh CLI::App for `name` with the house conventions: extras collected
// (reported by Dispatch), a repeated option keeps its last value.
CLI::App* NewApp(std::vector<Command>* commands, const std::string& name) {
  commands->push_back({std::make_unique<CLI::App>("", name), nullptr});
  CLI::App* app = commands->back().app.get();
  app->allow_extras();
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->group("options");
  app->set_help_flag("-h,--help", "print this usage and exit");
  app->formatter(std::make_shared<Formatter>());
  return app;
}

std::vector<Command>& Commands();

const Command* Find(const std::string& name) {
  for (const Command& c : Commands())
    if (c.app->get_name() == name) return &c;
  return nullptr;
}

std::vector<Command>& Commands() {
  static std::vector<Command> commands = [] {
    std::vector<Command> c;
    NewApp(&c, "inspect");
    c.back().run = DefineInspect(c.back().app.get());
    NewApp(&c, "run");
    c.back().run = WithProfile(c.back().app.get(), DefineRun(c.back().app.get()));
    NewApp(&c, "plan");
    c.back().run = DefinePlan(c.back().app.get());
    NewApp(&c, "train");
    c.back().run = WithProfile(c.back().app.get(), DefineTrain(c.back().app.get()));
    NewApp(&c, "predict");
    c.back().run = WithProfile(c.back().app.get(), DefinePredict(c.back().app.get()));
    NewApp(&c, "place");
    c.back().run = DefinePlace(c.back().app.get());
    NewApp(&c, "convert");
    c.back().run = DefineConvert(c.back().app.get());
    NewApp(&c, "export");
    c.back().run = DefineExport(c.back().app.get());
    NewApp(&c, "quantize");
    c.back().run = DefineQuantize(c.back().app.get());
    NewApp(&c, "import");
    c.back().run = DefineImport(c.back().app.get());
    NewApp(&c, "ops");
    c.back().run = DefineOps(c.back().app.get());
    NewApp(&c, "summary");
    c.back().run = DefineSummary(c.back().app.get());
    NewApp(&c, "dot");
    c.back().run = DefineDot(c.back().app.get());
    NewApp(&c, "profile");
    c.back().run = DefineProfile(c.back().app.get());
    NewApp(&c, "im2rec");
    c.back().run = DefineIm2Rec(c.back().app.get());
    CLI::App* version = NewApp(&c, "version");
    version->description("prints the library version and its C ABI version.");
    c.back().run = [] {
      std::printf("weft %s (C ABI %d)\n", weft_version(), weft_abi_version());
      return 0;
    };
    CLI::App* help = NewApp(&c, "help");
    help->description("prints this help, or COMMAND's usage alone (as weft COMMAND --help does).");
    auto command = std::make_shared<std::string>();
    help->add_option("COMMAND", *command, "a command");
    c.back().run = [command] {
      if (!command->empty() && !Find(*command)) Usage("help: unknown command '" + *command + "'");
      std::fputs(command->empty() ? FullUsage().c_str() : Find(*command)->app->help().c_str(),
                 stdout);
      return 0;
    };
    return c;
  }();
  return commands;
}

// The usage error for CLI11's `e` while parsing `app`.
[[noreturn]] void ParseFailure(const CLI::App* app, const CLI::ParseError& e) {
  const std::string cmd = app->get_name(), what = e.what();
  const size_t colon = what.find(": ");
  const std::string flag = colon == std::string::npos ? std::string() : what.substr(0, colon);
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    for (const CLI::Option* opt : app->get_options()) {
      if (!opt->get_required() || opt->count() > 0) continue;
      if (opt->get_positional()) Usage(cmd + ": no symbol file given");
      Usage(cmd + ": " + opt->get_name() + " " + opt->get_type_name() + " is required");
    }
  }
  // Our validators' messages start with "expects ...": "--epochs expects ...".
  if (dynamic_cast<const CLI::ValidationError*>(&e) && !flag.empty())
    Usage(flag + " " + what.substr(colon + 2));
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) &&
      what.find(" missing") != std::string::npos && !flag.empty())
    Usage(flag + " needs a value");
  Usage(cmd + ": " + what);
}

// Arguments CLI11 left over (allow_extras): unknown options, a second file,
// stray words.
void CheckExtras(const CLI::App* app) {
  const std::vector<std::string> rest = app->remaining();
  if (rest.empty()) return;
  const std::string cmd = app->get_name(), a = rest.front();
  if (cmd == "version") Usage("--version takes no arguments");
  if (a.size() > 1 && a[0] == '-') Usage(cmd + ": unknown option '" + a + "'");
  for (const CLI::Option* opt : app->get_options())
    if (opt->get_positional() && opt->count() > 0 && cmd != "help")
      Usage(cmd + ": more than one file given ('" + opt->as<std::string>() + "', '" + a + "')");
  Usage(cmd + ": unexpected argument '" + a + "'");
}

// "--epochs expects an integer >= 1, given 'x'", or "<= max" above it.
template <typename T>
CLI::Option* AddIntT(CLI::App* app, const std::string& name, T* out, T min,
                     const std::string& desc) {
  auto check = [name, min](std::string& text) -> std::string {
    T v{};
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    const bool negative = !text.empty() && text[0] == '-';
    if (ec == std::errc::result_out_of_range && !negative)
      return "expects an integer <= " + std::to_string(std::numeric_limits<T>::max()) +
             ", given '" + text + "'";
    if (text.empty() || ec != std::errc() || ptr != end || v < min)
      return std::string("expects ") +
             (min == 0 ? "a non-negative integer" : "an integer >= " + std::to_string(min)) +
             ", given '" + text + "'";
    return std::string();
  };
  return app->add_option(name, *out, desc)->type_name("N")->check(CLI::Validator(check, ""));
}

}  // namespace

CLI::Option* AddInt(CLI::App* app, const std::string& name, int* out, int min,
                    const std::string& desc) {
  return AddIntT(app, name, out, min, desc);
}
CLI::Option* AddInt(CLI::App* app, const std::string& name, long* out, long min,
                    const std::string& desc) {
  return AddIntT(app, name, out, min, desc);
}
CLI::Option* AddInt(CLI::App* app, const std::string& name, uint64_t* out, uint64_t min,
                    const std::string& desc) {
  return AddIntT(app, name, out, min, desc);
}

CLI::Option* AddList(CLI::App* app, const std::string& name, std::vector<std::string>* out,
                     const std::string& type, const std::string& desc) {
  return app->add_option(name, *out, desc)
      ->type_name(type)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Option* AddChoice(CLI::App* app, const std::string& name, std::string* out,
                       const std::vector<std::string>& choices, const std::string& desc) {
  std::string type, listed;
  for (size_t i = 0; i < choices.size(); ++i) {
    type += (i ? "|" : "") + choices[i];
    listed += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  auto check = [choices, listed](std::string& text) -> std::string {
    for (const std::string& c : choices)
      if (text == c) return std::string();
    return "expects " + listed + ", given '" + text + "'";
  };
  return app->add_option(name, *out, desc)->type_name(type)->check(CLI::Validator(check, ""));
}

std::string FullUsage() {
  std::string s, text;
  bool first = true;
  for (const Command& c : Commands()) {
    const std::string name = c.app->get_name();
    if (name == "help" || name == "version") continue;
    s += (first ? "usage: " : "       ") + Synopsis(c.app.get());
    first = false;
    text += Indent(c.app->get_description() + "\n", name + std::string(9 - name.size(), ' '),
                   std::string(9, ' '));
  }
  return s + "       weft --version | --help | COMMAND --help\n\n" + text;
}

[[noreturn]] void Usage(const std::string& msg) { throw Exit{2, "weft: " + msg}; }

int Dispatch(int argc, char** argv) {
  if (argc < 2) Usage("no command given");
  std::string name = argv[1];
  if (name == "--help" || name == "-h") name = "help";
  if (name == "--version") name = "version";
  const Command* c = Find(name);
  if (!c) Usage("unknown command '" + name + "'");
  try {
    c->app->parse(argc - 1, argv + 1);  // argv[1], the command, stands for the program name
  } catch (const CLI::CallForHelp&) {
    std::fputs(c->app->help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    ParseFailure(c->app.get(), e);
  }
  CheckExtras(c->app.get());
  return c->run();
}

}  // namespace weft_cli
