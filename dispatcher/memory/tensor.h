// Tensors: a refcounted storage block on one device, and a refcounted,
// immutable layout (dtype, shape, strides in elements, byte offset) over it.
// Views (transpose, slice, expand, …) share storage; nothing is copied.
//
// sy::core::Tensor is a cheap handle (one pointer); copying it shares the tensor.
// A Tensor's layout never changes after creation, so handles may be read
// from several threads at once. The data is written only by ops.
#ifndef SWITCHYARD_DISPATCHER_MEMORY_TENSOR_H_
#define SWITCHYARD_DISPATCHER_MEMORY_TENSOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <new>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "boost/smart_ptr/intrusive_ptr.hpp"
#include "dispatcher/memory/caching_allocator.h"
#include "switchyard/plugin.h"

namespace sy::core {

class Device;

// Note [Tensor allocation]: a new tensor is two refcounted objects, its
// storage and its layout (TensorImpl), and a small op's call makes one per
// output and drops it soon after. So both are born with their count at one
// (no atomic increment to adopt them: AdoptRef), and Tensor::Empty puts the
// two in one heap block: one malloc and one free per tensor, not two; the
// last owner's release skips the atomic decrement. The
// layout holds the storage, so the storage dies last; each has a
// destroying operator delete: a layout that shares a block only destroys
// itself, and the storage frees the block (it starts at the storage). Views
// (Tensor::View) get a TensorImpl of their own over the shared storage.

// An intrusive count that starts at one: the creator owns the object and
// adopts it with AdoptRef instead of paying an atomic increment; the last
// owner's release pays none either.
template <typename T>
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  friend void intrusive_ptr_add_ref(const T* p) {
    static_cast<const RefCounted*>(p)->refs_.fetch_add(1, std::memory_order_relaxed);
  }
  // The last owner skips the atomic decrement, as libstdc++'s shared_ptr
  // does: a count of one held by the caller cannot grow behind its back
  // (only an owner may copy), and the acquire load orders the other
  // owners' earlier releases before the delete.
  friend void intrusive_ptr_release(const T* p) {
    std::atomic<uint32_t>& refs = static_cast<const RefCounted*>(p)->refs_;
    if (refs.load(std::memory_order_acquire) == 1 ||
        refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete p;
    }
  }

 protected:
  ~RefCounted() = default;

 private:
  mutable std::atomic<uint32_t> refs_{1};
};

// Takes over the creator's reference of a new RefCounted object.
template <typename T>
boost::intrusive_ptr<T> AdoptRef(T* p) {
  return boost::intrusive_ptr<T>(p, /*add_ref=*/false);
}

class Storage : public RefCounted<Storage> {
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
  // Frees the heap block it shares with a tensor's layout, if it does
  // (Note [Tensor allocation]).
  void operator delete(Storage* p, std::destroying_delete_t);

  Device& device() const { return *device_; }
  void* data() const { return block_.ptr; }
  sy_device_t dl_device() const { return dl_device_; }
  size_t size() const { return bytes_; }
  bool symbolic() const { return symbolic_; }

 private:
  friend class Tensor;  // makes a storage and a layout in one block
  Storage(Device& device, MemoryBlock block, size_t bytes);

  Device* device_;
  sy_device_t dl_device_;  // cached: read on every kernel call
  MemoryBlock block_;
  size_t bytes_;
  std::function<void()> release_;  // set for wrapped memory only
  bool symbolic_ = false;
};

class TensorImpl : public RefCounted<TensorImpl> {
 public:
  // A new layout with no storage yet; set `storage` once, right away.
  static boost::intrusive_ptr<TensorImpl> Make() { return AdoptRef(new TensorImpl); }
  // Destroys the layout; frees its memory unless it shares its storage's
  // block (Note [Tensor allocation]).
  void operator delete(TensorImpl* p, std::destroying_delete_t);

  // Set once, when the tensor is made; never reassigned (a layout sharing
  // its storage's block must keep that storage).
  boost::intrusive_ptr<Storage> storage;
  sy_tensor_meta_t meta{};              // dtype, ndim, shape
  int64_t strides[SY_MAX_RANK] = {};    // in elements
  uint64_t byte_offset = 0;

 private:
  friend class Tensor;
  TensorImpl() = default;
  bool shares_block_ = false;
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
  // The same for a `meta` that Empty has accepted before (a call plan's
  // outputs, Note [Call plans]), of `bytes` = numel × dtype size: skips
  // the checks. ResourceExhausted when the device is out of memory.
  static absl::StatusOr<Tensor> EmptyChecked(Device& device,
                                             const sy_tensor_meta_t& meta,
                                             size_t bytes);
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
