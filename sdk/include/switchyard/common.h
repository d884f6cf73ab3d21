/* Switchyard — types shared by the plugin ABI (plugin.h) and the public C API.
 *
 * Pure C99. Everything here is a frozen value type or a constant: none of it
 * carries a struct_size, because it is passed by value or in arrays and never
 * grows within ABI major 1 (see Note [Frozen value types] in plugin.h).
 */
#ifndef SWITCHYARD_COMMON_H_
#define SWITCHYARD_COMMON_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes --------------------------------------------------------
 * Numerically identical to absl::StatusCode (and to gRPC's codes), so the
 * core converts without a table and users find familiar meanings. */
typedef enum sy_status_code_t {
  SY_STATUS_OK = 0,
  SY_STATUS_CANCELLED = 1,
  SY_STATUS_UNKNOWN = 2,
  SY_STATUS_INVALID_ARGUMENT = 3,
  SY_STATUS_DEADLINE_EXCEEDED = 4,
  SY_STATUS_NOT_FOUND = 5,
  SY_STATUS_ALREADY_EXISTS = 6,
  SY_STATUS_PERMISSION_DENIED = 7,
  SY_STATUS_RESOURCE_EXHAUSTED = 8,
  SY_STATUS_FAILED_PRECONDITION = 9,
  SY_STATUS_ABORTED = 10,
  SY_STATUS_OUT_OF_RANGE = 11,
  SY_STATUS_UNIMPLEMENTED = 12,
  SY_STATUS_INTERNAL = 13,
  SY_STATUS_UNAVAILABLE = 14,
  SY_STATUS_DATA_LOSS = 15,
} sy_status_code_t;

/* ---- Data types ----------------------------------------------------------
 * A sy_dtype_t is bit-identical, on little-endian targets, to DLPack's
 * DLDataType {uint8 code; uint8 bits; uint16 lanes}: the value packs
 * code | bits << 8 | lanes << 16. That lets a sy_tensor_view_t share
 * DLTensor's layout while kernels still `switch` on one integer.
 * Codes follow DLPack: int 0, uint 1, float 2, bfloat 4, bool 6. */
typedef uint32_t sy_dtype_t;

#define SY_DTYPE_MAKE(code, bits) \
  ((sy_dtype_t)((uint32_t)(code) | ((uint32_t)(bits) << 8) | (1u << 16)))
#define SY_DTYPE_CODE(dtype) ((uint32_t)(dtype)&0xffu)
#define SY_DTYPE_BITS(dtype) (((uint32_t)(dtype) >> 8) & 0xffu)

/* "No tensor here": an omitted optional tensor argument in a kernel's dtype
 * signature. Never the dtype of a real tensor. */
#define SY_DTYPE_NONE ((sy_dtype_t)0)
#define SY_DTYPE_F32 SY_DTYPE_MAKE(2, 32)
#define SY_DTYPE_F64 SY_DTYPE_MAKE(2, 64)
#define SY_DTYPE_F16 SY_DTYPE_MAKE(2, 16)
#define SY_DTYPE_BF16 SY_DTYPE_MAKE(4, 16)
#define SY_DTYPE_I32 SY_DTYPE_MAKE(0, 32)
#define SY_DTYPE_I64 SY_DTYPE_MAKE(0, 64)
#define SY_DTYPE_I8 SY_DTYPE_MAKE(0, 8)
#define SY_DTYPE_U8 SY_DTYPE_MAKE(1, 8)
#define SY_DTYPE_BOOL SY_DTYPE_MAKE(6, 8)

/* Highest tensor rank the ABI carries. */
#define SY_MAX_RANK 8

/* ---- Devices -------------------------------------------------------------
 * Same layout as DLPack's DLDevice. `device_type` holds the DLPack device
 * code the providing plugin declared (kDLCPU = 1, kDLCUDA = 2, kDLVulkan = 7,
 * kDLROCM = 10, kDLExtDev = 12 for anything else); Switchyard itself tells
 * device types apart by their names, so two vendors may share a code. */
typedef struct sy_device_t {
  int32_t device_type;
  int32_t device_id;
} sy_device_t;

/* How a device's arithmetic treats subnormal floats (float_flags of
 * sy_device_properties_t and sy_device_info_t). A flag says that the
 * device may flush subnormal inputs and results of that width to zero
 * (of the same sign), as GPUs do in fast modes and some Vulkan drivers
 * always do for f32; without it, the device keeps them, as IEEE 754 and
 * the op set's references do. bf16 arithmetic follows the f32 flag.
 * Copies, fills and casts between storage formats are exact either way.
 * Since: 1.2. */
#define SY_FLOAT_FLUSHES_F32_SUBNORMALS 1u
#define SY_FLOAT_FLUSHES_F16_SUBNORMALS 2u
#define SY_FLOAT_FLUSHES_F64_SUBNORMALS 4u

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SWITCHYARD_COMMON_H_ */
