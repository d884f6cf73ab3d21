// A lone composite — softmax, log_softmax, layer_norm or rms_norm whose
// decomposition would fuse with nothing (compiler.cc, Note [Native single
// ops]) — runs its plugin's own kernel or the fused kernel of its parts:
// the choice, through the autotuner.
//
// Note [Own kernel or fused, measured]
// By rule such an op runs its own kernel: the fused kernel re-derives what
// the plugin's kernel for the op already is, and measured slower for the
// transformer block's norms on the H100 and for rms_norm on cpu
// (docs/fusion.md, "Native kernels"). The rule is not always right: a
// plugin's kernel can be the slow one at some shapes. The cuda plugin's
// softmax over rows longer than it keeps on chip reads each row twice
// (0.63–0.71 of copy bandwidth over a vocabulary of 50,176 on the H200)
// where the fused kernel of softmax's parts keeps a row in registers or
// shared memory. So the choice is a verdict of the autotuner, in its mode,
// like a fused kernel's launch configuration (backend/launch_tuning.h):
//
//   off     the rule: its own kernel. Nothing is compiled or measured.
//   cached  the autotune cache's verdict when it has one, else the rule;
//           without one for this kernel's IR nothing is made on the device
//           (resolving the own kernel for the key takes scratch inputs
//           the size of the op's).
//   on      as cached; without a verdict the fused kernel is compiled (in
//           the launch configuration its own tuning picks) and both are
//           timed by autotune/timing.h — the own kernel through the
//           dispatcher on scratch inputs of the captured layouts, the fused
//           kernel on its IR's operands — with ties within the band going
//           to the own kernel (candidate 0). The verdict is stored at once
//           (first writer wins; a process that lost the race takes the
//           stored one).
//
// The key (autotune::OwnOrFusedKey) holds the fused kernel's IR hash (the
// group's shapes, strides, dtypes and program), the device's fingerprint,
// the own kernel with its plugin's version and the fusion plugin with its
// version and code generator: another plugin version, kernel or code
// generator is another key. The two are not compared for values: each is
// checked where it is built (the op harness, the fusion tests), and the
// fused kernel is what runs wherever the op fuses with a neighbour.
//
// Trouble on the way — an unreadable cache, a fused kernel that does not
// compile, a measurement that cannot run — keeps the rule, with a warning
// in the log: never a reason for the graph not to compile.
//
// Thread-safety: runs on the calling thread; the kernels it times are real
// calls on the node's device.
#ifndef SWITCHYARD_FUSION_COMPILE_OWN_OR_FUSED_H_
#define SWITCHYARD_FUSION_COMPILE_OWN_OR_FUSED_H_

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "fusion/backend/backends.h"
#include "fusion/backend/kernel_cache.h"
#include "fusion/backend/launch_tuning.h"
#include "fusion/capture/op_graph.h"
#include "fusion/ir/fused_ir.h"

namespace sy::fusion {

struct OwnOrFused {
  bool fused = false;  // false: the op's own kernel
  // kDefault: the rule (no verdict); kCached or kMeasured: a verdict.
  LaunchSource source = LaunchSource::kDefault;
  std::string own_kernel;    // "cuda::softmax", when known
  double own_us = 0;         // medians per call, when measured
  double fused_us = 0;
  double tune_ms = 0;
  std::string detail;        // the measurement's JSON, when measured

  // Why, for explain: "measured: its own kernel cuda::softmax 316 µs, the
  // fused kernel 250 µs", "autotune cache", or "" for the rule.
  std::string Describe() const;
};

// The IR hashes that have a stored choice, per device: the autotune cache
// is read once per device for a whole compile (cached mode), not once per
// lone composite.
class StoredChoices {
 public:
  explicit StoredChoices(const LaunchTuning& tuning) : tuning_(&tuning) {}
  // Whether a choice is stored for a kernel whose IR hashes to `ir_hash` on
  // `device`; the cache's error when it cannot be read.
  absl::StatusOr<bool> Has(core::Device& device, const std::string& ir_hash);

 private:
  const LaunchTuning* tuning_;
  std::map<const core::Device*, absl::StatusOr<std::set<std::string>>> read_;
};

// The choice for `node` (a composite of `captured`, resolved to a kernel
// at capture, on its device) whose parts form the fused kernel `ir` of
// `backend`; `compile` compiles that kernel, and is called only to
// measure. `stored_choices` serves the compile's lookups in cached mode.
OwnOrFused ChooseOwnOrFused(
    core::Dispatcher& d, const LaunchTuning& tuning, StoredChoices& stored_choices,
    const OpGraph& captured, const Node& node, const FusionBackend& backend,
    const FusedKernel& ir,
    const std::function<absl::StatusOr<std::shared_ptr<CompiledKernel>>()>& compile);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_OWN_OR_FUSED_H_
