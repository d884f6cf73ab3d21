/* Switchyard plugin ABI — the only header a backend plugin needs.
 *
 * A plugin is a shared library that exports exactly one symbol,
 * `sy_plugin_init`. The host (libswitchyard) loads it with RTLD_LOCAL, calls
 * that symbol with a table of host functions, and receives the plugin's own
 * table back. Plugins never link against host symbols: everything they need
 * from the host arrives through sy_host_api_t.
 *
 * The declarations live in one header per area, which this one includes;
 * include this one. The rules below hold in each of them:
 *   switchyard/common.h               status codes, dtypes, sy_device_t
 *                                     (shared with the C API)
 *   switchyard/plugin/version.h       the ABI version, SY_STRUCT_HAS and
 *                                     SY_STRUCT_SIZE, the extension chain
 *   switchyard/plugin/types.h         opaque handles, log levels, tensor
 *                                     views and metas, attributes
 *   switchyard/plugin/shape.h         shape functions, schemas
 *   switchyard/plugin/kernels.h       kernels, declining, variants
 *   switchyard/plugin/options.h       plugin options
 *   switchyard/plugin/device.h        the device API
 *   switchyard/plugin/fusion.h        fused-kernel IR, fusion hooks,
 *                                     pattern kernels
 *   switchyard/plugin/collectives.h   communicators and collectives
 *   switchyard/plugin/entry.h         sy_plugin_init, the host's table,
 *                                     the plugin's table
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

#include "switchyard/plugin/version.h"     /* versioning, extension chain */
#include "switchyard/plugin/types.h"       /* handles, views, attributes */
#include "switchyard/plugin/shape.h"       /* shape functions, schemas */
#include "switchyard/plugin/kernels.h"     /* kernels and their registration */
#include "switchyard/plugin/options.h"     /* plugin options */
#include "switchyard/plugin/device.h"      /* the device API */
#include "switchyard/plugin/fusion.h"      /* fused kernels, patterns */
#include "switchyard/plugin/collectives.h" /* communicators, collectives */
#include "switchyard/plugin/entry.h"       /* sy_plugin_init and the tables */

#endif  /* SWITCHYARD_PLUGIN_H_ */
