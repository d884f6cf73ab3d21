// A key's candidates: every kernel its dispatch slot holds (every plugin's
// kernel for the op, device type and dtypes), times each kernel's variants,
// in one fixed order that every process computes alike — the tie order of
// the noise band (measure.h). A kernel that declines a bucket is marked and
// is no candidate there.
#ifndef SWITCHYARD_AUTOTUNE_CANDIDATES_H_
#define SWITCHYARD_AUTOTUNE_CANDIDATES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/runtime_state.h"

namespace sy::autotune {

struct Candidate {
  const core::KernelEntry* kernel = nullptr;
  int slot_index = -1;       // its index in the slot's choices
  int32_t variant = -1;      // -1 for a kernel without variants
  std::string kernel_name;   // "onednn::matmul.f32.f32"
  std::string variant_name;  // "" for variant -1
  // Why the kernel declines the bucket (QueryKernel); "" when it takes it.
  std::string declined;

  // "onednn::matmul.f32.f32", or "cuda::matmul.f32.f32 [cublaslt_heuristic2]".
  std::string Label() const;
};

// The candidates of `slot`: each kernel once per variant (once, variant -1,
// when it has none). Fixed order: priority (highest first), then the
// qualified kernel name, then the variant index — the slot's static order
// freed from load order and pins.
std::vector<Candidate> SlotCandidates(const core::DispatchSlot& slot);

// Sets `declined` on each candidate whose kernel declines `bound` (asked once
// per kernel). Errors: a kernel whose query failed (not a decline).
absl::Status MarkDecliners(const core::BoundCall& bound,
                           std::vector<Candidate>& candidates);

// A hash (16 hex digits) of the candidate list as SlotCandidates gives it:
// names, variants, priorities and decline flags. Part of the key, so a new
// or changed candidate never reuses an old verdict.
std::string CandidateSetHash(const std::vector<Candidate>& candidates);

// The candidates' plugins, sorted by name, each with its version, the ABI it
// answered and a hash of its option values (which change speed too):
// "cpu 0.1.0 abi 1.1 options 3f2a9c1d, onednn 0.1.0 abi 1.1 options …".
std::string PluginsText(const core::RuntimeState& state,
                        const std::vector<Candidate>& candidates);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_CANDIDATES_H_
