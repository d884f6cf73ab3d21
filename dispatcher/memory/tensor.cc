#include "dispatcher/memory/tensor.h"

#include <algorithm>
#include <cstddef>
#include <new>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_util.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::core {

Storage::Storage(Device& device, MemoryBlock block, size_t bytes)
    : device_(&device), dl_device_(device.dl_device()), block_(block), bytes_(bytes) {
  if (PluginInstance* plugin = device_->type().plugin()) plugin->RetainObject();
}

Storage::~Storage() {
  if (release_) {
    release_();
  } else {
    device_->allocator().Free(block_);
  }
  if (PluginInstance* plugin = device_->type().plugin()) plugin->ReleaseObject();
}

absl::StatusOr<boost::intrusive_ptr<Storage>> Storage::Allocate(Device& device,
                                                                size_t bytes) {
  absl::StatusOr<MemoryBlock> block = device.allocator().Allocate(bytes);
  if (!block.ok()) return block.status();
  return AdoptRef(new Storage(device, *block, bytes));
}

boost::intrusive_ptr<Storage> Storage::Wrap(Device& device, void* data,
                                            size_t bytes,
                                            std::function<void()> release) {
  boost::intrusive_ptr<Storage> storage =
      AdoptRef(new Storage(device, MemoryBlock{data, bytes}, bytes));
  storage->release_ = std::move(release);
  return storage;
}

boost::intrusive_ptr<Storage> Storage::Symbolic(Device& device) {
  boost::intrusive_ptr<Storage> storage =
      AdoptRef(new Storage(device, MemoryBlock{}, 0));
  storage->release_ = [] {};  // nothing to give back
  storage->symbolic_ = true;
  return storage;
}

namespace {

// A new tensor's storage and layout in one heap block (Note [Tensor
// allocation]). The storage comes first: its operator delete frees the
// block from its own address.
constexpr size_t kImplOffset =
    (sizeof(Storage) + alignof(TensorImpl) - 1) / alignof(TensorImpl) * alignof(TensorImpl);
constexpr size_t kBlockSize = kImplOffset + sizeof(TensorImpl);
static_assert(alignof(Storage) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__ &&
              alignof(TensorImpl) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

}  // namespace

// Unsized deletes: a shared block and a lone storage alike start at `p`,
// and clang (the fuzz preset's compiler) has no sized delete without
// -fsized-deallocation.
void Storage::operator delete(Storage* p, std::destroying_delete_t) {
  p->~Storage();
  ::operator delete(static_cast<void*>(p));
}

void TensorImpl::operator delete(TensorImpl* p, std::destroying_delete_t) {
  if (!p->shares_block_) {
    p->~TensorImpl();
    ::operator delete(static_cast<void*>(p));
    return;
  }
  // The block goes with the storage, after the layout is gone.
  boost::intrusive_ptr<Storage> storage = std::move(p->storage);
  p->~TensorImpl();
}

absl::StatusOr<Tensor> Tensor::EmptyChecked(Device& device,
                                            const sy_tensor_meta_t& meta,
                                            size_t bytes) {
  absl::StatusOr<MemoryBlock> memory = device.allocator().Allocate(bytes);
  if (!memory.ok()) return memory.status();
  char* block = static_cast<char*>(::operator new(kBlockSize));
  Storage* storage = new (block) Storage(device, *memory, bytes);
  TensorImpl* impl = new (block + kImplOffset) TensorImpl;
  impl->shares_block_ = true;
  impl->storage = AdoptRef(storage);
  impl->meta = meta;
  ContiguousStrides(absl::MakeConstSpan(meta.shape, static_cast<size_t>(meta.ndim)),
                    impl->strides);
  return Tensor(AdoptRef(impl));
}

void ContiguousStrides(absl::Span<const int64_t> shape, int64_t* strides) {
  int64_t stride = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= std::max<int64_t>(shape[d], 1);
  }
}

void OrderedStrides(absl::Span<const int64_t> shape, absl::Span<const int> order,
                    int64_t* strides) {
  int64_t stride = 1;
  for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
    strides[order[i]] = stride;
    stride *= std::max<int64_t>(shape[order[i]], 1);
  }
}

absl::StatusOr<Tensor> Tensor::Empty(Device& device, sy_dtype_t dtype,
                                     absl::Span<const int64_t> shape) {
  if (!IsValidDType(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create a tensor of dtype 0x", absl::Hex(dtype),
        ": not one of f32 f64 f16 bf16 i32 i64 i8 u8 bool"));
  }
  if (shape.size() > SY_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create a tensor of rank ", shape.size(), ": at most ",
        SY_MAX_RANK, " dimensions are supported"));
  }
  for (int64_t dim : shape) {
    if (dim < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot create a tensor of shape [", absl::StrJoin(shape, ", "),
          "]: dimensions must be >= 0"));
    }
  }
  // The contiguous strides must stay bounded even when a 0 makes numel 0
  // (a [0, 10, 2^61 + 1] shape used to overflow them).
  if (!ExtentFits(shape)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create a tensor of shape [", absl::StrJoin(shape, ", "),
        "]: too many elements"));
  }
  const int64_t numel = *NumElements(shape);  // <= the extent: it fits
  sy_tensor_meta_t meta{};
  meta.dtype = dtype;
  meta.ndim = static_cast<int32_t>(shape.size());
  std::copy(shape.begin(), shape.end(), meta.shape);
  return EmptyChecked(device, meta, static_cast<size_t>(numel) * DTypeSize(dtype));
}

absl::StatusOr<Tensor> Tensor::Empty(Device& device,
                                     const sy_tensor_meta_t& meta) {
  if (meta.ndim < 0 || meta.ndim > SY_MAX_RANK) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create a tensor of rank ", meta.ndim));
  }
  return Empty(device, meta.dtype,
               absl::MakeConstSpan(meta.shape, static_cast<size_t>(meta.ndim)));
}

absl::StatusOr<Tensor> Tensor::Empty(Device& device,
                                     const sy_tensor_meta_t& meta,
                                     absl::Span<const int> order) {
  if (order.size() != static_cast<size_t>(std::max(meta.ndim, 0))) {
    return absl::InternalError(absl::StrCat(
        "a dim order of ", order.size(), " dims for a tensor of rank ",
        meta.ndim, "; this is a Switchyard bug, please report it"));
  }
  absl::StatusOr<Tensor> tensor = Empty(device, meta);
  if (!tensor.ok()) return tensor.status();
  OrderedStrides(tensor->shape(), order, tensor->impl_->strides);
  return tensor;
}

Tensor Tensor::Symbolic(Device& device, const sy_tensor_meta_t& meta) {
  boost::intrusive_ptr<TensorImpl> impl = TensorImpl::Make();
  impl->storage = Storage::Symbolic(device);
  impl->meta = meta;
  ContiguousStrides(absl::MakeConstSpan(meta.shape, static_cast<size_t>(meta.ndim)),
                    impl->strides);
  return Tensor(std::move(impl));
}

Tensor Tensor::View(const Tensor& base, absl::Span<const int64_t> shape,
                    absl::Span<const int64_t> strides, uint64_t byte_offset) {
  boost::intrusive_ptr<TensorImpl> impl = TensorImpl::Make();
  impl->storage = base.impl_->storage;
  impl->meta.dtype = base.dtype();
  impl->meta.ndim = static_cast<int32_t>(shape.size());
  std::copy(shape.begin(), shape.end(), impl->meta.shape);
  std::copy(strides.begin(), strides.end(), impl->strides);
  impl->byte_offset = byte_offset;
  return Tensor(std::move(impl));
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t dim : shape()) n *= dim;
  return n;
}

size_t Tensor::nbytes() const {
  return static_cast<size_t>(numel()) * DTypeSize(dtype());
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (int d = ndim() - 1; d >= 0; --d) {
    if (impl_->meta.shape[d] != 1 && impl_->strides[d] != expected) {
      return false;
    }
    expected *= impl_->meta.shape[d];
  }
  return true;
}

std::string Tensor::Describe() const {
  if (!defined()) return "an undefined tensor";
  return absl::StrCat(symbolic() ? "symbolic " : "", AsAbsl(DTypeName(dtype())),
                      "[", absl::StrJoin(shape(), ", "), "] on ", device().label());
}

}  // namespace sy::core
