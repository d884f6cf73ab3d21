// What the DLPack export and import share: the manager object behind every
// DLManagedTensor this library hands out, so that import can recognise its
// own exports and give back the very same tensor.
#ifndef SWITCHYARD_API_SRC_DLPACK_INTERNAL_H_
#define SWITCHYARD_API_SRC_DLPACK_INTERNAL_H_

#include <cstdint>
#include <memory>

#include "api/src/context_state.h"
#include "dispatcher/memory/tensor.h"
#include "dlpack/dlpack.h"

namespace sy::capi {

struct ExportedTensor {
  // Declared first, so destroyed last: the runtime (devices, plugins) must
  // outlive the tensor's storage, even after sy_context_destroy.
  std::shared_ptr<ContextState> context;
  Tensor tensor;
  int64_t shape[SY_MAX_RANK] = {};
  int64_t strides[SY_MAX_RANK] = {};
  DLManagedTensor managed{};
};

// The deleter of every export. Thread-safe; never throws.
void DeleteExported(DLManagedTensor* managed) noexcept;

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_DLPACK_INTERNAL_H_
