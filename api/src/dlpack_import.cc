// sy_tensor_from_dlpack: a tensor over (or copied from) a DLManagedTensor.
//
// Note [Sharing foreign memory]: a tensor over memory that someone else
// allocated needs a sy::core::Storage that, instead of returning a block to the
// device's caching allocator, calls the DLPack deleter when its last user
// is gone. That constructor belongs to the dispatcher:
//   static boost::intrusive_ptr<Storage> Storage::Wrap(
//       Device& device, void* data, size_t bytes, std::function<void()> release);
// Until the dispatcher has it, a foreign import copies (or, with
// SY_DLPACK_SHARE, says why it cannot share); the code below switches to
// sharing by itself once Storage::Wrap exists. A tensor this library
// exported always comes back shared: it is unwrapped, not wrapped.
//
// Note [Returning foreign memory]: ops are queued; nothing keeps a tensor's
// storage alive until the work that reads it has run. For our own blocks
// that is safe (the caching allocator hands a block out again only to work
// queued behind, on the device's one stream). Foreign memory goes back to
// its owner, which may give it out at once to work on a stream of its own:
// PyTorch zero-filling a new tensor on its stream while our queued add
// still reads the block. So the storage's release first waits for the
// device's queued work, then calls the DLPack deleter. The wait costs a
// stream synchronize when the last tensor over an import dies (nothing on
// the cpu device, whose work is done when the op returns).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/src/dlpack_internal.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "dispatcher/base/log.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/ops/dtype.h"

namespace sy::capi {
namespace {

bool HostMemory(int32_t dl_device_type) {
  return dl_device_type == kDLCPU || dl_device_type == kDLCUDAHost ||
         dl_device_type == kDLROCMHost;
}

// The device type as the producer wrote it: a C producer (or a newer
// DLPack) may use codes this header's enum lacks, which C++ must not load
// as a DLDeviceType.
int32_t DeviceTypeCode(const DLDevice& device) {
  int32_t code;
  static_assert(sizeof code == sizeof device.device_type);
  std::memcpy(&code, &device.device_type, sizeof code);
  return code;
}

std::string DLDeviceText(const DLDevice& device) {
  return absl::StrCat("DLPack device (type ", DeviceTypeCode(device),
                      ", id ", device.device_id, ")");
}

// The context's device with the same DLPack device code and id.
absl::StatusOr<Device*> MatchDevice(Runtime& runtime, const DLDevice& dl) {
  std::vector<std::string> present;
  for (Device* device : runtime.Devices()) {
    const sy_device_t d = device->dl_device();
    if (d.device_type == DeviceTypeCode(dl) &&
        d.device_id == dl.device_id) {
      return device;
    }
    present.push_back(absl::StrCat(device->label(), " (type ", d.device_type,
                                   ", id ", d.device_id, ")"));
  }
  return absl::NotFoundError(absl::StrCat(
      "no device of this context matches the tensor's ", DLDeviceText(dl),
      "; devices present: ", present.empty() ? "none" : absl::StrJoin(present, ", ")));
}

struct Layout {
  sy_dtype_t dtype = SY_DTYPE_NONE;
  int32_t ndim = 0;
  int64_t shape[SY_MAX_RANK] = {};
  int64_t strides[SY_MAX_RANK] = {};  // in elements; may be negative here
  int64_t numel = 1;
  // The lowest and highest element offsets the layout reaches from its first
  // element (lowest <= 0 <= highest), when numel > 0.
  int64_t lowest = 0;
  int64_t highest = 0;
};

std::string Dims(const int64_t* dims, int32_t ndim) {
  return absl::StrCat("[", absl::StrJoin(dims, dims + ndim, ", "), "]");
}

// Note [DLPack sizes are untrusted]: shape, strides and byte_offset come
// from another library (or a hostile caller). Every product and sum made of
// them is checked: an element count that wraps (a [2^62 + 1, 4] tensor
// counted as 4 elements) would pass the NULL-data check and let a view read
// far outside the buffer. Checked here, once, for every import mode, so
// Share and Copy compute only with values known to fit.
absl::Status CheckExtent(const DLTensor& dl, Layout& layout) {
  const int64_t esize = static_cast<int64_t>(DTypeSize(layout.dtype));
  for (int d = 0; d < layout.ndim; ++d) {
    if (__builtin_mul_overflow(layout.numel, layout.shape[d], &layout.numel)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the DLPack tensor's shape ", Dims(layout.shape, layout.ndim),
          " has sizes whose product int64 cannot hold; no memory has that many elements"));
    }
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(layout.numel, esize, &bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the DLPack tensor's shape ", Dims(layout.shape, layout.ndim), " of ",
        esize, "-byte elements spans more bytes than int64 can count"));
  }
  if (layout.numel == 0) return absl::OkStatus();
  for (int d = 0; d < layout.ndim; ++d) {
    int64_t span = 0;
    int64_t& end = layout.strides[d] < 0 ? layout.lowest : layout.highest;
    if (__builtin_mul_overflow(layout.shape[d] - 1, layout.strides[d], &span) ||
        __builtin_add_overflow(end, span, &end)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the DLPack tensor's strides ", Dims(layout.strides, layout.ndim),
          " over shape ", Dims(layout.shape, layout.ndim),
          " reach element offsets int64 cannot hold"));
    }
  }
  // In bytes, from the data pointer: byte_offset + lowest * esize must not
  // fall below the address space, nor (highest + 1) * esize past its end.
  int64_t low_bytes = 0, high_bytes = 0;
  uintptr_t first = 0, low = 0, high = 0;
  const bool fits =
      dl.byte_offset <= static_cast<uint64_t>(INT64_MAX) &&
      !__builtin_mul_overflow(layout.lowest, esize, &low_bytes) &&
      !__builtin_add_overflow(layout.highest, 1, &high_bytes) &&
      !__builtin_mul_overflow(high_bytes, esize, &high_bytes) &&
      !__builtin_add_overflow(reinterpret_cast<uintptr_t>(dl.data),
                              static_cast<uintptr_t>(dl.byte_offset), &first) &&
      !__builtin_sub_overflow(first, uintptr_t{0} - static_cast<uintptr_t>(low_bytes), &low) &&
      !__builtin_add_overflow(first, static_cast<uintptr_t>(high_bytes), &high);
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the DLPack tensor's elements (shape ", Dims(layout.shape, layout.ndim),
        ", strides ", Dims(layout.strides, layout.ndim), ", byte_offset ",
        dl.byte_offset, ") would lie outside the address space"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Layout> ReadLayout(const DLTensor& dl) {
  Layout layout;
  if (dl.ndim < 0 || dl.ndim > SY_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the DLPack tensor has rank ", dl.ndim, "; at most ", SY_MAX_RANK,
        " dimensions are supported"));
  }
  layout.ndim = dl.ndim;
  std::memcpy(&layout.dtype, &dl.dtype, sizeof layout.dtype);
  if (dl.dtype.lanes != 1 || !IsValidDType(layout.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the DLPack tensor's dtype (code ", dl.dtype.code, ", bits ", dl.dtype.bits,
        ", lanes ", dl.dtype.lanes, ") is not one of f32 f64 f16 bf16 i32 i64 "
        "i8 u8 bool"));
  }
  if (dl.ndim > 0 && dl.shape == nullptr) {
    return absl::InvalidArgumentError("the DLPack tensor's shape is NULL");
  }
  for (int d = 0; d < dl.ndim; ++d) {
    if (dl.shape[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the DLPack tensor's dimension ", d, " is ", dl.shape[d],
          "; sizes must be >= 0"));
    }
    layout.shape[d] = dl.shape[d];
  }
  // Contiguous strides are products of the sizes (a 0 counted as 1): ours
  // when the tensor has none, and a copy's in any case.
  int64_t product = 1;
  for (int d = 0; d < dl.ndim; ++d) {
    if (__builtin_mul_overflow(product, std::max<int64_t>(layout.shape[d], 1),
                               &product)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the DLPack tensor's shape ", Dims(layout.shape, layout.ndim),
          " has sizes whose product int64 cannot hold; no memory has that many elements"));
    }
  }
  if (dl.strides != nullptr) {
    std::copy(dl.strides, dl.strides + dl.ndim, layout.strides);
  } else {
    ContiguousStrides(absl::MakeConstSpan(layout.shape, dl.ndim), layout.strides);
  }
  if (absl::Status s = CheckExtent(dl, layout); !s.ok()) return s;
  if (layout.numel > 0 && dl.data == nullptr) {
    return absl::InvalidArgumentError(
        "the DLPack tensor's data pointer is NULL but it has elements");
  }
  return layout;
}

// Why `dl` cannot be shared as a Switchyard layout, or "".
std::string WhyNotShareable(const DLTensor& dl, const Layout& layout) {
  const size_t esize = DTypeSize(layout.dtype);
  for (int d = 0; d < layout.ndim; ++d) {
    if (layout.strides[d] < 0) {
      return absl::StrCat("its stride ", d, " is negative (", layout.strides[d],
                          "); Switchyard layouts have strides >= 0");
    }
  }
  const uintptr_t first =
      reinterpret_cast<uintptr_t>(dl.data) + static_cast<uintptr_t>(dl.byte_offset);
  if (layout.numel > 0 && first % esize != 0) {
    return absl::StrCat("its first element is not aligned to its ", esize,
                        "-byte elements");
  }
  return "";
}

// Copies host memory of any (even negative) strides densely into `dst`.
void GatherHost(const char* first, size_t esize, const Layout& layout, char* dst) {
  if (layout.numel == 0) return;
  int64_t index[SY_MAX_RANK] = {};
  for (int64_t n = 0; n < layout.numel; ++n) {
    int64_t offset = 0;
    for (int d = 0; d < layout.ndim; ++d) offset += index[d] * layout.strides[d];
    std::memcpy(dst + n * esize, first + offset * static_cast<int64_t>(esize), esize);
    for (int d = layout.ndim - 1; d >= 0; --d) {
      if (++index[d] < layout.shape[d]) break;
      index[d] = 0;
    }
  }
}

absl::StatusOr<Tensor> Share(Device& device, DLManagedTensor* managed,
                             const Layout& layout,
                             std::shared_ptr<std::atomic<bool>> armed) {
  const DLTensor& dl = managed->dl_tensor;
  const size_t esize = DTypeSize(layout.dtype);
  // Fold the byte offset into the pointer where addresses are plain (so it
  // need not be a multiple of the element size); keep it otherwise.
  char* base = static_cast<char*>(dl.data);
  uint64_t byte_offset = dl.byte_offset;
  if (layout.numel == 0) {
    // Nothing is addressed: the pointer may be NULL and the offset anything
    // (CheckExtent does not bound them), so neither is used.
    byte_offset = 0;
  } else if (HostMemory(DeviceTypeCode(dl.device)) ||
             DeviceTypeCode(dl.device) == kDLCUDA ||
             DeviceTypeCode(dl.device) == kDLROCM) {
    base += byte_offset;
    byte_offset = 0;
  } else if (byte_offset % esize != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the DLPack tensor's byte_offset ", byte_offset,
        " is not a multiple of its element size ", esize));
  }
  // CheckExtent: strides >= 0 here, so `highest` is the last element's
  // offset, and byte_offset + (highest + 1) * esize fits.
  const size_t bytes =
      layout.numel == 0
          ? 0
          : byte_offset + static_cast<size_t>(layout.highest + 1) * esize;
  // The deleter runs when the storage dies — but only once the import has
  // succeeded: on failure the caller still owns `managed` — and only after
  // the device's queued work (Note [Returning foreign memory]).
  Device* owner = &device;
  auto release = [managed, armed, owner]() {
    if (!armed->load(std::memory_order_acquire) || managed->deleter == nullptr) return;
    if (absl::Status s = owner->Synchronize(); !s.ok()) {
      Log(LogLevel::kWarning,
          absl::StrCat("returning imported DLPack memory on ", owner->label(),
                       ": waiting for its queued work failed (", s.message(),
                       "); the memory goes back to its owner regardless"));
    }
    managed->deleter(managed);
  };
  boost::intrusive_ptr<TensorImpl> impl = TensorImpl::Make();
  impl->storage = Storage::Wrap(device, base, bytes, std::move(release));
  impl->meta.dtype = layout.dtype;
  impl->meta.ndim = layout.ndim;
  std::copy(layout.shape, layout.shape + layout.ndim, impl->meta.shape);
  std::copy(layout.strides, layout.strides + layout.ndim, impl->strides);
  impl->byte_offset = byte_offset;
  return Tensor(std::move(impl));
}

absl::StatusOr<Tensor> Copy(Runtime& runtime, Device& device,
                            const DLTensor& dl, const Layout& layout) {
  if (!HostMemory(DeviceTypeCode(dl.device))) {
    return absl::UnimplementedError(absl::StrCat(
        "cannot copy from the tensor's ", DLDeviceText(dl.device),
        ": only host memory can be copied in this build; move it to the host "
        "first"));
  }
  const size_t esize = DTypeSize(layout.dtype);
  std::vector<char> dense(static_cast<size_t>(layout.numel) * esize);
  if (layout.numel > 0) {  // else data may be NULL: no pointer arithmetic
    GatherHost(static_cast<const char*>(dl.data) + dl.byte_offset, esize, layout,
               dense.data());
  }
  return runtime.FromHost(device, layout.dtype,
                          absl::MakeConstSpan(layout.shape, layout.ndim),
                          dense.data(), dense.size());
}

absl::Status Import(sy_context_t context, DLManagedTensor* managed, int32_t mode,
                    sy_tensor_t* out_tensor) {
  absl::StatusOr<ContextState*> state = ContextOf(context);
  if (!state.ok()) return state.status();
  if (absl::Status s = CheckNotNull(managed, "managed"); !s.ok()) return s;
  if (absl::Status s = CheckNotNull(out_tensor, "out_tensor"); !s.ok()) return s;
  if (mode != SY_DLPACK_SHARE_OR_COPY && mode != SY_DLPACK_SHARE &&
      mode != SY_DLPACK_COPY) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mode is ", mode, "; use SY_DLPACK_SHARE_OR_COPY (0), SY_DLPACK_SHARE (1) "
        "or SY_DLPACK_COPY (2)"));
  }
  Runtime& runtime = *(*state)->runtime;

  // One of our own exports, from this context: the same tensor again.
  if (managed->deleter == &DeleteExported && mode != SY_DLPACK_COPY) {
    auto* exported = static_cast<ExportedTensor*>(managed->manager_ctx);
    if (exported->context.get() == *state) {
      absl::StatusOr<sy_tensor_t> handle = NewTensorHandle(**state, exported->tensor);
      if (!handle.ok()) return handle.status();
      managed->deleter(managed);
      *out_tensor = *handle;
      return absl::OkStatus();
    }
  }

  const DLTensor& dl = managed->dl_tensor;
  absl::StatusOr<Layout> layout = ReadLayout(dl);
  if (!layout.ok()) return layout.status();
  absl::StatusOr<Device*> device = MatchDevice(runtime, dl.device);
  if (!device.ok()) return device.status();

  if (mode != SY_DLPACK_COPY) {
    std::string why_not = WhyNotShareable(dl, *layout);
    if (why_not.empty()) {
      auto armed = std::make_shared<std::atomic<bool>>(false);
      absl::StatusOr<Tensor> shared = Share(**device, managed, *layout, armed);
      if (shared.ok()) {
        absl::StatusOr<sy_tensor_t> handle = NewTensorHandle(**state, *shared);
        if (!handle.ok()) return handle.status();
        armed->store(true, std::memory_order_release);
        *out_tensor = *handle;
        return absl::OkStatus();
      }
      if (mode == SY_DLPACK_SHARE || !absl::IsUnimplemented(shared.status())) {
        return shared.status();
      }
    } else if (mode == SY_DLPACK_SHARE) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot share the DLPack tensor's memory: ", why_not,
          "; import with SY_DLPACK_SHARE_OR_COPY to copy instead"));
    }
  }
  absl::StatusOr<Tensor> copy = Copy(runtime, **device, dl, *layout);
  if (!copy.ok()) return copy.status();
  absl::StatusOr<sy_tensor_t> handle = NewTensorHandle(**state, *copy);
  if (!handle.ok()) return handle.status();
  if (managed->deleter != nullptr) managed->deleter(managed);
  *out_tensor = *handle;
  return absl::OkStatus();
}

}  // namespace

}  // namespace sy::capi

extern "C" {

SY_API sy_status_code_t sy_tensor_from_dlpack(sy_context_t context,
                                              struct DLManagedTensor* managed,
                                              int32_t mode, sy_tensor_t* out_tensor) {
  return sy::capi::Guard("sy_tensor_from_dlpack", [&] {
    return sy::capi::Import(context, managed, mode, out_tensor);
  });
}

}  // extern "C"
