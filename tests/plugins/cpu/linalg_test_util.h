// Typed test tensors and kernel calls for the matmul and conv2d tests:
// test_tensor.h's layouts for any element type (float, double, Half,
// BFloat16 and the integers), plus a call builder that passes an omitted
// optional tensor the way the dispatcher does (zero inputs in
// input_offsets).
#ifndef SWITCHYARD_TESTS_PLUGINS_CPU_LINALG_TEST_UTIL_H_
#define SWITCHYARD_TESTS_PLUGINS_CPU_LINALG_TEST_UTIL_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"
#include "test_host.h"
#include "test_tensor.h"

namespace sy::testing {

template <class T>
inline constexpr bool kIsFloating =
    std::is_floating_point_v<T> || std::is_same_v<T, plugin::Half> ||
    std::is_same_v<T, plugin::BFloat16>;

// An element as a long double (exact for every dtype here but i64, whose
// references are computed in wrapping uint64 instead).
template <class T>
long double ToLong(T v) {
  if constexpr (std::is_same_v<T, plugin::Half> ||
                std::is_same_v<T, plugin::BFloat16>) {
    return static_cast<float>(v);
  } else {
    return static_cast<long double>(v);
  }
}

template <class T>
class TypedTensor {
 public:
  // Storage filled with the byte 0xA5, so that stray writes show.
  static TypedTensor Make(std::vector<int64_t> shape,
                          Layout layout = Layout::kContiguous) {
    TypedTensor t;
    const int rank = static_cast<int>(shape.size());
    t.strides_.assign(rank, 0);
    int64_t stride = layout == Layout::kPadded ? 2 : 1;
    if (layout == Layout::kTransposed) {
      for (int d = 0; d < rank; ++d) {
        t.strides_[d] = stride;
        stride *= shape[d];
      }
    } else {
      for (int d = rank - 1; d >= 0; --d) {
        t.strides_[d] = stride;
        stride *= shape[d] + (layout == Layout::kPadded ? 1 : 0);
      }
    }
    t.offset_ = layout == Layout::kPadded ? 3 : 0;
    int64_t size = t.offset_ + 1;
    for (int d = 0; d < rank; ++d) {
      if (shape[d] == 0) size = 0;
      if (size != 0) size += (shape[d] - 1) * t.strides_[d];
    }
    if (layout == Layout::kPadded && size != 0) size += 2;
    t.shape_ = std::move(shape);
    t.storage_ = std::make_shared<std::vector<T>>(size);
    if (size > 0) {
      std::memset(static_cast<void*>(t.storage_->data()), 0xA5,
                  size * sizeof(T));
    }
    return t;
  }

  // Floating types: uniform in [-1, 1), rounded to T. Integers: uniform
  // over the whole range, so that products and sums wrap.
  static TypedTensor Random(std::vector<int64_t> shape, uint32_t seed,
                            Layout layout = Layout::kContiguous) {
    TypedTensor t = Make(std::move(shape), layout);
    std::mt19937_64 rng(seed);
    ForEachIndex(t.shape_, [&](std::span<const int64_t> i) {
      if constexpr (kIsFloating<T>) {
        t.set(i, static_cast<T>(
                     std::uniform_real_distribution<float>(-1, 1)(rng)));
      } else {
        using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
        t.set(i, static_cast<T>(std::uniform_int_distribution<W>(
                     std::numeric_limits<T>::min(),
                     std::numeric_limits<T>::max())(rng)));
      }
    });
    return t;
  }

  // A view broadcast to `shape` (stride 0 on stretched and added dims),
  // sharing the storage.
  TypedTensor BroadcastTo(std::vector<int64_t> shape) const {
    if (shape.size() < shape_.size()) throw std::invalid_argument("rank");
    TypedTensor t = *this;
    t.strides_.assign(shape.size(), 0);
    const size_t lead = shape.size() - shape_.size();
    for (size_t d = 0; d < shape_.size(); ++d) {
      if (shape_[d] == shape[lead + d]) {
        t.strides_[lead + d] = strides_[d];
      } else if (shape_[d] != 1) {
        throw std::invalid_argument("not broadcastable");
      }
    }
    t.shape_ = std::move(shape);
    return t;
  }

  // Valid while this object lives and its shape is unchanged.
  sy_tensor_view_t view() const {
    sy_tensor_view_t v{};
    v.data = storage_->empty() ? nullptr : storage_->data();
    v.device = {1, 0};
    v.ndim = static_cast<int32_t>(shape_.size());
    v.dtype = plugin::kDtypeOf<T>;
    v.shape = shape_.data();
    v.strides = strides_.data();
    v.byte_offset = storage_->empty() ? 0 : offset_ * sizeof(T);
    return v;
  }

  const std::vector<int64_t>& shape() const { return shape_; }
  T at(std::span<const int64_t> index) const { return (*storage_)[Pos(index)]; }
  void set(std::span<const int64_t> index, T value) {
    (*storage_)[Pos(index)] = value;
  }

  // True when every storage element the view cannot reach still holds
  // Make's byte pattern.
  bool OutsideUntouched() const {
    std::vector<bool> reachable(storage_->size(), false);
    ForEachIndex(shape_,
                 [&](std::span<const int64_t> i) { reachable[Pos(i)] = true; });
    std::vector<unsigned char> pattern(sizeof(T), 0xA5);
    for (size_t i = 0; i < reachable.size(); ++i) {
      if (!reachable[i] &&
          std::memcmp(&(*storage_)[i], pattern.data(), sizeof(T)) != 0) {
        return false;
      }
    }
    return true;
  }

 private:
  size_t Pos(std::span<const int64_t> index) const {
    int64_t pos = offset_;
    for (size_t d = 0; d < index.size(); ++d) pos += index[d] * strides_[d];
    return static_cast<size_t>(pos);
  }

  std::shared_ptr<std::vector<T>> storage_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
};

// Sets SWITCHYARD_NUM_THREADS while it lives, restoring the caller's value.
// The plugin reads it once per load (each TestHost loads the library
// afresh), at its first parallel call.
class ThreadCount {
 public:
  explicit ThreadCount(int threads) {
    if (const char* v = std::getenv("SWITCHYARD_NUM_THREADS")) saved_ = v;
    setenv("SWITCHYARD_NUM_THREADS", std::to_string(threads).c_str(), 1);
  }
  ~ThreadCount() {
    if (saved_.empty()) {
      unsetenv("SWITCHYARD_NUM_THREADS");
    } else {
      setenv("SWITCHYARD_NUM_THREADS", saved_.c_str(), 1);
    }
  }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  std::string saved_;
};

// Calls `kernel` as the dispatcher would for a schema with
// `num_tensor_args` single-tensor arguments: inputs[k] is argument k, and
// an argument that is NULL is omitted (it spans zero inputs).
inline Status RunWithOptional(const RegisteredKernel& kernel,
                              const std::vector<const sy_tensor_view_t*>& args,
                              const sy_tensor_view_t& output,
                              const std::vector<sy_attr_t>& attrs,
                              sy_stream_t stream) {
  std::vector<sy_tensor_view_t> inputs;
  std::vector<int32_t> offsets;
  for (const sy_tensor_view_t* arg : args) {
    offsets.push_back(static_cast<int32_t>(inputs.size()));
    if (arg != nullptr) inputs.push_back(*arg);
  }
  offsets.push_back(static_cast<int32_t>(inputs.size()));
  sy_kernel_call_t call{};
  call.struct_size = sizeof(call);
  call.inputs = inputs.data();
  call.num_inputs = static_cast<int32_t>(inputs.size());
  call.num_tensor_args = static_cast<int32_t>(args.size());
  call.input_offsets = offsets.data();
  call.outputs = &output;
  call.num_outputs = 1;
  call.num_attrs = static_cast<int32_t>(attrs.size());
  call.attrs = attrs.data();
  call.stream = stream;
  call.variant = -1;
  call.kernel_data = kernel.kernel_data;
  return TakeError(kernel.fn(&call));
}

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_PLUGINS_CPU_LINALG_TEST_UTIL_H_
