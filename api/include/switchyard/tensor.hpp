// Switchyard C++ — sy::Tensor (over switchyard/tensor.h).
//
// Part of the C++ layer: switchyard/switchyard.hpp includes it, and what
// that header says at its top (C++20, nothing throws, Result::value(),
// ownership, thread-safety) holds here too. Compiles on its own, but
// programs include the umbrella, switchyard/switchyard.hpp.
#ifndef SWITCHYARD_TENSOR_HPP_
#define SWITCHYARD_TENSOR_HPP_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "switchyard/base.hpp"
#include "switchyard/device.hpp"
#include "switchyard/tensor.h"

namespace sy {

// ===== Tensors =============================================================

// One reference to a tensor handle. A default-constructed Tensor is NULL:
// an omitted optional tensor argument in call().
class Tensor {
 public:
  Tensor() = default;
  // Takes over one reference the caller owns (what the C API hands out).
  static Tensor Adopt(sy_tensor_t handle) { return Tensor(handle); }

  Tensor(const Tensor& other) : handle_(other.handle_) {
    if (handle_ != nullptr) sy_tensor_retain(handle_);
  }
  Tensor(Tensor&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Tensor& operator=(Tensor other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  ~Tensor() {
    if (handle_ != nullptr) sy_tensor_release(handle_);
  }

  sy_tensor_t get() const { return handle_; }
  // Gives up the reference without releasing it.
  sy_tensor_t release() { return std::exchange(handle_, nullptr); }
  explicit operator bool() const { return handle_ != nullptr; }

  // ---- Making tensors ----
  static Result<Tensor> Empty(const Device& device, sy_dtype_t dtype,
                              std::span<const int64_t> shape) {
    sy_tensor_t t = nullptr;
    sy_status_code_t code = sy_tensor_empty(device.get(), dtype, shape.data(),
                                            static_cast<int32_t>(shape.size()), &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }
  static Result<Tensor> Empty(const Device& device, sy_dtype_t dtype,
                              std::initializer_list<int64_t> shape) {
    return Empty(device, dtype, std::span<const int64_t>(shape.begin(), shape.size()));
  }
  // Copies `nbytes` of dense row-major host data.
  static Result<Tensor> FromHost(const Device& device, sy_dtype_t dtype,
                                 std::span<const int64_t> shape, const void* data,
                                 size_t nbytes) {
    sy_tensor_t t = nullptr;
    sy_status_code_t code =
        sy_tensor_from_host(device.get(), dtype, shape.data(),
                            static_cast<int32_t>(shape.size()), data, nbytes, &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }
  template <typename T>
  static Result<Tensor> FromVector(const Device& device, std::span<const int64_t> shape,
                                   const std::vector<T>& values) {
    static_assert(!std::is_same_v<T, bool>, "std::vector<bool> is packed; use uint8_t");
    return FromHost(device, DTypeOf<T>(), shape, values.data(), values.size() * sizeof(T));
  }
  template <typename T>
  static Result<Tensor> FromVector(const Device& device, std::initializer_list<int64_t> shape,
                                   const std::vector<T>& values) {
    return FromVector<T>(device, std::span<const int64_t>(shape.begin(), shape.size()),
                         values);
  }
  // Takes a DLPack tensor (see sy_tensor_from_dlpack for `mode`).
  static Result<Tensor> FromDLPack(sy_context_t context, DLManagedTensor* managed,
                                   int32_t mode = SY_DLPACK_SHARE_OR_COPY) {
    sy_tensor_t t = nullptr;
    sy_status_code_t code = sy_tensor_from_dlpack(context, managed, mode, &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }

  // ---- What it is (no waiting) ----
  sy_dtype_t dtype() const {
    sy_dtype_t d = SY_DTYPE_NONE;
    return sy_tensor_dtype(handle_, &d) == SY_STATUS_OK ? d : SY_DTYPE_NONE;
  }
  int32_t ndim() const {
    int32_t n = 0;
    return sy_tensor_ndim(handle_, &n) == SY_STATUS_OK ? n : 0;
  }
  std::vector<int64_t> shape() const {
    int64_t dims[SY_MAX_RANK];
    if (sy_tensor_shape(handle_, dims, SY_MAX_RANK) != SY_STATUS_OK) return {};
    return std::vector<int64_t>(dims, dims + ndim());
  }
  std::vector<int64_t> strides() const {
    int64_t dims[SY_MAX_RANK];
    if (sy_tensor_strides(handle_, dims, SY_MAX_RANK) != SY_STATUS_OK) return {};
    return std::vector<int64_t>(dims, dims + ndim());
  }
  int64_t numel() const {
    int64_t n = 0;
    return sy_tensor_numel(handle_, &n) == SY_STATUS_OK ? n : 0;
  }
  size_t nbytes() const {
    size_t n = 0;
    return sy_tensor_nbytes(handle_, &n) == SY_STATUS_OK ? n : 0;
  }
  Device device() const {
    sy_device_handle_t d = nullptr;
    return sy_tensor_device(handle_, &d) == SY_STATUS_OK ? Device(d) : Device();
  }
  void* data_ptr() const {
    void* p = nullptr;
    return sy_tensor_data_ptr(handle_, &p) == SY_STATUS_OK ? p : nullptr;
  }

  // ---- Reading and moving (these wait for pending work) ----
  Status ToHost(void* dst, size_t nbytes) const {
    return Status::FromCode(sy_tensor_to_host(handle_, dst, nbytes));
  }
  template <typename T>
  Result<std::vector<T>> ToVector() const {
    static_assert(!std::is_same_v<T, bool>, "std::vector<bool> is packed; use uint8_t");
    std::vector<T> out(static_cast<size_t>(numel()));
    if (Status s = ToHost(out.data(), out.size() * sizeof(T)); !s.ok()) return s;
    return out;
  }
  Result<Tensor> To(const Device& device) const {
    sy_tensor_t t = nullptr;
    sy_status_code_t code = sy_tensor_to_device(handle_, device.get(), &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }
  Result<DLManagedTensor*> ToDLPack() const {
    DLManagedTensor* managed = nullptr;
    sy_status_code_t code = sy_tensor_to_dlpack(handle_, &managed);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return managed;
  }

 private:
  explicit Tensor(sy_tensor_t handle) : handle_(handle) {}
  sy_tensor_t handle_ = nullptr;
};
// A span of Tensors is an array of handles: calls pass it to C as it is.
static_assert(sizeof(Tensor) == sizeof(sy_tensor_t) && std::is_standard_layout_v<Tensor>);

}  // namespace sy

#endif  // SWITCHYARD_TENSOR_HPP_
