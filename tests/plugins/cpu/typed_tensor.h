// Test tensors of any dtype (TestTensor is f32 only), values set and read
// as double, in TestTensor's layouts; and RunCall, which calls a kernel
// with explicit input_offsets (Tensor[] and omitted optional arguments).
// Used by the reduction, norm and layout tests.
#ifndef SWITCHYARD_TESTS_PLUGINS_CPU_TYPED_TENSOR_H_
#define SWITCHYARD_TESTS_PLUGINS_CPU_TYPED_TENSOR_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"
#include "test_host.h"
#include "test_tensor.h"

namespace sy::testing {

class TypedTensor {
 public:
  // Storage bytes all 0x5A, so stray writes show (see Untouched).
  static TypedTensor Make(sy_dtype_t dtype, std::vector<int64_t> shape,
                          Layout layout = Layout::kContiguous) {
    TypedTensor t;
    t.dtype_ = dtype;
    t.size_ = plugin::DtypeSize(dtype);
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
    int64_t count = t.offset_ + 1;
    for (int d = 0; d < rank; ++d) {
      if (shape[d] == 0) count = 0;
      if (count != 0) count += (shape[d] - 1) * t.strides_[d];
    }
    if (layout == Layout::kPadded && count != 0) count += 2;
    t.shape_ = std::move(shape);
    t.bytes_ = std::make_shared<std::vector<uint64_t>>(
        (static_cast<size_t>(count) * t.size_ + 7) / 8, 0x5A5A5A5A5A5A5A5Aull);
    return t;
  }

  // Values from `values` in row-major order.
  static TypedTensor From(sy_dtype_t dtype, std::vector<int64_t> shape,
                          const std::vector<double>& values,
                          Layout layout = Layout::kContiguous) {
    TypedTensor t = Make(dtype, std::move(shape), layout);
    size_t k = 0;
    ForEachIndex(t.shape_,
                 [&](std::span<const int64_t> i) { t.Set(i, values.at(k++)); });
    return t;
  }

  // Uniform values in [lo, hi) (integers: rounded down), seeded.
  static TypedTensor Random(sy_dtype_t dtype, std::vector<int64_t> shape,
                            uint32_t seed, Layout layout = Layout::kContiguous,
                            double lo = -1.0, double hi = 1.0) {
    TypedTensor t = Make(dtype, std::move(shape), layout);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    ForEachIndex(t.shape_, [&](std::span<const int64_t> i) {
      const double v = dist(rng);
      t.Set(i, t.floating() ? v : std::floor(v));
    });
    return t;
  }

  bool floating() const {
    return dtype_ == SY_DTYPE_F32 || dtype_ == SY_DTYPE_F64 ||
           dtype_ == SY_DTYPE_F16 || dtype_ == SY_DTYPE_BF16;
  }

  // Stores v converted to the dtype (bool: v != 0).
  void Set(std::span<const int64_t> index, double v) {
    char* p = Address(index);
    switch (dtype_) {
      case SY_DTYPE_F32:
        Put(p, static_cast<float>(v));
        break;
      case SY_DTYPE_F64:
        Put(p, v);
        break;
      case SY_DTYPE_F16:
        Put(p, plugin::Half(static_cast<float>(v)));
        break;
      case SY_DTYPE_BF16:
        Put(p, plugin::BFloat16(static_cast<float>(v)));
        break;
      case SY_DTYPE_I32:
        Put(p, static_cast<int32_t>(v));
        break;
      case SY_DTYPE_I64:
        Put(p, static_cast<int64_t>(v));
        break;
      case SY_DTYPE_I8:
        Put(p, static_cast<int8_t>(v));
        break;
      case SY_DTYPE_U8:
        Put(p, static_cast<uint8_t>(v));
        break;
      case SY_DTYPE_BOOL:
        Put(p, static_cast<uint8_t>(v != 0));
        break;
      default:
        break;
    }
  }
  // Stores exact int64 values (beyond double's 2^53) for i64 tensors.
  void SetI64(std::span<const int64_t> index, int64_t v) {
    Put(Address(index), v);
  }
  // Stores a raw byte (bool tensors holding bytes other than 0 and 1).
  void SetByte(std::span<const int64_t> index, uint8_t v) {
    Put(Address(index), v);
  }

  double Get(std::span<const int64_t> index) const {
    const char* p = Address(index);
    switch (dtype_) {
      case SY_DTYPE_F32:
        return Take<float>(p);
      case SY_DTYPE_F64:
        return Take<double>(p);
      case SY_DTYPE_F16:
        return static_cast<float>(Take<plugin::Half>(p));
      case SY_DTYPE_BF16:
        return static_cast<float>(Take<plugin::BFloat16>(p));
      case SY_DTYPE_I32:
        return Take<int32_t>(p);
      case SY_DTYPE_I64:
        return static_cast<double>(Take<int64_t>(p));
      case SY_DTYPE_I8:
        return Take<int8_t>(p);
      case SY_DTYPE_U8:
        return Take<uint8_t>(p);
      case SY_DTYPE_BOOL:
        return Take<uint8_t>(p);
      default:
        return 0;
    }
  }
  int64_t GetI64(std::span<const int64_t> index) const {
    return Take<int64_t>(Address(index));
  }

  // Every element in row-major order.
  std::vector<double> Values() const {
    std::vector<double> out;
    ForEachIndex(shape_,
                 [&](std::span<const int64_t> i) { out.push_back(Get(i)); });
    return out;
  }

  sy_tensor_view_t view() const {
    sy_tensor_view_t v{};
    v.data = bytes_->empty() ? nullptr : bytes_->data();
    v.device = {1, 0};
    v.ndim = static_cast<int32_t>(shape_.size());
    v.dtype = dtype_;
    v.shape = shape_.data();
    v.strides = strides_.data();
    v.byte_offset = static_cast<uint64_t>(offset_) * size_;
    return v;
  }

  const std::vector<int64_t>& shape() const { return shape_; }
  sy_dtype_t dtype() const { return dtype_; }

  // True when no byte outside the view's elements changed.
  bool Untouched() const {
    std::vector<bool> inside(bytes_->size() * 8, false);
    ForEachIndex(shape_, [&](std::span<const int64_t> i) {
      const size_t at = static_cast<size_t>(Address(i) - Base());
      for (size_t b = 0; b < size_; ++b) inside[at + b] = true;
    });
    const auto* raw = reinterpret_cast<const unsigned char*>(bytes_->data());
    for (size_t b = 0; b < inside.size(); ++b) {
      if (!inside[b] && raw[b] != 0x5A) return false;
    }
    return true;
  }

 private:
  template <class T>
  static void Put(char* p, T v) {
    std::memcpy(p, &v, sizeof v);
  }
  template <class T>
  static T Take(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  const char* Base() const {
    return reinterpret_cast<const char*>(bytes_->data());
  }
  char* Address(std::span<const int64_t> index) const {
    int64_t e = offset_;
    for (size_t d = 0; d < index.size(); ++d) e += index[d] * strides_[d];
    return reinterpret_cast<char*>(bytes_->data()) + e * size_;
  }

  sy_dtype_t dtype_ = SY_DTYPE_F32;
  size_t size_ = 4;
  std::shared_ptr<std::vector<uint64_t>> bytes_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;  // elements
};

// Calls `kernel` with `inputs` grouped into schema tensor arguments by
// `offsets` (offsets.size() == number of tensor arguments + 1).
inline Status RunCall(const RegisteredKernel& kernel,
                      const std::vector<sy_tensor_view_t>& inputs,
                      const std::vector<int32_t>& offsets,
                      const sy_tensor_view_t& output,
                      const std::vector<sy_attr_t>& attrs, sy_stream_t stream) {
  sy_kernel_call_t call{};
  call.struct_size = sizeof(call);
  call.inputs = inputs.data();
  call.num_inputs = static_cast<int32_t>(inputs.size());
  call.num_tensor_args = static_cast<int32_t>(offsets.size()) - 1;
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

inline sy_attr_t IntAttr(int64_t value) {
  sy_attr_t a{};
  a.kind = SY_ATTR_INT;
  a.value.i = value;
  return a;
}

inline sy_attr_t FloatAttr(double value) {
  sy_attr_t a{};
  a.kind = SY_ATTR_FLOAT;
  a.value.f = value;
  return a;
}

inline sy_attr_t NoneAttr() { return sy_attr_t{}; }

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_PLUGINS_CPU_TYPED_TENSOR_H_
