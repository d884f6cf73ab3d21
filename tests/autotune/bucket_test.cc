// Shape buckets as the tuner keys them: the signature a call computes from
// its tensors equals its bucket's (Note [Bucket signatures]), on random
// shapes and layouts; layout classes; the bucket text round-trips and
// refuses what it cannot have written.
#include <random>
#include <set>

#include "autotune/tuning_key.h"
#include "dispatcher/registry/shape_bucket.h"
#include "gtest/gtest.h"

namespace sy::autotune {
namespace {

// What BucketSignatureOf reads of a tensor (its strides; shapes come from
// the metas).
struct FakeTensor {
  std::vector<int64_t> dims, steps;
  int ndim() const { return static_cast<int>(dims.size()); }
  absl::Span<const int64_t> shape() const { return dims; }
  absl::Span<const int64_t> strides() const { return steps; }
};

FakeTensor Random(std::mt19937& rng) {
  FakeTensor t;
  const int rank = std::uniform_int_distribution<int>(0, SY_MAX_RANK)(rng);
  for (int d = 0; d < rank; ++d) {
    const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
    t.dims.push_back(kind == 0 ? std::uniform_int_distribution<int64_t>(0, 9)(rng)
                     : kind == 1 ? int64_t{1} << std::uniform_int_distribution<int>(0, 40)(rng)
                                 : std::uniform_int_distribution<int64_t>(1, 5000)(rng));
  }
  t.steps.resize(rank);
  int64_t step = 1;
  for (int d = rank - 1; d >= 0; --d) {
    t.steps[d] = step;
    // Wraps (in unsigned arithmetic, never UB) for huge shapes: the steps
    // only need to be the same numbers on both sides of the comparison.
    step = static_cast<int64_t>(static_cast<uint64_t>(step) *
                                static_cast<uint64_t>(std::max<int64_t>(t.dims[d], 1)));
  }
  const int layout = std::uniform_int_distribution<int>(0, 2)(rng);
  if (layout == 1 && rank >= 2) std::swap(t.steps[rank - 1], t.steps[rank - 2]);
  if (layout == 2 && rank >= 1) t.steps[0] = 0;  // broadcast
  return t;
}

TEST(ShapeBucket, SignatureOfTensorsEqualsTheBucketsSignature) {
  std::mt19937 rng(15);
  for (int trial = 0; trial < 20000; ++trial) {
    const int count = std::uniform_int_distribution<int>(0, 9)(rng);
    std::vector<FakeTensor> tensors;
    for (int i = 0; i < count; ++i) tensors.push_back(Random(rng));
    std::vector<const FakeTensor*> pointers;
    std::vector<sy_tensor_meta_t> metas;
    core::ShapeBucket bucket;
    for (int i = 0; i < count; ++i) {
      pointers.push_back(&tensors[i]);
      sy_tensor_meta_t meta{};
      meta.dtype = SY_DTYPE_F32;
      meta.ndim = tensors[i].ndim();
      for (int d = 0; d < meta.ndim; ++d) meta.shape[d] = tensors[i].dims[d];
      metas.push_back(meta);
      core::AddToBucket(bucket, i, tensors[i].ndim(), tensors[i].dims.data(),
                        tensors[i].steps.data());
    }
    ASSERT_EQ(core::BucketSignatureOf(metas.data(), pointers.data(), pointers.size()),
              bucket.Signature())
        << bucket.ToString();
    // And the bucket survives its text form.
    std::optional<core::ShapeBucket> back = ParseBucketText(BucketText(bucket));
    ASSERT_TRUE(back.has_value()) << BucketText(bucket);
    ASSERT_TRUE(*back == bucket) << BucketText(bucket);
  }
}

TEST(ShapeBucket, SignaturesOfNearbyBucketsDiffer) {
  std::set<uint64_t> seen;
  int buckets = 0;
  for (int64_t a = 1; a <= 64; ++a) {
    for (int64_t b = 1; b <= 64; ++b) {
      core::ShapeBucket bucket;
      const int64_t shape[2] = {a, b}, strides[2] = {b, 1};
      core::AddToBucket(bucket, 0, 2, shape, strides);
      seen.insert(bucket.Signature());
      ++buckets;
    }
  }
  // 1..8 exact and 9..16, 17..32, 33..64: 11 buckets a dimension.
  EXPECT_EQ(seen.size(), 121u);
}

TEST(ShapeBucket, LayoutClasses) {
  const int64_t shape[3] = {4, 5, 6};
  const int64_t contiguous[3] = {30, 6, 1}, transposed[3] = {30, 1, 5}, sliced[3] = {60, 12, 1};
  EXPECT_EQ(core::ClassifyLayout(3, shape, contiguous), core::LayoutClass::kContiguous);
  EXPECT_EQ(core::ClassifyLayout(3, shape, transposed), core::LayoutClass::kTransposed);
  EXPECT_EQ(core::ClassifyLayout(3, shape, sliced), core::LayoutClass::kStrided);
  core::ShapeBucket b;
  core::AddToBucket(b, 0, 3, shape, transposed);
  EXPECT_EQ(b.ToString(), "[4, 5, 6]t");
  EXPECT_EQ(BucketText(b), "1|t:4,5,6");
}

TEST(ShapeBucket, TextRefusesWhatItCannotHaveWritten) {
  for (const char* bad : {"", "x", "1", "1|c:9|c:9", "2|c:9", "1|q:9", "1|t:9", "1|c:09",
                          "1|c:69", "1|c:1,2,3,4,5,6,7,8,9", "256|c:1", "1|c:,"}) {
    EXPECT_FALSE(ParseBucketText(bad).has_value()) << bad;
  }
  EXPECT_TRUE(ParseBucketText("0").has_value());
  EXPECT_TRUE(ParseBucketText("1|c:").has_value());
  EXPECT_TRUE(ParseBucketText("7|c:1|c:2|s:3|t:4,5|c:6|c:68").has_value());
}

}  // namespace
}  // namespace sy::autotune
