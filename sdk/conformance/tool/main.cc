// switchyard-conformance — checks a backend plugin against the Switchyard
// plugin ABI and core op set v1 (docs/conformance.md).
//
//   switchyard-conformance <manifest.json | libswitchyard_NAME.so>
//       [--json] [--filter OPS] [--reference CPU_JSON] [--name NAME]
//       [--seed N]
//
// Exit status: 0 every check passed (skips allowed), 1 some check failed,
// 2 usage error or the plugin (or the reference) did not load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/runtime/runtime.h"
#include "nlohmann/json.hpp"
#include "sdk/conformance/tool/abi_checks.h"
#include "sdk/conformance/tool/device_checks.h"
#include "sdk/conformance/tool/kernel_checks.h"
#include "sdk/conformance/tool/plugin_target.h"
#include "sdk/conformance/tool/report.h"

namespace sy::conformance {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only
namespace {

constexpr int kExitUsage = 2;
constexpr char kReferenceName[] = "cpu";

struct Options {
  std::string plugin;
  bool json = false;
  std::vector<std::string> filter;
  std::string reference;
  std::string name;
  std::optional<uint64_t> seed;
};

// Prints the report (so far) and the error that stopped the run; returns 2.
int Stop(const Options& options, Report& report, const std::string& error) {
  report.error = error;
  if (options.json) {
    std::cout << ToJson(report).dump(2) << "\n";
  } else if (!report.plugin.empty()) {
    PrintText(report, std::cout);
  }
  std::cerr << "switchyard-conformance: " << error << "\n";
  return kExitUsage;
}

const LoadRecord* FindRecord(const std::vector<LoadRecord>& records,
                             const std::string& manifest) {
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    if (it->manifest_path == manifest) return &*it;
  }
  return records.empty() ? nullptr : &records.back();
}

// Loads one manifest; "" or the load record in plain words.
std::string Load(Runtime& runtime, const std::string& manifest,
                 LoadRecord* record_out) {
  absl::Status status = runtime.LoadPlugin(manifest);
  const std::vector<LoadRecord> records = runtime.LoadRecords();
  const LoadRecord* record = FindRecord(records, manifest);
  if (record != nullptr && record_out != nullptr) *record_out = *record;
  if (status.ok() && record != nullptr && IsLoaded(record->outcome)) {
    return "";
  }
  if (record != nullptr) return DescribeLoadRecord(*record);
  return std::string(status.message());
}

int Run(const Options& options) {
  const auto start = std::chrono::steady_clock::now();
  Report report;
  absl::StatusOr<PluginTarget> target = ResolveTarget(options.plugin, options.name);
  if (!target.ok()) return Stop(options, report, std::string(target.status().message()));
  struct RemoveOnExit {
    const PluginTarget& t;
    ~RemoveOnExit() { RemoveTemporary(t); }
  } remove_on_exit{*target};
  const std::string& plugin = target->manifest.name;
  report.plugin = plugin;
  report.manifest = target->manifest.path;
  report.manifest_synthesized = target->synthesized;

  CheckExports(*target, report);

  // The reference provides the cpu device for kernel-only plugins. The cpu
  // plugin itself is tested alone: loading it twice would only be skipped.
  std::string reference_error;
  if (plugin != kReferenceName) {
    absl::StatusOr<std::string> reference = FindReference(options.reference);
    if (reference.ok()) {
      report.reference = *reference;
    } else if (!options.reference.empty()) {
      return Stop(options, report, std::string(reference.status().message()));
    } else {
      reference_error = std::string(reference.status().message());
    }
  }

  RuntimeOptions runtime_options;
  runtime_options.loader.use_environment = false;  // exactly these plugins
  runtime_options.loader.use_default_path = false;
  runtime_options.cpu_fallback = false;
  absl::StatusOr<std::unique_ptr<Runtime>> created = Runtime::Create(runtime_options);
  if (!created.ok()) {
    return Stop(options, report,
                absl::StrCat("could not start a runtime: ", created.status().message()));
  }
  Runtime& runtime = **created;
  if (!report.reference.empty()) {
    std::string failed = Load(runtime, report.reference, nullptr);
    if (!failed.empty()) {
      return Stop(options, report,
                  absl::StrCat("the cpu reference plugin did not load, so "
                               "nothing can be compared: ", failed,
                               " (name another with --reference)"));
    }
  }
  LoadRecord record;
  if (std::string failed = Load(runtime, target->manifest.path, &record);
      !failed.empty()) {
    report.Fail("abi", "load record", failed);
    return Stop(options, report,
                absl::StrCat("the plugin did not load: ", failed));
  }
  CheckLoaded(runtime, *target, record, report);

  const std::vector<PluginKernel> kernels = ListKernels(runtime, plugin);
  const std::vector<std::string> provided = ProvidedDeviceTypes(runtime, plugin);
  uint64_t seed = options.seed.value_or(0x5317c4a12d0f3e9bull);

  // Device checks on every device of every type the plugin provides.
  if (provided.empty()) {
    std::set<std::string> types;
    for (const PluginKernel& k : kernels) types.insert(k.device_type);
    report.skips.push_back(
        {"device checks",
         absl::StrCat(plugin, " provides no device type; it adds kernels to ",
                      types.empty() ? "none" : absl::StrJoin(types, ", "))});
  }
  for (const std::string& type : provided) {
    DeviceType* t = runtime.state().devices.FindType(type);
    if (t == nullptr || t->devices().empty()) {
      report.skips.push_back({"device checks of " + type,
                              absl::StrCat("no ", type, " device on this machine "
                                           "(the plugin reports 0 devices)")});
      continue;
    }
    for (const auto& device : t->devices()) CheckDevice(runtime, *device, seed, report);
  }

  // Kernel checks on the first device of each type the plugin's kernels
  // serve (its own types first).
  std::vector<std::string> kernel_types = provided;
  for (const PluginKernel& k : kernels) {
    if (std::find(kernel_types.begin(), kernel_types.end(), k.device_type) ==
        kernel_types.end()) {
      kernel_types.push_back(k.device_type);
    }
  }
  std::vector<std::string> devices;
  for (const std::string& type : kernel_types) {
    DeviceType* t = runtime.state().devices.FindType(type);
    if (t == nullptr) {
      if (type == kReferenceName && !reference_error.empty()) {
        return Stop(options, report,
                    absl::StrCat("the plugin adds kernels to 'cpu', which the "
                                 "reference plugin provides, but ",
                                 reference_error));
      }
      report.skips.push_back({"kernels on " + type,
                              absl::StrCat("no loaded plugin provides device "
                                           "type '", type, "'")});
    } else if (t->devices().empty()) {
      report.skips.push_back({"kernels on " + type,
                              absl::StrCat("no ", type, " device on this machine")});
    } else {
      devices.push_back(t->devices().front()->label());
    }
  }
  KernelCheckOptions kernel_options;
  kernel_options.plugin = plugin;
  kernel_options.filter = options.filter;
  kernel_options.seed = options.seed;
  RunKernelChecks(runtime, devices, kernels, kernel_options, report);

  report.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start).count();
  if (options.json) {
    std::cout << ToJson(report).dump(2) << "\n";
  } else {
    PrintText(report, std::cout);
  }
  return ExitCode(report);
}

}  // namespace
}  // namespace sy::conformance

int main(int argc, char** argv) {
  sy::conformance::Options options;
  CLI::App app{
      "Checks a Switchyard backend plugin: its ABI, its devices, and its "
      "kernels against the op harness's float64 reference "
      "(docs/conformance.md).\nExit status: 0 all checks passed (skips "
      "allowed), 1 a check failed, 2 usage error or a plugin did not load."};
  app.add_option("plugin", options.plugin,
                 "The plugin's manifest (NAME.json) or library "
                 "(libswitchyard_NAME.so)")
      ->required();
  app.add_flag("--json", options.json, "Print the report as JSON on stdout");
  app.add_option("--filter", options.filter,
                 "Ops to test: names or glob patterns, full or base "
                 "(add.Tensor, add, '*norm*'); comma-separated or repeated")
      ->delimiter(',');
  app.add_option("--reference", options.reference,
                 "The cpu reference plugin's manifest (cpu.json) or its folder; "
                 "default: SWITCHYARD_PLUGIN_PATH, then "
                 "<prefix>/lib/switchyard/plugins next to this program");
  app.add_option("--name", options.name,
                 "The plugin's name, for a library without a manifest whose "
                 "file name does not say it");
  uint64_t seed = 0;
  CLI::Option* seed_option = app.add_option(
      "--seed", seed,
      "Base seed of the random inputs (SWITCHYARD_OP_HARNESS_SEED overrides)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  if (*seed_option) options.seed = seed;
  return sy::conformance::Run(options);
}
