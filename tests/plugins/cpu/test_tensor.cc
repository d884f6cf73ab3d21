#include "test_tensor.h"

#include <random>
#include <stdexcept>
#include <utility>

namespace sy::testing {

std::string LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kContiguous:
      return "contiguous";
    case Layout::kTransposed:
      return "transposed";
    case Layout::kPadded:
      return "padded";
  }
  return "?";
}

TestTensor TestTensor::Make(std::vector<int64_t> shape, Layout layout) {
  TestTensor t;
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
  if (layout == Layout::kPadded && size != 0) size += 2;  // a trailing gap
  t.shape_ = std::move(shape);
  t.storage_ = std::make_shared<std::vector<float>>(size, kSentinel);
  return t;
}

TestTensor TestTensor::Random(std::vector<int64_t> shape, uint32_t seed,
                              Layout layout, float lo, float hi) {
  TestTensor t = Make(std::move(shape), layout);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  ForEachIndex(t.shape_,
               [&](std::span<const int64_t> i) { t.set(i, dist(rng)); });
  return t;
}

TestTensor TestTensor::BroadcastTo(std::vector<int64_t> shape) const {
  const size_t rank = shape.size();
  if (rank < shape_.size()) throw std::invalid_argument("BroadcastTo rank");
  TestTensor t = *this;
  t.strides_.assign(rank, 0);
  const size_t lead = rank - shape_.size();
  for (size_t d = 0; d < shape_.size(); ++d) {
    if (shape_[d] == shape[lead + d]) {
      t.strides_[lead + d] = strides_[d];
    } else if (shape_[d] != 1) {
      throw std::invalid_argument("BroadcastTo: not broadcastable");
    }
  }
  t.shape_ = std::move(shape);
  return t;
}

sy_tensor_view_t TestTensor::view() const {
  sy_tensor_view_t v{};
  v.data = storage_->empty() ? nullptr : storage_->data();
  v.device = {1, 0};
  v.ndim = static_cast<int32_t>(shape_.size());
  v.dtype = SY_DTYPE_F32;
  v.shape = shape_.data();
  v.strides = strides_.data();
  v.byte_offset = storage_->empty() ? 0 : offset_ * sizeof(float);
  return v;
}

int64_t TestTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

float TestTensor::at(std::span<const int64_t> index) const {
  int64_t pos = offset_;
  for (size_t d = 0; d < index.size(); ++d) pos += index[d] * strides_[d];
  return storage_->at(pos);
}

void TestTensor::set(std::span<const int64_t> index, float value) {
  int64_t pos = offset_;
  for (size_t d = 0; d < index.size(); ++d) pos += index[d] * strides_[d];
  storage_->at(pos) = value;
}

bool TestTensor::OutsideUntouched() const {
  std::vector<bool> reachable(storage_->size(), false);
  ForEachIndex(shape_, [&](std::span<const int64_t> index) {
    int64_t pos = offset_;
    for (size_t d = 0; d < index.size(); ++d) pos += index[d] * strides_[d];
    reachable[pos] = true;
  });
  for (size_t i = 0; i < reachable.size(); ++i) {
    if (!reachable[i] && (*storage_)[i] != kSentinel) return false;
  }
  return true;
}

void ForEachIndex(std::span<const int64_t> shape,
                  const std::function<void(std::span<const int64_t>)>& fn) {
  for (int64_t d : shape) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(shape.size(), 0);
  while (true) {
    fn(index);
    int d = static_cast<int>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

std::string ShapeString(std::span<const int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

}  // namespace sy::testing
