/* Switchyard — communicators for collective ops (part of the C API).
 *
 * Included by switchyard.h; the rules written there (handles, errors,
 * threads, strings, structs) hold here too. docs/distributed.md explains the
 * model; this header is the reference.
 *
 * A communicator is one process's membership of a group of `world_size`
 * processes (ranks), bound to one device of that process. The collective
 * ops of the core op set — all_reduce, all_gather, reduce_scatter,
 * broadcast, send, recv, barrier — take it as their `Communicator comm`
 * argument and are called like any op (sy_op_call): they are queued on the
 * device's stream, run by the engine of the device's plugin (cuda: NCCL,
 * cpu: Gloo), and every rank must call the same collectives in the same
 * order with matching shapes and dtypes.
 *
 *   sy_communicator_args_t args;
 *   sy_communicator_args_init(&args);
 *   args.device = cuda0; args.rank = rank; args.world_size = 2;
 *   args.rendezvous = "tcp://127.0.0.1:29500";
 *   sy_communicator_t comm;
 *   sy_communicator_create(&args, &comm);          // blocks for every rank
 *   sy_op_t all_reduce;
 *   sy_op_find(ctx, "all_reduce", &all_reduce);
 *   sy_attr_t attrs[2] = {sy_attr_communicator(comm), sum};  // sum: "sum"
 *   sy_op_call(all_reduce, &x, 1, attrs, 2, &y, 1);
 *   sy_communicator_destroy(comm);
 *
 * How a communicator crosses the op call: as an attribute of kind
 * SY_ATTR_COMMUNICATOR (plugin.h) whose value.i holds the sy_communicator_t
 * token (sy_attr_communicator builds it). The library checks the handle
 * (stale, foreign context, wrong kind: INVALID_ARGUMENT naming the
 * argument) and hands the op's kernel the communicator's own description
 * (sy_communicator_ref_t) in its place.
 */
#ifndef SWITCHYARD_DISTRIBUTED_H_
#define SWITCHYARD_DISTRIBUTED_H_

#include "switchyard/base.h"
#include "switchyard/plugin/types.h" /* sy_attr_t */

#ifdef __cplusplus
extern "C" {
#endif

/* A communicator handle: a generation-checked token like the others; it
 * belongs to the context of its device. Since: 1.2. */
typedef struct sy_communicator_token_t* sy_communicator_t;

/* sy_communicator_create's arguments. Start from sy_communicator_args_init.
 * Since: 1.2. */
typedef struct sy_communicator_args_t {
  size_t struct_size;
  void* extension;
  /* The device the communicator is bound to; its plugin's engine runs the
   * collectives (cpu: Gloo over TCP; cuda: NCCL). */
  sy_device_handle_t device;
  int32_t rank;       /* this process's rank, 0 <= rank < world_size */
  int32_t world_size; /* the number of ranks, >= 1 */
  /* Where the ranks meet: "file:///dir" (a directory every rank can write,
   * fresh for each job) or "tcp://host:port" (rank 0 listens there; the
   * others connect). Borrowed for the call. */
  const char* rendezvous;
  /* Milliseconds the rendezvous waits for every rank, and each blocking
   * step of the engine for a peer; 0 takes the default, 60000. */
  int64_t timeout_ms;
} sy_communicator_args_t;

/* Fills `args` (not NULL) with struct_size and defaults: rank 0 of 1, no
 * device, no rendezvous, the default timeout. Since: 1.2. */
static inline void sy_communicator_args_init(sy_communicator_args_t* args) {
  args->struct_size = sizeof(sy_communicator_args_t);
  args->extension = NULL;
  args->device = NULL;
  args->rank = 0;
  args->world_size = 1;
  args->rendezvous = NULL;
  args->timeout_ms = 0;
}

/* Joins a group: meets the other ranks at the rendezvous, checks that they
 * all came with the same world size and device type, and makes the
 * engine's communicator. Blocks until every rank has arrived, or the
 * timeout.
 * Ownership: *out_comm is the caller's; destroy it with
 * sy_communicator_destroy (or destroy its context).
 * Lifetime: until destroyed; it keeps its device's plugin loaded.
 * Thread-safety: thread-safe; a process that makes several communicators
 * must make them in the same order on every rank (they share the
 * rendezvous under per-communicator keys).
 * Errors: INVALID_ARGUMENT for a bad struct_size, a NULL or unknown
 * rendezvous scheme, a rank outside 0..world_size-1, world_size < 1, a
 * negative timeout, a rank that arrived with another world size or device
 * type, or a rank claimed twice (the message names them); DEADLINE_EXCEEDED
 * naming the ranks that did not arrive in time; UNIMPLEMENTED when the
 * device's plugin has no collectives; FAILED_PRECONDITION when its engine's
 * library is missing (the message says what to install); UNAVAILABLE when
 * the rendezvous cannot be reached (directory not writable, port taken).
 * Since: 1.2. */
SY_API sy_status_code_t sy_communicator_create(
    const sy_communicator_args_t* args, sy_communicator_t* out_comm);

/* Destroys a communicator: its handle becomes stale at once; the engine's
 * communicator is freed when the last call using it returns, after the
 * work those calls enqueued has finished.
 * Thread-safety: thread-safe; a call on another thread that already holds
 * the handle finishes normally.
 * Errors: INVALID_ARGUMENT for a stale (destroyed twice) handle.
 * Since: 1.2. */
SY_API sy_status_code_t sy_communicator_destroy(sy_communicator_t comm);

/* What a communicator is. Since: 1.2. */
typedef struct sy_communicator_info_t {
  size_t struct_size;
  void* extension;
  int32_t rank;
  int32_t world_size;
  sy_device_handle_t device;
  const char* engine;     /* "gloo", "nccl" */
  const char* rendezvous; /* as given */
  int64_t timeout_ms;
} sy_communicator_info_t;

/* Fills `out_info` (set its struct_size first).
 * Lifetime: the strings live as long as the communicator.
 * Errors: INVALID_ARGUMENT for a too-small struct_size. Since: 1.2. */
SY_API sy_status_code_t sy_communicator_get_info(
    sy_communicator_t comm, sy_communicator_info_t* out_info);

/* The attribute that passes `comm` to an op's Communicator argument.
 * Since: 1.2. */
static inline sy_attr_t sy_attr_communicator(sy_communicator_t comm) {
  sy_attr_t attr;
  attr.kind = SY_ATTR_COMMUNICATOR;
  attr.reserved = 0;
  attr.value.i = (int64_t)(uintptr_t)comm;
  return attr;
}

#ifdef __cplusplus
}  /* extern "C" */
static_assert(SY_STRUCT_SIZE(sy_communicator_args_t, timeout_ms) ==
                  sizeof(sy_communicator_args_t), "sy_communicator_args_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_communicator_info_t, timeout_ms) ==
                  sizeof(sy_communicator_info_t), "sy_communicator_info_t 1.2");
#endif

#endif /* SWITCHYARD_DISTRIBUTED_H_ */
