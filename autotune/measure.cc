#include "autotune/measure.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "absl/strings/str_cat.h"
#include "autotune/call_inputs.h"
#include "autotune/reference.h"
#include "dispatcher/base/error.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/dispatch/run.h"
#include "dispatcher/registry/op_registry.h"

namespace sy::autotune {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One input set: arguments, their binding, and outputs to write. Never
// moves once built (the binding points into `inputs`).
struct InputSet {
  CallInputs inputs;
  core::BoundCall bound;
  std::vector<core::Tensor> outputs;
  std::vector<const core::Tensor*> output_pointers;
};

absl::StatusOr<std::unique_ptr<InputSet>> MakeSet(CallInputs inputs,
                                                  const core::BoundCall& like) {
  auto set = std::make_unique<InputSet>();
  set->inputs = std::move(inputs);
  core::CallArgs args = set->inputs.Args();
  absl::Status status =
      core::BindCall(*like.op, args.inputs, args.attrs, args.list_sizes, set->bound);
  if (!status.ok()) return status;
  for (const sy_tensor_meta_t& meta : set->bound.outputs) {
    absl::StatusOr<core::Tensor> out = core::Tensor::Empty(*like.device, meta);
    if (!out.ok()) return out.status();
    set->outputs.push_back(*std::move(out));
  }
  for (const core::Tensor& t : set->outputs) set->output_pointers.push_back(&t);
  return set;
}

core::Resolution ResolutionOf(const core::DispatchSlot& slot, const Candidate& c) {
  core::Resolution r;
  r.route = core::Route::kKernel;
  r.slot = &slot;
  r.choice_index = c.slot_index;
  r.kernel = slot.choices[c.slot_index];
  r.kernel.variant = c.variant;
  r.kernel.variant_config =
      c.variant >= 0 ? c.kernel->variants[c.variant].config.data() : nullptr;
  r.requested = true;  // a decline is an error, never a silent fallback
  return r;
}

}  // namespace

absl::StatusOr<Measurement> MeasureCandidates(core::Dispatcher& dispatcher,
                                              const core::BoundCall& bound,
                                              const core::DispatchSlot& slot,
                                              const std::vector<Candidate>& candidates,
                                              const MeasureOptions& options) {
  const Clock::time_point start = Clock::now();
  Measurement m;
  m.results.resize(candidates.size());

  // 1. Input sets.
  std::vector<std::unique_ptr<InputSet>> sets;
  CallInputs base = CallInputs::Of(bound);
  size_t set_bytes = base.bytes();
  for (const sy_tensor_meta_t& meta : bound.outputs) {
    size_t numel = 1;
    for (int d = 0; d < meta.ndim; ++d) numel *= static_cast<size_t>(meta.shape[d]);
    set_bytes += numel * core::DTypeSize(meta.dtype);
  }
  set_bytes = std::max<size_t>(set_bytes, 1);
  size_t wanted = (options.rotate_bytes + set_bytes - 1) / set_bytes;
  wanted = std::min<size_t>(wanted, std::max(options.max_sets, 1));
  wanted = std::min<size_t>(wanted, std::max<size_t>(options.max_rotation_bytes / set_bytes, 1));
  for (size_t s = 0; s < wanted; ++s) {
    absl::StatusOr<CallInputs> inputs =
        s == 0 ? absl::StatusOr<CallInputs>(CallInputs::Of(bound)) : base.CopyOnDevice();
    if (!inputs.ok()) {
      if (s > 0) break;  // fewer sets, e.g. memory ran short
      return inputs.status();
    }
    absl::StatusOr<std::unique_ptr<InputSet>> set = MakeSet(*std::move(inputs), bound);
    if (!set.ok()) {
      if (s > 0) break;
      return set.status();
    }
    sets.push_back(*std::move(set));
  }
  m.input_sets = static_cast<int>(sets.size());

  // 2. The reference.
  absl::StatusOr<Reference> reference =
      ComputeReference(dispatcher, sets[0]->bound, sets[0]->inputs, slot);
  if (!reference.ok()) return reference.status();
  m.reference = reference->source;

  // 3. Check each candidate once against the reference.
  std::vector<core::Resolution> resolutions;
  size_t counter = 0;  // calls made: picks the next input set
  auto run = [&](size_t index, const InputSet& set) {
    return core::RunResolved(dispatcher, set.bound, resolutions[index],
                             set.output_pointers, nullptr);
  };
  for (size_t i = 0; i < candidates.size(); ++i) {
    resolutions.push_back(ResolutionOf(slot, candidates[i]));
    CandidateResult& r = m.results[i];
    if (!candidates[i].declined.empty()) {
      r.outcome = Outcome::kDeclined;
      r.note = candidates[i].declined;
      continue;
    }
    absl::Status status = run(i, *sets[0]);
    if (!status.ok()) {
      r.outcome = Outcome::kFailed;
      r.note = std::string(status.message());
      continue;
    }
    absl::StatusOr<HostValues> got = ReadToHost(dispatcher, sets[0]->outputs);
    if (!got.ok()) {
      r.outcome = Outcome::kFailed;
      r.note = std::string(got.status().message());
      continue;
    }
    Agreement agreement = Compare(*got, reference->outputs);
    r.error = agreement.error;
    if (!agreement.ok) {
      r.outcome = Outcome::kWrong;
      r.note = agreement.detail;
      continue;
    }
  }

  // 4 and 5: rounds and the winner (timing.h).
  TimeCandidates(*bound.device, [&](size_t i) { return run(i, *sets[counter++ % sets.size()]); },
                 options, start, &m);
  m.elapsed_ms = MsSince(start);
  return m;
}

}  // namespace sy::autotune
