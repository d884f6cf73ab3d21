// Measuring a key's candidates (docs/autotune.md, "Measurement"):
//   1. Input sets: the call's own inputs, plus copies with the same layouts
//      until the sets together pass `rotate_bytes` (at most `max_sets`, at
//      most `max_rotation_bytes`), each with its own outputs. Calls cycle
//      through the sets, so an input left in cache by the previous call
//      does not flatter a candidate.
//   2. The reference (reference.h), once.
//   3. Per candidate: one call, its outputs checked against the reference
//      (a candidate that fails the check, errors or declines is out); then
//      warm-up calls for `warmup_ms`, which also size a sample: enough calls
//      (`calls_per_sample`) that a sample takes ~`sample_target_us`.
//   4. Rounds: each round takes one sample of every candidate still in, in
//      an order rotated per round, so drift (clock boost, a neighbour on a
//      shared core) hits all alike. Timing by the device's events, or the
//      host clock (with a synchronize) on cpu. After `min_rounds`, a
//      candidate whose fastest sample is `early_stop_factor` × the best
//      median is stopped; rounds end when one candidate is left, when the
//      key's `budget_ms` is spent (but never before `min_rounds`), or at
//      `max_rounds`.
//   5. The winner: the first candidate in the fixed order (candidates.h)
//      whose median is within `band` of the best median. Candidates that
//      differ by less than the noise come out in the same order in every
//      process, so every process picks the same one.
#ifndef SWITCHYARD_AUTOTUNE_MEASURE_H_
#define SWITCHYARD_AUTOTUNE_MEASURE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autotune/candidates.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/registry/kernel_table.h"

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

// Measures `candidates` (SlotCandidates of `slot`, decliners marked) on the
// call `bound`. Errors: no reference could be computed; inputs could not be
// copied (out of memory). A measurement where no candidate passed has
// winner -1.
absl::StatusOr<Measurement> MeasureCandidates(core::Dispatcher& dispatcher,
                                              const core::BoundCall& bound,
                                              const core::DispatchSlot& slot,
                                              const std::vector<Candidate>& candidates,
                                              const MeasureOptions& options);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_MEASURE_H_
