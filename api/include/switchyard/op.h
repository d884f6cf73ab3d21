/* Switchyard — ops: lookup, schemas, calls, explain, routes, kernels and
 * pins (part of the C API).
 *
 * Part of the C API: switchyard/switchyard.h includes it, and the rules
 * written at the top of that header (versioning, structs, handles,
 * errors, threads, per-function sections, strings) hold here too.
 * Compiles on its own (C99 or C++), but programs include the umbrella,
 * switchyard/switchyard.h.
 */
#ifndef SWITCHYARD_OP_H_
#define SWITCHYARD_OP_H_

#include "switchyard/base.h"
#include "switchyard/plugin/types.h" /* sy_attr_t, shared with the plugin ABI */

#ifdef __cplusplus
extern "C" {
#endif

/* ===== Ops =============================================================== */

/* Looks an op up by full name ("add.Tensor", "cuda::flash_attention") or
 * base name ("add": its first overload). Do it once; call by handle.
 * Errors: NOT_FOUND suggesting similarly named ops. Since: 1.0. */
SY_API sy_status_code_t sy_op_find(sy_context_t context, const char* name,
                                   sy_op_t* out_op);

/* Every op the context knows (core and plugin-registered), for bindings
 * that generate their functions: sy_op_count, then sy_op_get for each
 * `index` in [0, count), in registration order. Loading or unloading a
 * plugin changes the list. Ownership: op handles belong to the context.
 * Errors: OUT_OF_RANGE for a bad index. Since: 1.0. */
SY_API sy_status_code_t sy_op_count(sy_context_t context, int32_t* out_count);
/* See sy_op_count. */
SY_API sy_status_code_t sy_op_get(sy_context_t context, int32_t index,
                                  sy_op_t* out_op);

typedef struct sy_op_info_t {
  size_t struct_size;
  void* extension;
  const char* full_name;  /* "add.Tensor", "cuda::flash_attention" */
  const char* ns;         /* "" for the core set, else "cuda" */
  const char* name;       /* "add" */
  const char* overload;   /* "Tensor", or "" */
  const char* schema;     /* "add.Tensor(Tensor a, Tensor b) -> Tensor" */
  const char* owner;      /* "core" or the plugin that registered it */
  int32_t num_args;       /* as written in the schema */
  int32_t num_tensor_args;
  int32_t num_attrs;
  int32_t num_outputs;
  int32_t list_arg;       /* the Tensor[] argument's index among tensor args, or -1 */
  int32_t live;           /* 0 once the owning plugin was unloaded */
} sy_op_info_t;

/* What an op is — also one whose plugin was unloaded (live is then 0).
 * Lifetime: the strings live as long as the context.
 * Errors: INVALID_ARGUMENT for an out-struct whose struct_size is too
 * small. Since: 1.0. */
SY_API sy_status_code_t sy_op_get_info(sy_op_t op, sy_op_info_t* out_info);

/* Argument kinds, as written in schema text. */
typedef enum sy_arg_kind_t {
  SY_ARG_TENSOR = 0,      /* Tensor   */
  SY_ARG_TENSOR_LIST = 1, /* Tensor[] */
  SY_ARG_INT = 2,         /* int      */
  SY_ARG_INT_LIST = 3,    /* int[]    */
  SY_ARG_FLOAT = 4,       /* float    */
  SY_ARG_BOOL = 5,        /* bool     */
  SY_ARG_SCALAR = 6,      /* Scalar: an int or a float */
  SY_ARG_STRING = 7,      /* str      */
  SY_ARG_DTYPE = 8,       /* ScalarType */
  SY_ARG_COMMUNICATOR = 9, /* Communicator (since 1.2; switchyard/distributed.h) */
} sy_arg_kind_t;

typedef struct sy_op_arg_t {
  size_t struct_size;
  void* extension;
  const char* name;
  int32_t kind;          /* sy_arg_kind_t */
  int32_t optional;      /* written with "?": accepts None */
  int32_t has_default;   /* written with "= …" */
  /* Position among the tensor arguments (for tensors) or attributes (for
   * the rest); the other is -1. */
  int32_t tensor_index;
  int32_t attr_index;
  int32_t reserved;
  /* The default (kind SY_ATTR_NONE for None or no default); list and
   * string pointers inside live as long as the context. */
  sy_attr_t default_value;
  const char* default_text; /* as schema text prints it ("1e-06"), or "" */
  const char* kind_name;    /* "Tensor", "int[]", … */
} sy_op_arg_t;

/* Argument `index` in [0, num_args) in schema order.
 * Errors: OUT_OF_RANGE for a bad index. Since: 1.0. */
SY_API sy_status_code_t sy_op_get_arg(sy_op_t op, int32_t index,
                                      sy_op_arg_t* out_arg);

/* In sy_op_call's attrs: "this attribute takes its schema default". Lets a
 * caller pass a later attribute while leaving an earlier one at default. */
#define SY_ATTR_DEFAULT (-1)

/* Calls an op.
 * `inputs`: one handle per tensor argument in schema order (NULL for an
 * omitted optional tensor), except that the Tensor[] argument (if any)
 * takes as many consecutive handles as it has elements — the number follows
 * from num_inputs. `attrs`: the leading non-tensor arguments in schema
 * order; the rest take their defaults (an entry of kind SY_ATTR_DEFAULT
 * takes its default too). An int is accepted for a float argument; a
 * Scalar takes SY_ATTR_INT or SY_ATTR_FLOAT. `out_outputs` receives
 * exactly num_outputs (= sy_op_info_t.num_outputs) new tensors on the
 * inputs' device. The work is queued on that device's stream.
 * Ownership: one reference to each output is the caller's. Inputs, attrs
 * and what they point at are borrowed for the call.
 * Errors: INVALID_ARGUMENT naming the op and argument (tensor count, a bad
 * or foreign handle, attribute kind, dtype or shape the op rejects);
 * UNIMPLEMENTED when no backend has a kernel for the inputs' dtypes and
 * device (the message names those that do); FAILED_PRECONDITION when the
 * op's plugin was unloaded; a kernel's own error. Since: 1.0. */
SY_API sy_status_code_t sy_op_call(sy_op_t op, const sy_tensor_t* inputs,
                                   int32_t num_inputs, const sy_attr_t* attrs,
                                   int32_t num_attrs, sy_tensor_t* out_outputs,
                                   int32_t num_outputs);

/* The same into caller-provided outputs, which must have exactly the
 * dtype, shape and device the op produces and must not share memory with
 * an input. Allocates nothing. Ownership: `outputs` are borrowed; no
 * reference changes hands.
 * Errors: as sy_op_call, and INVALID_ARGUMENT naming the output that has
 * the wrong dtype, shape or device, aliases an input, or is NULL.
 * Since: 1.0. */
SY_API sy_status_code_t sy_op_call_out(sy_op_t op, const sy_tensor_t* inputs,
                                       int32_t num_inputs,
                                       const sy_attr_t* attrs,
                                       int32_t num_attrs,
                                       const sy_tensor_t* outputs,
                                       int32_t num_outputs);

/* How a call with these arguments would run, without running it:
 * "kernel cpu::add_f32 (priority)", "view", "decomposition", "cpu
 * fallback". A call that would fail fails here with the same error.
 * Lifetime: *out_text lives until the next Switchyard call on this thread.
 * Errors: those sy_op_call would return. Since: 1.0. */
SY_API sy_status_code_t sy_op_explain(sy_op_t op, const sy_tensor_t* inputs,
                                      int32_t num_inputs,
                                      const sy_attr_t* attrs,
                                      int32_t num_attrs,
                                      const char** out_text);

/* ---- Routes and the general call (since 1.1) ----------------------------- */

/* Which way a call runs. */
typedef enum sy_route_t {
  /* The resolution order (docs/architecture.md): pin, tuned verdict,
   * priority (skipping kernels that decline), decomposition, cpu fallback. */
  SY_ROUTE_DEFAULT = 0,
  /* One named kernel (and variant) for the inputs' dtypes and device, or an
   * error: what the conformance kit and benchmarks use to run a kernel
   * that would not be chosen. */
  SY_ROUTE_KERNEL = 1,
  /* The op's decomposition into other ops, even where a kernel exists. */
  SY_ROUTE_DECOMPOSITION = 2,
} sy_route_t;

/* Everything one call takes. Start from sy_op_call_args_init. Since: 1.1. */
typedef struct sy_op_call_args_t {
  size_t struct_size;
  void* extension;
  sy_op_t op;
  /* As sy_op_call's inputs and attrs. */
  const sy_tensor_t* inputs;
  int32_t num_inputs;
  int32_t num_attrs;
  const sy_attr_t* attrs;
  /* Exactly one of: `outputs`, the caller's tensors to write (as
   * sy_op_call_out), or `out_outputs`, which receives new tensors (as
   * sy_op_call); num_outputs entries either way. Both NULL is allowed only
   * for sy_op_explain_ex. */
  const sy_tensor_t* outputs;
  sy_tensor_t* out_outputs;
  int32_t num_outputs;
  int32_t route;       /* sy_route_t */
  /* SY_ROUTE_KERNEL: the kernel, "plugin::name" (sy_kernel_info_t.name) or
   * its plain name, and a variant index (-1: the kernel's default). */
  const char* kernel;
  int32_t variant;
  int32_t reserved;
} sy_op_call_args_t;

/* Fills `args` (not NULL) with struct_size and empty defaults (no
 * tensors, SY_ROUTE_DEFAULT, variant -1). Inline, like
 * sy_context_options_init. Since: 1.1. */
static inline void sy_op_call_args_init(sy_op_call_args_t* args) {
  args->struct_size = sizeof(sy_op_call_args_t);
  args->extension = NULL;
  args->op = NULL;
  args->inputs = NULL;
  args->num_inputs = 0;
  args->num_attrs = 0;
  args->attrs = NULL;
  args->outputs = NULL;
  args->out_outputs = NULL;
  args->num_outputs = 0;
  args->route = SY_ROUTE_DEFAULT;
  args->kernel = NULL;
  args->variant = -1;
  args->reserved = 0;
}

/* sy_op_call or sy_op_call_out, with a route. With SY_ROUTE_DEFAULT and
 * `outputs` it is exactly sy_op_call_out (no lock, no allocation).
 * Ownership, lifetime: as sy_op_call / sy_op_call_out.
 * Errors: as those; INVALID_ARGUMENT for an unknown route, both or neither
 * output array, a NULL kernel name with SY_ROUTE_KERNEL; NOT_FOUND when no
 * kernel of that name serves the inputs' dtypes on their device (the
 * message lists those that do); OUT_OF_RANGE for a variant the kernel
 * lacks; FAILED_PRECONDITION when the named kernel declines these inputs,
 * when the op has no decomposition or it does not apply, or for a view op
 * (views run no kernel). Since: 1.1. */
SY_API sy_status_code_t sy_op_call_ex(const sy_op_call_args_t* args);

/* How sy_op_call_ex with these arguments would run (as sy_op_explain;
 * "kernel cpu::add.Tensor.f32.f32 (requested)" for a named kernel), without
 * running it; the outputs are ignored. Lifetime: *out_text lives until the
 * next Switchyard call on this thread. Errors: those sy_op_call_ex would
 * return before running. Since: 1.1. */
SY_API sy_status_code_t sy_op_explain_ex(const sy_op_call_args_t* args,
                                         const char** out_text);

/* ---- Kernels (since 1.1) -------------------------------------------------- */

/* One kernel registered for an op. Every string is non-NULL. */
typedef struct sy_kernel_info_t {
  size_t struct_size;
  void* extension;
  const char* name;        /* "cpu::add.Tensor.f32.f32": plugin::name */
  const char* plugin;      /* "cpu" */
  const char* device_type; /* "cpu" */
  /* Its input dtypes, one per tensor argument (a Tensor[] argument once;
   * SY_DTYPE_NONE for an omitted optional tensor). */
  const sy_dtype_t* dtypes;
  int32_t num_dtypes;
  int32_t priority;
  /* Tunable variants (sy_op_call_args_t.variant indexes them). */
  int32_t num_variants;
  int32_t may_decline;     /* 1: it may decline calls (plugin ABI 1.1) */
  const char* const* variant_names;
  /* 1 when a call of its dtypes on its device type runs it by default —
   * unless the call's shape bucket has a tuned verdict or a decline that
   * sends it elsewhere (sy_op_explain says what a given call runs). */
  int32_t chosen;
  int32_t reserved;
  const char* chosen_because; /* "pinned", "tuned", "priority"; "" if not chosen */
} sy_kernel_info_t;

/* The number of kernels registered for `op`, across every loaded plugin;
 * loading or unloading a plugin changes it. Errors: only bad arguments.
 * Since: 1.1. */
SY_API sy_status_code_t sy_op_kernel_count(sy_op_t op, int32_t* out_count);

/* Kernel `index` in [0, count), in registration order.
 * Lifetime: the strings and arrays live as long as the context (`chosen`
 * is a snapshot). Errors: OUT_OF_RANGE for a bad index; INVALID_ARGUMENT
 * for a too small out-struct. Since: 1.1. */
SY_API sy_status_code_t sy_op_kernel_get(sy_op_t op, int32_t index,
                                         sy_kernel_info_t* out_kernel);

/* Pins `kernel` ("plugin::name" or "name") for `op` on `device_type`: calls
 * of every dtype key it serves there run it, above tuned verdicts and
 * priority. One pin per (op, device type); a new one replaces the old. Per
 * context. Errors: NOT_FOUND when no such kernel is registered there (the
 * message lists those that are). Since: 1.1. */
SY_API sy_status_code_t sy_op_pin_kernel(sy_op_t op, const char* device_type,
                                         const char* kernel);

/* Removes the pin of `op` on `device_type`, if any. Since: 1.1. */
SY_API sy_status_code_t sy_op_unpin_kernel(sy_op_t op, const char* device_type);

#ifdef __cplusplus
}  /* extern "C" */

static_assert(SY_STRUCT_SIZE(sy_op_call_args_t, reserved) ==
                  sizeof(sy_op_call_args_t), "sy_op_call_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_kernel_info_t, chosen_because) ==
                  sizeof(sy_kernel_info_t), "sy_kernel_info_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_op_info_t, live) == sizeof(sy_op_info_t),
              "sy_op_info_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_op_arg_t, kind_name) == sizeof(sy_op_arg_t),
              "sy_op_arg_t 1.0");
#endif

#endif  /* SWITCHYARD_OP_H_ */
