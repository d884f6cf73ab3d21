// DLPack 1.0's versioned managed tensor, for builds whose dlpack.h lacks it
// (Debian 12's libdlpack-dev is DLPack 0.6). The declarations below copy
// DLPack 1.0's dlpack.h exactly — same names, same layout — and step aside
// when a DLPack >= 1.0 header is the one included. DLTensor, DLDevice and
// DLDataType did not change between 0.6 and 1.0.
//
// Shared by the library (dlpack_versioned.cc) and the Python extension
// (api/python/src), which makes and opens "dltensor_versioned" capsules.
#ifndef SWITCHYARD_API_SRC_DLPACK_V1_H_
#define SWITCHYARD_API_SRC_DLPACK_V1_H_

#include <stdint.h>

#include "dlpack/dlpack.h"

#if !defined(DLPACK_MAJOR_VERSION) || DLPACK_MAJOR_VERSION < 1

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

#endif

#ifdef __cplusplus
static_assert(sizeof(DLManagedTensorVersioned) == 80,
              "DLPack 1.0's DLManagedTensorVersioned on a 64-bit target");
#endif

#endif  // SWITCHYARD_API_SRC_DLPACK_V1_H_
