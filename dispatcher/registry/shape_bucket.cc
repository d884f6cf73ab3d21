#include "dispatcher/registry/shape_bucket.h"

#include "absl/strings/str_cat.h"

namespace sy::core {
namespace {

// The smallest size a bucket byte stands for: 9 → 9..16 prints "≤16".
std::string DimText(uint8_t b) {
  if (b <= 8) return absl::StrCat(b);
  return absl::StrCat("<=", uint64_t{1} << (b - 8 + 3));
}

}  // namespace

std::string ShapeBucket::ToString() const {
  std::string out;
  const int shown = num_tensors < kMaxBucketTensors ? num_tensors : kMaxBucketTensors;
  for (int t = 0; t < shown; ++t) {
    absl::StrAppend(&out, t > 0 ? " " : "", "[");
    for (int d = 0; d < ranks[t]; ++d) {
      absl::StrAppend(&out, d > 0 ? ", " : "", DimText(dims[t][d]));
    }
    const LayoutClass l = layout(t);
    absl::StrAppend(&out, "]",
                    l == LayoutClass::kContiguous   ? "c"
                    : l == LayoutClass::kTransposed ? "t"
                                                    : "s");
  }
  if (num_tensors > shown) absl::StrAppend(&out, " +", num_tensors - shown);
  return out;
}

}  // namespace sy::core
