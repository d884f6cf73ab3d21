/* Switchyard plugin ABI — the only header a backend plugin needs.
 *
 * A plugin is a shared library that exports exactly one symbol,
 * `sy_plugin_init`. The host (libswitchyard) loads it with RTLD_LOCAL, calls
 * that symbol with a table of host functions, and receives the plugin's own
 * table back. Plugins never link against host symbols: everything they need
 * from the host arrives through sy_host_api_t.
 *
 * ===== Versioning =========================================================
 * SY_PLUGIN_ABI_MAJOR is a hard gate: a plugin built for another major is
 * refused before any of its code beyond sy_plugin_init runs. It changes only
 * when an existing field changes meaning, type or position.
 * SY_PLUGIN_ABI_MINOR grows when a struct gains fields at its end or a new
 * optional slot appears. The host passes the highest minor it speaks
 * (sy_host_api_t.abi_minor); the plugin answers the minor it actually uses
 * (sy_plugin_api_t.abi_minor), which must not exceed the host's. A newer host
 * runs every older-minor plugin. Every minor gets an entry in
 * sdk/CHANGELOG.md.
 *
 * ===== Structs ============================================================
 * Every extensible struct begins with `size_t struct_size` (the sizeof the
 * writer was compiled with) and `extension`, the head of a typed extension
 * chain (sy_extension_t; NULL when there is none — in 1.0 it was a reserved
 * `void*` that had to be NULL, and a 1.0 plugin still leaves it so), and
 * only ever grows at its end; each is closed by a static_assert on its last
 * field. A reader uses a field only when struct_size covers it
 * (SY_STRUCT_HAS) and, for function slots, when it is non-NULL.
 *
 * Note [Extension chain] (since 1.1): optional feature tables (fusion
 * hooks, collectives, …) hang off a struct's `extension` as a singly linked
 * list of structs that each begin with a sy_extension_t {struct_size, type,
 * next}, as PJRT's PJRT_Extension_Base. A reader walks the list and uses the
 * entries whose `type` it knows and whose struct_size covers what it reads;
 * it skips the rest. Every type gets a number in sy_extension_type_t and an
 * entry in sdk/CHANGELOG.md; a type's struct grows like any other. New
 * functions that may need more arguments later take one `*_args_t` struct
 * (with struct_size) instead of a list of parameters.
 *
 * Out-structs the host passes for the plugin to fill (sy_device_properties_t)
 * carry the host's struct_size; the plugin writes only the fields it covers.
 *
 * What bumps which number: a new field at a struct's end, a new slot, a new
 * extension type, a new status a plugin may return (SY_STATUS_KERNEL_DECLINED)
 * or a new flag bumps the minor; anything that changes an existing field's
 * meaning, type or position bumps the major. Every declaration below says
 * the version that introduced it ("Since").
 *
 * Across majors, sy_host_api_t keeps its first six fields (through
 * error_create) where they are, so a plugin can refuse a host of another
 * major in words. The loader also reads the major from the manifest and
 * refuses a mismatch before the library is opened.
 *
 * Note [Frozen value types]: sy_device_t, sy_tensor_view_t, sy_tensor_meta_t
 * and sy_attr_t carry no struct_size. They travel by value or in arrays on
 * every call, and sy_tensor_view_t must keep DLPack's DLTensor layout, so they
 * are frozen for the whole of ABI major 1. Per-call growth goes into the
 * enclosing call structs (sy_kernel_call_t, sy_shape_call_t), which do carry
 * struct_size.
 *
 * ===== Ownership and lifetime =============================================
 * - Every pointer *into* a plugin function is borrowed for the duration of
 *   that call unless the field says otherwise.
 * - Strings and arrays a plugin hands to the host (names, schema text, dtype
 *   lists, variant configs) are copied by the host before the call returns.
 * - Tables a plugin returns (sy_plugin_api_t, sy_device_api_t) must stay valid
 *   until the plugin's `unload` slot has been called (or, without one, until
 *   the library is closed).
 * - Errors (sy_error_t) are host objects. A plugin creates them with
 *   host->error_create and returns them; returning one transfers ownership to
 *   the host. A plugin that creates an error and decides not to return it
 *   destroys it with host->error_destroy. NULL means success.
 *
 * ===== Threads ============================================================
 * sy_plugin_init and `unload` run with no other call into the plugin in
 * flight. Threads a plugin starts (worker pools, a runtime's helper
 * threads) must have ended when `unload` returns: after it the host may
 * close the library, and a thread left running in its code would crash the
 * process. A plugin that cannot join its threads (e.g. it links a runtime
 * that keeps them until exit, as OpenMP or the CUDA runtime may) sets
 * SY_PLUGIN_FLAG_RESIDENT (since 1.1): its `unload` still runs, but the
 * library is never closed. The host keeps a 1.0 plugin that leaves threads
 * behind mapped too, and says so in its load record. `load` runs on one thread, but another runtime in the process may
 * be running the plugin's kernels meanwhile, so `load` must not disturb
 * state that kernels read. Kernels, shape functions and device
 * functions may be called from any thread, concurrently; a plugin protects
 * its own shared state. Calls on one stream are issued in order by the host.
 *
 * ===== Errors and exceptions ==============================================
 * No C++ exception may cross this boundary. A plugin written in C++ catches
 * everything at each entry point and turns it into a sy_error_t
 * (plugin.hpp's helpers do this).
 */
#ifndef SWITCHYARD_PLUGIN_H_
#define SWITCHYARD_PLUGIN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "switchyard/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin ABI this header describes ("Versioning" above). Since: 1.0. */
#define SY_PLUGIN_ABI_MAJOR 1
#define SY_PLUGIN_ABI_MINOR 2

/* The one exported symbol's name, for hosts that look it up by string.
 * Since: 1.0. */
#define SY_PLUGIN_INIT_SYMBOL "sy_plugin_init"

#if defined(_WIN32)
#define SY_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SY_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* True when a struct written with `ptr->struct_size` bytes contains `field`.
 * Since: 1.0. */
#define SY_STRUCT_HAS(ptr, type, field)        \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

/* The struct_size of `type` as it was when `last_field` closed it.
 * Since: 1.0. */
#define SY_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

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

/* ---- Extension chain (Note [Extension chain]) ---------------------------
 * Since: 1.1 (the numbers below are reserved for the hooks named; each
 * hook's struct is added, with its own Since, by the version that defines
 * it). */
typedef enum sy_extension_type_t {
  SY_EXTENSION_FUSION = 1,      /* compile_fused / launch_fused hooks */
  SY_EXTENSION_PATTERNS = 2,    /* pattern kernels (op graphs they replace) */
  SY_EXTENSION_COLLECTIVES = 3, /* communicators and collective ops */
} sy_extension_type_t;

/* The header every extension struct starts with. Since: 1.1. */
typedef struct sy_extension_t {
  size_t struct_size;               /* of the whole extension struct */
  int32_t type;                     /* sy_extension_type_t */
  int32_t reserved;
  const struct sy_extension_t* next; /* the next entry, or NULL */
} sy_extension_t;

/* Status a kernel returns to decline a call (see sy_kernel_fn). Only for
 * kernels, only from a plugin that answered abi_minor >= 1; it never reaches
 * an application. Since: 1.1. */
#define SY_STATUS_KERNEL_DECLINED 64

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

/* ---- Shape functions -----------------------------------------------------
 * For ops a plugin defines in its own namespace. The host fills `inputs`
 * (one meta per tensor, Tensor[] arguments flattened; `input_offsets[k]` is
 * the first index of schema tensor argument k, with
 * input_offsets[num_tensor_args] == num_inputs, so an omitted optional
 * tensor spans zero entries) and `attrs`; the function writes `num_outputs`
 * metas, or returns an error that names the offending argument. It must be
 * a pure function of its inputs' metas and its attributes: the host may
 * reuse an earlier answer for a call with equal ones (since 1.1).
 * Since: 1.0. */
typedef struct sy_shape_call_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_tensor_meta_t* inputs;
  int32_t num_inputs;
  int32_t num_tensor_args;
  const int32_t* input_offsets;
  const sy_attr_t* attrs;
  int32_t num_attrs;
  int32_t num_outputs;
  sy_tensor_meta_t* outputs; /* out: host-owned array of num_outputs */
  void* shape_data;          /* sy_schema_desc_t.shape_data */
} sy_shape_call_t;

typedef sy_error_t* (*sy_shape_fn)(const sy_shape_call_t* call);

/* A schema a plugin adds, in its own namespace ("vendor::op(...) -> ...").
 * Schema text follows docs/architecture.md#schema-text. Since: 1.0. */
typedef struct sy_schema_desc_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* schema;   /* copied */
  sy_shape_fn shape_fn; /* required */
  void* shape_data;     /* passed back in sy_shape_call_t; lives until unload */
} sy_schema_desc_t;

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

/* ---- Plugin options (since 1.1) -------------------------------------------
 * Settings a plugin declares in its table (sy_plugin_api_t.options) and
 * reads during `load` through host->option_get, as ORT's provider options
 * and PJRT's create options. Users set them, weakest first, in the
 * manifest ("options": {"num_threads": 4}), SWITCHYARD_PLUGIN_OPTIONS
 * ("cpu.num_threads=4,onednn.min_elements=4096"), and the context's options
 * (C: sy_context_options_t.plugin_options; Python: Context(plugin_options=…));
 * `switchyard info` lists every declared option with its value. The host
 * checks each given value against the declaration before `load` runs: an
 * unknown name or a value that does not parse as the declared type refuses
 * the load with a record naming the option.
 * Values are per runtime: each runtime's `load` reads its own, while the
 * library and its globals are shared by every runtime of the process. A
 * plugin whose kernels use an option keeps the value per load — e.g. behind
 * the kernel_data of the kernels that `load` registers — never in a global
 * that the next runtime's `load` would overwrite under the first's kernels
 * (plugins/onednn/thresholds.h does this). */
/* An option's type. Since: 1.1. */
typedef enum sy_option_type_t {
  SY_OPTION_INT = 1,    /* int64; text "-3", "4096"                  */
  SY_OPTION_FLOAT = 2,  /* double; text "0.5", "1e-3"                */
  SY_OPTION_BOOL = 3,   /* text true/false, 1/0, yes/no, on/off      */
  SY_OPTION_STRING = 4, /* any UTF-8 text                            */
} sy_option_type_t;

/* One declared option. Strings live as long as the plugin's table.
 * Since: 1.1. */
typedef struct sy_plugin_option_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* name;          /* [a-z_][a-z0-9_]*, unique in the plugin */
  int32_t type;              /* sy_option_type_t */
  int32_t reserved;
  const char* default_value; /* as text, parsed like a user's value */
  const char* help;          /* one line for `switchyard info` */
} sy_plugin_option_t;

/* An option's value as option_get returns it. Frozen value type. `str`
 * points at host memory valid until `load` returns. Since: 1.1. */
typedef struct sy_option_value_t {
  int32_t type;    /* sy_option_type_t, as declared */
  int32_t is_set;  /* 1 when a user gave it, 0 for the declared default */
  union {
    int64_t i;
    double f;
    int32_t b;
    const char* str;
  } value;
} sy_option_value_t;

/* ---- Devices ------------------------------------------------------------- */

/* The direction of a copy. Since: 1.0. */
typedef enum sy_copy_kind_t {
  SY_COPY_HOST_TO_DEVICE = 0,
  SY_COPY_DEVICE_TO_HOST = 1,
  SY_COPY_DEVICE_TO_DEVICE = 2, /* within one device type */
} sy_copy_kind_t;

/* Filled by get_properties. String fields point at plugin memory that lives
 * until unload; the host copies them. Since: 1.0 (float_flags: 1.2). */
typedef struct sy_device_properties_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* name;           /* "NVIDIA H100 80GB HBM3", "host CPU" */
  const char* vendor;
  const char* driver_version; /* part of the autotuner's device fingerprint */
  uint64_t total_memory_bytes;
  int32_t compute_units;      /* SMs, CUs, cores */
  int32_t reserved;
  /* ---- 1.2 ---- (write only when SY_STRUCT_HAS says the host's struct
   * has them; the host zeroes the struct first) */
  uint32_t float_flags;       /* SY_FLOAT_FLUSHES_* (common.h) */
  uint32_t reserved1;
} sy_device_properties_t;

/* A device type a plugin provides. Every slot is required in 1.0. `self` is
 * `device_data`, passed back to each function. Device indices run from 0 to
 * device_count-1. The host never allocates size 0 (it rounds up), always
 * passes a power-of-two alignment from 64 to 256 (what every GPU allocator
 * gives), never frees NULL, always passes a stream it created, and passes
 * memset values 0..255. Elapsed time between events that were not both
 * recorded is FAILED_PRECONDITION. Memory from `allocate` is only ever
 * touched through this table and the plugin's own kernels. Host pointers
 * given to the *_async functions stay valid until the stream is
 * synchronized or an event recorded after the copy has completed.
 * Since: 1.0. */
typedef struct sy_device_api_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* device_type;    /* lowercase identifier, copied: "cpu" */
  int32_t dlpack_device_type; /* see sy_device_t */
  int32_t reserved;
  void* device_data;

  sy_error_t* (*device_count)(void* self, int32_t* out_count);
  sy_error_t* (*get_properties)(void* self, int32_t device,
                                sy_device_properties_t* out_properties);
  sy_error_t* (*allocate)(void* self, int32_t device, size_t size,
                          size_t alignment, void** out_ptr);
  sy_error_t* (*deallocate)(void* self, int32_t device, void* ptr);

  sy_error_t* (*stream_create)(void* self, int32_t device,
                               sy_stream_t* out_stream);
  sy_error_t* (*stream_destroy)(void* self, sy_stream_t stream);
  sy_error_t* (*stream_synchronize)(void* self, sy_stream_t stream);
  sy_error_t* (*stream_wait_event)(void* self, sy_stream_t stream,
                                   sy_event_t event);

  sy_error_t* (*memcpy_async)(void* self, sy_stream_t stream, void* dst,
                              const void* src, size_t size,
                              int32_t kind /* sy_copy_kind_t */);
  sy_error_t* (*memset_async)(void* self, sy_stream_t stream, void* dst,
                              int32_t byte_value, size_t size);

  sy_error_t* (*event_create)(void* self, int32_t device,
                              sy_event_t* out_event);
  sy_error_t* (*event_destroy)(void* self, sy_event_t event);
  sy_error_t* (*event_record)(void* self, sy_event_t event,
                              sy_stream_t stream);
  sy_error_t* (*event_synchronize)(void* self, sy_event_t event);
  /* Milliseconds between two recorded, completed events. */
  sy_error_t* (*event_elapsed_ms)(void* self, sy_event_t start,
                                  sy_event_t end, float* out_ms);
} sy_device_api_t;

/* ---- Fused kernels (SY_EXTENSION_FUSION; since 1.1) ----------------------
 * Note [Fused-kernel IR]: the host's fusion pass (docs/fusion.md) groups
 * elementwise ops, broadcasts and row reductions of a captured graph and
 * hands each group to the plugin of its device type as one sy_fused_kernel_t
 * to compile. The IR is backend-neutral; the plugin turns it into code (a
 * tiled evaluator, generated C, CUDA through NVRTC, GLSL …).
 *
 * Domain. A kernel runs over a shape of `ndim` dims (`shape`). Its trailing
 * `reduce_ndim` dims are reduced over: the leading dims index *rows*, the
 * trailing ones the elements of a row (row length = their product). With
 * reduce_ndim 0 the kernel is purely elementwise: no REDUCE instruction,
 * one stage, and the whole domain is walked element by element.
 *
 * Operands. Every input and output is a tensor laid over the domain by
 * `strides` (elements, never negative): element (i0, …, in-1) of input k is
 * at inputs[k].strides · i from the tensor's data. A broadcast input has
 * stride 0 along the dims it is broadcast over; an output that holds one
 * value per row has stride 0 exactly on the reduced dims. Outputs never
 * alias inputs or each other, and no two domain indices that an output's
 * per-element stores write reach the same element.
 *
 * Program. `instrs` is in SSA form: instruction i defines value i, and its
 * operands a, b, c name earlier instructions (-1 when unused). Each belongs
 * to a stage (`stage`, non-decreasing along the list, 0 .. num_stages-1)
 * and is per element (`row_level` 0) or per row (`row_level` 1). The
 * meaning, which a plugin may implement in any order that gives the same
 * results:
 *
 *   for each row (rows are independent; any order, in parallel):
 *     for each stage s in order:
 *       run the per-row instructions of stage s, once, in list order;
 *       for each element of the row (any order, in parallel):
 *         run the per-element instructions of stage s in list order;
 *     the REDUCE instructions of stage s then hold their reduction, over
 *     the row, of their per-element operand
 *
 * A REDUCE is a per-element instruction (each element's operand goes into
 * the reduction) whose value is per row. A per-element value is used only
 * by instructions of its own stage. A per-row value — a per-row
 * instruction's, or a REDUCE's — is used by any later instruction: a
 * REDUCE of stage s from stage s+1 on. A per-row instruction's operands are
 * per-row values; a STORE of a per-row value is a per-row instruction. LOAD reads its input at the current
 * element (per row: at the row; the input's strides are then 0 on the
 * reduced dims); STORE writes its operand to its output at the current
 * element (per row: once per row). Every output is stored exactly once per
 * element it covers. Rows may have length 0 (a sum over an empty dim): the
 * element loops run no times, REDUCE_SUM gives 0.
 *
 * Values. Each instruction has a `dtype`: f32, f64, f16, bf16 or bool,
 * except that a LOAD has its input's dtype and a STORE its output's (any
 * dtype the plugin accepts, see sy_fusion_extension_t.dtypes), and a CAST
 * converts to or from them. Arithmetic on f16, bf16 and f32 values computes
 * in f32 (f64 in f64) and rounds the result to the dtype, as the core's
 * kernels do; bool values are 0 or 1. Operands of arithmetic have the
 * instruction's dtype; compares take two operands of one dtype and give
 * bool; WHERE takes a bool and two values of its dtype. CONST is `imm` in
 * the compute type of its dtype (f32 or f64), not rounded to f16/bf16.
 * Every op means what the core op of the same name means (docs/ops.md):
 * RELU keeps NaN, MAXIMUM/MINIMUM and REDUCE_MAX/MIN propagate NaN,
 * compares with NaN are false (NE: true), GELU is the erf form and
 * GELU_TANH the tanh form, CAST from floating to bool is "!= 0". Results
 * should be within a few ulp of the core's kernels; a plugin may contract
 * a*b+c into an FMA.
 *
 * The host validates every kernel before a plugin sees it (fusion/ir): a
 * plugin may trust the invariants above. Since: 1.1. */
typedef enum sy_fused_op_t {
  SY_FUSED_LOAD = 1,  /* index: input                                  */
  SY_FUSED_STORE = 2, /* a; index: output (defines no value)           */
  SY_FUSED_CONST = 3, /* imm                                           */
  SY_FUSED_CAST = 4,  /* a, converted to dtype                         */
  /* unary: a */
  SY_FUSED_NEG = 10,
  SY_FUSED_ABS = 11,
  SY_FUSED_RELU = 12,
  SY_FUSED_SQUARE = 13,
  SY_FUSED_EXP = 14,
  SY_FUSED_LOG = 15,
  SY_FUSED_SQRT = 16,
  SY_FUSED_RSQRT = 17,
  SY_FUSED_SIN = 18,
  SY_FUSED_COS = 19,
  SY_FUSED_TANH = 20,
  SY_FUSED_SIGMOID = 21,
  SY_FUSED_SILU = 22,
  SY_FUSED_ERF = 23,
  SY_FUSED_RECIPROCAL = 24,
  SY_FUSED_GELU = 25,
  SY_FUSED_GELU_TANH = 26,
  /* binary: a, b */
  SY_FUSED_ADD = 40,
  SY_FUSED_SUB = 41,
  SY_FUSED_MUL = 42,
  SY_FUSED_DIV = 43,
  SY_FUSED_POW = 44,
  SY_FUSED_MAXIMUM = 45,
  SY_FUSED_MINIMUM = 46,
  /* compare: a, b -> bool */
  SY_FUSED_EQ = 60,
  SY_FUSED_NE = 61,
  SY_FUSED_LT = 62,
  SY_FUSED_LE = 63,
  SY_FUSED_GT = 64,
  SY_FUSED_GE = 65,
  /* select: a (bool) ? b : c */
  SY_FUSED_WHERE = 70,
  /* row reductions of a per-element a (see the Note) */
  SY_FUSED_REDUCE_SUM = 80,
  SY_FUSED_REDUCE_MAX = 81,
  SY_FUSED_REDUCE_MIN = 82,
} sy_fused_op_t;

/* One instruction. Frozen value type (an array element of the IR).
 * Since: 1.1. */
typedef struct sy_fused_instr_t {
  int32_t op;        /* sy_fused_op_t */
  sy_dtype_t dtype;  /* the value's dtype (STORE: the output's) */
  int32_t a, b, c;   /* operands: earlier instructions, or -1 */
  int32_t index;     /* LOAD: input index; STORE: output index; else 0 */
  int32_t stage;     /* 0 .. num_stages-1, non-decreasing */
  int32_t row_level; /* 1: once per row; 0: per element */
  double imm;        /* CONST's value; else 0 */
} sy_fused_instr_t;

/* An input or output laid over the domain. Frozen value type.
 * Since: 1.1. */
typedef struct sy_fused_operand_t {
  sy_dtype_t dtype;
  int32_t reserved;
  int64_t strides[SY_MAX_RANK]; /* elements, over the domain's ndim dims */
} sy_fused_operand_t;

/* A fused kernel (Note [Fused-kernel IR]). Borrowed for the call it is
 * passed to; a plugin copies what it keeps. Since: 1.1. */
typedef struct sy_fused_kernel_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* name;  /* "fused3_softmax": for traces, logs and symbols */
  int32_t ndim;        /* 0 .. SY_MAX_RANK */
  int32_t reduce_ndim; /* 0 .. ndim */
  int64_t shape[SY_MAX_RANK];
  int32_t num_inputs;
  int32_t num_outputs;
  const sy_fused_operand_t* inputs;
  const sy_fused_operand_t* outputs;
  int32_t num_instrs;
  int32_t num_stages; /* >= 1 */
  const sy_fused_instr_t* instrs;
} sy_fused_kernel_t;

/* compile_fused's arguments. Since: 1.1. */
typedef struct sy_fused_compile_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_fused_kernel_t* kernel; /* borrowed for the call */
  int32_t device;                  /* index of the device it runs on */
  int32_t reserved;
  /* out: the compiled kernel, passed back to launch_fused and
   * release_fused. */
  void* out_handle;
  /* out, optional: bytes the host may keep in its kernel cache (memory and
   * disk, keyed by the IR, the device, the plugin's version and `compiler`)
   * and hand to load_fused in a later process instead of compiling again
   * (e.g. a CUBIN). Plugin-owned; valid until release_fused(out_handle). */
  const void* out_binary;
  size_t out_binary_size;
} sy_fused_compile_args_t;

/* load_fused's arguments: a kernel from bytes an earlier compile_fused gave
 * for the same IR, device, plugin version and compiler. Since: 1.1. */
typedef struct sy_fused_load_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_fused_kernel_t* kernel; /* borrowed for the call */
  int32_t device;
  int32_t reserved;
  const void* binary; /* borrowed for the call */
  size_t binary_size;
  void* out_handle;   /* out, as compile_fused's */
} sy_fused_load_args_t;

/* launch_fused's arguments. The views are laid over the kernel's domain:
 * shape = the domain's, strides exactly the IR operands' strides, dtypes
 * the operands' (the host guarantees it). Since: 1.1. */
typedef struct sy_fused_launch_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  void* handle;                    /* from compile_fused or load_fused */
  sy_stream_t stream;              /* a stream of the kernel's device */
  const sy_tensor_view_t* inputs;  /* num_inputs of the IR */
  const sy_tensor_view_t* outputs; /* num_outputs of the IR */
  int32_t num_inputs;
  int32_t num_outputs;
  /* For host->kernel_workspace, as a kernel call's host_call. */
  sy_call_context_t* host_call;
} sy_fused_launch_args_t;

/* release_fused's arguments. Since: 1.1. */
typedef struct sy_fused_release_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  void* handle;
} sy_fused_release_args_t;

/* sy_fusion_extension_t.flags. Since: 1.1. */
/* The compiler takes kernels with reduce_ndim > 0 (row reductions). */
#define SY_FUSION_FLAG_ROW_REDUCTIONS 1u

/* The fusion hooks of one device type: an extension (type
 * SY_EXTENSION_FUSION) on the extension chain of the sy_device_api_t the
 * plugin registers for that type, or — for a plugin that compiles for a
 * device type another plugin provides — on its sy_plugin_api_t's chain.
 * Static: lives as long as the table it hangs from. The limits bound the
 * kernels the host builds (0: no limit); a group beyond them is split or
 * runs unfused. A device type without fusion hooks runs every graph
 * unfused, op by op. All hooks may be called from any thread; launch_fused
 * enqueues on `stream` like a kernel. Since: 1.1. */
typedef struct sy_fusion_extension_t {
  sy_extension_t base;     /* type SY_EXTENSION_FUSION */
  const char* device_type; /* the device type it compiles for */
  /* Names the code generator and its version ("cpu evaluator 1",
   * "nvrtc 13.0"); part of the host's cache key. */
  const char* compiler;
  uint32_t flags;          /* SY_FUSION_FLAG_* */
  int32_t max_instrs;
  int32_t max_inputs;
  int32_t max_outputs;
  int64_t max_row_length;  /* longest row a kernel with reductions may have */
  /* The dtypes LOAD and STORE may have; values beyond f32/f64/f16/bf16/bool
   * only flow through a CAST. */
  const sy_dtype_t* dtypes;
  int32_t num_dtypes;
  int32_t reserved;
  /* Required: compiles `kernel` for a device. An error (UNIMPLEMENTED for
   * "not this kernel") makes the host run the group unfused; the message
   * shows in the graph's description. */
  sy_error_t* (*compile_fused)(void* self, sy_fused_compile_args_t* args);
  /* Optional (NULL: the host always compiles). */
  sy_error_t* (*load_fused)(void* self, sy_fused_load_args_t* args);
  /* Required: enqueues one run of a compiled kernel. */
  sy_error_t* (*launch_fused)(void* self, const sy_fused_launch_args_t* args);
  /* Required: frees a handle; called once per handle, after its last
   * launch was enqueued (the plugin keeps what the enqueued work needs). */
  void (*release_fused)(void* self, const sy_fused_release_args_t* args);
  void* self; /* passed back to each hook */
} sy_fusion_extension_t;

/* ---- Pattern kernels (SY_EXTENSION_PATTERNS; since 1.1) -----------------
 * A small op graph (matmul → add → gelu) and a plugin op that computes it
 * in one kernel (cuBLASLt's epilogues, oneDNN's post-ops). The fusion pass
 * replaces a match by a call of `replacement` — a plugin-namespaced op
 * whose schema the plugin registers and whose tensor arguments are the
 * pattern's inputs, in order — when it resolves to a kernel for the match
 * (kernels may decline) and the host measured it faster than what runs
 * otherwise (epilogues are slower than separate kernels on some GPUs). */

/* One node of a pattern. Frozen value type. Since: 1.1. */
typedef struct sy_pattern_node_t {
  const char* op;     /* full op name: "matmul", "add.Tensor", "gelu" */
  /* Tensor arguments: >= 0 an earlier node's output; < 0 pattern input
   * -(k+1). */
  int32_t inputs[4];
  int32_t num_inputs;
  int32_t num_attrs;  /* 0: any attributes; else each must equal attrs[j] */
  const sy_attr_t* attrs; /* an entry of kind -1 matches any value */
} sy_pattern_node_t;

/* One pattern. The last node's output is the pattern's result; every other
 * node's output must be used only inside the match. Since: 1.1. */
typedef struct sy_pattern_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* name;        /* "matmul_bias_gelu" */
  const char* device_type;
  const sy_pattern_node_t* nodes;
  int32_t num_nodes;
  int32_t num_inputs;
  const char* replacement; /* "cuda::matmul_bias_gelu_tanh" */
} sy_pattern_t;

/* The extension (type SY_EXTENSION_PATTERNS), on the plugin's
 * sy_plugin_api_t chain or a device table's, like sy_fusion_extension_t.
 * Static. Since: 1.1. */
typedef struct sy_patterns_extension_t {
  sy_extension_t base; /* type SY_EXTENSION_PATTERNS */
  const sy_pattern_t* patterns;
  int32_t num_patterns;
  int32_t reserved;
} sy_patterns_extension_t;

/* ---- Collectives (SY_EXTENSION_COLLECTIVES; since 1.2) ------------------
 * Communicators and collective ops (docs/distributed.md). The core owns the
 * rendezvous: it parses "file://" and "tcp://", checks that every rank
 * arrived with the same world size, and hands the plugin a key-value store
 * (sy_collective_store_t) private to the new communicator, through which
 * the engine exchanges what it needs (Gloo its pair addresses, NCCL its
 * ncclUniqueId). The plugin creates an engine communicator from it
 * (comm_create) and registers ordinary kernels for the core op set's
 * collective ops (all_reduce, all_gather, reduce_scatter, broadcast, send,
 * recv, barrier); those kernels receive the communicator as an attribute
 * of kind SY_ATTR_COMMUNICATOR and enqueue on the call's stream, as any
 * kernel. */

/* The rendezvous store of one communicator, borrowed by comm_create for
 * its call. Keys are the plugin's own (the host prefixes them); values are
 * bytes. Every function may block up to `timeout_ms` (<= 0: the
 * communicator's timeout) and returns DEADLINE_EXCEEDED naming the key when
 * it passes. Since: 1.2. */
typedef struct sy_collective_store_t {
  size_t struct_size;
  const sy_extension_t* extension;
  void* self; /* passed back to each function */
  /* Sets `key` to `size` bytes at `value` (copied); visible to every rank. */
  sy_error_t* (*set)(void* self, const char* key, const void* value,
                     size_t size);
  /* Waits for `key`, then copies min(size, capacity) bytes into `buffer`
   * and stores the value's full size in *out_size; call again with a
   * larger buffer when *out_size > capacity. */
  sy_error_t* (*get)(void* self, const char* key, void* buffer,
                     size_t capacity, size_t* out_size, int64_t timeout_ms);
  /* Waits until every one of `keys` is set. */
  sy_error_t* (*wait)(void* self, const char* const* keys, int32_t num_keys,
                      int64_t timeout_ms);
} sy_collective_store_t;

/* A communicator as kernels and shape functions see it: what an attribute
 * of kind SY_ATTR_COMMUNICATOR points at (value.comm). Host-owned; valid
 * for the call that receives it, and for the work that call enqueues (the
 * host destroys the engine communicator only through comm_destroy, which
 * waits for that work). A kernel uses `handle` only when `owner` is its
 * own plugin's extension (another plugin's handle is opaque to it).
 * Since: 1.2. */
typedef struct sy_communicator_ref_t {
  size_t struct_size;
  const sy_extension_t* extension;
  void* handle;                                   /* comm_create's */
  const struct sy_collectives_extension_t* owner; /* who made `handle` */
  sy_device_t device;                             /* the bound device */
  int32_t rank;
  int32_t world_size;
  int64_t timeout_ms; /* what every blocking step of the engine waits */
} sy_communicator_ref_t;

/* comm_create's arguments. Since: 1.2. */
typedef struct sy_comm_create_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_collective_store_t* store; /* borrowed for the call */
  int32_t device;     /* index of the device (of the extension's type) */
  int32_t rank;       /* 0 <= rank < world_size, checked by the host */
  int32_t world_size; /* >= 1; every rank arrived with the same one */
  int32_t reserved;
  int64_t timeout_ms; /* > 0 */
  void* out_handle;   /* out: the engine communicator; plugin-owned */
} sy_comm_create_args_t;

/* comm_destroy's arguments. Since: 1.2. */
typedef struct sy_comm_destroy_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  void* handle;
} sy_comm_destroy_args_t;

/* The collectives of one device type: an extension (type
 * SY_EXTENSION_COLLECTIVES) on the extension chain of the sy_device_api_t
 * the plugin registers for that type. Static: lives as long as the table.
 * comm_create runs on the thread that creates the communicator and may
 * block up to the timeout (every rank calls it at about the same time);
 * an engine the plugin could not load is a FAILED_PRECONDITION from
 * comm_create that says what to install. comm_destroy is called once per
 * handle, after the last kernel that used it was enqueued; it waits for
 * that work (or keeps what it needs) before freeing the engine's state.
 * Since: 1.2. */
typedef struct sy_collectives_extension_t {
  sy_extension_t base;     /* type SY_EXTENSION_COLLECTIVES */
  const char* device_type; /* the device type it serves */
  const char* engine;      /* "gloo", "nccl": for messages and info */
  sy_error_t* (*comm_create)(void* self, sy_comm_create_args_t* args);
  void (*comm_destroy)(void* self, const sy_comm_destroy_args_t* args);
  void* self; /* passed back to each hook */
} sy_collectives_extension_t;

/* ---- The host's table ----------------------------------------------------
 * One table per process, passed to sy_plugin_init and to `load`; it stays
 * valid for as long as the plugin library is loaded, so a plugin may keep
 * the pointer (for error_create and log from kernels). Several runtimes in
 * one process share one loaded copy of a plugin: sy_plugin_init runs once
 * per process, `load` once per runtime (each with its own context), and
 * `unload` once, when the last runtime lets the library go.
 * The register_* slots and option_get accept only the context of a `load`
 * in progress; any other returns FAILED_PRECONDITION. Since: 1.0 (slots
 * marked 1.1 are there when the host's abi_minor is >= 1; check with
 * SY_STRUCT_HAS as always). */
typedef struct sy_host_api_t {
  size_t struct_size;
  const sy_extension_t* extension;
  uint32_t abi_major; /* == SY_PLUGIN_ABI_MAJOR of the host */
  uint32_t abi_minor; /* highest minor the host speaks */
  const char* host_version; /* "0.1.0"; lives as long as the table */

  /* Creates an error; the message is copied. Never returns NULL (if memory
   * runs out a static out-of-memory error comes back). Thread-safe. */
  sy_error_t* (*error_create)(int32_t code /* sy_status_code_t */,
                              const char* message);
  /* Destroys an error the plugin created and will not return. */
  void (*error_destroy)(sy_error_t* error);
  /* Writes a line to the host's log (SWITCHYARD_LOG). During `load` pass
   * its context and the line is prefixed with the plugin's name; at other
   * times pass NULL and name yourself in the message. Thread-safe. */
  void (*log)(sy_host_context_t* context, int32_t level /* sy_log_level_t */,
              const char* message);

  sy_error_t* (*register_schema)(sy_host_context_t* context,
                                 const sy_schema_desc_t* schema);
  sy_error_t* (*register_kernel)(sy_host_context_t* context,
                                 const sy_kernel_desc_t* kernel);
  sy_error_t* (*register_device)(sy_host_context_t* context,
                                 const sy_device_api_t* device);

  /* ---- 1.1 ---- */
  /* The value of the plugin's declared option `name` for this load (the
   * user's, or the declared default). Only during `load`, with its context.
   * Errors: NOT_FOUND for a name the plugin did not declare. Since: 1.1. */
  sy_error_t* (*option_get)(sy_host_context_t* context, const char* name,
                            sy_option_value_t* out_value);
  /* Scratch memory for the kernel call `host_call` (the call's
   * sy_kernel_call_t.host_call): `size` bytes of the call's device, aligned
   * to 256, from the host's caching allocator, so a kernel never allocates
   * per call. Contents are undefined. The memory stays valid for the work
   * the kernel enqueues on the call's stream: the host returns it to the
   * allocator when the kernel returns, and the allocator hands a block out
   * again only in stream order. A kernel may ask more than once per call
   * (each a new block); size 0 gives NULL. Thread-safe.
   * Errors: RESOURCE_EXHAUSTED when the device is out of memory;
   * INVALID_ARGUMENT for a host_call that is not a call in progress.
   * Since: 1.1. */
  sy_error_t* (*kernel_workspace)(sy_call_context_t* host_call, size_t size,
                                  void** out_ptr);
} sy_host_api_t;

/* ---- The plugin's table -------------------------------------------------- */

/* sy_plugin_api_t.flags. Since: 1.1. */
/* The library is never closed (dlclose), also when its last runtime lets it
 * go: for a plugin whose dependencies keep threads or process-wide state
 * until exit (OpenMP, a GPU runtime). `unload` still runs. */
#define SY_PLUGIN_FLAG_RESIDENT 1u

/* What sy_plugin_init returns. Since: 1.0 (flags, options: 1.1). */
typedef struct sy_plugin_api_t {
  size_t struct_size;
  const sy_extension_t* extension;
  uint32_t abi_major; /* must equal the host's */
  uint32_t abi_minor; /* the minor this plugin uses; <= host's abi_minor */
  const char* name;    /* must equal the manifest's "name"; copied */
  const char* version; /* the plugin's own version, e.g. "1.2.0"; copied */
  /* Registers devices, schemas and kernels through `host`'s register_*
   * slots, passing `context`. Required. Called once per runtime that loads
   * the plugin. An error here withdraws everything this call registered;
   * nothing registered becomes visible before `load` returns success. */
  sy_error_t* (*load)(const sy_host_api_t* host, sy_host_context_t* context);
  /* Optional. Called once before the library is closed, after every
   * runtime has released every object the plugin created. Must end the
   * threads the plugin started (see "Threads" above). */
  void (*unload)(void);
  /* ---- 1.1 ---- */
  uint32_t flags;       /* SY_PLUGIN_FLAG_* */
  int32_t num_options;  /* entries in `options` */
  /* The options the plugin takes (see "Plugin options"); may be NULL. Lives
   * as long as this table. */
  const sy_plugin_option_t* options;
} sy_plugin_api_t;

/* The entry point every plugin exports, and the only symbol it exports.
 * Receives the host's table; stores a pointer to the plugin's static table
 * in *out_plugin (plugin-owned, valid until the library is closed). Does no
 * registration: the host checks versions first, then calls `load`. Runs
 * once per process for each loaded copy of the library. Returning NULL
 * without setting *out_plugin is a failure too (for when even the host
 * table is unusable).
 * Returns NULL on success or an error (e.g. "this plugin needs ABI 1.3").
 * Since: 1.0. */
typedef sy_error_t* (*sy_plugin_init_fn)(const sy_host_api_t* host,
                                         const sy_plugin_api_t** out_plugin);

SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin);

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field (1.0 or 1.1). */
static_assert(sizeof(sy_tensor_view_t) == 48, "sy_tensor_view_t is frozen");
static_assert(sizeof(sy_attr_t) == 24, "sy_attr_t is frozen");
static_assert(SY_STRUCT_SIZE(sy_shape_call_t, shape_data) ==
                  sizeof(sy_shape_call_t), "sy_shape_call_t 1.0 closes here");
static_assert(SY_STRUCT_SIZE(sy_schema_desc_t, shape_data) ==
                  sizeof(sy_schema_desc_t), "sy_schema_desc_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_kernel_call_t, reserved1) ==
                  sizeof(sy_kernel_call_t), "sy_kernel_call_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_kernel_variant_t, config_size) ==
                  sizeof(sy_kernel_variant_t), "sy_kernel_variant_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_kernel_desc_t, reserved1) ==
                  sizeof(sy_kernel_desc_t), "sy_kernel_desc_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_device_properties_t, reserved1) ==
                  sizeof(sy_device_properties_t), "sy_device_properties_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_device_api_t, event_elapsed_ms) ==
                  sizeof(sy_device_api_t), "sy_device_api_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_host_api_t, kernel_workspace) ==
                  sizeof(sy_host_api_t), "sy_host_api_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_plugin_api_t, options) ==
                  sizeof(sy_plugin_api_t), "sy_plugin_api_t 1.1");
static_assert(sizeof(sy_extension_t) == 24, "sy_extension_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_plugin_option_t, help) ==
                  sizeof(sy_plugin_option_t), "sy_plugin_option_t 1.1");
static_assert(sizeof(sy_option_value_t) == 16, "sy_option_value_t is frozen");
static_assert(sizeof(sy_fused_instr_t) == 40, "sy_fused_instr_t is frozen");
static_assert(sizeof(sy_fused_operand_t) == 72, "sy_fused_operand_t is frozen");
static_assert(SY_STRUCT_SIZE(sy_fused_kernel_t, instrs) ==
                  sizeof(sy_fused_kernel_t), "sy_fused_kernel_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fused_compile_args_t, out_binary_size) ==
                  sizeof(sy_fused_compile_args_t), "sy_fused_compile_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fused_load_args_t, out_handle) ==
                  sizeof(sy_fused_load_args_t), "sy_fused_load_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fused_launch_args_t, host_call) ==
                  sizeof(sy_fused_launch_args_t), "sy_fused_launch_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fused_release_args_t, handle) ==
                  sizeof(sy_fused_release_args_t), "sy_fused_release_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fusion_extension_t, self) ==
                  sizeof(sy_fusion_extension_t), "sy_fusion_extension_t 1.1");
static_assert(sizeof(sy_pattern_node_t) == 40, "sy_pattern_node_t is frozen");
static_assert(SY_STRUCT_SIZE(sy_pattern_t, replacement) ==
                  sizeof(sy_pattern_t), "sy_pattern_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_patterns_extension_t, reserved) ==
                  sizeof(sy_patterns_extension_t), "sy_patterns_extension_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_collective_store_t, wait) ==
                  sizeof(sy_collective_store_t), "sy_collective_store_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_communicator_ref_t, timeout_ms) ==
                  sizeof(sy_communicator_ref_t), "sy_communicator_ref_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_comm_create_args_t, out_handle) ==
                  sizeof(sy_comm_create_args_t), "sy_comm_create_args_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_comm_destroy_args_t, handle) ==
                  sizeof(sy_comm_destroy_args_t), "sy_comm_destroy_args_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_collectives_extension_t, self) ==
                  sizeof(sy_collectives_extension_t),
              "sy_collectives_extension_t 1.2");
#else
_Static_assert(sizeof(sy_tensor_view_t) == 48, "sy_tensor_view_t is frozen");
_Static_assert(sizeof(sy_attr_t) == 24, "sy_attr_t is frozen");
#endif

#endif  /* SWITCHYARD_PLUGIN_H_ */
