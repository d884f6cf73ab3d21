// switchyard-conformance — checks a backend plugin against the Switchyard
// plugin ABI and core op set v1 (docs/conformance.md).
//
//   switchyard-conformance <manifest.json | libswitchyard_NAME.so>
//       [--json] [--filter OPS] [--reference CPU_JSON] [--name NAME]
//       [--option PLUGIN.OPTION=VALUE …] [--seed N]
//
// It sees the core only through the public API (switchyard.hpp, linking
// libswitchyard.so); the device checks reach the plugin's device table
// through a bare host in a child process (device_checks.h).
//
// Exit status: 0 every check passed (skips allowed), 1 some check failed,
// 2 usage error or the plugin (or the reference) did not load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "sdk/conformance/tool/abi_checks.h"
#include "sdk/conformance/tool/device_checks.h"
#include "sdk/conformance/tool/kernel_checks.h"
#include "sdk/conformance/tool/plugin_target.h"
#include "sdk/conformance/tool/report.h"
#include "switchyard/switchyard.hpp"

namespace sy::conformance {
namespace {

constexpr int kExitUsage = 2;
constexpr char kReferenceName[] = "cpu";

struct Options {
  std::string plugin;
  bool json = false;
  std::vector<std::string> filter;
  std::string reference;
  std::string name;
  std::vector<std::string> plugin_options;  // "plugin.option=value"
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

// The record of the latest attempt to load `manifest` (or the last record).
std::optional<sy::LoadRecord> FindRecord(const sy::Context& context,
                                         const std::string& manifest) {
  std::vector<sy::LoadRecord> records = context.load_records().value_or({});
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    if (it->manifest_path == manifest) return *it;
  }
  if (records.empty()) return std::nullopt;
  return records.back();
}

// The message of a status without the C function it came through.
std::string Message(const sy::Status& status) {
  const std::string& m = status.message();
  const size_t colon = m.find(": ");
  if (m.rfind("sy_", 0) == 0 && colon != std::string::npos && m.find(' ') > colon) {
    return m.substr(colon + 2);
  }
  return m;
}

// Loads one manifest; "" or the load record in plain words.
std::string Load(const sy::Context& context, const std::string& manifest,
                 sy::LoadRecord* record_out) {
  const sy::Status status = context.LoadPlugin(manifest);
  const std::optional<sy::LoadRecord> record = FindRecord(context, manifest);
  if (record && record_out != nullptr) *record_out = *record;
  if (status.ok() && record && record->loaded()) return "";
  if (record) return record->description;
  return Message(status);
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

  sy::ContextOptions context_options;
  context_options.use_environment = false;  // exactly these plugins
  context_options.use_default_path = false;
  context_options.cpu_fallback = false;
  context_options.plugin_options = options.plugin_options;
  sy::Result<sy::Context> created = sy::Context::Create(context_options);
  if (!created.ok()) {
    return Stop(options, report,
                absl::StrCat("could not start a context: ", Message(created.status())));
  }
  const sy::Context& context = *created;
  if (!report.reference.empty()) {
    std::string failed = Load(context, report.reference, nullptr);
    if (!failed.empty()) {
      return Stop(options, report,
                  absl::StrCat("the cpu reference plugin did not load, so "
                               "nothing can be compared: ", failed,
                               " (name another with --reference)"));
    }
  }
  sy::LoadRecord record;
  if (std::string failed = Load(context, target->manifest.path, &record);
      !failed.empty()) {
    report.Fail("abi", "load record", failed);
    return Stop(options, report,
                absl::StrCat("the plugin did not load: ", failed));
  }
  CheckLoaded(context, *target, record, report);

  const std::vector<PluginKernel> kernels = ListKernels(context, plugin);
  const std::vector<std::string> provided = ProvidedDeviceTypes(context, *target, record);
  uint64_t seed = options.seed.value_or(0x5317c4a12d0f3e9bull);
  // The devices of each type in the context (the ones of types without a
  // device are absent).
  std::map<std::string, std::vector<sy::Device>> devices_of;
  for (const sy::Device& device : context.devices().value_or({})) {
    devices_of[device.info().value_or({}).type].push_back(device);
  }

  // Device checks on every device of every type the plugin provides.
  if (provided.empty()) {
    std::set<std::string> types;
    for (const PluginKernel& k : kernels) types.insert(k.device_type);
    report.skips.push_back(
        {"device checks",
         absl::StrCat(plugin, " provides no device type; it adds kernels to ",
                      types.empty() ? "none" : absl::StrJoin(types, ", "))});
  }
  bool any_device = false;
  for (const std::string& type : provided) {
    if (devices_of[type].empty()) {
      report.skips.push_back({"device checks of " + type,
                              absl::StrCat("no ", type, " device on this machine "
                                           "(the plugin reports 0 devices)")});
      continue;
    }
    any_device = true;
  }
  if (any_device) {
    // The device tables themselves, in a child process (device_checks.h);
    // then, here, what only the core does with a device.
    RunDeviceChecks(target->library_path, seed, report);
    for (const std::string& type : provided) {
      for (const sy::Device& device : devices_of[type]) CheckZeroSizeTensors(device, report);
    }
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
  // Types the context knows: those with devices, and those a plugin that
  // loaded without devices declares.
  std::set<std::string> known_types(provided.begin(), provided.end());
  for (const auto& [type, list] : devices_of) known_types.insert(type);
  for (const std::string& type : kernel_types) {
    if (!known_types.contains(type)) {
      if (type == kReferenceName && !reference_error.empty()) {
        return Stop(options, report,
                    absl::StrCat("the plugin adds kernels to 'cpu', which the "
                                 "reference plugin provides, but ",
                                 reference_error));
      }
      report.skips.push_back({"kernels on " + type,
                              absl::StrCat("no loaded plugin provides device "
                                           "type '", type, "'")});
    } else if (devices_of[type].empty()) {
      report.skips.push_back({"kernels on " + type,
                              absl::StrCat("no ", type, " device on this machine")});
    } else {
      devices.push_back(devices_of[type].front().label());
    }
  }
  KernelCheckOptions kernel_options;
  kernel_options.plugin = plugin;
  kernel_options.filter = options.filter;
  kernel_options.seed = options.seed;
  RunKernelChecks(context, devices, kernels, kernel_options, report);

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
  // The child that runs the device checks (device_checks.h).
  if (argc == 4 && std::string(argv[1]) == sy::conformance::kDeviceChecksCommand) {
    return sy::conformance::DeviceChecksChild(argv[2], std::stoull(argv[3]));
  }
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
  app.add_option("--option", options.plugin_options,
                 "A plugin option for the run, plugin.option=value (e.g. "
                 "onednn.min_elements=1 so that its kernels take the harness's "
                 "small inputs); repeatable");
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
