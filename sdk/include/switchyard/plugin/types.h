/* Switchyard plugin ABI — the types every part of it passes: opaque
 * handles, log levels, tensor views and metas, attributes.
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_TYPES_H_
#define SWITCHYARD_PLUGIN_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Opaque handles ------------------------------------------------------ */

/* An error: a status code and a message. Host-owned; see the rules above.
 * Since: 1.0. */
typedef struct sy_error_t sy_error_t;

/* Identifies one registration session (one runtime loading one plugin).
 * Valid only while the plugin's `load` slot runs. Since: 1.0. */
typedef struct sy_host_context_t sy_host_context_t;

/* One kernel call as the host runs it: what host->kernel_workspace takes to
 * find the call's device. Valid only during that call. Since: 1.1. */
typedef struct sy_call_context_t sy_call_context_t;

/* Plugin-defined stream and event objects; the host only passes them back.
 * Since: 1.0. */
typedef struct sy_stream_impl_t* sy_stream_t;
typedef struct sy_event_impl_t* sy_event_t;

/* ---- Log levels ---------------------------------------------------------
 * Since: 1.0. */
typedef enum sy_log_level_t {
  SY_LOG_ERROR = 0,
  SY_LOG_WARNING = 1,
  SY_LOG_INFO = 2,
  SY_LOG_DEBUG = 3,
} sy_log_level_t;

/* ---- Tensor views --------------------------------------------------------
 * Exactly DLPack's DLTensor layout (frozen; see Note [Frozen value types]).
 * `shape` and `strides` point at `ndim` int64 each, borrowed for the call;
 * strides count elements, are never negative, and are never NULL;
 * byte_offset is a multiple of the element size. `data + byte_offset` is the
 * address of the element at index (0, …, 0). Rank 0 is a scalar (ndim 0); a zero in the
 * shape is an empty tensor whose data pointer may be anything.
 * Since: 1.0. */
typedef struct sy_tensor_view_t {
  void* data;
  sy_device_t device;
  int32_t ndim;
  sy_dtype_t dtype;
  const int64_t* shape;
  const int64_t* strides;
  uint64_t byte_offset;
} sy_tensor_view_t;

/* Dtype and shape without storage: what shape functions read and write.
 * Frozen value type. Since: 1.0. */
typedef struct sy_tensor_meta_t {
  sy_dtype_t dtype;
  int32_t ndim;
  int64_t shape[SY_MAX_RANK];
} sy_tensor_meta_t;

/* ---- Attributes ----------------------------------------------------------
 * The non-tensor arguments of an op, in schema order, with defaults already
 * filled in by the host: a kernel always sees every attribute. Frozen value
 * type. Pointers inside are borrowed for the call. Since: 1.0. */
typedef enum sy_attr_kind_t {
  SY_ATTR_NONE = 0,   /* an optional argument given as None            */
  SY_ATTR_INT = 1,    /* value.i                                       */
  SY_ATTR_FLOAT = 2,  /* value.f                                       */
  SY_ATTR_BOOL = 3,   /* value.b (0 or 1)                              */
  SY_ATTR_INTS = 4,   /* value.ints: `size` int64 at `data`            */
  SY_ATTR_STRING = 5, /* value.str: `size` bytes at `data`, NUL-ended  */
  SY_ATTR_DTYPE = 6,  /* value.dtype                                   */
  /* value.comm: a communicator (Communicator arguments; since 1.2). Only
   * ops whose schema has a Communicator argument see one, so a plugin of
   * an older minor never does. */
  SY_ATTR_COMMUNICATOR = 7,
} sy_attr_kind_t;

/* One attribute value. Since: 1.0. */
typedef struct sy_attr_t {
  int32_t kind; /* sy_attr_kind_t */
  int32_t reserved;
  union {
    int64_t i;
    double f;
    int32_t b;
    sy_dtype_t dtype;
    struct {
      const int64_t* data;
      int64_t size;
    } ints;
    struct {
      const char* data;
      int64_t size;
    } str;
    /* Since 1.2; the union's size and every other member are unchanged. */
    const struct sy_communicator_ref_t* comm;
  } value;
} sy_attr_t;

#ifdef __cplusplus
}  /* extern "C" */

/* Frozen value types (Note [Frozen value types]): their sizes never change. */
static_assert(sizeof(sy_tensor_view_t) == 48, "sy_tensor_view_t is frozen");
static_assert(sizeof(sy_attr_t) == 24, "sy_attr_t is frozen");
#else
_Static_assert(sizeof(sy_tensor_view_t) == 48, "sy_tensor_view_t is frozen");
_Static_assert(sizeof(sy_attr_t) == 24, "sy_attr_t is frozen");
#endif

#endif  /* SWITCHYARD_PLUGIN_TYPES_H_ */
