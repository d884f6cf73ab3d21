/* Switchyard plugin ABI — the options a plugin declares and reads during
 * `load`.
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_OPTIONS_H_
#define SWITCHYARD_PLUGIN_OPTIONS_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
static_assert(SY_STRUCT_SIZE(sy_plugin_option_t, help) ==
                  sizeof(sy_plugin_option_t), "sy_plugin_option_t 1.1");
static_assert(sizeof(sy_option_value_t) == 16, "sy_option_value_t is frozen");
#endif

#endif  /* SWITCHYARD_PLUGIN_OPTIONS_H_ */
