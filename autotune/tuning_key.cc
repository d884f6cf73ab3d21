#include "autotune/tuning_key.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autotune/fingerprint.h"
#include "autotune/hash.h"
#include "dispatcher/ops/dtype.h"

namespace sy::autotune {
namespace {

// The largest byte BucketDim makes: 8 + ceil(log2(2^63)) - 3.
constexpr int kMaxBucketByte = 68;

bool ParseByte(absl::string_view text, int max, uint8_t& out) {
  if (text.empty() || text.size() > 3) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > max || (text.size() > 1 && text[0] == '0')) return false;
  out = static_cast<uint8_t>(value);
  return true;
}

}  // namespace

std::string TuningKey::Hash() const {
  // Length-prefixed, so no two field lists make the same text.
  std::string text = "switchyard-autotune-key-1\n";
  for (const std::string* field : {&fingerprint, &op, &dtypes, &bucket, &plugins,
                                   &candidates}) {
    absl::StrAppend(&text, field->size(), ":", *field, "\n");
  }
  return HashHex(text, 32);
}

std::string BucketText(const core::ShapeBucket& bucket) {
  std::string out = absl::StrCat(bucket.num_tensors);
  const int shown = std::min<int>(bucket.num_tensors, core::kMaxBucketTensors);
  for (int t = 0; t < shown; ++t) {
    const core::LayoutClass layout = bucket.layout(t);
    absl::StrAppend(&out, "|",
                    layout == core::LayoutClass::kContiguous   ? "c"
                    : layout == core::LayoutClass::kTransposed ? "t"
                                                               : "s",
                    ":");
    for (int d = 0; d < bucket.ranks[t]; ++d) {
      absl::StrAppend(&out, d > 0 ? "," : "", bucket.dims[t][d]);
    }
  }
  return out;
}

std::optional<core::ShapeBucket> ParseBucketText(absl::string_view text) {
  if (text.size() > 512) return std::nullopt;
  std::vector<absl::string_view> parts = absl::StrSplit(text, '|');
  core::ShapeBucket bucket;
  if (!ParseByte(parts[0], 255, bucket.num_tensors)) return std::nullopt;
  const size_t shown = std::min<int>(bucket.num_tensors, core::kMaxBucketTensors);
  if (parts.size() != shown + 1) return std::nullopt;
  for (size_t t = 0; t < shown; ++t) {
    absl::string_view part = parts[t + 1];
    if (part.size() < 2 || part[1] != ':') return std::nullopt;
    const uint8_t bit = static_cast<uint8_t>(1u << t);
    switch (part[0]) {
      case 'c': bucket.contiguous |= bit; break;
      case 't': bucket.transposed |= bit; break;
      case 's': break;
      default: return std::nullopt;
    }
    absl::string_view dims = part.substr(2);
    std::vector<absl::string_view> values;
    if (!dims.empty()) values = absl::StrSplit(dims, ',');  // else rank 0
    // A transposed tensor has two dims at least (ClassifyLayout).
    if (part[0] == 't' && values.size() < 2) return std::nullopt;
    if (values.size() > SY_MAX_RANK) return std::nullopt;
    bucket.ranks[t] = static_cast<uint8_t>(values.size());
    for (size_t d = 0; d < values.size(); ++d) {
      if (!ParseByte(values[d], kMaxBucketByte, bucket.dims[t][d])) {
        return std::nullopt;
      }
    }
  }
  // Only what BucketText writes (no leading zeros, no stray separators):
  // the text must round-trip.
  if (BucketText(bucket) != text) return std::nullopt;
  return bucket;
}

std::string DTypesText(const core::DispatchSlot& slot) {
  const std::vector<sy_dtype_t>& dtypes = slot.choices.front().kernel->dtypes;
  std::vector<std::string> names;
  for (size_t i = 0; i < dtypes.size() && i < core::kMaxKeyedTensorArgs; ++i) {
    names.emplace_back(core::DTypeName(dtypes[i]));
  }
  return absl::StrJoin(names, ",");
}

std::optional<std::vector<sy_dtype_t>> ParseDTypesText(absl::string_view text) {
  std::vector<sy_dtype_t> dtypes;
  if (text.empty() || text.size() > 128) return std::nullopt;
  for (absl::string_view name : absl::StrSplit(text, ',')) {
    if (dtypes.size() == core::kMaxKeyedTensorArgs) return std::nullopt;
    if (name == "none") {
      dtypes.push_back(SY_DTYPE_NONE);
      continue;
    }
    const std::string_view std_name(name.data(), name.size());
    std::optional<sy_dtype_t> dtype = core::ParseDType(std_name);
    if (!dtype.has_value() || core::DTypeName(*dtype) != std_name) return std::nullopt;
    dtypes.push_back(*dtype);
  }
  return dtypes;
}

TuningKey MakeKey(const core::RuntimeState& state, const core::OpDef& op,
                  const core::DispatchSlot& slot, const core::ShapeBucket& bucket,
                  const core::Device& device,
                  const std::vector<Candidate>& candidates) {
  TuningKey key;
  key.fingerprint = FingerprintOf(device).Text();
  key.op = op.full_name();
  key.dtypes = DTypesText(slot);
  key.bucket = BucketText(bucket);
  key.plugins = PluginsText(state, candidates);
  key.candidates = CandidateSetHash(candidates);
  return key;
}

TuningKey FusedLaunchKey(const core::Device& device, absl::string_view ir_hash,
                         absl::string_view plugin,
                         const std::vector<std::string>& config_names) {
  TuningKey key;
  key.fingerprint = FingerprintOf(device).Text();
  key.op = kFusedLaunchOp;
  key.dtypes = "none";
  key.bucket = std::string(ir_hash);
  key.plugins = std::string(plugin);
  // Names end at a newline (fusion.h says one line each), so the joined
  // text names one list only.
  key.candidates = HashHex(absl::StrJoin(config_names, "\n"));
  return key;
}

bool IsFusionCompilerVerdict(const TuningKey& key) {
  return key.op == kFusedLaunchOp || key.op == kOwnOrFusedOp;
}

TuningKey OwnOrFusedKey(const core::Device& device, absl::string_view ir_hash,
                        absl::string_view plugins,
                        const std::vector<std::string>& candidates) {
  TuningKey key = FusedLaunchKey(device, ir_hash, plugins, candidates);
  key.op = kOwnOrFusedOp;
  return key;
}

}  // namespace sy::autotune
