// switchyard — the command-line tool, over the public C++ API
// (switchyard.hpp) and nothing else.
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "CLI/CLI.hpp"
#include "cli_util.h"
#include "commands.h"
#include "probe.h"
#include "switchyard/switchyard.hpp"

namespace {

// What `--help` says about the environment (README.md, "Environment").
constexpr const char kEnvironment[] = R"(Environment (read with secure_getenv; setuid programs ignore them):
  SWITCHYARD_PLUGIN_PATH      ':'-separated folders or manifest files searched before
                              lib/switchyard/plugins; relative entries are ignored
  SWITCHYARD_PLUGINS          a,b loads only these (each must load); -c denies c
  SWITCHYARD_PLUGIN_OPTIONS   plugin options, "plugin.option=value,..." (e.g.
                              onednn.min_elements=4096); `switchyard info` lists them
  SWITCHYARD_CPU_FALLBACK=1   ops with no kernel on a device run on cpu with copies
  SWITCHYARD_LOG              off, error, warning (default), info, debug (debug: one
                              line per op call saying how it was resolved)
  SWITCHYARD_TRACE=file.json  write a Chrome/Perfetto trace of every op call
  SWITCHYARD_AUTOTUNE         off, cached (default: use the cache's verdicts) or on
                              (measure the first call of each untuned shape bucket)
  SWITCHYARD_CACHE_DIR        the autotune cache's folder (else $XDG_CACHE_HOME/
                              switchyard, else ~/.cache/switchyard)
  SWITCHYARD_CPU_ISA          generic, avx2 or avx512: caps the cpu plugin's kernels
  SWITCHYARD_NUM_THREADS      threads the cpu plugin splits large ops over
  SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1
                              load plugins from world-writable files or folders)";

std::string VersionText() {
  const sy::Versions v = sy::GetVersions();
  return "switchyard " + v.library + " (C API " + std::to_string(v.api_major) + "." +
         std::to_string(v.api_minor) + ", plugin ABI " + std::to_string(v.plugin_abi_major) +
         "." + std::to_string(v.plugin_abi_minor) + ")";
}

}  // namespace

namespace {

int Main(int argc, char** argv) {
  CLI::App app{"Switchyard: an operator dispatcher for deep-learning runtimes"};
  app.name("switchyard");
  app.footer(kEnvironment);
  app.set_version_flag("--version", VersionText(), "Print the library, C API and plugin ABI versions");
  bool json = false;
  CLI::App* info = app.add_subcommand("info", "Plugins (with load records and options), devices, op coverage");
  info->add_flag("--json", json, "Print JSON");
  bool probe = false;
  info->add_flag("--probe", probe,
                 "Load each plugin in a child process first; keep out any that "
                 "crash, exit or hang there");
  std::string probe_manifest;
  int probe_report_fd = -1;
  CLI::App* probe_child = app.add_subcommand(sy::cli::kProbeCommand, "");
  probe_child->group("");  // internal: what --probe runs in each child
  probe_child->add_option("manifest", probe_manifest)->required();
  probe_child->add_option("--report-fd", probe_report_fd);
  CLI::App* ops = app.add_subcommand("ops", "Every op schema");
  ops->add_flag("--json", json, "Print JSON (with kernels)");
  CLI::App* demo = app.add_subcommand("demo", "Run a small transformer block on every device, showing which plugin ran each op");
  sy::cli::RunOptions run_options;
  CLI::App* run = app.add_subcommand(
      "run", "Call one op on random inputs on a device, check it against cpu, time it");
  run->add_option("op", run_options.op, "Op name: add, softmax.int, matmul, …")->required();
  run->add_option("--shape,-s", run_options.shapes,
                  "Shape of each tensor argument in order, e.g. 64x128 (one shape: "
                  "the same for every argument; 'scalar' for 0-d)")
      ->take_all();
  run->add_option("--dtype,-t", run_options.dtypes,
                  "Dtype of every input, or one per input (default f32)")
      ->take_all();
  run->add_option("--attr,-a", run_options.attrs,
                  "An attribute as name=value (dim=-1, keepdim=true, dims=0,1)");
  run->add_option("--device,-d", run_options.device, "Device spec (default cpu)");
  run->add_option("--repeat", run_options.repeat, "Timed calls (default 20)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--low", run_options.low, "Floating inputs' lower bound (default -1)");
  run->add_option("--high", run_options.high, "Floating inputs' upper bound (default 1)");
  run->add_option("--seed", run_options.seed, "Random seed (default 1)");
  sy::cli::TuneOptions tune_options;
  CLI::App* tune = app.add_subcommand(
      "tune", "Autotune op calls: measure every candidate kernel, keep the winner in the "
              "cache (docs/autotune.md)");
  tune->add_option("op", tune_options.op, "Op name, as for `run` (or --cases FILE)");
  tune->add_option("--shape,-s", tune_options.shapes,
                   "Shape of each tensor argument, as for `run`")
      ->take_all();
  tune->add_option("--dtype,-t", tune_options.dtypes,
                   "Dtype of every input, or one per input (default f32)")
      ->take_all();
  tune->add_option("--attr,-a", tune_options.attrs, "An attribute as name=value");
  tune->add_option("--device,-d", tune_options.device, "Device spec (default cpu)");
  tune->add_option("--transposed", tune_options.transposed,
                   "Input index stored transposed (its last two dims swapped)");
  tune->add_option("--cases", tune_options.cases_file,
                   "A JSON case file: {\"cases\": [{\"op\", \"device\", \"inputs\", "
                   "\"attrs\"}]}");
  tune->add_flag("--explain", tune_options.explain,
                 "Print each candidate's time and outcome, and the winner");
  tune->add_flag("--force", tune_options.force,
                 "Measure even where the cache has a verdict (the cache keeps its first)");
  tune->add_option("--import", tune_options.import_file,
                   "Import verdicts from an export file first");
  tune->add_option("--export", tune_options.export_file,
                   "Write this machine's verdicts to FILE at the end");
  tune->add_flag("--all-devices", tune_options.all_devices,
                 "With --export: every device's verdicts in the cache");
  tune->add_option("--mode", tune_options.mode,
                   "Autotune mode for this run: off, cached or on");
  tune->add_flag("--json", tune_options.json, "Print the rows as JSON");
  bool autotune_info = false;
  info->add_flag("--autotune", autotune_info, "What the autotune cache holds");
  // No subcommand: the help, and the exit status of a usage error.
  if (argc < 2) {
    std::printf("%s", app.help().c_str());
    return 2;
  }
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);

  if (*probe_child) return sy::cli::RunProbeChild(probe_manifest, probe_report_fd);
  sy::ContextOptions options;
  if (probe) {
    constexpr double kProbeTimeoutSeconds = 30;
    options.refused = sy::cli::ProbePlugins(options, kProbeTimeoutSeconds);
  }
  sy::Result<sy::Context> context = sy::Context::Create(options);
  if (!context.ok()) {
    std::fprintf(stderr, "switchyard: could not start: %s\n",
                 sy::cli::Message(context.status()).c_str());
    return 1;
  }
  if (*info && autotune_info) return sy::cli::RunAutotuneInfo(*context, json);
  if (*info) return sy::cli::RunInfo(*context, json);
  if (*tune) return sy::cli::RunTune(*context, tune_options);
  if (*ops) return sy::cli::RunOps(*context, json);
  if (*demo) return sy::cli::RunDemo(*context);
  if (*run) return sy::cli::RunOp(*context, run_options);
  return 2;
}

}  // namespace

// The tool never dies of an exception: whatever escapes a command (an
// allocation that failed, a bug) becomes a message and exit status 1.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "switchyard: out of memory; use smaller sizes\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "switchyard: internal error: %s; this is a bug in switchyard, "
                 "please report it\n",
                 e.what());
  } catch (...) {
    std::fprintf(stderr,
                 "switchyard: internal error: an unknown exception; this is a "
                 "bug in switchyard, please report it\n");
  }
  return 1;
}
