/* Switchyard plugin ABI — the collectives extension
 * (SY_EXTENSION_COLLECTIVES): communicators and the rendezvous store.
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_COLLECTIVES_H_
#define SWITCHYARD_PLUGIN_COLLECTIVES_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/common.h"
#include "switchyard/plugin/types.h"
#include "switchyard/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
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
#endif

#endif  /* SWITCHYARD_PLUGIN_COLLECTIVES_H_ */
