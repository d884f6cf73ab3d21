// Choosing a fused kernel's launch configuration (Note [Launch
// configurations] in switchyard/plugin/fusion.h; docs/fusion.md, "Launch
// configurations"): the fusion compiler's step between lowering a group
// and running it.
//
// The autotuner's mode (SWITCHYARD_AUTOTUNE, the runtime's tuner) decides:
//   off      configuration 0, the plugin's default; fused_configs is not
//            even asked — exactly what ran before configurations existed.
//   cached   the autotune cache's verdict for the kernel when it has one,
//            else configuration 0; nothing is measured.
//   on       as cached, and a kernel without a verdict is measured: every
//            configuration is compiled (through the kernel cache, so each
//            lands in memory and on disk as any kernel does), run once on
//            random inputs of the kernel's shapes and checked against
//            configuration 0's outputs (autotune/reference.h's tolerance),
//            then timed by autotune/timing.h (device events, interleaved
//            rounds, the band and the fixed order: ties go to the lower
//            index, so the default wins ties). The winner is stored in the
//            autotune cache at once (first writer wins), keyed by
//            autotune::FusedLaunchKey: the IR's hash, the device's
//            fingerprint, the plugin's name, version and compiler, and the
//            configurations' names.
// A plugin that offers one configuration (or has no fused_configs) always
// gets 0, in every mode.
//
// Thread-safety: CompileTuned may run on several threads; two that measure
// one kernel at once both measure, and the cache keeps the first verdict.
#ifndef SWITCHYARD_FUSION_BACKEND_LAUNCH_TUNING_H_
#define SWITCHYARD_FUSION_BACKEND_LAUNCH_TUNING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autotune/timing.h"
#include "autotune/tuner.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "fusion/backend/backends.h"
#include "fusion/backend/kernel_cache.h"
#include "fusion/ir/fused_ir.h"

namespace sy::fusion {

// How the fusion compiler tunes launch configurations.
struct LaunchTuning {
  // The runtime's tuner (its mode and cache); null: always configuration 0.
  autotune::Tuner* tuner = nullptr;
  // How one kernel's configurations are measured (mode on). The default
  // budget is smaller than an op's: a graph has many kernels.
  autotune::MeasureOptions measure = DefaultMeasure();

  static autotune::MeasureOptions DefaultMeasure();
};

// Where a choice came from.
enum class LaunchSource { kDefault, kCached, kMeasured };
const char* LaunchSourceName(LaunchSource source);  // "default", …

struct LaunchChoice {
  std::shared_ptr<CompiledKernel> kernel;  // compiled for `config`
  int32_t config = 0;
  // The plugin's configurations, in its order; empty when it was not asked
  // (mode off) or has no fused_configs.
  std::vector<std::string> names;
  LaunchSource source = LaunchSource::kDefault;
  // The measurement (mode on, no verdict yet): autotune's detail JSON.
  std::string detail;
  // Kernels got on the way (one, or one per configuration when measuring)
  // by where they came from, and the time taken in compile_fused/load_fused
  // and in measuring.
  int compiled = 0;
  int from_memory = 0;
  int from_disk = 0;
  double codegen_ms = 0;
  double tune_ms = 0;

  // "tile 512 (2 of 3, measured)", or "" with one configuration.
  std::string Describe() const;
};

// The plugin's launch configurations for `ir` on `device`: its names, in
// order; {} when it has no fused_configs or offers one. Errors (a plugin
// bug; the group runs unfused with the message): fused_configs failed, or
// gave a count outside 0 .. SY_FUSED_MAX_CONFIGS, no names, a null name,
// an empty one or two alike.
absl::StatusOr<std::vector<std::string>> ListLaunchConfigs(const FusionBackend& backend,
                                                           core::Device& device,
                                                           const FusedKernel& ir);

// Buffers for a kernel's operands on `device` (inputs random and positive,
// outputs zeroed), and views of them laid over the kernel's domain as
// launch_fused takes them: what a fused kernel is checked and timed on
// outside a replay.
struct KernelOperands {
  std::vector<core::Tensor> inputs, outputs;
  std::vector<sy_tensor_view_t> input_views, output_views;
};
absl::StatusOr<KernelOperands> MakeKernelOperands(core::Dispatcher& dispatcher,
                                                  core::Device& device, const FusedKernel& ir);

// The kernel for `ir` on `device` in the configuration the mode picks (see
// above). Errors: configuration 0 does not compile (as KernelCache::Get
// says), or ListLaunchConfigs's. A configuration other than 0 that fails
// or computes other results only loses; a stored choice that no longer
// compiles, an unreadable cache or a measurement that cannot run (no
// memory for its buffers) gives configuration 0 and a warning in the log.
absl::StatusOr<LaunchChoice> CompileTuned(KernelCache& cache, const LaunchTuning& tuning,
                                          core::Dispatcher& dispatcher,
                                          const FusionBackend& backend,
                                          core::Device& device, const FusedKernel& ir);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_BACKEND_LAUNCH_TUNING_H_
