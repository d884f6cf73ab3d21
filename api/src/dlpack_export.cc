// sy_tensor_to_dlpack: a DLManagedTensor over a tensor's own memory.
#include <cstring>
#include <memory>

#include "api/src/dlpack_internal.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"

namespace sy::capi {
namespace {

// Device types whose pointers are plain addresses, where DLPack consumers
// (NumPy, PyTorch) expect `data` to point at the first element. For the
// others (OpenCL, Vulkan: opaque handles) DLPack wants the allocation's
// base in `data` and the offset in `byte_offset`.
bool AddressableMemory(int32_t dl_device_type) {
  switch (dl_device_type) {
    case kDLCPU:
    case kDLCUDA:
    case kDLCUDAHost:
    case kDLROCM:
    case kDLROCMHost:
    case kDLCUDAManaged:
      return true;
    default:
      return false;
  }
}

absl::Status Export(sy_tensor_t tensor, DLManagedTensor** out_managed) {
  absl::StatusOr<TensorObject*> ref = TensorOf(tensor);
  if (!ref.ok()) return ref.status();
  if (absl::Status s = CheckNotNull(out_managed, "out_managed"); !s.ok()) return s;
  if (absl::Status s = CheckNotSymbolic((*ref)->tensor); !s.ok()) return s;
  // DLPack 0.6 has no stream handshake: the consumer reads at once.
  if (absl::Status s = (*ref)->tensor.device().Synchronize(); !s.ok()) return s;

  auto exported = std::make_unique<ExportedTensor>();
  exported->context = (*ref)->keep_context;
  exported->tensor = (*ref)->tensor;
  const Tensor& t = exported->tensor;
  const sy_tensor_view_t view = t.view();
  DLTensor& dl = exported->managed.dl_tensor;
  dl.device.device_type = static_cast<DLDeviceType>(view.device.device_type);
  dl.device.device_id = view.device.device_id;
  dl.ndim = t.ndim();
  // sy_dtype_t is bit-identical to DLDataType (common.h).
  static_assert(sizeof(DLDataType) == sizeof(sy_dtype_t));
  const sy_dtype_t dtype = t.dtype();
  std::memcpy(&dl.dtype, &dtype, sizeof dtype);
  for (int d = 0; d < t.ndim(); ++d) {
    exported->shape[d] = t.shape()[d];
    exported->strides[d] = t.strides()[d];
  }
  dl.shape = exported->shape;
  dl.strides = exported->strides;
  if (AddressableMemory(view.device.device_type)) {
    dl.data = t.data();
    dl.byte_offset = 0;
  } else {
    dl.data = view.data;
    dl.byte_offset = view.byte_offset;
  }
  exported->managed.manager_ctx = exported.get();
  exported->managed.deleter = &DeleteExported;
  *out_managed = &exported.release()->managed;
  return absl::OkStatus();
}

}  // namespace

void DeleteExported(DLManagedTensor* managed) noexcept {
  if (managed == nullptr) return;
  delete static_cast<ExportedTensor*>(managed->manager_ctx);
}

}  // namespace sy::capi

extern "C" {

SY_API sy_status_code_t sy_tensor_to_dlpack(sy_tensor_t tensor,
                                            struct DLManagedTensor** out_managed) {
  return sy::capi::Guard("sy_tensor_to_dlpack",
                         [&] { return sy::capi::Export(tensor, out_managed); });
}

}  // extern "C"
