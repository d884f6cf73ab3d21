// A vector of trivially copyable values that lives on the stack up to N
// elements and moves to the heap beyond. The call path binds every op call
// into a few of these; unlike absl::InlinedVector it never initializes the
// inline storage and keeps one branch on push_back, which measurably matters
// at ~100 ns per call (docs/performance.md).
#ifndef SWITCHYARD_DISPATCHER_BASE_SMALL_VECTOR_H_
#define SWITCHYARD_DISPATCHER_BASE_SMALL_VECTOR_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

#include "absl/types/span.h"

namespace sy::core {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallVector() = default;
  SmallVector(const SmallVector&) = delete;
  SmallVector& operator=(const SmallVector&) = delete;

  void push_back(const T& value) {
    if (size_ == capacity_) Grow();
    data_[size_++] = value;
  }
  // New elements are value-initialized.
  void resize(size_t n) {
    while (capacity_ < n) Grow();
    if (n > size_) std::memset(static_cast<void*>(data_ + size_), 0, (n - size_) * sizeof(T));
    size_ = n;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  operator absl::Span<const T>() const { return {data_, size_}; }
  operator absl::Span<T>() { return {data_, size_}; }

 private:
  void Grow() {
    const size_t capacity = capacity_ * 2;
    auto heap = std::make_unique<T[]>(capacity);
    std::memcpy(static_cast<void*>(heap.get()), data_, size_ * sizeof(T));
    heap_ = std::move(heap);
    data_ = heap_.get();
    capacity_ = capacity;
  }

  // Raw bytes, so that a T with default member initializers does not get
  // its N inline elements zeroed on every construction.
  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = reinterpret_cast<T*>(inline_);
  size_t size_ = 0;
  size_t capacity_ = N;
  std::unique_ptr<T[]> heap_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_SMALL_VECTOR_H_
