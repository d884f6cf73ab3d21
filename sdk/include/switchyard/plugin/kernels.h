/* Switchyard plugin ABI — kernels: the call a kernel receives, declining,
 * variants and the kernel registration.
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_KERNELS_H_
#define SWITCHYARD_PLUGIN_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/common.h"
#include "switchyard/plugin/types.h"
#include "switchyard/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status a kernel returns to decline a call (see sy_kernel_fn). Only for
 * kernels, only from a plugin that answered abi_minor >= 1; it never reaches
 * an application. Since: 1.1. */
#define SY_STATUS_KERNEL_DECLINED 64

/* ---- Kernels ------------------------------------------------------------- */

/* What a kernel receives. Inputs follow the same flattening as
 * sy_shape_call_t. Outputs are allocated by the host from the op's shape
 * function (dtype and shape already right) and never alias an input; they
 * may be strided when the caller supplied them. The kernel enqueues its work
 * on `stream` and may return before it finishes.
 *
 * What the host guarantees of every call it makes (so a kernel need not
 * re-check it; plugin.hpp's checks exist for callers other than the host,
 * such as a plugin's own tests): the counts of inputs, outputs and
 * attributes are the schema's; every view has rank 0..SY_MAX_RANK, shape and
 * strides present, sizes >= 0 whose product fits int64, non-NULL data when
 * it has elements, and lies on a device of the kernel's device type; the
 * input dtypes are those the kernel was registered for, the outputs' dtypes
 * and shapes those of the shape function; for ops of kind elementwise the
 * inputs are already broadcast to the output's shape (stride 0 on stretched
 * dimensions); attributes have the kinds the schema gives them, defaults
 * filled in. Since: 1.0 (host_call: 1.1). */
typedef struct sy_kernel_call_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_tensor_view_t* inputs;
  int32_t num_inputs;
  int32_t num_tensor_args;
  const int32_t* input_offsets;
  const sy_tensor_view_t* outputs;
  int32_t num_outputs;
  int32_t num_attrs;
  const sy_attr_t* attrs;
  sy_stream_t stream;   /* a stream of the outputs' device */
  int32_t variant;      /* index into the kernel's variants, or -1 */
  int32_t reserved;
  const void* variant_config; /* that variant's config bytes, or NULL */
  void* kernel_data;          /* sy_kernel_desc_t.kernel_data */
  /* ---- 1.1 ---- */
  /* This call as the host runs it: pass it back to host->kernel_workspace.
   * Valid until the kernel returns. NULL from a host older than 1.1, and in
   * a query. */
  sy_call_context_t* host_call;
  uint32_t flags;       /* SY_KERNEL_CALL_* */
  int32_t reserved1;
} sy_kernel_call_t;

/* sy_kernel_call_t.flags. Since: 1.1. */
/* A query, not a call: the host asks whether the kernel takes this call.
 * Return NULL (it does) or SY_STATUS_KERNEL_DECLINED, and nothing else:
 * read no tensor memory, write none, enqueue nothing. Output views carry
 * their dtype and shape but NULL data. Only kernels registered with
 * SY_KERNEL_FLAG_MAY_DECLINE are queried. */
#define SY_KERNEL_CALL_QUERY 1u
/* The host made this call (or query) from a bound op call and has already
 * checked it against the op's schema and this kernel's registration: the
 * numbers of inputs, outputs and attributes, each attribute's kind, every
 * view (rank, shape, strides, device, data present when not empty), input
 * dtypes equal to the kernel's registered ones, outputs with the metas the
 * op's shape function gives, and, for elementwise ops, inputs broadcast to
 * the output's shape. A kernel may skip its own checks of these — they are
 * a hot path's cost for small tensors — but not of its own limits (sizes or
 * layouts it does not handle). Callers other than the host (tests, the
 * conformance kit, a plugin calling its own kernels) leave it clear, and
 * the kernel then checks everything. Since: 1.2. */
#define SY_KERNEL_CALL_HOST_CHECKED 2u

/* A kernel. Returns NULL when its work is enqueued, or an error.
 *
 * Declining (since 1.1): a kernel that would be slow or cannot take this
 * call (too small for its launch overhead, a layout it does not handle) may
 * return an error with code SY_STATUS_KERNEL_DECLINED before it has touched
 * any output or enqueued anything. The host then runs the next candidate
 * for the dispatch key — the next kernel by priority, then the op's
 * decomposition — without reporting an error; the message (e.g. "numel 16 <
 * 4096") shows in `explain` and the debug log. The host remembers the
 * decision for the dispatch key and the call's shape bucket (every dimension
 * rounded up to a power of two, dimensions <= 8 exact, and whether each
 * tensor is contiguous) and does not call the kernel again for calls in that
 * bucket: decline only on what is the same across a bucket (dtype,
 * contiguity, size thresholds at powers of two). A plugin that answered
 * abi_minor 0 must not decline: the host refuses the call with an error
 * that names the plugin and notes it in its load record. A kernel that may
 * decline is registered with SY_KERNEL_FLAG_MAY_DECLINE; the host then asks
 * it first with a query (SY_KERNEL_CALL_QUERY), once per bucket, so that
 * `explain` and the call that runs always agree. A kernel without the flag
 * that declines anyway gets an INTERNAL error naming it. Since: 1.0
 * (declining: 1.1). */
typedef sy_error_t* (*sy_kernel_fn)(const sy_kernel_call_t* call);

/* One tunable configuration of a kernel (tile sizes, algorithm ids…). The
 * autotuner times each; `config` is copied and handed back on every call.
 * Since: 1.0. */
typedef struct sy_kernel_variant_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* name;   /* copied; unique within the kernel */
  const void* config; /* copied, config_size bytes */
  size_t config_size;
} sy_kernel_variant_t;

/* A kernel registration. The dispatch key is (op, device type, input
 * dtypes): `dtypes` has one entry per tensor argument of the schema, in
 * order (a Tensor[] argument counts once, with its elements' dtype; an
 * omitted optional tensor is SY_DTYPE_NONE). Among kernels with the same key
 * the highest `priority` wins by default; the cpu plugin's reference kernels
 * use priority 0. Since: 1.0. */
typedef struct sy_kernel_desc_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* op;          /* full schema name, e.g. "add.Tensor"; copied */
  const char* device_type; /* e.g. "cpu"; copied */
  const char* name;        /* unique within the plugin; copied */
  const sy_dtype_t* dtypes; /* copied */
  int32_t num_dtypes;
  int32_t priority;
  sy_kernel_fn fn;
  void* kernel_data; /* passed back on every call; lives until unload */
  const sy_kernel_variant_t* variants; /* copied; may be NULL */
  int32_t num_variants;
  int32_t reserved;
  /* ---- 1.1 ---- */
  uint32_t flags;   /* SY_KERNEL_FLAG_* */
  int32_t reserved1;
} sy_kernel_desc_t;

/* sy_kernel_desc_t.flags. Since: 1.1. */
/* The kernel may decline calls (sy_kernel_fn) and answers queries. */
#define SY_KERNEL_FLAG_MAY_DECLINE 1u

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
static_assert(SY_STRUCT_SIZE(sy_kernel_call_t, reserved1) ==
                  sizeof(sy_kernel_call_t), "sy_kernel_call_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_kernel_variant_t, config_size) ==
                  sizeof(sy_kernel_variant_t), "sy_kernel_variant_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_kernel_desc_t, reserved1) ==
                  sizeof(sy_kernel_desc_t), "sy_kernel_desc_t 1.1");
#endif

#endif  /* SWITCHYARD_PLUGIN_KERNELS_H_ */
