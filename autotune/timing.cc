#include "autotune/timing.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "dispatcher/base/error.h"

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

void TimeCandidates(core::Device& device, const std::function<absl::Status(size_t)>& run,
                    const MeasureOptions& options, Clock::time_point start,
                    Measurement* out) {
  Measurement& m = *out;
  std::unique_ptr<Timer> timer = TimerFor(device);
  std::vector<int> alive;
  double round_estimate_ns = 0;
  for (size_t i = 0; i < m.results.size(); ++i) {
    CandidateResult& r = m.results[i];
    if (r.outcome != Outcome::kMeasured) continue;
    absl::Status status;
    // Warm-up: at least one more call, then until warmup_ms has passed.
    int calls = 0;
    const Clock::time_point warm = Clock::now();
    do {
      status = run(i);
      ++calls;
    } while (status.ok() && calls < 10000 && MsSince(warm) < options.warmup_ms);
    if (status.ok()) status = device.Synchronize();
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
  std::vector<std::vector<double>> samples(m.results.size());
  for (int round = 0; !alive.empty(); ++round) {
    for (size_t j = 0; j < alive.size(); ++j) {
      const int i = alive[(j + round) % alive.size()];
      CandidateResult& r = m.results[i];
      if (r.outcome != Outcome::kMeasured) continue;
      absl::Status status = timer->Start();
      for (int k = 0; status.ok() && k < r.calls_per_sample; ++k) {
        status = run(i);
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
  for (size_t i = 0; i < m.results.size(); ++i) {
    CandidateResult& r = m.results[i];
    r.samples = static_cast<int>(samples[i].size());
    if (!samples[i].empty()) {
      r.median_ns = Median(samples[i]);
      r.min_ns = *std::min_element(samples[i].begin(), samples[i].end());
    }
    if (r.outcome == Outcome::kMeasured && r.samples > 0) best = std::min(best, r.median_ns);
  }
  for (size_t i = 0; i < m.results.size(); ++i) {
    const CandidateResult& r = m.results[i];
    if (r.outcome == Outcome::kMeasured && r.samples > 0 &&
        r.median_ns <= best * (1 + options.band)) {
      m.winner = static_cast<int>(i);
      break;
    }
  }
}

std::string DetailJson(const std::vector<std::string>& labels, const Measurement& m) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < labels.size() && i < m.results.size(); ++i) {
    const CandidateResult& r = m.results[i];
    nlohmann::json entry = {{"candidate", labels[i]},
                            {"outcome", OutcomeName(r.outcome)},
                            {"median_ns", r.median_ns},
                            {"samples", r.samples},
                            {"error", std::isfinite(r.error) ? r.error : -1.0}};
    if (!r.note.empty()) entry["note"] = r.note;
    list.push_back(std::move(entry));
  }
  nlohmann::json doc = {{"reference", m.reference}, {"input_sets", m.input_sets},
                        {"rounds", m.rounds},       {"elapsed_ms", m.elapsed_ms},
                        {"candidates", std::move(list)}};
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sy::autotune
