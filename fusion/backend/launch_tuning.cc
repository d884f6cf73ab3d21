#include "fusion/backend/launch_tuning.h"

#include <chrono>
#include <cstring>
#include <ctime>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "autotune/random_values.h"
#include "autotune/reference.h"
#include "autotune/tuning_key.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/log.h"
#include "dispatcher/ops/dtype.h"
#include "fusion/backend/disk_cache.h"
#include "fusion/ir/serialize.h"
#include "switchyard/plugin/dtypes.hpp"

namespace sy::fusion {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string Where(const FusionBackend& backend, const core::Device& device,
                  const FusedKernel& ir) {
  return absl::StrCat("fused kernel '", ir.name, "' on ", device.label(), " (plugin '",
                      backend.plugin_name, "')");
}

absl::Status PluginBug(const FusionBackend& backend, const core::Device& device,
                       const FusedKernel& ir, absl::string_view what) {
  return absl::InternalError(absl::StrCat(
      "fused_configs of ", Where(backend, device, ir), " ", what,
      "; the plugin is at fault (report it to its authors); with SWITCHYARD_AUTOTUNE=off "
      "the host does not ask for configurations"));
}

// Elements a buffer laid over the kernel's domain by `strides` spans.
int64_t Extent(const FusedKernel& ir, const sy_fused_operand_t& operand) {
  int64_t extent = 1;
  for (int d = 0; d < ir.ndim; ++d) {
    if (ir.shape[d] == 0) return 0;
    extent += (ir.shape[d] - 1) * operand.strides[d];
  }
  return extent;
}

absl::StatusOr<core::Tensor> Buffer(core::Dispatcher& dispatcher, core::Device& device,
                                    sy_dtype_t dtype, int64_t extent,
                                    const std::vector<unsigned char>& bytes) {
  const int64_t shape[1] = {std::max<int64_t>(extent, 1)};
  return dispatcher.FromHost(device, dtype, shape, bytes.data(), bytes.size());
}

sy_tensor_view_t ViewOver(const FusedKernel& ir, const sy_fused_operand_t& operand,
                          const core::Tensor& buffer) {
  const sy_tensor_view_t base = buffer.view();
  return sy_tensor_view_t{base.data, base.device, ir.ndim, operand.dtype, ir.shape,
                          operand.strides, base.byte_offset};
}

// Zeroed outputs: each candidate's check writes into fresh ones, so a
// configuration that leaves an element unwritten cannot pass on the
// values another left there.
absl::Status FreshOutputs(core::Dispatcher& dispatcher, core::Device& device,
                          const FusedKernel& ir, KernelOperands& ops) {
  ops.outputs.clear();
  ops.output_views.clear();
  for (const sy_fused_operand_t& o : ir.outputs) {
    const int64_t extent = std::max<int64_t>(Extent(ir, o), 1);
    std::vector<unsigned char> zeros(static_cast<size_t>(extent) * core::DTypeSize(o.dtype));
    absl::StatusOr<core::Tensor> t = Buffer(dispatcher, device, o.dtype, extent, zeros);
    if (!t.ok()) return t.status();
    ops.outputs.push_back(*std::move(t));
  }
  for (size_t k = 0; k < ir.outputs.size(); ++k) {
    ops.output_views.push_back(ViewOver(ir, ir.outputs[k], ops.outputs[k]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<KernelOperands> MakeKernelOperands(core::Dispatcher& dispatcher,
                                                  core::Device& device, const FusedKernel& ir) {
  KernelOperands ops;
  autotune::SplitMix64 rng(0x5eed);
  for (const sy_fused_operand_t& in : ir.inputs) {
    const int64_t extent = std::max<int64_t>(Extent(ir, in), 1);
    absl::StatusOr<core::Tensor> t =
        Buffer(dispatcher, device, in.dtype, extent,
               autotune::RandomBytes(in.dtype, extent, autotune::RandomValues::kPositive, rng));
    if (!t.ok()) return t.status();
    ops.inputs.push_back(*std::move(t));
  }
  for (size_t k = 0; k < ir.inputs.size(); ++k) {
    ops.input_views.push_back(ViewOver(ir, ir.inputs[k], ops.inputs[k]));
  }
  absl::Status status = FreshOutputs(dispatcher, device, ir, ops);
  if (!status.ok()) return status;
  return ops;
}

autotune::MeasureOptions LaunchTuning::DefaultMeasure() {
  autotune::MeasureOptions options;
  options.budget_ms = 100;  // per kernel; a graph may have dozens
  return options;
}

const char* LaunchSourceName(LaunchSource source) {
  switch (source) {
    case LaunchSource::kDefault: return "default";
    case LaunchSource::kCached: return "autotune cache";
    case LaunchSource::kMeasured: return "measured";
  }
  return "?";
}

std::string LaunchChoice::Describe() const {
  if (names.empty()) return "";
  return absl::StrCat(names[config], " (", config + 1, " of ", names.size(), ", ",
                      LaunchSourceName(source), ")");
}

absl::StatusOr<std::vector<std::string>> ListLaunchConfigs(const FusionBackend& backend,
                                                           core::Device& device,
                                                           const FusedKernel& ir) {
  if (!backend.has_configs) return std::vector<std::string>();
  const sy_fused_kernel_t abi = ir.Abi();
  sy_fused_configs_args_t args{};
  args.struct_size = sizeof(args);
  args.kernel = &abi;
  args.device = device.index();
  absl::Status status = core::TakeError(
      backend.ext->fused_configs(backend.ext->self, &args),
      absl::StrCat("listing the launch configurations of ", Where(backend, device, ir)));
  if (!status.ok()) return status;
  const int32_t n = args.out_num_configs;
  if (n < 0 || n > SY_FUSED_MAX_CONFIGS) {
    return PluginBug(backend, device, ir,
                     absl::StrCat("reported ", n, " configurations; a plugin may offer 0 .. ",
                                  SY_FUSED_MAX_CONFIGS));
  }
  if (n <= 1) return std::vector<std::string>();
  if (args.out_names == nullptr) {
    return PluginBug(backend, device, ir,
                     absl::StrCat("reported ", n, " configurations but no names"));
  }
  std::vector<std::string> names;
  absl::flat_hash_set<std::string> seen;
  for (int32_t i = 0; i < n; ++i) {
    const char* name = args.out_names[i];
    if (name == nullptr || name[0] == '\0' || std::strchr(name, '\n') != nullptr) {
      return PluginBug(backend, device, ir,
                       absl::StrCat("gave configuration ", i, " ",
                                    name == nullptr ? "no name" : "an empty or multi-line name"));
    }
    if (!seen.insert(name).second) {
      return PluginBug(backend, device, ir,
                       absl::StrCat("named two configurations '", name, "'"));
    }
    names.emplace_back(name);
  }
  return names;
}

absl::StatusOr<LaunchChoice> CompileTuned(KernelCache& cache, const LaunchTuning& tuning,
                                          core::Dispatcher& dispatcher,
                                          const FusionBackend& backend,
                                          core::Device& device, const FusedKernel& ir) {
  LaunchChoice choice;
  auto get = [&](int32_t config) -> absl::StatusOr<std::shared_ptr<CompiledKernel>> {
    KernelOrigin origin = KernelOrigin::kCompiled;
    double millis = 0;
    absl::StatusOr<std::shared_ptr<CompiledKernel>> kernel =
        cache.Get(backend, device, ir, config, &origin, &millis);
    choice.codegen_ms += millis;
    if (kernel.ok()) {
      (origin == KernelOrigin::kCompiled ? choice.compiled
       : origin == KernelOrigin::kDisk   ? choice.from_disk
                                         : choice.from_memory)++;
    }
    return kernel;
  };
  auto take = [&](int32_t config, LaunchSource source) -> absl::StatusOr<LaunchChoice> {
    absl::StatusOr<std::shared_ptr<CompiledKernel>> kernel = get(config);
    if (!kernel.ok()) return kernel.status();
    choice.kernel = *std::move(kernel);
    choice.config = config;
    choice.source = source;
    return std::move(choice);
  };

  const core::AutotuneMode mode =
      tuning.tuner != nullptr ? tuning.tuner->mode() : core::AutotuneMode::kOff;
  if (mode == core::AutotuneMode::kOff || !backend.has_configs) {
    return take(0, LaunchSource::kDefault);
  }
  absl::StatusOr<std::vector<std::string>> names = ListLaunchConfigs(backend, device, ir);
  if (!names.ok()) return names.status();
  if (names->empty()) return take(0, LaunchSource::kDefault);
  choice.names = *names;
  const int32_t count = static_cast<int32_t>(names->size());

  autotune::TuningCache& db = tuning.tuner->cache();
  const autotune::TuningKey key = autotune::FusedLaunchKey(
      device, Sha256Hex(Serialize(ir)),
      absl::StrCat(backend.plugin_name, " ", backend.plugin_version, " (", backend.compiler, ")"),
      *names);
  absl::StatusOr<std::optional<autotune::Verdict>> stored = db.Lookup(key);
  if (!stored.ok()) {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: cannot read the cache for ", Where(backend, device, ir),
                           " (", stored.status().message(), "); it runs its default launch "
                           "configuration"));
    return take(0, LaunchSource::kDefault);
  }
  // The key covers the names, so a verdict names one of them; the check
  // keeps a damaged or hand-edited row from choosing a bad index.
  if (stored->has_value()) {
    const autotune::Verdict& v = **stored;
    if (v.variant >= 0 && v.variant < count && v.variant_name == (*names)[v.variant]) {
      absl::StatusOr<LaunchChoice> cached = take(v.variant, LaunchSource::kCached);
      if (cached.ok() || v.variant == 0) return cached;
      // Compiled here once; not now (a device that cannot run its cluster,
      // a changed toolkit): the default still serves.
      core::Log(core::LogLevel::kWarning,
                absl::StrCat("autotune: the stored launch configuration '", v.variant_name,
                             "' of ", Where(backend, device, ir), " does not compile (",
                             cached.status().message(), "); it runs its default"));
      return take(0, LaunchSource::kDefault);
    }
  }
  if (mode != core::AutotuneMode::kOn) return take(0, LaunchSource::kDefault);

  // Measure. Configuration 0 must compile (it is what runs otherwise); the
  // others only lose when they fail.
  const Clock::time_point start = Clock::now();
  std::vector<std::shared_ptr<CompiledKernel>> kernels(count);
  autotune::Measurement m;
  m.results.resize(count);
  m.reference = absl::StrCat("launch configuration 0 (", (*names)[0], ")");
  for (int32_t i = 0; i < count; ++i) {
    absl::StatusOr<std::shared_ptr<CompiledKernel>> kernel = get(i);
    if (kernel.ok()) {
      kernels[i] = *std::move(kernel);
    } else if (i == 0) {
      return kernel.status();
    } else {
      m.results[i].outcome = autotune::Outcome::kFailed;
      m.results[i].note = std::string(kernel.status().message());
    }
  }
  // Trouble with the measurement itself (no memory for its buffers, say)
  // is no reason to run the group unfused: the default runs, untuned.
  auto untuned = [&](const absl::Status& why) -> absl::StatusOr<LaunchChoice> {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: cannot measure the launch configurations of ",
                           Where(backend, device, ir), " (", why.message(),
                           "); it runs its default"));
    choice.kernel = kernels[0];
    choice.config = 0;
    choice.source = LaunchSource::kDefault;
    return std::move(choice);
  };
  absl::StatusOr<KernelOperands> ops = MakeKernelOperands(dispatcher, device, ir);
  if (!ops.ok()) return untuned(ops.status());
  std::optional<autotune::HostValues> reference;
  for (int32_t i = 0; i < count; ++i) {
    autotune::CandidateResult& r = m.results[i];
    if (r.outcome != autotune::Outcome::kMeasured) continue;
    absl::Status status = FreshOutputs(dispatcher, device, ir, *ops);
    if (status.ok()) status = kernels[i]->Launch(ops->input_views, ops->output_views);
    absl::StatusOr<autotune::HostValues> got =
        status.ok() ? autotune::ReadToHost(dispatcher, ops->outputs)
                    : absl::StatusOr<autotune::HostValues>(status);
    if (!got.ok()) {
      if (i == 0) return untuned(got.status());
      r.outcome = autotune::Outcome::kFailed;
      r.note = std::string(got.status().message());
      continue;
    }
    if (i == 0) {
      reference = *std::move(got);
      continue;
    }
    const autotune::Agreement agreement = autotune::Compare(*got, *reference);
    r.error = agreement.error;
    if (!agreement.ok) {
      r.outcome = autotune::Outcome::kWrong;
      r.note = agreement.detail;
    }
  }
  autotune::TimeCandidates(
      device,
      [&](size_t i) { return kernels[i]->Launch(ops->input_views, ops->output_views); },
      tuning.measure, start, &m);
  m.elapsed_ms = MsSince(start);
  choice.tune_ms = m.elapsed_ms;
  choice.detail = autotune::DetailJson(*names, m);
  if (m.winner < 0) {
    return untuned(absl::InternalError(absl::StrCat("none could be timed: ", choice.detail)));
  }
  autotune::Verdict verdict;
  verdict.key = key;
  verdict.kernel = absl::StrCat(backend.plugin_name, "::", ir.name);
  verdict.variant = m.winner;
  verdict.variant_name = (*names)[m.winner];
  verdict.time_ns = m.results[m.winner].median_ns;
  verdict.detail = choice.detail;
  verdict.source = "measured";
  verdict.created = static_cast<int64_t>(std::time(nullptr));
  int32_t chosen = m.winner;
  absl::StatusOr<autotune::TuningCache::Stored> written = db.Insert(verdict);
  if (!written.ok()) {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: cannot store the launch configuration of ",
                           Where(backend, device, ir), " (", written.status().message(),
                           "); it is used in this process only"));
  } else if (!written->inserted) {
    // Another process stored one first: every process runs the same.
    const int32_t theirs = written->verdict.variant;
    if (theirs >= 0 && theirs < count && kernels[theirs] != nullptr) chosen = theirs;
  }
  choice.config = chosen;
  choice.kernel = kernels[chosen];
  choice.source = LaunchSource::kMeasured;
  return choice;
}

}  // namespace sy::fusion
