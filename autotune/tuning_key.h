// The cache key of a verdict. Every field that decides which candidate is
// fastest is in it, as text, so that a verdict is reused only where it was
// measured (the stale-hit bug of pytorch#174747 was a key that missed a
// field): the op, the key's dtypes, the shape bucket (dims, small ones exact,
// and each tensor's layout class: Note [Shape buckets]), the device
// fingerprint, every candidate plugin's name, version, ABI and option values,
// and a hash of the candidate set. Not in it, by design of the dispatch
// table: the op's attributes (conv2d's stride, softmax's dim) — calls of one
// bucket share a verdict (docs/autotune.md, "Limits").
#ifndef SWITCHYARD_AUTOTUNE_TUNING_KEY_H_
#define SWITCHYARD_AUTOTUNE_TUNING_KEY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "autotune/candidates.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/registry/runtime_state.h"
#include "dispatcher/registry/shape_bucket.h"

namespace sy::autotune {

struct TuningKey {
  std::string fingerprint;  // DeviceFingerprint::Text()
  std::string op;           // full name: "matmul", "add.Tensor"
  std::string dtypes;       // the key's dtypes: "f32,f32" ("none": omitted)
  std::string bucket;       // BucketText
  std::string plugins;      // PluginsText
  std::string candidates;   // CandidateSetHash

  // SHA-256 of the fields (32 hex digits): the cache's primary key. Lookups
  // compare the fields too, so a collision can never return a wrong verdict.
  std::string Hash() const;
  friend bool operator==(const TuningKey&, const TuningKey&) = default;
};

// A bucket as text that every build reads alike (the struct's bytes are
// not a format): "<tensors>|<layout>:<dims>|…" with one part per bucketed
// tensor, layout c (contiguous), t (transposed) or s (strided), dims the
// bucket bytes: "2|c:9,10|t:10,9".
std::string BucketText(const core::ShapeBucket& bucket);
// The inverse; nullopt for anything BucketText cannot have written.
std::optional<core::ShapeBucket> ParseBucketText(absl::string_view text);

// "f32,f32" for a slot (its kernels share their dtypes), at most
// kMaxKeyedTensorArgs entries; "none" for an omitted optional tensor.
std::string DTypesText(const core::DispatchSlot& slot);
// The inverse; nullopt for an unknown dtype or too many entries.
std::optional<std::vector<sy_dtype_t>> ParseDTypesText(absl::string_view text);

// The key of `bucket` in `slot` of `op` on `device`, whose candidates
// (SlotCandidates) are `candidates`.
TuningKey MakeKey(const core::RuntimeState& state, const core::OpDef& op,
                  const core::DispatchSlot& slot, const core::ShapeBucket& bucket,
                  const core::Device& device,
                  const std::vector<Candidate>& candidates);

// ---- Fused kernels' launch configurations -----------------------------
// The fusion compiler keeps its choice among a fused kernel's launch
// configurations (Note [Launch configurations], switchyard/plugin/fusion.h)
// in this cache too, under keys whose op is kFusedLaunchOp — a name no op
// can have, so the dispatch tables never take these verdicts: the bucket
// is the kernel's IR hash (its shapes, strides, dtypes and program), the
// plugins field names the plugin, its version and its code generator, and
// the candidate hash covers the configurations' names. The verdict's
// variant is the configuration's index, variant_name its name.
inline constexpr char kFusedLaunchOp[] = "<fused launch>";

// The key of a fused kernel whose IR hashes to `ir_hash`, compiled by
// `plugin` ("cuda 0.4.0 (nvrtc 13.0)") for `device`, whose configurations
// are `config_names` in order.
TuningKey FusedLaunchKey(const core::Device& device, absl::string_view ir_hash,
                         absl::string_view plugin,
                         const std::vector<std::string>& config_names);

// ---- A lone composite: its own kernel or the fused kernel of its parts --
// The fusion compiler's other choice (Note [Own kernel or fused, measured]
// in fusion/compile/own_or_fused.h): whether a composite op whose parts
// fuse with nothing runs its plugin's kernel (variant 0) or the fused
// kernel of its decomposition (variant 1). Keyed like a launch
// configuration, under kOwnOrFusedOp: the bucket is the fused kernel's IR
// hash, the plugins field names the own kernel with its plugin's version
// and the fusion plugin with its version and code generator.
inline constexpr char kOwnOrFusedOp[] = "<own or fused>";

// Whether a verdict is the fusion compiler's (kFusedLaunchOp,
// kOwnOrFusedOp), not an op's: the dispatch tables never take these, and
// export leaves them out.
bool IsFusionCompilerVerdict(const TuningKey& key);

// The key of the choice for a composite whose fused kernel's IR hashes to
// `ir_hash` on `device`; `plugins` as above ("kernel cuda::softmax of cuda
// 0.4.0; fused by cuda 0.4.0 (nvrtc 13.0 codegen 12)"); `candidates` the
// two choices' names, in order.
TuningKey OwnOrFusedKey(const core::Device& device, absl::string_view ir_hash,
                        absl::string_view plugins,
                        const std::vector<std::string>& candidates);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_TUNING_KEY_H_
