// The kernel part of conformance: the op harness (sdk/conformance/harness)
// run in this process on a device, restricted to what the plugin claims.
//
// Restriction works at two levels. By op: only the harness tests of ops the
// plugin registers kernels for (on the device's type) are selected, through
// a gtest filter; every other op goes to the skip list as "not registered
// by <plugin>". By dtype: the plugin's kernels are made the runtime's
// choice for every key they serve (above priority, like an autotuner's
// verdict), and a backend wrapper lets through only calls that resolve to
// one of them, answering the rest UNIMPLEMENTED — which the harness's
// lenient policy reports as skipped, not failed. So a partial plugin is
// judged on exactly what it claims, and a plugin whose kernels lose on
// priority to the reference is still the one tested.
//
// On a device the plugin provides itself, decompositions and views run on
// its kernels alone, so those run too: the harness's Decomposed tests and
// the ops without a kernel of their own (linear, reshape, …) are included.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_KERNEL_CHECKS_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_KERNEL_CHECKS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sdk/conformance/tool/abi_checks.h"
#include "sdk/conformance/tool/report.h"
#include "switchyard/switchyard.hpp"

namespace sy::conformance {

struct KernelCheckOptions {
  std::string plugin;  // its name, as kernels are qualified: "plugin::kernel"
  // Glob patterns (fnmatch) over op names, full or base: "add.Tensor",
  // "add", "*norm*". Empty selects every op.
  std::vector<std::string> filter;
  // The harness's base seed; SWITCHYARD_OP_HARNESS_SEED still overrides.
  std::optional<uint64_t> seed;
};

// True when `op` (a full name such as "add.Tensor") matches `filter`.
bool OpSelected(const std::vector<std::string>& filter, const std::string& op);

// Runs the harness on each of `devices` (e.g. "cpu:0"; their types must
// have a provider loaded in `context`) for `kernels` (ListKernels of the
// plugin) and adds one OpRow per tested op and the skips to `report`. Call
// at most once per process: the tests are registered with GoogleTest,
// which cannot forget them.
void RunKernelChecks(const sy::Context& context, const std::vector<std::string>& devices,
                     const std::vector<PluginKernel>& kernels,
                     const KernelCheckOptions& options, Report& report);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_KERNEL_CHECKS_H_
