/* Switchyard — graph capture, compilation and replay (the fusion pass).
 *
 * Included by switchyard.h; the rules written at its top (handles, errors,
 * threads, strings, per-function sections) hold here too. docs/fusion.md
 * explains the pass; this header is the reference.
 *
 *   sy_graph_capture_begin(ctx, NULL);          // this thread records
 *   sy_tensor_t x, y, z;
 *   sy_graph_capture_input(ctx, x0, "x", &x);   // symbolic, like x0
 *   sy_graph_capture_input(ctx, y0, "y", &y);
 *   sy_op_call(mul, (sy_tensor_t[]){x, y}, 2, NULL, 0, &z, 1);  // recorded
 *   sy_graph_capture_output(ctx, z, "z");
 *   sy_graph_t g;
 *   sy_graph_capture_end(ctx, &g);              // recording stops
 *   sy_graph_compile(g, NULL);                  // fuses, compiles kernels
 *   sy_tensor_t out;
 *   sy_graph_launch(g, (sy_tensor_t[]){x1, y1}, 2, &out, 1);  // runs
 *   sy_graph_release(g);
 *
 * ===== Capture =============================================================
 * Between sy_graph_capture_begin and sy_graph_capture_end, every op the
 * calling thread calls (sy_op_call, sy_op_call_ex) is recorded instead of
 * run: it returns tensors that are symbolic — they have a dtype, a shape,
 * strides and a device, but no memory, so they cannot be read, exported or
 * copied (FAILED_PRECONDITION), only passed to more ops of the capture, or
 * marked as outputs. Other threads run their ops as usual. A capture
 * belongs to one thread and one context.
 *
 * Graph inputs are declared, as the arguments of a function compiled by
 * torch.compile are: sy_graph_capture_input(ctx, example, …) returns a
 * symbolic tensor shaped like `example` (its values are never read), and
 * each launch passes a real tensor for it, in the order of the
 * declarations. A real tensor that the captured ops read without being
 * declared is a constant of the graph (a weight): the graph holds a
 * reference to it and reads its contents at every launch, so a weight
 * updated in place between launches is seen by the next one. Outputs are
 * marked with sy_graph_capture_output, in the order a launch returns them.
 *
 * An op whose output shape depends on the values of its inputs (nonzero,
 * unique, masked_select), or a call into given outputs (sy_op_call_out),
 * cannot be recorded: the call fails with UNIMPLEMENTED or
 * FAILED_PRECONDITION naming the op, the capture is over (every later op
 * call and sy_graph_capture_output of it fail with the same error), and
 * sy_graph_capture_end returns that error. Captures do not nest.
 *
 * ===== Compile and launch =================================================
 * sy_graph_compile runs the fusion pass (docs/fusion.md): decompositions,
 * dead code and common subexpressions, pattern kernels, groups of
 * elementwise ops with at most one trailing row reduction compiled into
 * one kernel each by the device's plugin (cached in memory and on disk). A
 * group no plugin compiles runs op by op; sy_graph_explain says why.
 * sy_graph_launch runs the compiled graph on new inputs of the captured
 * dtypes, shapes and devices, asynchronously like op calls.
 *
 * ===== Since 1.2 =========================================================== */
#ifndef SWITCHYARD_GRAPH_H_
#define SWITCHYARD_GRAPH_H_

#include "switchyard/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A captured graph: a handle like the others (generation-checked; a stale
 * or released one is an error, not a crash), owned by whoever got it from
 * sy_graph_capture_end until sy_graph_release. */
typedef struct sy_graph_token_t* sy_graph_t;

/* ---- Capture -------------------------------------------------------------- */

/* Options of sy_graph_capture_begin. Start from sy_graph_capture_args_init. */
typedef struct sy_graph_capture_args_t {
  size_t struct_size;
  void* extension;
  /* More base names of ops whose output shape depends on their inputs'
   * values (a plugin's "vendor::nonzero"), ending a capture like the
   * built-in ones (nonzero, unique, masked_select), which stay. May be
   * NULL when num_uncapturable is 0. */
  const char* const* uncapturable;
  int32_t num_uncapturable;
  int32_t reserved;
} sy_graph_capture_args_t;

/* Fills struct_size and the defaults (no extra uncapturable ops).
 * Errors: INVALID_ARGUMENT for NULL. Since: 1.2. */
SY_API sy_status_code_t sy_graph_capture_args_init(sy_graph_capture_args_t* args);

/* Starts recording the calling thread's op calls of `context` (see
 * "Capture" above). `args` may be NULL for the defaults.
 * Ownership: `args` and its strings are borrowed for the call.
 * Lifetime: the capture lasts until sy_graph_capture_end on this thread.
 * If the thread exits first, it is discarded; if the context is destroyed
 * first, this thread's next sy_graph_capture_end or _begin discards it.
 * Thread-safety: per thread; other threads may capture at the same time.
 * Errors: FAILED_PRECONDITION when this thread already captures (captures
 * do not nest; the message names the context); INVALID_ARGUMENT for a
 * struct_size too small or a NULL name. Since: 1.2. */
SY_API sy_status_code_t sy_graph_capture_begin(
    sy_context_t context, const sy_graph_capture_args_t* args);

/* Declares the next graph input, shaped like `example` (dtype, shape,
 * strides, device; its values are never read), and returns the symbolic
 * tensor to compute with. `name` (may be NULL: "input <n>") names the
 * input in errors and explanations.
 * Ownership: one reference to *out_input is the caller's; release it like
 * any tensor (after the capture is fine). `example` is borrowed.
 * Errors: FAILED_PRECONDITION when this thread does not capture for
 * `context`, or the capture was ended by an op that cannot be captured
 * (that error); INVALID_ARGUMENT for a tensor of another context or one
 * that is a symbolic tensor of the capture itself. Since: 1.2. */
SY_API sy_status_code_t sy_graph_capture_input(sy_context_t context,
                                               sy_tensor_t example,
                                               const char* name,
                                               sy_tensor_t* out_input);

/* Marks `tensor` (a result of the capture's ops, an input, or a real
 * tensor) as the next graph output. `name` may be NULL ("output <n>").
 * Ownership: `tensor` is borrowed; the caller still releases it.
 * Errors: as sy_graph_capture_input; INVALID_ARGUMENT for a symbolic
 * tensor of another capture. Since: 1.2. */
SY_API sy_status_code_t sy_graph_capture_output(sy_context_t context,
                                                sy_tensor_t tensor,
                                                const char* name);

/* Stops recording and returns the graph. The capture ends whether or not
 * this succeeds: on an error the recorded ops are discarded, and the
 * thread records nothing more.
 * Ownership: *out_graph is the caller's; free it with sy_graph_release.
 * The symbolic tensors of the capture stay valid handles (still without
 * values) until released.
 * Lifetime: the graph holds the constants it reads (see "Capture") and
 * lives until sy_graph_release or the context's destruction.
 * Errors: FAILED_PRECONDITION when this thread does not capture for
 * `context` (never began, or ended already) or no output was marked; the
 * error that ended the capture (an op that cannot be captured, named in
 * the message: UNIMPLEMENTED, FAILED_PRECONDITION or INVALID_ARGUMENT);
 * INVALID_ARGUMENT for a stale context (a capture of it is discarded).
 * Since: 1.2. */
SY_API sy_status_code_t sy_graph_capture_end(sy_context_t context,
                                             sy_graph_t* out_graph);

/* ---- Compile -------------------------------------------------------------- */

/* Which pattern kernels (matmul + bias + gelu into one GEMM epilogue, …)
 * replace the ops they match. */
typedef enum sy_graph_patterns_t {
  /* Where the plugin measured the pattern faster than what runs otherwise
   * (the default). */
  SY_GRAPH_PATTERNS_MEASURED = 0,
  /* Wherever a pattern matches. */
  SY_GRAPH_PATTERNS_ALWAYS = 1,
  /* Never. */
  SY_GRAPH_PATTERNS_OFF = 2,
} sy_graph_patterns_t;

/* Options of sy_graph_compile. Start from sy_graph_compile_args_init. */
typedef struct sy_graph_compile_args_t {
  size_t struct_size;
  void* extension;
  /* 0: run every op as captured, one by one (the unfused baseline);
   * 1 (default): fuse. */
  int32_t fuse;
  /* 0: as if no plugin could compile fused kernels (every group runs op by
   * op, after decomposition and clean-up); 1 (default). */
  int32_t plugin_compilers;
  /* 1 (default): decompose softmax, log_softmax, layer_norm, rms_norm and
   * contiguous where the device has a fusion compiler, so that they fuse
   * with their neighbours; 0: keep them whole. */
  int32_t decompose;
  /* sy_graph_patterns_t. */
  int32_t patterns;
} sy_graph_compile_args_t;

/* Fills struct_size and the defaults (fuse, plugin compilers, decompose,
 * measured patterns). Errors: INVALID_ARGUMENT for NULL. Since: 1.2. */
SY_API sy_status_code_t sy_graph_compile_args_init(sy_graph_compile_args_t* args);

/* Compiles `graph` for launching (see "Compile and launch"); `args` may be
 * NULL for the defaults. Compiling again (with other options) replaces the
 * plan; launches already running finish with the old one.
 * Ownership: `args` is borrowed for the call.
 * Thread-safety: thread-safe, also while other threads launch the graph.
 * Must not be called while the calling thread captures.
 * Errors: INVALID_ARGUMENT for a struct_size too small, a flag other than
 * 0 or 1 or an unknown patterns value (the message names the field);
 * FAILED_PRECONDITION while this thread captures, or when a plugin the
 * graph's ops ran on was unloaded; a plugin's refusal to compile a group is
 * not an error (the group runs op by op; sy_graph_explain says why).
 * Since: 1.2. */
SY_API sy_status_code_t sy_graph_compile(sy_graph_t graph,
                                         const sy_graph_compile_args_t* args);

/* ---- Launch --------------------------------------------------------------- */

/* Runs the compiled graph on `inputs` (one real tensor per declared input,
 * in order, of the captured dtype, shape and device; a strided tensor is
 * accepted for an input captured contiguous — it is copied first) and
 * returns new tensors for its outputs, in order. The work is queued on the
 * devices' streams, as op calls are.
 * Ownership: one reference to each output is the caller's; inputs are
 * borrowed for the call.
 * Thread-safety: thread-safe: several threads may launch one graph at once.
 * Errors: FAILED_PRECONDITION when the graph was never compiled, the
 * calling thread captures, or an input is a symbolic tensor;
 * INVALID_ARGUMENT when num_inputs or num_outputs differs from the graph's
 * (the message gives both and names the inputs), or an input has another
 * dtype, shape, device or (captured strided) layout than captured — the
 * message names the input by index and name and says what was expected;
 * INVALID_ARGUMENT for a NULL, stale or foreign input handle (by index);
 * a kernel's own error. Since: 1.2. */
SY_API sy_status_code_t sy_graph_launch(sy_graph_t graph,
                                        const sy_tensor_t* inputs,
                                        int32_t num_inputs,
                                        sy_tensor_t* out_outputs,
                                        int32_t num_outputs);

/* Frees the graph: its handle becomes stale and its compiled kernels and
 * constants are released once no launch uses them.
 * Errors: INVALID_ARGUMENT for a stale handle (released twice).
 * Since: 1.2. */
SY_API sy_status_code_t sy_graph_release(sy_graph_t graph);

/* ---- Queries -------------------------------------------------------------- */

typedef struct sy_graph_info_t {
  size_t struct_size;
  void* extension;
  int32_t num_inputs;
  int32_t num_outputs;
  int32_t num_ops;         /* as captured */
  int32_t compiled;        /* 1 after a successful sy_graph_compile */
  /* Of the current compilation (0 before one): */
  int32_t fused_groups;    /* groups that run as one fused kernel each */
  int32_t fused_ops;       /* ops inside them */
  int32_t unfused_groups;  /* groups no plugin compiled (run op by op) */
  int32_t patterns;        /* matches replaced by a pattern kernel */
  int32_t kernels_compiled;
  int32_t kernels_from_memory;
  int32_t kernels_from_disk;
  int32_t reserved;
  double compile_ms;       /* the whole sy_graph_compile */
} sy_graph_info_t;

/* Counts and statistics of `graph`.
 * Errors: INVALID_ARGUMENT for an out-struct whose struct_size is too
 * small. Since: 1.2. */
SY_API sy_status_code_t sy_graph_get_info(sy_graph_t graph,
                                          sy_graph_info_t* out_info);

/* One input or output of a graph, as captured. */
typedef struct sy_graph_value_info_t {
  size_t struct_size;
  void* extension;
  const char* name;        /* as declared, or "input 0" / "output 0" */
  sy_dtype_t dtype;
  int32_t ndim;
  int64_t shape[SY_MAX_RANK];
  sy_device_handle_t device;
} sy_graph_value_info_t;

/* Input (`is_output` 0) or output (1) number `index` of `graph`.
 * Lifetime: `name` lives as long as the graph.
 * Errors: OUT_OF_RANGE for a bad index; INVALID_ARGUMENT for a too small
 * out-struct or an `is_output` other than 0 or 1; FAILED_PRECONDITION when
 * the device's plugin was unloaded. Since: 1.2. */
SY_API sy_status_code_t sy_graph_get_value(sy_graph_t graph, int32_t is_output,
                                           int32_t index,
                                           sy_graph_value_info_t* out_value);

/* Flags of sy_graph_explain. */
enum {
  /* JSON instead of text:
   *   {"compiled": bool, "inputs": [{"name", "dtype", "shape", "device"}],
   *    "outputs": [same], "captured": [{"id", "op", "device", "runs"}],
   *    "stats": {"captured_ops", "ops_after_decomposition", "dead_ops",
   *              "merged_ops", "patterns", "fused_groups", "fused_ops",
   *              "unfused_groups", "kernels_compiled", "kernels_from_memory",
   *              "kernels_from_disk", "codegen_ms", "total_ms"},
   *    "steps": [{"kind": "fused", "device", "plugin", "kernel", "ops": [],
   *               "rows", "row_length", "elements"} |
   *              {"kind": "op", "id", "op", "device", "runs", "not_fused"}],
   *    "notes": []}
   * ("stats", "steps" and "notes" once compiled). New fields may come. */
  SY_GRAPH_EXPLAIN_JSON = 1,
  /* With the text form: each fused kernel's IR too. */
  SY_GRAPH_EXPLAIN_KERNELS = 2,
};

/* How `graph` runs, as sy_op_explain says for an op: before compilation,
 * the captured ops and how each would run alone; after it, the plan — each
 * fused group with its ops, its kernel and the plugin that compiled it, and
 * each op that runs alone with its kernel and why it was not fused.
 * Lifetime: *out_text lives until the next Switchyard call on this thread.
 * Errors: INVALID_ARGUMENT for unknown flags. Since: 1.2. */
SY_API sy_status_code_t sy_graph_explain(sy_graph_t graph, int32_t flags,
                                         const char** out_text);

#ifdef __cplusplus
} /* extern "C" */

static_assert(SY_STRUCT_SIZE(sy_graph_capture_args_t, reserved) ==
                  sizeof(sy_graph_capture_args_t), "sy_graph_capture_args_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_graph_compile_args_t, patterns) ==
                  sizeof(sy_graph_compile_args_t), "sy_graph_compile_args_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_graph_info_t, compile_ms) == sizeof(sy_graph_info_t),
              "sy_graph_info_t 1.2");
static_assert(SY_STRUCT_SIZE(sy_graph_value_info_t, device) ==
                  sizeof(sy_graph_value_info_t), "sy_graph_value_info_t 1.2");
#endif

#endif /* SWITCHYARD_GRAPH_H_ */
