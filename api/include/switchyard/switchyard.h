/* Switchyard — the public C API.
 *
 * Everything an application (or a language binding) needs: contexts, the
 * plugin load report, devices, tensors, DLPack exchange, ops, streams and
 * allocator statistics; graph capture, compilation and replay come from
 * switchyard/graph.h, which this header includes (one header per area). Pure C99; implemented in libswitchyard.so (the same
 * library as the core, so a binding loads exactly one file).
 *
 *   sy_context_t ctx;
 *   sy_context_create(NULL, &ctx);                      // discovers plugins
 *   sy_device_handle_t cpu;
 *   sy_device_find(ctx, "cpu:0", &cpu);
 *   int64_t shape[2] = {2, 3};
 *   sy_tensor_t x;
 *   sy_tensor_from_host(cpu, SY_DTYPE_F32, shape, 2, data, sizeof data, &x);
 *   sy_op_t relu;
 *   sy_op_find(ctx, "relu", &relu);                     // once
 *   sy_tensor_t y;
 *   if (sy_op_call(relu, &x, 1, NULL, 0, &y, 1) != SY_STATUS_OK)
 *     fprintf(stderr, "%s\n", sy_last_error_message());
 *   sy_tensor_to_host(y, out, sizeof out);
 *   sy_tensor_release(y); sy_tensor_release(x); sy_context_destroy(ctx);
 *
 * docs/c-api.md explains the model; this header is the reference.
 *
 * ===== Versioning ==========================================================
 * SY_API_VERSION_MAJOR changes only when an existing function or struct
 * field changes meaning, type or position; SY_API_VERSION_MINOR grows when
 * functions or struct fields (at a struct's end) are added. A program built
 * against minor N runs with any library of the same major and minor >= N;
 * sy_api_version() says what the loaded library speaks. Every function says
 * the version that introduced it ("Since"); api/CHANGELOG.md lists what
 * each minor added.
 *
 * ===== Structs =============================================================
 * Extensible structs begin with `size_t struct_size` and `void* extension`
 * (reserved, NULL) and only grow at their end. For an out-struct, set
 * struct_size = sizeof(the struct) before the call; the library writes only
 * the fields that size covers and leaves struct_size as it was. For an
 * in-struct, sy_*_init fills struct_size and the defaults.
 *
 * ===== Handles =============================================================
 * sy_context_t, sy_device_handle_t, sy_op_t, sy_tensor_t and sy_graph_t
 * (graph.h) are opaque
 * tokens, not addresses: never dereference them. Every function checks each
 * handle it is given against a process-wide, generation-tagged table, so a
 * NULL, garbage, released, stale (its context destroyed) or wrong-kind
 * handle is an INVALID_ARGUMENT error with a message saying which — never a
 * crash. A handle of one context passed with a handle of another is an
 * error too. Tokens are 64-bit; this API requires a 64-bit platform.
 * - Context: created by sy_context_create, destroyed by sy_context_destroy.
 * - Device and op handles belong to their context: there is nothing to
 *   release; they stay valid until the context is destroyed (a device's
 *   until its plugin is unloaded). Looking the same device or op up twice
 *   gives the same handle.
 * - Tensor handles are reference counted: every function that gives you a
 *   sy_tensor_t gives you one reference, sy_tensor_retain adds one and
 *   sy_tensor_release drops one. Destroying the context releases every
 *   tensor handle of it at once.
 *
 * ===== Errors ==============================================================
 * Functions return sy_status_code_t (common.h; the codes of absl::Status and
 * gRPC). Each such call also sets the calling thread's last error: its code
 * and a message saying what was wrong, where (function, op, argument,
 * device, plugin) and what to do — or SY_STATUS_OK and "" on success. (The
 * few functions that return a string or a size instead leave it alone.) Read them with
 * sy_last_error_code() / sy_last_error_message(). A failed call changes
 * nothing: out-parameters are left untouched, no handle is created or
 * released, and the next valid call works. No function aborts on bad input
 * and no C++ exception crosses this boundary.
 *
 * ===== Threads =============================================================
 * Every function is thread-safe and may be called from any thread,
 * concurrently with any other, including on the same handles. Ops run
 * asynchronously on their device's stream; reading a tensor to the host
 * (sy_tensor_to_host, DLPack export) waits for its pending work. A handle
 * released or a context destroyed on one thread while another thread is
 * inside a call with it is safe: the call finishes with the objects it
 * already holds, and later calls get a stale-handle error.
 *
 * No lock, no allocation (since 1.1): looking a handle up takes no lock
 * and allocates nothing (the table is lock-free and its objects are freed
 * through epoch-based reclamation: docs/c-api.md). sy_op_call_out in
 * particular takes no lock and allocates no memory of its own between its
 * entry and the kernel: what it costs beyond the kernel is the handle
 * lookups, the binding and the resolution, on the stack. (A kernel may
 * allocate, and the first call of a shape may record a decline; errors
 * allocate their message.) sy_op_call allocates its outputs and their
 * handles; sy_tensor_release frees the tensor it drops, unless another
 * thread is inside a call at that moment — then a later release, handle
 * creation or context destruction on any thread frees it.
 *
 * ===== Per function ========================================================
 * Each function says what it does and then Ownership, Lifetime,
 * Thread-safety, Errors and Since. Where Ownership or Lifetime is not
 * mentioned nothing is retained and out-values are plain values; where
 * Thread-safety is not mentioned it is "thread-safe" (above). Every Errors
 * list implicitly includes INVALID_ARGUMENT for a NULL, stale, foreign or
 * wrong-kind handle and for a NULL out-pointer.
 *
 * ===== Strings =============================================================
 * Strings passed in are NUL-terminated UTF-8, borrowed for the call. Strings
 * handed out live as each function says: either as long as the context, or
 * (sy_last_error_message, sy_op_explain, sy_context_info_json) until the
 * next Switchyard call on the same thread — copy them if you need longer.
 */
#ifndef SWITCHYARD_SWITCHYARD_H_
#define SWITCHYARD_SWITCHYARD_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/common.h"
#include "switchyard/plugin.h" /* sy_attr_t, shared with the plugin ABI */

#ifdef __cplusplus
extern "C" {
#endif

#define SY_API_VERSION_MAJOR 1
#define SY_API_VERSION_MINOR 2

#if defined(_WIN32)
#define SY_API __declspec(dllexport)
#else
#define SY_API __attribute__((visibility("default")))
#endif

/* DLPack's managed tensor (dlpack/dlpack.h, DLPack 0.6). Include that header
 * to look inside; this one only passes pointers. */
struct DLManagedTensor;

/* ---- Handles ------------------------------------------------------------ */
typedef struct sy_context_token_t* sy_context_t;
typedef struct sy_device_token_t* sy_device_handle_t;
typedef struct sy_op_token_t* sy_op_t;
typedef struct sy_tensor_token_t* sy_tensor_t;

/* ===== Version and errors ================================================ */

/* The API version of the loaded library (SY_API_VERSION_* it was built
 * with). Either pointer may be NULL.
 * Thread-safety: thread-safe. Errors: none. Since: 1.0. */
SY_API sy_status_code_t sy_api_version(uint32_t* out_major,
                                       uint32_t* out_minor);

/* The plugin ABI (plugin.h) this library hosts: the SY_PLUGIN_ABI_MAJOR
 * and the highest SY_PLUGIN_ABI_MINOR it speaks. Either pointer may be
 * NULL. Thread-safety: thread-safe. Errors: none. Since: 1.1. */
SY_API sy_status_code_t sy_plugin_abi_version(uint32_t* out_major,
                                              uint32_t* out_minor);

/* The library's release version, e.g. "0.1.0".
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.0. */
SY_API const char* sy_library_version(void);

/* The code of the calling thread's last Switchyard call (SY_STATUS_OK if
 * none yet). Does not itself reset anything.
 * Thread-safety: per thread. Errors: none. Since: 1.0. */
SY_API sy_status_code_t sy_last_error_code(void);

/* The message of the calling thread's last Switchyard call: "" after a
 * success, never NULL.
 * Lifetime: until the next Switchyard call on this thread (this one and
 * sy_last_error_code excepted). Thread-safety: per thread. Errors: none.
 * Since: 1.0. */
SY_API const char* sy_last_error_message(void);

/* "OK", "INVALID_ARGUMENT", …; "UNKNOWN_CODE" for values outside the enum.
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.0. */
SY_API const char* sy_status_code_name(sy_status_code_t code);

/* ===== Data types ======================================================== */

/* "f32", "bf16", "bool", …; "invalid" for anything that is not one of the
 * nine tensor dtypes.
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.0. */
SY_API const char* sy_dtype_name(sy_dtype_t dtype);

/* Parses "f32", "float32", "float", "bfloat16", "int64", "bool", ….
 * Errors: INVALID_ARGUMENT for NULL arguments or an unknown name.
 * Thread-safety: thread-safe. Since: 1.0. */
SY_API sy_status_code_t sy_dtype_from_name(const char* name,
                                           sy_dtype_t* out_dtype);

/* Bytes per element: 4 for f32, 1 for bool; 0 for an invalid dtype.
 * Errors: none (does not touch the last error). Since: 1.0. */
SY_API size_t sy_dtype_size(sy_dtype_t dtype);

/* ===== Logging =========================================================== */
/* One log per process: plugin load warnings, declines, and at "debug" one
 * line per op call saying how it was resolved. By default lines go to
 * stderr and the level comes from SWITCHYARD_LOG (default "warning"). The
 * levels, from quiet to chatty: "off", "error", "warning", "info",
 * "debug". */

/* Sets the level by name (case-insensitive). Takes effect at once, for
 * every context.
 * Errors: INVALID_ARGUMENT for NULL or an unknown name (the message lists
 * the levels). Since: 1.1. */
SY_API sy_status_code_t sy_log_set_level(const char* level);

/* The current level's name ("warning", …).
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.1. */
SY_API const char* sy_log_level(void);

/* Receives log lines: `level` is a sy_log_level_t (plugin.h:
 * SY_LOG_ERROR 0 … SY_LOG_DEBUG 3), `message` the line without prefix or
 * newline, valid during the call. Called on whichever thread logs, one call
 * at a time (lines never interleave); it must return quickly and must not
 * call into Switchyard (it may run while the library holds a lock). */
typedef void (*sy_log_fn)(void* user_data, int32_t level, const char* message);

/* Sends log lines to `callback` (with `user_data`) instead of stderr; NULL
 * restores stderr. The level still filters first.
 * Thread-safety: thread-safe; a line being logged on another thread goes
 * to the old or the new destination. Errors: none. Since: 1.1. */
SY_API sy_status_code_t sy_log_set_callback(sy_log_fn callback, void* user_data);

/* ===== Tracing =========================================================== */

/* Starts writing a Chrome trace-event file (chrome://tracing, Perfetto) at
 * `path`: one event per op call (op, kernel, plugin, device, dtypes,
 * shapes, host and device time), plugin loads and allocations on tracks of
 * their own (docs/tracing.md). SWITCHYARD_TRACE=path does the same from
 * the start of the process.
 * Errors: INVALID_ARGUMENT for NULL; FAILED_PRECONDITION when a trace is
 * already being written; the file system's error; UNIMPLEMENTED in a build
 * without tracing. Since: 1.1. */
SY_API sy_status_code_t sy_trace_start(const char* path);

/* Finishes and closes the trace file sy_trace_start (or SWITCHYARD_TRACE)
 * opened. Errors: FAILED_PRECONDITION when no trace is being written.
 * Since: 1.1. */
SY_API sy_status_code_t sy_trace_stop(void);

/* ===== Contexts ========================================================== */

/* A manifest the context must not load, and why (e.g. a probe found that
 * it crashes its process): it gets a load record with outcome
 * SY_LOAD_FAILED at stage "probe" and `reason`. Since: 1.1. */
typedef struct sy_plugin_refusal_t {
  size_t struct_size;
  void* extension;
  const char* manifest_path; /* as discovery finds it (sy_plugin_discover) */
  const char* reason;
} sy_plugin_refusal_t;

/* How a context finds its plugins. Start from sy_context_options_init. */
typedef struct sy_context_options_t {
  size_t struct_size;
  void* extension;
  /* Folders or manifest files searched first, before SWITCHYARD_PLUGIN_PATH
   * and the install's plugin folder. Plugins found this way are
   * "discovered": one that fails to load is recorded, not an error. */
  const char* const* plugin_paths;
  int32_t num_plugin_paths;
  /* Manifest files loaded after discovery, each "requested": if one fails
   * to load, sy_context_create fails with its load record's reason. */
  const char* const* plugin_manifests;
  int32_t num_plugin_manifests;
  /* Plugin names: with a non-empty allow list only those load (and each
   * must); denied names never load. Added to SWITCHYARD_PLUGINS' lists. */
  const char* const* allow;
  int32_t num_allow;
  const char* const* deny;
  int32_t num_deny;
  /* Nonzero: read SWITCHYARD_PLUGIN_PATH and SWITCHYARD_PLUGINS (default 1). */
  int32_t use_environment;
  /* Nonzero: search lib/switchyard/plugins next to libswitchyard.so
   * (default 1). */
  int32_t use_default_path;
  /* 1: run ops without a kernel on the inputs' device on cpu, with copies;
   * 0: never; -1 (default): SWITCHYARD_CPU_FALLBACK=1 decides. */
  int32_t cpu_fallback;
  /* ---- 1.1 ---- */
  /* Plugin options, "plugin.option=value" each (e.g.
   * "onednn.min_elements=4096"); they override the manifest's and
   * SWITCHYARD_PLUGIN_OPTIONS'. A name or value the plugin does not take
   * fails its load, with a record naming the option. */
  const char* const* plugin_options;
  int32_t num_plugin_options;
  /* Manifests not to load (see sy_plugin_refusal_t). */
  int32_t num_refused;
  const sy_plugin_refusal_t* refused;
  /* Called on the creating thread before each step of a plugin's load that
   * reads its files or runs its code: stage is "manifest", "open" (the
   * dynamic loader runs the library's constructors), "symbol", "init"
   * (sy_plugin_init) or "register" (the plugin's load slot). For tools that
   * must name the step a crash happened in (`switchyard info --probe`
   * reports it from a child process). NULL: none. */
  void (*on_load_stage)(void* user_data, const char* stage);
  void* on_load_stage_user_data;
} sy_context_options_t;

/* Fills `options` (not NULL) with struct_size and the defaults above.
 * Inline, so that struct_size is the size this program was compiled with,
 * never a newer library's: a library reads only the fields it covers.
 * Bindings that cannot call it set the same values themselves.
 * Since: 1.0. */
static inline void sy_context_options_init(sy_context_options_t* options) {
  options->struct_size = sizeof(sy_context_options_t);
  options->extension = NULL;
  options->plugin_paths = NULL;
  options->num_plugin_paths = 0;
  options->plugin_manifests = NULL;
  options->num_plugin_manifests = 0;
  options->allow = NULL;
  options->num_allow = 0;
  options->deny = NULL;
  options->num_deny = 0;
  options->use_environment = 1;
  options->use_default_path = 1;
  options->cpu_fallback = -1;
  options->plugin_options = NULL;
  options->num_plugin_options = 0;
  options->num_refused = 0;
  options->refused = NULL;
  options->on_load_stage = NULL;
  options->on_load_stage_user_data = NULL;
}

/* Creates a context: registers the core op set, discovers and loads
 * plugins, and opens their devices. `options` may be NULL (the defaults).
 * Ownership: *out_context is the caller's; destroy it with
 * sy_context_destroy. The options and the strings they point at are
 * borrowed for the call.
 * Thread-safety: thread-safe; contexts are independent of each other.
 * Errors: INVALID_ARGUMENT (NULL out_context, struct_size too small, a
 * negative count or a NULL array with a positive count, a plugin option
 * that is not "plugin.option=value"); FAILED_PRECONDITION when a requested
 * plugin (allow list, plugin_manifests) did not load — the message holds
 * each such plugin's load record in plain words.
 * Since: 1.0 (plugin options, refusals: 1.1). */
SY_API sy_status_code_t sy_context_create(const sy_context_options_t* options,
                                          sy_context_t* out_context);

/* The manifest files sy_context_create would try with `options` (NULL:
 * the defaults), in order, without loading any: for tools that vet plugins
 * before loading them (`switchyard info --probe`). Manifests named in
 * plugin_manifests are not included (they are loaded by name).
 * Lifetime: the array and its strings live until the next Switchyard call
 * on this thread. Errors: INVALID_ARGUMENT as sy_context_create.
 * Since: 1.1. */
SY_API sy_status_code_t sy_plugin_discover(const sy_context_options_t* options,
                                           const char* const** out_paths,
                                           int32_t* out_count);

/* Destroys a context. Every tensor, device and op handle of it becomes
 * stale at once (later use is an error). Tensors exported through DLPack
 * stay valid: the context's devices and plugins are torn down only when
 * the last exported tensor's deleter has run.
 * Thread-safety: thread-safe; calls in flight on other threads finish.
 * Errors: INVALID_ARGUMENT for a NULL, stale or non-context handle
 * (destroying twice is an error, not a crash). Since: 1.0. */
SY_API sy_status_code_t sy_context_destroy(sy_context_t context);

/* Loads one more plugin from its manifest file (named explicitly, so a
 * failure is an error). Its ops and devices are usable at once.
 * Errors: INVALID_ARGUMENT (bad handle, NULL path); FAILED_PRECONDITION
 * with the plugin's load record in plain words when it did not load; the
 * attempt is in the load report either way. Since: 1.0. */
SY_API sy_status_code_t sy_context_load_plugin(sy_context_t context,
                                               const char* manifest_path);

/* Unloads a plugin by name. Its op handles then fail cleanly when called,
 * and so do its device handles: they stay valid handles, but every call
 * through them returns FAILED_PRECONDITION ("device '…' is gone").
 * Errors: NOT_FOUND (no plugin of that name); FAILED_PRECONDITION while
 * tensors on its devices are alive. Since: 1.0. */
SY_API sy_status_code_t sy_context_unload_plugin(sy_context_t context,
                                                 const char* name);

/* ---- The load report ---------------------------------------------------- */

typedef enum sy_load_outcome_t {
  SY_LOAD_LOADED = 0,  /* registered and usable */
  SY_LOAD_FAILED = 1,  /* tried and refused or broken; `reason` says why */
  SY_LOAD_SKIPPED = 2, /* deliberately not loaded (policy, duplicate) */
  /* Registered, but every device type it provides has no device (a GPU
   * plugin without a GPU); the notes say why. Since: 1.1. */
  SY_LOAD_LOADED_NO_DEVICES = 3,
} sy_load_outcome_t;

/* One plugin load attempt. Every string is non-NULL (possibly ""). */
typedef struct sy_plugin_record_t {
  size_t struct_size;
  void* extension;
  const char* name;          /* from the manifest (or the file name) */
  const char* manifest_path;
  const char* library_path;
  int32_t outcome;           /* sy_load_outcome_t */
  int32_t requested;         /* 1 when named by the user: failure is an error */
  const char* stage;         /* where it was decided: "manifest", "version", … */
  const char* reason;        /* exact reason; "" when loaded */
  const char* description;   /* one paragraph in plain words */
  const char* plugin_version;
  uint32_t host_abi_major, host_abi_minor;
  uint32_t plugin_abi_major, plugin_abi_minor; /* as the plugin answered */
  int32_t num_devices;
  int32_t num_schemas;
  int32_t num_kernels;
  int32_t reserved;
  double load_ms;
  /* ---- 1.1 ---- */
  /* The options the plugin declares (sy_context_plugin_record_option) and
   * what it logged while loading (sy_context_plugin_record_note: "no CUDA
   * device: …"). */
  int32_t num_options;
  int32_t num_notes;
} sy_plugin_record_t;

/* Number of load attempts so far (it grows with sy_context_load_plugin).
 * Errors: INVALID_ARGUMENT for bad arguments. Since: 1.0. */
SY_API sy_status_code_t sy_context_plugin_record_count(sy_context_t context,
                                                       int32_t* out_count);

/* Load attempt `index` (0-based, in the order they happened).
 * Lifetime: the strings live as long as the context.
 * Errors: INVALID_ARGUMENT (bad handle, NULL or too small out-struct);
 * OUT_OF_RANGE for an index outside [0, count). Since: 1.0. */
SY_API sy_status_code_t sy_context_plugin_record(sy_context_t context,
                                                 int32_t index,
                                                 sy_plugin_record_t* out_record);

/* One option a plugin declares, with the value it got for this load.
 * Every string is non-NULL. Since: 1.1. */
typedef struct sy_plugin_option_info_t {
  size_t struct_size;
  void* extension;
  const char* name;   /* "min_elements" */
  const char* type;   /* "int", "float", "bool", "string" */
  const char* value;  /* as given, or the declared default */
  const char* source; /* "default", "manifest", "SWITCHYARD_PLUGIN_OPTIONS",
                         "context" */
  const char* help;   /* one line */
} sy_plugin_option_info_t;

/* Option `index` in [0, record.num_options) of load record `record`.
 * Lifetime: the strings live as long as the context.
 * Errors: OUT_OF_RANGE for a bad record or option index; INVALID_ARGUMENT
 * for a too small out-struct. Since: 1.1. */
SY_API sy_status_code_t sy_context_plugin_record_option(
    sy_context_t context, int32_t record, int32_t index,
    sy_plugin_option_info_t* out_option);

/* Note `index` in [0, record.num_notes) of load record `record`: a line
 * the plugin logged while loading, or the host noted about it later.
 * Lifetime: as long as the context. Errors: OUT_OF_RANGE for a bad index.
 * Since: 1.1. */
SY_API sy_status_code_t sy_context_plugin_record_note(sy_context_t context,
                                                      int32_t record,
                                                      int32_t index,
                                                      const char** out_note);

/* Everything `switchyard info --json` shows (version, load records,
 * devices, ops and their kernels) as one JSON document.
 * Lifetime: *out_json lives until the next Switchyard call on this thread.
 * Errors: only bad arguments. Since: 1.0. */
SY_API sy_status_code_t sy_context_info_json(sy_context_t context,
                                             const char** out_json);

/* Waits for the queued work of every device of the context.
 * Errors: a device's failure (INTERNAL or the plugin's code, naming the
 * device and plugin). Since: 1.0. */
SY_API sy_status_code_t sy_context_synchronize(sy_context_t context);

/* ===== Devices =========================================================== */

/* Number of devices across every loaded device plugin ("cpu:0", …).
 * Errors: only bad arguments. Since: 1.0. */
SY_API sy_status_code_t sy_device_count(sy_context_t context,
                                        int32_t* out_count);

/* Device `index` in [0, count), in plugin load order.
 * Errors: OUT_OF_RANGE for a bad index. Since: 1.0. */
SY_API sy_status_code_t sy_device_get(sy_context_t context, int32_t index,
                                      sy_device_handle_t* out_device);

/* The device for a spec: "cpu" (index 0 of that type), "cpu:0", "cuda:1".
 * Errors: NOT_FOUND listing the devices there are. Since: 1.0. */
SY_API sy_status_code_t sy_device_find(sy_context_t context, const char* spec,
                                       sy_device_handle_t* out_device);

typedef struct sy_device_info_t {
  size_t struct_size;
  void* extension;
  const char* label;          /* "cpu:0" */
  const char* type;           /* "cpu" */
  const char* plugin;         /* the plugin that provides it */
  const char* name;           /* "host CPU", "NVIDIA H100 80GB HBM3" */
  const char* vendor;
  const char* driver_version;
  int32_t index;              /* within its type */
  int32_t compute_units;      /* cores, SMs, CUs */
  uint64_t total_memory_bytes;
  sy_device_t dl_device;      /* DLPack device (type code, id) */
  /* ---- 1.2 ---- */
  uint32_t float_flags;       /* SY_FLOAT_FLUSHES_* (common.h): subnormals
                                 this device's arithmetic may flush */
  uint32_t reserved;
} sy_device_info_t;

/* Properties of a device — also of one whose plugin was unloaded.
 * Lifetime: the strings live as long as the context.
 * Errors: INVALID_ARGUMENT for an out-struct whose struct_size is too
 * small. Since: 1.0. */
SY_API sy_status_code_t sy_device_get_info(sy_device_handle_t device,
                                           sy_device_info_t* out_info);

/* Waits until every op queued on the device's stream has finished.
 * Errors: the device's failure, naming it and its plugin. Since: 1.0. */
SY_API sy_status_code_t sy_device_synchronize(sy_device_handle_t device);

/* The device's caching allocator (see docs/architecture.md). */
typedef struct sy_allocator_stats_t {
  size_t struct_size;
  void* extension;
  uint64_t allocated_bytes;      /* in blocks handed out now */
  uint64_t reserved_bytes;       /* obtained from the device, cached or not */
  uint64_t peak_allocated_bytes;
  uint64_t num_allocations;      /* allocations served */
  uint64_t cache_hits;           /* … of which from the cache */
  uint64_t device_allocations;   /* raw allocations made */
  uint64_t device_frees;         /* raw frees made */
} sy_allocator_stats_t;

/* A snapshot of the device allocator's counters.
 * Errors: INVALID_ARGUMENT (struct_size too small); FAILED_PRECONDITION
 * when the device's plugin was unloaded. Since: 1.0. */
SY_API sy_status_code_t sy_device_allocator_stats(
    sy_device_handle_t device, sy_allocator_stats_t* out_stats);

/* Gives the allocator's cached (unused) blocks back to the device, after
 * dropping the tensors the runtime keeps on it for reuse (causal attention
 * masks; made again when next needed; since 1.2).
 * Errors: FAILED_PRECONDITION when the device's plugin was unloaded; the
 * device's failure to free. Since: 1.0. */
SY_API sy_status_code_t sy_device_empty_cache(sy_device_handle_t device);

/* ===== Tensors =========================================================== */

/* A new contiguous tensor on `device`; its contents are undefined.
 * `shape` holds `ndim` (0..SY_MAX_RANK) sizes >= 0; it may be NULL when
 * ndim is 0 (a scalar).
 * Ownership: one reference to *out_tensor is the caller's.
 * Errors: INVALID_ARGUMENT (bad dtype, rank, negative size, bad handle);
 * RESOURCE_EXHAUSTED when the device is out of memory. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_empty(sy_device_handle_t device,
                                        sy_dtype_t dtype, const int64_t* shape,
                                        int32_t ndim, sy_tensor_t* out_tensor);

/* A new tensor on `device` holding a copy of `nbytes` bytes of dense,
 * row-major host data (nbytes must equal numel × dtype size). `data` may be
 * reused as soon as this returns.
 * Errors: as sy_tensor_empty; INVALID_ARGUMENT for a size mismatch or NULL
 * data with nbytes > 0. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_from_host(sy_device_handle_t device,
                                            sy_dtype_t dtype,
                                            const int64_t* shape, int32_t ndim,
                                            const void* data, size_t nbytes,
                                            sy_tensor_t* out_tensor);

/* Waits for the tensor's pending work and copies its elements, densely in
 * row-major order, into `dst` (nbytes must equal sy_tensor_nbytes).
 * Errors: INVALID_ARGUMENT (size mismatch, NULL dst); the device's failure.
 * Since: 1.0. */
SY_API sy_status_code_t sy_tensor_to_host(sy_tensor_t tensor, void* dst,
                                          size_t nbytes);

/* The tensor on `device`: a copy when it lives elsewhere, the same tensor
 * (a new reference) when it is already there.
 * Errors: INVALID_ARGUMENT (bad handles, handles of different contexts);
 * FAILED_PRECONDITION for a symbolic tensor of a graph capture (since
 * 1.2); the devices' failures. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_to_device(sy_tensor_t tensor,
                                            sy_device_handle_t device,
                                            sy_tensor_t* out_tensor);

/* Adds a reference: the handle stays valid until released once more.
 * Errors: INVALID_ARGUMENT for a bad handle. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_retain(sy_tensor_t tensor);

/* Drops a reference; at zero the handle becomes stale and the tensor's
 * memory returns to its device once no op, view or DLPack export uses it.
 * Errors: INVALID_ARGUMENT for a bad handle (releasing too often is an
 * error, not a crash). Since: 1.0. */
SY_API sy_status_code_t sy_tensor_release(sy_tensor_t tensor);

/* Getters. None waits for pending work. Errors: only bad arguments, unless
 * said otherwise. Since: 1.0. */
/* The element type. */
SY_API sy_status_code_t sy_tensor_dtype(sy_tensor_t tensor,
                                        sy_dtype_t* out_dtype);
/* The rank, 0 (a scalar) to SY_MAX_RANK. */
SY_API sy_status_code_t sy_tensor_ndim(sy_tensor_t tensor, int32_t* out_ndim);
/* Copies ndim sizes into out_shape, which holds `capacity` entries
 * (SY_MAX_RANK always suffices). Errors: INVALID_ARGUMENT when
 * capacity < ndim. */
SY_API sy_status_code_t sy_tensor_shape(sy_tensor_t tensor, int64_t* out_shape,
                                        int32_t capacity);
/* Strides in elements, like sy_tensor_shape (same errors). Views share
 * storage and may be strided (a stride of 0 repeats an element). */
SY_API sy_status_code_t sy_tensor_strides(sy_tensor_t tensor,
                                          int64_t* out_strides,
                                          int32_t capacity);
/* The number of elements (the product of the shape; 1 for a scalar). */
SY_API sy_status_code_t sy_tensor_numel(sy_tensor_t tensor,
                                        int64_t* out_numel);
/* numel × dtype size: what sy_tensor_to_host copies. */
SY_API sy_status_code_t sy_tensor_nbytes(sy_tensor_t tensor,
                                         size_t* out_nbytes);
/* The device the tensor lives on. Ownership: the handle belongs to the
 * context (nothing to release). */
SY_API sy_status_code_t sy_tensor_device(sy_tensor_t tensor,
                                         sy_device_handle_t* out_device);
/* The address of element (0, …, 0) in the device's memory (a host address
 * only for host devices). Lifetime: valid while the tensor's memory lives
 * (the handle, a view or a DLPack export holds it). Do not write through it
 * while ops on the tensor are queued. FAILED_PRECONDITION for a symbolic
 * tensor of a graph capture, which has no memory (since 1.2). */
SY_API sy_status_code_t sy_tensor_data_ptr(sy_tensor_t tensor,
                                           void** out_data);

/* ===== DLPack ============================================================ */

/* Exports a tensor as a DLPack 0.6 DLManagedTensor without copying: it
 * points at the tensor's memory, with its shape, strides (in elements) and
 * byte offset. Waits for the tensor's pending work first.
 * Ownership: *out_managed is the caller's; hand it to one consumer, or call
 * its deleter. The export keeps the memory alive — even past the release of
 * the tensor handle and the destruction of the context — until the deleter
 * runs. The deleter is thread-safe and may run on any thread.
 * Errors: INVALID_ARGUMENT (bad handle, NULL out_managed). Since: 1.0. */
SY_API sy_status_code_t sy_tensor_to_dlpack(
    sy_tensor_t tensor, struct DLManagedTensor** out_managed);

/* How sy_tensor_from_dlpack may treat memory it cannot share. */
typedef enum sy_dlpack_import_mode_t {
  /* Share the memory; copy only when it cannot be shared (negative or
   * misaligned strides, or a build without external storage). */
  SY_DLPACK_SHARE_OR_COPY = 0,
  /* Share the memory or fail (UNIMPLEMENTED / INVALID_ARGUMENT). */
  SY_DLPACK_SHARE = 1,
  /* Always copy into memory of the matching Switchyard device. */
  SY_DLPACK_COPY = 2,
} sy_dlpack_import_mode_t;

/* Makes a tensor of a DLPack 0.6 DLManagedTensor. The DLPack device must
 * match a Switchyard device of the context (same DLPack device type code
 * and id: kDLCPU 0 is cpu:0), its dtype one of the nine (lanes 1), its rank
 * at most SY_MAX_RANK. A tensor this context exported comes back as the
 * very same memory in every mode but SY_DLPACK_COPY. Foreign memory
 * is shared by a tensor whose storage calls the DLPack deleter when the
 * last user (handle, view, op result sharing it) is gone.
 * Ownership: on success the context owns `managed` (its deleter runs once
 * — at once after a copy); on failure the caller still owns it.
 * Errors: INVALID_ARGUMENT (bad handle or mode, NULL, unsupported dtype,
 * rank, negative sizes, NULL data with elements); NOT_FOUND when no device
 * matches; UNIMPLEMENTED when SY_DLPACK_SHARE cannot share or a copy of
 * non-host memory was needed. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_from_dlpack(sy_context_t context,
                                              struct DLManagedTensor* managed,
                                              int32_t mode /* sy_dlpack_import_mode_t */,
                                              sy_tensor_t* out_tensor);

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

/* ---- Autotuning (since 1.1; docs/autotune.md) ---------------------------- */

/* Where several kernels (of several plugins, or one kernel's variants) can
 * serve a call, the autotuner measures them for the call's shape bucket on
 * this machine and keeps the winner (a verdict) in a SQLite cache shared by
 * every process (SWITCHYARD_CACHE_DIR, else $XDG_CACHE_HOME/switchyard,
 * else ~/.cache/switchyard). Verdicts are folded into the dispatch tables:
 * calls never touch the cache, and these functions are never on a call's
 * path. Reports and summaries are JSON documents (docs/c-api.md lists their
 * fields); new fields may be added in later minors. */

/* Switches the context's autotune mode by name: "off" (no verdicts),
 * "cached" (the cache's verdicts for this machine and these plugins; no
 * call is measured — the default, unless SWITCHYARD_AUTOTUNE says
 * otherwise) or "on" (as cached, and the first call of an untuned bucket
 * is measured on the calling thread and its verdict stored). Case does not
 * matter. Errors: INVALID_ARGUMENT for another name (the message lists the
 * three); a cache that cannot be read is logged as a warning and the mode
 * switched regardless. Thread-safety: thread-safe. Since: 1.1. */
SY_API sy_status_code_t sy_context_set_autotune(sy_context_t context,
                                                const char* mode);

/* The context's autotune mode: "off", "cached" or "on" (static storage).
 * Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune(sy_context_t context,
                                            const char** out_mode);

/* Flags of sy_op_tune and sy_context_tune_cases. */
enum {
  /* Measure even where the cache holds a verdict. The cache keeps its
   * first verdict (first writer wins), so a forced measurement only
   * reports. */
  SY_TUNE_FORCE = 1,
};

/* Tunes the shape bucket of one call now, on this thread, whatever the
 * mode: the cache's verdict when it has one (unless SY_TUNE_FORCE), else
 * every candidate is checked against a reference and timed, the winner is
 * stored and — unless the mode is "off" — used by later calls of that
 * bucket. `args` is as sy_op_explain_ex takes it; outputs are ignored and
 * the route must be SY_ROUTE_DEFAULT. *out_json is the report:
 *   {"op", "device", "bucket", "key_hash", "measured": bool,
 *    "winner": {"kernel", "variant", "variant_name", "time_ns"},
 *    "source": "measured" | "imported from …", "written", "applied",
 *    "note", "candidates": [{"candidate", "outcome", "median_ns",
 *    "samples", "error", "note"}], "reference", "rounds", "elapsed_ms"}
 * ("candidates" from the stored measurement when the cache answered).
 * Lifetime: until the next Switchyard call on this thread.
 * Errors: those sy_op_explain_ex returns for the arguments; INVALID_ARGUMENT
 * for another route or unknown flags; NOT_FOUND when no kernel serves the
 * call's dtypes on its device (nothing to tune); FAILED_PRECONDITION when
 * every candidate declines the bucket or none matches the reference (the
 * message says why for each). Since: 1.1. */
SY_API sy_status_code_t sy_op_tune(const sy_op_call_args_t* args, int32_t flags,
                                   const char** out_json);

/* Called by sy_context_tune_cases after each case, on the calling thread:
 * `done` of `total` cases, and that case's row (as in the result). */
typedef void (*sy_tune_progress_fn)(void* user_data, int32_t done, int32_t total,
                                    const char* row_json);

/* Runs the cases of a JSON document ({"cases": [{"op", "device", "inputs":
 * [{"dtype", "shape", "layout"}], "attrs", "list_sizes"}]}, docs/autotune.md
 * "switchyard tune") through sy_op_tune's work, on random inputs seeded by
 * the case's position; a failed case does not stop the rest. *out_json:
 *   {"rows": [{"case": "matmul f32[512, 512] f32[512, 512] on cpu",
 *              "ok": bool, "error": "…" | absent, "seconds",
 *              "report": {…sy_op_tune's…} | absent}]}
 * `progress` may be NULL. Lifetime: until the next Switchyard call on this
 * thread. Errors: INVALID_ARGUMENT naming the case and field when the
 * document is not a case list (nothing runs then). Since: 1.1. */
SY_API sy_status_code_t sy_context_tune_cases(sy_context_t context,
                                              const char* cases_json, int32_t flags,
                                              sy_tune_progress_fn progress,
                                              void* user_data,
                                              const char** out_json);

/* Writes the cache's verdicts measured on this context's devices (every
 * device's with `all_devices` = 1) to the file `path`, atomically (a
 * temporary file, then rename), as JSON that sy_context_autotune_import
 * reads; *out_count (may be NULL) is how many. Errors: PERMISSION_DENIED
 * when the file cannot be written; a cache that cannot be read. Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune_export(sy_context_t context,
                                                   const char* path,
                                                   int32_t all_devices,
                                                   int64_t* out_count);

/* Reads an export and stores each verdict that applies here (the device
 * fingerprint of one of this context's device types, the same plugins and
 * candidate kernels); the others are ignored, each with a reason. Keys the
 * cache holds keep their verdicts. *out_json is the record, which the cache
 * also keeps: {"file", "imported", "present", "ignored", "reasons": […]}.
 * Lifetime: until the next Switchyard call on this thread.
 * Errors: NOT_FOUND when the file cannot be read; INVALID_ARGUMENT when it
 * is not an export (not JSON, another format, a newer version, too large).
 * Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune_import(sy_context_t context,
                                                   const char* path,
                                                   const char** out_json);

/* What the cache holds, as JSON: {"mode", "path" ("" in memory), "exists",
 * "file_bytes", "verdicts", "applied", "stale", "devices": [{"fingerprint",
 * "here": bool, "verdicts", "ops": {op: count}}], "imports": [records],
 * "entries": [{"op", "dtypes", "bucket", "device", "kernel", "variant",
 * "variant_name", "time_ns", "source", "created"}]} ("entries": this
 * context's devices' verdicts). Lifetime: until the next Switchyard call on
 * this thread. Errors: a cache that cannot be read. Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune_info_json(sy_context_t context,
                                                      const char** out_json);

#ifdef __cplusplus
} /* extern "C" */

static_assert(sizeof(void*) == 8, "the Switchyard C API needs 64-bit handles");
static_assert(SY_STRUCT_SIZE(sy_context_options_t, on_load_stage_user_data) ==
                  sizeof(sy_context_options_t), "sy_context_options_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_context_options_t, cpu_fallback) == 88,
              "sy_context_options_t 1.0 ends at cpu_fallback");
static_assert(SY_STRUCT_SIZE(sy_plugin_record_t, num_notes) ==
                  sizeof(sy_plugin_record_t), "sy_plugin_record_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_plugin_record_t, load_ms) == 120,
              "sy_plugin_record_t 1.0 ends at load_ms");
static_assert(SY_STRUCT_SIZE(sy_plugin_refusal_t, reason) ==
                  sizeof(sy_plugin_refusal_t), "sy_plugin_refusal_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_plugin_option_info_t, help) ==
                  sizeof(sy_plugin_option_info_t), "sy_plugin_option_info_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_op_call_args_t, reserved) ==
                  sizeof(sy_op_call_args_t), "sy_op_call_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_kernel_info_t, chosen_because) ==
                  sizeof(sy_kernel_info_t), "sy_kernel_info_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_device_info_t, reserved) ==
                  sizeof(sy_device_info_t), "sy_device_info_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_allocator_stats_t, device_frees) ==
                  sizeof(sy_allocator_stats_t), "sy_allocator_stats_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_op_info_t, live) == sizeof(sy_op_info_t),
              "sy_op_info_t 1.0");
static_assert(SY_STRUCT_SIZE(sy_op_arg_t, kind_name) == sizeof(sy_op_arg_t),
              "sy_op_arg_t 1.0");
#endif

/* ===== Since 1.1: strided views and DLPack 1.0 ===========================
 * Added for the Python package (api/python): NumPy-style indexing as views,
 * and the DLPack 1.0 exchange (`__dlpack__(max_version=(1, 0))`) that
 * PyTorch and NumPy 2 speak. The general rules at the top of this header
 * apply (handles, errors, threads, strings). */
#ifdef __cplusplus
extern "C" {
#endif

/* DLPack 1.0's versioned managed tensor (dlpack/dlpack.h >= 1.0). This
 * header only passes pointers; include a DLPack 1.0 header to look inside. */
struct DLManagedTensorVersioned;

/* A view of `tensor`'s memory with another layout: `ndim` (0..SY_MAX_RANK)
 * sizes >= 0 and strides >= 0 in elements, starting `offset` elements
 * (>= 0) after `tensor`'s first element — what NumPy's basic indexing and
 * PyTorch's as_strided make. Nothing is copied or waited for; the view
 * shares the memory (ops writing one are seen through the other).
 * Ownership: one reference to *out_tensor is the caller's; it keeps the
 * memory alive on its own. Thread-safety: thread-safe.
 * Errors: INVALID_ARGUMENT (bad handle, NULL out_tensor or arrays with
 * ndim > 0, a rank outside [0, SY_MAX_RANK], a negative size, stride or
 * offset, sizes whose element count overflows int64, or a layout reaching
 * past the end of the tensor's memory — the message gives the element it
 * would reach and the memory's size). Since: 1.1. */
SY_API sy_status_code_t sy_tensor_as_strided(sy_tensor_t tensor,
                                             const int64_t* shape,
                                             const int64_t* strides,
                                             int32_t ndim, int64_t offset,
                                             sy_tensor_t* out_tensor);

/* DLPack 1.0 flag bits (DLPack's DLPACK_FLAG_BITMASK_*), for `flags`. */
#define SY_DLPACK_FLAG_READ_ONLY ((uint64_t)1 << 0)
#define SY_DLPACK_FLAG_IS_COPIED ((uint64_t)1 << 1)

/* Exports a tensor as a DLPack 1.0 DLManagedTensorVersioned (version 1.0)
 * without copying, like sy_tensor_to_dlpack (it waits for the tensor's
 * pending work, so a consumer may read it on any stream at once). `flags`
 * (0, or SY_DLPACK_FLAG_READ_ONLY and/or SY_DLPACK_FLAG_IS_COPIED) are
 * written into the export's flags: IS_COPIED tells the consumer the memory
 * is a copy made for it (Python's `__dlpack__(copy=True)`).
 * Ownership and lifetime: as sy_tensor_to_dlpack; the deleter is
 * DLManagedTensorVersioned's own.
 * Errors: INVALID_ARGUMENT (bad handle, NULL out_managed, flag bits other
 * than those two); the device's failure to synchronize. Since: 1.1. */
SY_API sy_status_code_t sy_tensor_to_dlpack_versioned(
    sy_tensor_t tensor, uint64_t flags,
    struct DLManagedTensorVersioned** out_managed);

/* Makes a tensor of a DLPack 1.x DLManagedTensorVersioned, with the rules
 * and modes of sy_tensor_from_dlpack. Memory flagged READ_ONLY is never
 * shared (Switchyard tensors are writable: `out=` writes them): it is
 * copied under SY_DLPACK_SHARE_OR_COPY and SY_DLPACK_COPY, refused under
 * SY_DLPACK_SHARE. A tensor this library exported comes back as the same
 * memory, as with sy_tensor_from_dlpack. Writable memory flagged IS_COPIED
 * (a copy the producer made for this import) is shared under every mode,
 * SY_DLPACK_COPY included: it is private already (since 1.2).
 * Ownership: on success the context owns `managed` (its deleter runs once,
 * when the last tensor over the memory is gone or at once after a copy);
 * on failure the caller still owns it.
 * Errors: as sy_tensor_from_dlpack, and INVALID_ARGUMENT for a major
 * version other than 1 (the message gives it) or a read-only tensor under
 * SY_DLPACK_SHARE. Since: 1.1. */
SY_API sy_status_code_t sy_tensor_from_dlpack_versioned(
    sy_context_t context, struct DLManagedTensorVersioned* managed,
    int32_t mode /* sy_dlpack_import_mode_t */, sy_tensor_t* out_tensor);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ===== Since 1.2: areas in headers of their own ========================== */
#include "switchyard/graph.h"       /* graphs: capture, compile, launch */
#include "switchyard/distributed.h" /* communicators for collective ops */

#endif /* SWITCHYARD_SWITCHYARD_H_ */
