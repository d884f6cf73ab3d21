// Timing candidates against each other: steps 3 (warm-up) to 5 of
// measure.h's procedure — interleaved rounds, early stops, medians and the
// winner by the band and the fixed order — over candidates given as
// functions that enqueue one call each. MeasureCandidates uses it for an
// op's kernels and variants; the fusion compiler for a fused kernel's
// launch configurations (Note [Launch configurations], plugin/fusion.h).
// One timer and one rule for both, so a fused kernel's verdict means what
// an op's does.
#ifndef SWITCHYARD_AUTOTUNE_TIMING_H_
#define SWITCHYARD_AUTOTUNE_TIMING_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dispatcher/memory/device.h"

namespace sy::autotune {

struct MeasureOptions {
  double budget_ms = 200;        // per key, see above
  int min_rounds = 5;
  int max_rounds = 200;
  double band = 0.03;            // 3 %: ties within it go by the fixed order
  double early_stop_factor = 2.0;
  double warmup_ms = 2;          // per candidate
  double sample_target_us = 50;
  size_t rotate_bytes = size_t{64} << 20;
  int max_sets = 8;
  size_t max_rotation_bytes = size_t{512} << 20;
};

enum class Outcome : uint8_t {
  kMeasured,      // timed to the end
  kStoppedEarly,  // clearly slower: stopped before the end
  kWrong,         // its outputs differ from the reference
  kFailed,        // it returned an error
  kDeclined,      // it declines this bucket
};
const char* OutcomeName(Outcome outcome);  // "measured", …

struct CandidateResult {
  Outcome outcome = Outcome::kMeasured;
  double median_ns = 0;  // per call; 0 when not timed
  double min_ns = 0;
  int samples = 0;
  int calls_per_sample = 0;
  double error = 0;      // against the reference (normwise, relative)
  std::string note;      // why it is out, when it is
};

struct Measurement {
  std::vector<CandidateResult> results;  // one per candidate, same order
  int winner = -1;                       // index into the candidates
  std::string reference;                 // where the reference came from
  int input_sets = 1;
  int rounds = 0;
  double elapsed_ms = 0;
};

// Times the candidates whose results[i].outcome is still kMeasured on
// entry (the caller marks declined, failed and wrong ones first; `m`
// holds one result per candidate): warms each up, sizes its samples, runs
// the rounds and sets the medians, outcomes, m->rounds and m->winner (-1
// when none was timed). `run(i)` enqueues one call of candidate i on
// `device`'s stream; an error takes candidate i out (kFailed, with the
// message). Timing by the device's events, or the host clock with a
// synchronize on cpu. `start` is when the measurement began: the budget
// counts from it.
void TimeCandidates(core::Device& device, const std::function<absl::Status(size_t)>& run,
                    const MeasureOptions& options,
                    std::chrono::steady_clock::time_point start, Measurement* m);

// A measurement as the JSON a verdict keeps (Verdict::detail, shown by
// explain and `switchyard tune`): each candidate, by `labels[i]`, with its
// outcome, median, samples, error and note; the rounds and the time taken.
std::string DetailJson(const std::vector<std::string>& labels, const Measurement& m);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_TIMING_H_
