// Tensors: a refcounted storage block on one device, and a refcounted,
// immutable layout (dtype, shape, strides in elements, byte offset) over it.
// Views (transpose, slice, expand, …) share storage; nothing is copied.
//
// sy::core::Tensor is a cheap handle (one pointer); copying it shares the tensor.
// A Tensor's layout never changes after creation, so handles may be read
// from several threads at once. The data is written only by ops.
#ifndef SWITCHYARD_DISPATCHER_MEMORY_TENSOR_H_
#define SWITCHYARD_DISPATCHER_MEMORY_TENSOR_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "boost/smart_ptr/intrusive_ptr.hpp"
#include "boost/smart_ptr/intrusive_ref_counter.hpp"
#include "dispatcher/memory/caching_allocator.h"
#include "switchyard/plugin.h"

namespace sy::core {

class Device;

class Storage
    : public boost::intrusive_ref_counter<Storage, boost::thread_safe_counter> {
 public:
  // `bytes` from the device's caching allocator.
  static absl::StatusOr<boost::intrusive_ptr<Storage>> Allocate(Device& device,
                                                                size_t bytes);
  // Storage over memory someone else owns (a DLPack import): nothing is
  // allocated, and `release` runs once, when the last tensor over it is
  // gone, instead of returning a block to the allocator. `data` must be
  // `bytes` of `device`'s memory. Holds its plugin like any storage.
  static boost::intrusive_ptr<Storage> Wrap(Device& device, void* data,
                                            size_t bytes,
                                            std::function<void()> release);
  // Storage with no memory at all (data NULL, size 0) for symbolic tensors
  // (Note [Symbolic tensors]).
  static boost::intrusive_ptr<Storage> Symbolic(Device& device);
  ~Storage();  // returns the block to the allocator (or runs `release`)

  Device& device() const { return *device_; }
  void* data() const { return block_.ptr; }
  sy_device_t dl_device() const { return dl_device_; }
  size_t size() const { return bytes_; }
  bool symbolic() const { return symbolic_; }

 private:
  Storage(Device& device, MemoryBlock block, size_t bytes);

  Device* device_;
  sy_device_t dl_device_;  // cached: read on every kernel call
  MemoryBlock block_;
  size_t bytes_;
  std::function<void()> release_;  // set for wrapped memory only
  bool symbolic_ = false;
};

class TensorImpl
    : public boost::intrusive_ref_counter<TensorImpl, boost::thread_safe_counter> {
 public:
  boost::intrusive_ptr<Storage> storage;
  sy_tensor_meta_t meta{};              // dtype, ndim, shape
  int64_t strides[SY_MAX_RANK] = {};    // in elements
  uint64_t byte_offset = 0;
};

class Tensor {
 public:
  Tensor() = default;  // undefined: stands for an omitted optional tensor
  explicit Tensor(boost::intrusive_ptr<TensorImpl> impl)
      : impl_(std::move(impl)) {}

  // A new contiguous tensor on `device`; contents undefined. Errors:
  // InvalidArgument for a bad dtype, rank > 8 or negative dims;
  // ResourceExhausted when the device is out of memory.
  static absl::StatusOr<Tensor> Empty(Device& device, sy_dtype_t dtype,
                                      absl::Span<const int64_t> shape);
  static absl::StatusOr<Tensor> Empty(Device& device,
                                      const sy_tensor_meta_t& meta);
  // The same, laid out densely in `order` (a permutation of the dims,
  // outermost first): the strides of a contiguous tensor of the permuted
  // shape, permuted back. {0, 2, 1, 3} makes a [B, H, L, E] tensor whose
  // memory is [B, L, H, E].
  static absl::StatusOr<Tensor> Empty(Device& device,
                                      const sy_tensor_meta_t& meta,
                                      absl::Span<const int> order);

  // Note [Symbolic tensors]: a tensor with a dtype, shape, strides and a
  // device but no memory — what a graph capture (dispatch/capture.h) hands
  // back for the outputs of the ops it records, so that the code being
  // captured can go on calling ops and making views of them. Calling an op
  // on one outside a capture, or reading it, is an error.
  static Tensor Symbolic(Device& device, const sy_tensor_meta_t& meta);

  // A tensor sharing `base`'s storage with another layout. The caller
  // (the core's view ops) guarantees the layout stays inside the storage.
  static Tensor View(const Tensor& base, absl::Span<const int64_t> shape,
                     absl::Span<const int64_t> strides, uint64_t byte_offset);

  bool defined() const { return impl_ != nullptr; }
  bool symbolic() const { return impl_->storage->symbolic(); }
  sy_dtype_t dtype() const { return impl_->meta.dtype; }
  int ndim() const { return impl_->meta.ndim; }
  absl::Span<const int64_t> shape() const {
    return {impl_->meta.shape, static_cast<size_t>(impl_->meta.ndim)};
  }
  absl::Span<const int64_t> strides() const {
    return {impl_->strides, static_cast<size_t>(impl_->meta.ndim)};
  }
  uint64_t byte_offset() const { return impl_->byte_offset; }
  int64_t numel() const;
  size_t nbytes() const;  // numel × element size
  bool is_contiguous() const;
  const sy_tensor_meta_t& meta() const { return impl_->meta; }
  Device& device() const { return impl_->storage->device(); }
  const Storage& storage() const { return *impl_->storage; }
  // Address of element (0, …, 0).
  void* data() const {
    return static_cast<char*>(impl_->storage->data()) + impl_->byte_offset;
  }

  // The ABI view; shape/strides point into this tensor, valid while it lives.
  sy_tensor_view_t view() const {
    return sy_tensor_view_t{impl_->storage->data(), impl_->storage->dl_device(),
                            impl_->meta.ndim,       impl_->meta.dtype,
                            impl_->meta.shape,      impl_->strides,
                            impl_->byte_offset};
  }

  // "f32[2, 3] on cpu:0" for messages.
  std::string Describe() const;

  TensorImpl* impl() const { return impl_.get(); }

 private:
  boost::intrusive_ptr<TensorImpl> impl_;
};

// Whether `t` has `meta`'s rank and shape. A plain loop: ranks are tiny,
// and std::equal on int64 becomes a memcmp call that costs more than the
// comparison.
inline bool SameShape(const Tensor& t, const sy_tensor_meta_t& meta) {
  if (t.ndim() != meta.ndim) return false;
  for (int d = 0; d < meta.ndim; ++d) {
    if (t.shape()[d] != meta.shape[d]) return false;
  }
  return true;
}

// Contiguous (row-major) strides for `shape`.
void ContiguousStrides(absl::Span<const int64_t> shape, int64_t* strides);
// The strides of a tensor shaped `shape` laid out densely in `order` (a
// permutation of its dims, outermost first; Tensor::Empty).
void OrderedStrides(absl::Span<const int64_t> shape, absl::Span<const int> order,
                    int64_t* strides);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_MEMORY_TENSOR_H_
