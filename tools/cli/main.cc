// switchyard — the command-line tool.
#include <cstdio>
#include <memory>

#include "CLI/CLI.hpp"
#include "commands.h"
#include "dispatcher/runtime.h"
#include "dispatcher/version.h"

int main(int argc, char** argv) {
  CLI::App app{"Switchyard: an operator dispatcher for deep-learning runtimes"};
  app.set_version_flag("--version", sy::kSwitchyardVersion);
  app.require_subcommand(1);
  bool json = false;
  CLI::App* info = app.add_subcommand("info", "Plugins (with load records), devices, op coverage");
  info->add_flag("--json", json, "Print JSON");
  CLI::App* ops = app.add_subcommand("ops", "Every op schema");
  ops->add_flag("--json", json, "Print JSON (with kernels)");
  CLI::App* demo = app.add_subcommand("demo", "Run a small transformer block on every device, showing which plugin ran each op");
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<std::unique_ptr<sy::Runtime>> runtime = sy::Runtime::Create();
  if (!runtime.ok()) {
    std::fprintf(stderr, "switchyard: could not start: %s\n",
                 std::string(runtime.status().message()).c_str());
    return 1;
  }
  if (*info) return sy::cli::RunInfo(**runtime, json);
  if (*ops) return sy::cli::RunOps(**runtime, json);
  if (*demo) return sy::cli::RunDemo(**runtime);
  return 2;
}
