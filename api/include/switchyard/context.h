/* Switchyard — contexts, plugin loading and the load report (part of the C
 * API).
 *
 * Part of the C API: switchyard/switchyard.h includes it, and the rules
 * written at the top of that header (versioning, structs, handles,
 * errors, threads, per-function sections, strings) hold here too.
 * Compiles on its own (C99 or C++), but programs include the umbrella,
 * switchyard/switchyard.h.
 */
#ifndef SWITCHYARD_CONTEXT_H_
#define SWITCHYARD_CONTEXT_H_

#include "switchyard/base.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}  /* extern "C" */

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
#endif

#endif  /* SWITCHYARD_CONTEXT_H_ */
