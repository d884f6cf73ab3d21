/* Switchyard plugin ABI — versioning: the ABI version, the struct_size
 * macros and the typed extension chain every struct may carry.
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_VERSION_H_
#define SWITCHYARD_PLUGIN_VERSION_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The plugin ABI these headers describe ("Versioning" at the top of
 * plugin.h). Since: 1.0. */
#define SY_PLUGIN_ABI_MAJOR 1
#define SY_PLUGIN_ABI_MINOR 4

/* True when a struct written with `ptr->struct_size` bytes contains `field`.
 * Since: 1.0. */
#define SY_STRUCT_HAS(ptr, type, field)        \
  ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

/* The struct_size of `type` as it was when `last_field` closed it.
 * Since: 1.0. */
#define SY_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

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

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
static_assert(sizeof(sy_extension_t) == 24, "sy_extension_t 1.1");
#endif

#endif  /* SWITCHYARD_PLUGIN_VERSION_H_ */
