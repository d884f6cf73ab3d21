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

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Times work enqueued between Start and Stop.
class Timer {
 public:
  virtual ~Timer() = default;
  virtual absl::Status Start() = 0;
  virtual absl::StatusOr<double> StopNs() = 0;
};

// The host clock around the work and a synchronize (cpu, whose kernels run
// as they are called).
class HostTimer : public Timer {
 public:
  explicit HostTimer(core::Device& device) : device_(device) {}
  absl::Status Start() override {
    absl::Status status = device_.Synchronize();
    start_ = Clock::now();
    return status;
  }
  absl::StatusOr<double> StopNs() override {
    absl::Status status = device_.Synchronize();
    if (!status.ok()) return status;
    return std::chrono::duration<double, std::nano>(Clock::now() - start_).count();
  }

 private:
  core::Device& device_;
  Clock::time_point start_;
};

// The device's own events (plugin.h: event_record, event_elapsed_ms), so
// launch gaps on the host do not count.
class EventTimer : public Timer {
 public:
  static absl::StatusOr<std::unique_ptr<EventTimer>> Create(core::Device& device) {
    auto timer = std::unique_ptr<EventTimer>(new EventTimer(device));
    const sy_device_api_t& api = device.type().api();
    for (sy_event_t* event : {&timer->start_, &timer->end_}) {
      absl::Status status = device.type().Check(
          api.event_create(api.device_data, device.index(), event),
          "creating an event for the autotuner");
      if (!status.ok()) return status;
    }
    return timer;
  }
  ~EventTimer() override {
    const sy_device_api_t& api = device_.type().api();
    for (sy_event_t event : {start_, end_}) {
      if (event != nullptr) {
        core::DestroyError(api.event_destroy(api.device_data, event));
      }
    }
  }
  absl::Status Start() override {
    const sy_device_api_t& api = device_.type().api();
    return device_.type().Check(
        api.event_record(api.device_data, start_, device_.stream()),
        "recording the autotuner's start event");
  }
  absl::StatusOr<double> StopNs() override {
    const sy_device_api_t& api = device_.type().api();
    const core::DeviceType& type = device_.type();
    absl::Status status = type.Check(
        api.event_record(api.device_data, end_, device_.stream()),
        "recording the autotuner's end event");
    if (status.ok()) {
      status = type.Check(api.event_synchronize(api.device_data, end_),
                          "waiting for the autotuner's end event");
    }
    float ms = 0;
    if (status.ok()) {
      status = type.Check(api.event_elapsed_ms(api.device_data, start_, end_, &ms),
                          "reading the autotuner's event times");
    }
    if (!status.ok()) return status;
    return static_cast<double>(ms) * 1e6;
  }

 private:
  explicit EventTimer(core::Device& device) : device_(device) {}
  core::Device& device_;
  sy_event_t start_ = nullptr;
  sy_event_t end_ = nullptr;
};

std::unique_ptr<Timer> TimerFor(core::Device& device) {
  if (device.type().name() != "cpu") {
    absl::StatusOr<std::unique_ptr<EventTimer>> events = EventTimer::Create(device);
    if (events.ok()) return *std::move(events);
  }
  return std::make_unique<HostTimer>(device);
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

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kMeasured: return "measured";
    case Outcome::kStoppedEarly: return "stopped early";
    case Outcome::kWrong: return "wrong";
    case Outcome::kFailed: return "failed";
    case Outcome::kDeclined: return "declined";
  }
  return "?";
}

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

  // 3. Check and warm up each candidate.
  std::unique_ptr<Timer> timer = TimerFor(*bound.device);
  std::vector<core::Resolution> resolutions;
  std::vector<int> alive;
  size_t counter = 0;  // calls made: picks the next input set
  auto run = [&](size_t index, const InputSet& set) {
    return core::RunResolved(dispatcher, set.bound, resolutions[index],
                             set.output_pointers, nullptr);
  };
  double round_estimate_ns = 0;
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
    // Warm-up: at least one more call, then until warmup_ms has passed.
    int calls = 0;
    const Clock::time_point warm = Clock::now();
    do {
      status = run(i, *sets[counter++ % sets.size()]);
      ++calls;
    } while (status.ok() && calls < 10000 && MsSince(warm) < options.warmup_ms);
    if (status.ok()) status = bound.device->Synchronize();
    if (!status.ok()) {
      r.outcome = Outcome::kFailed;
      r.note = std::string(status.message());
      continue;
    }
    const double per_call_ns = std::max(MsSince(warm) * 1e6 / calls, 1.0);
    r.calls_per_sample = static_cast<int>(std::clamp(
        options.sample_target_us * 1e3 / per_call_ns, 1.0, 100000.0));
    round_estimate_ns += per_call_ns * r.calls_per_sample;
    alive.push_back(static_cast<int>(i));
  }

  // 4. Interleaved rounds.
  int min_rounds = std::max(options.min_rounds, 1);
  // Calls so long that the minimum would take 10× the budget: three samples
  // of such long calls are steady enough.
  if (round_estimate_ns * min_rounds > 10 * options.budget_ms * 1e6) {
    min_rounds = std::min(min_rounds, 3);
  }
  if (alive.size() <= 1) min_rounds = 1;
  std::vector<std::vector<double>> samples(candidates.size());
  for (int round = 0; !alive.empty(); ++round) {
    for (size_t j = 0; j < alive.size(); ++j) {
      const int i = alive[(j + round) % alive.size()];
      CandidateResult& r = m.results[i];
      if (r.outcome != Outcome::kMeasured) continue;
      absl::Status status = timer->Start();
      for (int k = 0; status.ok() && k < r.calls_per_sample; ++k) {
        status = run(i, *sets[counter++ % sets.size()]);
      }
      absl::StatusOr<double> ns =
          status.ok() ? timer->StopNs() : absl::StatusOr<double>(status);
      if (!ns.ok()) {
        r.outcome = Outcome::kFailed;
        r.note = std::string(ns.status().message());
        continue;
      }
      samples[i].push_back(*ns / r.calls_per_sample);
    }
    std::erase_if(alive, [&](int i) { return m.results[i].outcome != Outcome::kMeasured; });
    m.rounds = round + 1;
    if (m.rounds >= min_rounds && !alive.empty()) {
      double best = INFINITY;
      for (int i : alive) best = std::min(best, Median(samples[i]));
      for (int i : alive) {
        const double fastest = *std::min_element(samples[i].begin(), samples[i].end());
        if (fastest > options.early_stop_factor * best) {
          m.results[i].outcome = Outcome::kStoppedEarly;
          m.results[i].note = absl::StrCat("stopped after ", samples[i].size(),
                                           " samples: its fastest is ",
                                           fastest / best, "x the best median");
        }
      }
      std::erase_if(alive, [&](int i) { return m.results[i].outcome != Outcome::kMeasured; });
    }
    if (m.rounds >= min_rounds &&
        (alive.size() <= 1 || MsSince(start) >= options.budget_ms)) {
      break;
    }
    if (m.rounds >= options.max_rounds) break;
  }

  // 5. The winner: the first within the band of the best.
  double best = INFINITY;
  for (size_t i = 0; i < candidates.size(); ++i) {
    CandidateResult& r = m.results[i];
    r.samples = static_cast<int>(samples[i].size());
    if (!samples[i].empty()) {
      r.median_ns = Median(samples[i]);
      r.min_ns = *std::min_element(samples[i].begin(), samples[i].end());
    }
    if (r.outcome == Outcome::kMeasured && r.samples > 0) best = std::min(best, r.median_ns);
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    const CandidateResult& r = m.results[i];
    if (r.outcome == Outcome::kMeasured && r.samples > 0 &&
        r.median_ns <= best * (1 + options.band)) {
      m.winner = static_cast<int>(i);
      break;
    }
  }
  m.elapsed_ms = MsSince(start);
  return m;
}

}  // namespace sy::autotune
