/* Switchyard plugin ABI — the device API: the table of a device type a
 * plugin provides (memory, copies, streams, events).
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_DEVICE_H_
#define SWITCHYARD_PLUGIN_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/plugin/types.h"
#include "switchyard/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
static_assert(SY_STRUCT_SIZE(sy_device_properties_t, reserved1) ==
                  sizeof(sy_device_properties_t), "sy_device_properties_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_device_api_t, event_elapsed_ms) ==
                  sizeof(sy_device_api_t), "sy_device_api_t 1.0");
#endif

#endif  /* SWITCHYARD_PLUGIN_DEVICE_H_ */
