// f32 test tensors with owned storage and chosen layouts, for driving
// kernels through sy_tensor_view_t and checking them against references.
#ifndef SWITCHYARD_TESTS_PLUGINS_CPU_TEST_TENSOR_H_
#define SWITCHYARD_TESTS_PLUGINS_CPU_TEST_TENSOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "switchyard/plugin.h"

namespace sy::testing {

// Storage not covered by a view holds this, so stray writes show.
inline constexpr float kSentinel = 12345.0f;

enum class Layout {
  kContiguous,  // row-major, dense
  kTransposed,  // column-major: the memory order of the dims reversed
  kPadded,      // row-major with a gap after every row and dim, offset 3
};
std::string LayoutName(Layout layout);

class TestTensor {
 public:
  // Storage filled with kSentinel.
  static TestTensor Make(std::vector<int64_t> shape,
                         Layout layout = Layout::kContiguous);
  // Elements uniform in [lo, hi) from a generator seeded with `seed`.
  static TestTensor Random(std::vector<int64_t> shape, uint32_t seed,
                           Layout layout = Layout::kContiguous,
                           float lo = -1.0f, float hi = 1.0f);

  // A view of this tensor broadcast to `shape` (NumPy rules: stride 0 on
  // stretched and added dims), sharing the storage.
  TestTensor BroadcastTo(std::vector<int64_t> shape) const;

  // Valid while this object lives and its shape is unchanged. dtype and
  // device may be edited on the copy for bad-input tests.
  sy_tensor_view_t view() const;

  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t numel() const;
  float at(std::span<const int64_t> index) const;
  void set(std::span<const int64_t> index, float value);

  // True when every storage element the view cannot reach is kSentinel.
  bool OutsideUntouched() const;

 private:
  std::shared_ptr<std::vector<float>> storage_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;  // elements
};

// Calls fn(index) for every index of `shape`, row-major (once for rank 0,
// never for an empty shape).
void ForEachIndex(std::span<const int64_t> shape,
                  const std::function<void(std::span<const int64_t>)>& fn);

// The shape as "[2, 3]", for test names and messages.
std::string ShapeString(std::span<const int64_t> shape);

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_PLUGINS_CPU_TEST_TENSOR_H_
