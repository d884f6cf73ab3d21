// sy_tensor_to_dlpack_versioned / sy_tensor_from_dlpack_versioned: DLPack
// 1.0 (DLManagedTensorVersioned) over the 0.6 functions.
//
// Both are built on the public C API alone — a 1.0 export wraps a 0.6
// export, a 1.0 import hands a 0.6 wrapper to sy_tensor_from_dlpack — so
// they keep every rule of those (sharing, lifetimes, our own tensors coming
// back as the same memory) without a second copy of the logic, and they do
// not depend on how handles are stored.
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/src/dlpack_v1.h"
#include "api/src/status.h"

namespace sy::capi {
namespace {

static_assert(SY_DLPACK_FLAG_READ_ONLY == DLPACK_FLAG_BITMASK_READ_ONLY);
static_assert(SY_DLPACK_FLAG_IS_COPIED == DLPACK_FLAG_BITMASK_IS_COPIED);

// The status of the public call that just failed on this thread, its
// message without that function's own "name: " prefix (Guard adds ours).
absl::Status LastError(const char* function) {
  std::string message = sy_last_error_message();
  const std::string prefix = absl::StrCat(function, ": ");
  if (absl::StartsWith(message, prefix)) message.erase(0, prefix.size());
  return absl::Status(static_cast<absl::StatusCode>(sy_last_error_code()), message);
}

// ---- Export ------------------------------------------------------------

// A 1.0 export: the versioned struct, and the 0.6 export it wraps (which
// holds the memory, and the context's runtime, until its deleter runs).
struct VersionedExport {
  DLManagedTensorVersioned managed{};
  DLManagedTensor* inner = nullptr;
};

void DeleteVersionedExport(DLManagedTensorVersioned* self) {
  if (self == nullptr) return;
  auto* exported = static_cast<VersionedExport*>(self->manager_ctx);
  if (exported->inner != nullptr && exported->inner->deleter != nullptr) {
    exported->inner->deleter(exported->inner);
  }
  delete exported;
}

absl::Status ExportVersioned(sy_tensor_t tensor, uint64_t flags,
                             DLManagedTensorVersioned** out_managed) {
  if (absl::Status s = CheckNotNull(out_managed, "out_managed"); !s.ok()) return s;
  constexpr uint64_t kKnown = SY_DLPACK_FLAG_READ_ONLY | SY_DLPACK_FLAG_IS_COPIED;
  if ((flags & ~kKnown) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "flags is ", flags, "; only SY_DLPACK_FLAG_READ_ONLY (1) and "
        "SY_DLPACK_FLAG_IS_COPIED (2) may be set"));
  }
  DLManagedTensor* inner = nullptr;
  if (sy_tensor_to_dlpack(tensor, &inner) != SY_STATUS_OK) {
    return LastError("sy_tensor_to_dlpack");
  }
  auto exported = std::make_unique<VersionedExport>();
  exported->inner = inner;
  DLManagedTensorVersioned& v = exported->managed;
  v.version.major = 1;
  v.version.minor = 0;
  v.manager_ctx = exported.get();
  v.deleter = &DeleteVersionedExport;
  v.flags = flags;
  v.dl_tensor = inner->dl_tensor;  // shape and strides point into `inner`
  *out_managed = &exported.release()->managed;
  return absl::OkStatus();
}

// ---- Import ------------------------------------------------------------

// A 0.6 view of a 1.0 tensor handed to sy_tensor_from_dlpack: its deleter
// runs the versioned one. For one of our own 1.0 exports the wrapped 0.6
// export is handed over instead, so it comes back as the same tensor.
struct LegacyWrapper {
  DLManagedTensor managed{};
  DLManagedTensorVersioned* versioned = nullptr;
};

void DeleteLegacyWrapper(DLManagedTensor* self) {
  if (self == nullptr) return;
  auto* wrapper = static_cast<LegacyWrapper*>(self->manager_ctx);
  if (wrapper->versioned->deleter != nullptr) {
    wrapper->versioned->deleter(wrapper->versioned);
  }
  delete wrapper;
}

absl::Status ImportVersioned(sy_context_t context, DLManagedTensorVersioned* managed,
                             int32_t mode, sy_tensor_t* out_tensor) {
  if (absl::Status s = CheckNotNull(managed, "managed"); !s.ok()) return s;
  if (absl::Status s = CheckNotNull(out_tensor, "out_tensor"); !s.ok()) return s;
  if (managed->version.major != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the tensor is DLPack ", managed->version.major, ".",
        managed->version.minor, "; this library reads DLPack 1.x (and 0.6 "
        "through sy_tensor_from_dlpack)"));
  }
  if ((managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) {
    if (mode == SY_DLPACK_SHARE) {
      return absl::InvalidArgumentError(
          "the DLPack tensor is read-only and Switchyard tensors are "
          "writable, so its memory cannot be shared; import it with "
          "SY_DLPACK_SHARE_OR_COPY or SY_DLPACK_COPY to copy it");
    }
    mode = SY_DLPACK_COPY;
  }
  if ((managed->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0 &&
      (managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) == 0 && mode == SY_DLPACK_COPY) {
    // The producer made this copy for us (Python's `__dlpack__(copy=True)`):
    // its memory is private already, so sharing it is the copy asked for —
    // and the only one possible for device memory this build cannot copy.
    mode = SY_DLPACK_SHARE_OR_COPY;
  }
  sy_tensor_t tensor = nullptr;
  if (managed->deleter == &DeleteVersionedExport) {
    // Ours: import the 0.6 export inside, then free only the 1.0 shell.
    auto* exported = static_cast<VersionedExport*>(managed->manager_ctx);
    if (sy_tensor_from_dlpack(context, exported->inner, mode, &tensor) != SY_STATUS_OK) {
      return LastError("sy_tensor_from_dlpack");
    }
    exported->inner = nullptr;  // the context owns it now
    DeleteVersionedExport(managed);
    *out_tensor = tensor;
    return absl::OkStatus();
  }
  auto wrapper = std::make_unique<LegacyWrapper>();
  wrapper->versioned = managed;
  wrapper->managed.dl_tensor = managed->dl_tensor;
  wrapper->managed.manager_ctx = wrapper.get();
  wrapper->managed.deleter = &DeleteLegacyWrapper;
  if (sy_tensor_from_dlpack(context, &wrapper->managed, mode, &tensor) != SY_STATUS_OK) {
    return LastError("sy_tensor_from_dlpack");  // the caller still owns `managed`
  }
  wrapper.release();  // freed by its deleter, which the context now owns
  *out_tensor = tensor;
  return absl::OkStatus();
}

}  // namespace
}  // namespace sy::capi

extern "C" {

SY_API sy_status_code_t sy_tensor_to_dlpack_versioned(
    sy_tensor_t tensor, uint64_t flags, struct DLManagedTensorVersioned** out_managed) {
  return sy::capi::Guard("sy_tensor_to_dlpack_versioned", [&] {
    return sy::capi::ExportVersioned(tensor, flags, out_managed);
  });
}

SY_API sy_status_code_t sy_tensor_from_dlpack_versioned(
    sy_context_t context, struct DLManagedTensorVersioned* managed, int32_t mode,
    sy_tensor_t* out_tensor) {
  return sy::capi::Guard("sy_tensor_from_dlpack_versioned", [&] {
    return sy::capi::ImportVersioned(context, managed, mode, out_tensor);
  });
}

}  // extern "C"
