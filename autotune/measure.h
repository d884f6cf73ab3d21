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
#include "autotune/timing.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/registry/kernel_table.h"

namespace sy::autotune {

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
