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
 * writer was compiled with) and `void* extension` (reserved, must be NULL in
 * 1.0), and only ever grows at its end; each is closed by a static_assert on
 * its last field. A reader uses a field only when struct_size covers it
 * (SY_STRUCT_HAS) and, for function slots, when it is non-NULL.
 *
 * Out-structs the host passes for the plugin to fill (sy_device_properties_t)
 * carry the host's struct_size; the plugin writes only the fields it covers.
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
 * flight. `load` runs on one thread, but another runtime in the process may
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

#define SY_PLUGIN_ABI_MAJOR 1
#define SY_PLUGIN_ABI_MINOR 0

/* The one exported symbol's name, for hosts that look it up by string. */
#define SY_PLUGIN_INIT_SYMBOL "sy_plugin_init"

#if defined(_WIN32)
#define SY_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SY_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* True when a struct written with `ptr->struct_size` bytes contains `field`. */
#define SY_STRUCT_HAS(ptr, type, field)        \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

/* The struct_size of `type` as it was when `last_field` closed it. */
#define SY_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

/* ---- Opaque handles ------------------------------------------------------ */

/* An error: a status code and a message. Host-owned; see the rules above. */
typedef struct sy_error_t sy_error_t;

/* Identifies one registration session (one runtime loading one plugin).
 * Valid only while the plugin's `load` slot runs. */
typedef struct sy_host_context_t sy_host_context_t;

/* Plugin-defined stream and event objects; the host only passes them back. */
typedef struct sy_stream_impl_t* sy_stream_t;
typedef struct sy_event_impl_t* sy_event_t;

/* ---- Log levels ---------------------------------------------------------- */
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
 * shape is an empty tensor whose data pointer may be anything. */
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
 * Frozen value type. */
typedef struct sy_tensor_meta_t {
  sy_dtype_t dtype;
  int32_t ndim;
  int64_t shape[SY_MAX_RANK];
} sy_tensor_meta_t;

/* ---- Attributes ----------------------------------------------------------
 * The non-tensor arguments of an op, in schema order, with defaults already
 * filled in by the host: a kernel always sees every attribute. Frozen value
 * type. Pointers inside are borrowed for the call. */
typedef enum sy_attr_kind_t {
  SY_ATTR_NONE = 0,   /* an optional argument given as None            */
  SY_ATTR_INT = 1,    /* value.i                                       */
  SY_ATTR_FLOAT = 2,  /* value.f                                       */
  SY_ATTR_BOOL = 3,   /* value.b (0 or 1)                              */
  SY_ATTR_INTS = 4,   /* value.ints: `size` int64 at `data`            */
  SY_ATTR_STRING = 5, /* value.str: `size` bytes at `data`, NUL-ended  */
  SY_ATTR_DTYPE = 6,  /* value.dtype                                   */
} sy_attr_kind_t;

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
  } value;
} sy_attr_t;

/* ---- Shape functions -----------------------------------------------------
 * For ops a plugin defines in its own namespace. The host fills `inputs`
 * (one meta per tensor, Tensor[] arguments flattened; `input_offsets[k]` is
 * the first index of schema tensor argument k, with
 * input_offsets[num_tensor_args] == num_inputs, so an omitted optional
 * tensor spans zero entries) and `attrs`; the function writes `num_outputs`
 * metas, or returns an error that names the offending argument. */
typedef struct sy_shape_call_t {
  size_t struct_size;
  void* extension;
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
 * Schema text follows docs/architecture.md#schema-text. */
typedef struct sy_schema_desc_t {
  size_t struct_size;
  void* extension;
  const char* schema;   /* copied */
  sy_shape_fn shape_fn; /* required */
  void* shape_data;     /* passed back in sy_shape_call_t; lives until unload */
} sy_schema_desc_t;

/* ---- Kernels ------------------------------------------------------------- */

/* What a kernel receives. Inputs follow the same flattening as
 * sy_shape_call_t. Outputs are allocated by the host from the op's shape
 * function (dtype and shape already right) and never alias an input; they
 * may be strided when the caller supplied them. The kernel enqueues its work
 * on `stream` and may return before it finishes. */
typedef struct sy_kernel_call_t {
  size_t struct_size;
  void* extension;
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
} sy_kernel_call_t;

typedef sy_error_t* (*sy_kernel_fn)(const sy_kernel_call_t* call);

/* One tunable configuration of a kernel (tile sizes, algorithm ids…). The
 * autotuner times each; `config` is copied and handed back on every call. */
typedef struct sy_kernel_variant_t {
  size_t struct_size;
  void* extension;
  const char* name;   /* copied; unique within the kernel */
  const void* config; /* copied, config_size bytes */
  size_t config_size;
} sy_kernel_variant_t;

/* A kernel registration. The dispatch key is (op, device type, input
 * dtypes): `dtypes` has one entry per tensor argument of the schema, in
 * order (a Tensor[] argument counts once, with its elements' dtype; an
 * omitted optional tensor is SY_DTYPE_NONE). Among kernels with the same key
 * the highest `priority` wins by default; the cpu plugin's reference kernels
 * use priority 0. */
typedef struct sy_kernel_desc_t {
  size_t struct_size;
  void* extension;
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
} sy_kernel_desc_t;

/* ---- Devices ------------------------------------------------------------- */

typedef enum sy_copy_kind_t {
  SY_COPY_HOST_TO_DEVICE = 0,
  SY_COPY_DEVICE_TO_HOST = 1,
  SY_COPY_DEVICE_TO_DEVICE = 2, /* within one device type */
} sy_copy_kind_t;

/* Filled by get_properties. String fields point at plugin memory that lives
 * until unload; the host copies them. */
typedef struct sy_device_properties_t {
  size_t struct_size;
  void* extension;
  const char* name;           /* "NVIDIA H100 80GB HBM3", "host CPU" */
  const char* vendor;
  const char* driver_version; /* part of the autotuner's device fingerprint */
  uint64_t total_memory_bytes;
  int32_t compute_units;      /* SMs, CUs, cores */
  int32_t reserved;
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
 * synchronized or an event recorded after the copy has completed. */
typedef struct sy_device_api_t {
  size_t struct_size;
  void* extension;
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

/* ---- The host's table ----------------------------------------------------
 * One table per process, passed to sy_plugin_init and to `load`; it stays
 * valid for as long as the plugin library is loaded, so a plugin may keep
 * the pointer (for error_create and log from kernels). Several runtimes in
 * one process share one loaded copy of a plugin: sy_plugin_init runs once
 * per process, `load` once per runtime (each with its own context), and
 * `unload` once, when the last runtime lets the library go.
 * The register_* slots accept only the context of a `load` in progress;
 * any other returns FAILED_PRECONDITION. */
typedef struct sy_host_api_t {
  size_t struct_size;
  void* extension;
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
} sy_host_api_t;

/* ---- The plugin's table -------------------------------------------------- */
typedef struct sy_plugin_api_t {
  size_t struct_size;
  void* extension;
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
   * runtime has released every object the plugin created. */
  void (*unload)(void);
} sy_plugin_api_t;

/* The entry point every plugin exports, and the only symbol it exports.
 * Receives the host's table; stores a pointer to the plugin's static table
 * in *out_plugin (plugin-owned, valid until the library is closed). Does no
 * registration: the host checks versions first, then calls `load`. Runs
 * once per process for each loaded copy of the library. Returning NULL
 * without setting *out_plugin is a failure too (for when even the host
 * table is unusable).
 * Returns NULL on success or an error (e.g. "this plugin needs ABI 1.3"). */
typedef sy_error_t* (*sy_plugin_init_fn)(const sy_host_api_t* host,
                                         const sy_plugin_api_t** out_plugin);

SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin);

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin the last field of ABI 1.0. */
static_assert(sizeof(sy_tensor_view_t) == 48, "sy_tensor_view_t is frozen");
static_assert(sizeof(sy_attr_t) == 24, "sy_attr_t is frozen");
static_assert(SY_STRUCT_SIZE(sy_shape_call_t, shape_data) ==
                  sizeof(sy_shape_call_t), "sy_shape_call_t 1.0 closes here");
static_assert(SY_STRUCT_SIZE(sy_schema_desc_t, shape_data) ==
                  sizeof(sy_schema_desc_t), "sy_schema_desc_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data) ==
                  sizeof(sy_kernel_call_t), "sy_kernel_call_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_kernel_variant_t, config_size) ==
                  sizeof(sy_kernel_variant_t), "sy_kernel_variant_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_kernel_desc_t, reserved) ==
                  sizeof(sy_kernel_desc_t), "sy_kernel_desc_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_device_properties_t, reserved) ==
                  sizeof(sy_device_properties_t), "sy_device_properties_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_device_api_t, event_elapsed_ms) ==
                  sizeof(sy_device_api_t), "sy_device_api_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_host_api_t, register_device) ==
                  sizeof(sy_host_api_t), "sy_host_api_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_plugin_api_t, unload) ==
                  sizeof(sy_plugin_api_t), "sy_plugin_api_t 1.0");
#else
_Static_assert(sizeof(sy_tensor_view_t) == 48, "sy_tensor_view_t is frozen");
_Static_assert(sizeof(sy_attr_t) == 24, "sy_attr_t is frozen");
#endif

#endif  /* SWITCHYARD_PLUGIN_H_ */
