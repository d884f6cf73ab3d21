/* Switchyard — the public C API.
 *
 * Everything an application (or a language binding) needs: contexts, the
 * plugin load report, devices, tensors, DLPack exchange, ops, streams and
 * allocator statistics, logging, tracing and autotuning; graph capture,
 * compilation and replay; communicators. Pure C99; implemented in
 * libswitchyard.so (the same library as the core, so a binding loads
 * exactly one file).
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
 * docs/c-api.md explains the model. The declarations live in one header per
 * area, which this one includes; include this one. The rules below hold in
 * each of them:
 *   switchyard/base.h         versions, handle types, the last error, dtypes
 *   switchyard/logging.h      the log and traces
 *   switchyard/context.h      contexts, plugin loading, the load report
 *   switchyard/device.h       devices and their allocators
 *   switchyard/tensor.h       tensors, strided views, DLPack
 *   switchyard/op.h           ops: lookup, calls, explain, routes, kernels
 *   switchyard/autotune.h     autotuning
 *   switchyard/graph.h        graphs: capture, compile, launch
 *   switchyard/distributed.h  communicators for collective ops
 * With the plugin ABI's shared types (switchyard/common.h,
 * switchyard/plugin.h), these headers are the reference.
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

#include "switchyard/base.h"        /* versions, handles, errors, dtypes */
#include "switchyard/logging.h"     /* the log, traces */
#include "switchyard/context.h"     /* contexts, plugins, load records */
#include "switchyard/device.h"      /* devices, allocators */
#include "switchyard/tensor.h"      /* tensors, views, DLPack */
#include "switchyard/op.h"          /* ops, calls, explain, kernels */
#include "switchyard/autotune.h"    /* autotuning */
#include "switchyard/graph.h"       /* graphs: capture, compile, launch */
#include "switchyard/distributed.h" /* communicators for collective ops */

#endif /* SWITCHYARD_SWITCHYARD_H_ */
