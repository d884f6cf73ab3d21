/* Switchyard — devices and their allocators (part of the C API).
 *
 * Part of the C API: switchyard/switchyard.h includes it, and the rules
 * written at the top of that header (versioning, structs, handles,
 * errors, threads, per-function sections, strings) hold here too.
 * Compiles on its own (C99 or C++), but programs include the umbrella,
 * switchyard/switchyard.h.
 */
#ifndef SWITCHYARD_DEVICE_H_
#define SWITCHYARD_DEVICE_H_

#include "switchyard/base.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* Gives the allocator's cached (unused) blocks back to the device — those
 * in every thread's own small-block cache included — after
 * dropping the tensors the runtime keeps on it for reuse (causal attention
 * masks; made again when next needed; since 1.2).
 * Errors: FAILED_PRECONDITION when the device's plugin was unloaded; the
 * device's failure to free. Since: 1.0. */
SY_API sy_status_code_t sy_device_empty_cache(sy_device_handle_t device);

#ifdef __cplusplus
}  /* extern "C" */

static_assert(SY_STRUCT_SIZE(sy_device_info_t, reserved) ==
                  sizeof(sy_device_info_t), "sy_device_info_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_allocator_stats_t, device_frees) ==
                  sizeof(sy_allocator_stats_t), "sy_allocator_stats_t 1.0");
#endif

#endif  /* SWITCHYARD_DEVICE_H_ */
