#include "fusion/compile/own_or_fused.h"

#include <chrono>
#include <ctime>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autotune/fingerprint.h"
#include "autotune/timing.h"
#include "autotune/tuning_key.h"
#include "dispatcher/base/log.h"
#include "dispatcher/base/plugin_instance.h"
#include "dispatcher/dispatch/resolve.h"
#include "fusion/backend/disk_cache.h"
#include "fusion/compile/node_calls.h"
#include "fusion/compile/rebuild.h"
#include "fusion/ir/serialize.h"

namespace sy::fusion {
namespace {

using Clock = std::chrono::steady_clock;

// Candidate 0 is the rule's choice, so the fixed order gives it ties.
const std::vector<std::string>& CandidateNames() {
  static const std::vector<std::string>* names =
      new std::vector<std::string>{"own kernel", "fused kernel"};
  return *names;
}

// The own kernel `node` resolves to on `inputs`: "cuda::softmax", and the
// key's text for it, "kernel cuda::softmax of cuda 0.4.0".
absl::StatusOr<std::pair<std::string, std::string>> OwnKernel(
    core::Dispatcher& d, const Node& node, const std::vector<core::Tensor>& inputs) {
  const std::vector<const core::Tensor*> pointers = CallInputs(node, inputs);
  core::CallArgs args;
  args.inputs = pointers;
  args.attrs = node.attrs.span();
  args.list_sizes = node.list_sizes;
  absl::StatusOr<core::Resolution> r =
      d.ResolveCall(core::OpHandle(const_cast<core::OpDef*>(node.op)), args);
  if (!r.ok()) return r.status();
  if (r->route != core::Route::kKernel || r->kernel.kernel == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(node.name(), " no longer resolves to a kernel"));
  }
  const std::string name = r->kernel.kernel->QualifiedName();
  const core::PluginInstance* plugin = r->kernel.kernel->plugin;
  return std::make_pair(name, absl::StrCat("kernel ", name, " variant ", r->kernel.variant,
                                           " of ", plugin != nullptr ? plugin->name() : "",
                                           " ", plugin != nullptr ? plugin->version() : ""));
}

}  // namespace

std::string OwnOrFused::Describe() const {
  switch (source) {
    case LaunchSource::kDefault: return "";
    case LaunchSource::kCached: return "autotune cache";
    case LaunchSource::kMeasured:
      return absl::StrFormat("measured: its own kernel %s %.1f µs, the fused kernel %.1f µs",
                             own_kernel, own_us, fused_us);
  }
  return "";
}

absl::StatusOr<bool> StoredChoices::Has(core::Device& device, const std::string& ir_hash) {
  auto it = read_.find(&device);
  if (it == read_.end()) {
    absl::StatusOr<std::vector<autotune::Verdict>> rows =
        tuning_->tuner->cache().List(autotune::FingerprintOf(device).Text());
    std::set<std::string> buckets;
    if (rows.ok()) {
      for (const autotune::Verdict& v : *rows) {
        if (v.key.op == autotune::kOwnOrFusedOp) buckets.insert(v.key.bucket);
      }
    }
    it = read_.emplace(&device, rows.ok() ? absl::StatusOr<std::set<std::string>>(buckets)
                                          : rows.status()).first;
  }
  if (!it->second.ok()) return it->second.status();
  return it->second->count(ir_hash) > 0;
}

OwnOrFused ChooseOwnOrFused(
    core::Dispatcher& d, const LaunchTuning& tuning, StoredChoices& stored_choices,
    const OpGraph& captured, const Node& node, const FusionBackend& backend,
    const FusedKernel& ir,
    const std::function<absl::StatusOr<std::shared_ptr<CompiledKernel>>()>& compile) {
  OwnOrFused rule;
  const core::AutotuneMode mode =
      tuning.tuner != nullptr ? tuning.tuner->mode() : core::AutotuneMode::kOff;
  if (mode == core::AutotuneMode::kOff || node.device == nullptr) return rule;
  core::Device& device = *node.device;
  const std::string where = absl::StrCat(node.name(), " on ", device.label());
  auto keep_rule = [&](absl::string_view what, const absl::Status& why) {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: ", what, " for ", where, " (", why.message(),
                           "); it runs its own kernel"));
    return rule;
  };

  autotune::TuningCache& db = tuning.tuner->cache();
  const std::string ir_hash = Sha256Hex(Serialize(ir));
  if (mode == core::AutotuneMode::kCached) {
    // No choice stored for this kernel: the rule, before any scratch input
    // takes the inputs' memory on the device.
    absl::StatusOr<bool> has = stored_choices.Has(device, ir_hash);
    if (!has.ok()) return keep_rule("cannot read the autotune cache", has.status());
    if (!*has) return rule;
  }
  // Unwritten inputs: resolving the own kernel reads only their layouts.
  absl::StatusOr<std::vector<core::Tensor>> inputs =
      ScratchTensors(d, device, captured, node.inputs, /*fill=*/false);
  if (!inputs.ok()) return keep_rule("cannot make scratch inputs", inputs.status());
  absl::StatusOr<std::pair<std::string, std::string>> own = OwnKernel(d, node, *inputs);
  if (!own.ok()) return keep_rule("cannot resolve its own kernel", own.status());
  rule.own_kernel = own->first;

  const autotune::TuningKey key = autotune::OwnOrFusedKey(
      device, ir_hash,
      absl::StrCat(own->second, "; fused by ", backend.plugin_name, " ", backend.plugin_version,
                   " (", backend.compiler, ")"),
      CandidateNames());
  absl::StatusOr<std::optional<autotune::Verdict>> stored = db.Lookup(key);
  if (!stored.ok()) return keep_rule("cannot read the autotune cache", stored.status());
  // The key covers the names; the check keeps a damaged row from choosing.
  if (stored->has_value() && ((*stored)->variant == 0 || (*stored)->variant == 1) &&
      (*stored)->variant_name == CandidateNames()[(*stored)->variant]) {
    OwnOrFused cached = rule;
    cached.fused = (*stored)->variant == 1;
    cached.source = LaunchSource::kCached;
    return cached;
  }
  if (mode != core::AutotuneMode::kOn) return rule;

  const Clock::time_point start = Clock::now();
  inputs = ScratchTensors(d, device, captured, node.inputs);  // now with values
  if (!inputs.ok()) return keep_rule("cannot make scratch inputs", inputs.status());
  absl::StatusOr<std::shared_ptr<CompiledKernel>> kernel = compile();
  if (!kernel.ok()) return keep_rule("the fused kernel of its parts does not compile",
                                     kernel.status());
  absl::StatusOr<KernelOperands> ops = MakeKernelOperands(d, device, ir);
  if (!ops.ok()) return keep_rule("cannot make the fused kernel's operands", ops.status());
  // One call of each first: the own kernel's op may be tuned on its first
  // call (mode on), which is no part of its time.
  core::TensorList produced;
  absl::Status first = RunNode(d, node, *inputs, produced);
  if (first.ok()) first = (*kernel)->Launch(ops->input_views, ops->output_views);
  if (first.ok()) first = d.Synchronize(device);
  if (!first.ok()) return keep_rule("cannot run the two", first);

  autotune::Measurement m;
  m.results.resize(2);
  m.reference = "none: both are the op's own checked kernels";
  autotune::TimeCandidates(
      device,
      [&](size_t i) {
        return i == 0 ? RunNode(d, node, *inputs, produced)
                      : (*kernel)->Launch(ops->input_views, ops->output_views);
      },
      tuning.measure, start, &m);
  m.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  OwnOrFused measured = rule;
  measured.tune_ms = m.elapsed_ms;
  measured.detail = autotune::DetailJson(CandidateNames(), m);
  if (m.winner < 0) {
    return keep_rule("neither could be timed",
                     absl::InternalError(measured.detail));
  }
  measured.source = LaunchSource::kMeasured;
  measured.own_us = m.results[0].median_ns / 1e3;
  measured.fused_us = m.results[1].median_ns / 1e3;
  int32_t chosen = m.winner;
  autotune::Verdict verdict;
  verdict.key = key;
  verdict.kernel = absl::StrCat(node.op->full_name(), ": ", own->first, " or ",
                                backend.plugin_name, "::", ir.name);
  verdict.variant = chosen;
  verdict.variant_name = CandidateNames()[chosen];
  verdict.time_ns = m.results[chosen].median_ns;
  verdict.detail = measured.detail;
  verdict.source = "measured";
  verdict.created = static_cast<int64_t>(std::time(nullptr));
  absl::StatusOr<autotune::TuningCache::Stored> written = db.Insert(verdict);
  if (!written.ok()) {
    core::Log(core::LogLevel::kWarning,
              absl::StrCat("autotune: cannot store the choice for ", where, " (",
                           written.status().message(), "); it is used in this process only"));
  } else if (!written->inserted &&
             (written->verdict.variant == 0 || written->verdict.variant == 1)) {
    chosen = written->verdict.variant;  // another process stored one first
  }
  measured.fused = chosen == 1;
  return measured;
}

}  // namespace sy::fusion
