/* Switchyard plugin ABI — the fusion extensions: the fused-kernel IR and
 * its hooks (SY_EXTENSION_FUSION), and pattern kernels
 * (SY_EXTENSION_PATTERNS).
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_FUSION_H_
#define SWITCHYARD_PLUGIN_FUSION_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/common.h"
#include "switchyard/plugin/types.h"
#include "switchyard/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Fused kernels (SY_EXTENSION_FUSION; since 1.1) ----------------------
 * Note [Fused-kernel IR]: the host's fusion pass (docs/fusion.md) groups
 * elementwise ops, broadcasts and row reductions of a captured graph and
 * hands each group to the plugin of its device type as one sy_fused_kernel_t
 * to compile. The IR is backend-neutral; the plugin turns it into code (a
 * tiled evaluator, generated C, CUDA through NVRTC, GLSL …).
 *
 * Domain. A kernel runs over a shape of `ndim` dims (`shape`). Its trailing
 * `reduce_ndim` dims are reduced over: the leading dims index *rows*, the
 * trailing ones the elements of a row (row length = their product). With
 * reduce_ndim 0 the kernel is purely elementwise: no REDUCE instruction,
 * one stage, and the whole domain is walked element by element.
 *
 * Operands. Every input and output is a tensor laid over the domain by
 * `strides` (elements, never negative): element (i0, …, in-1) of input k is
 * at inputs[k].strides · i from the tensor's data. A broadcast input has
 * stride 0 along the dims it is broadcast over; an output that holds one
 * value per row has stride 0 exactly on the reduced dims. Outputs never
 * alias inputs or each other, and no two domain indices that an output's
 * per-element stores write reach the same element.
 *
 * Program. `instrs` is in SSA form: instruction i defines value i, and its
 * operands a, b, c name earlier instructions (-1 when unused). Each belongs
 * to a stage (`stage`, non-decreasing along the list, 0 .. num_stages-1)
 * and is per element (`row_level` 0) or per row (`row_level` 1). The
 * meaning, which a plugin may implement in any order that gives the same
 * results:
 *
 *   for each row (rows are independent; any order, in parallel):
 *     for each stage s in order:
 *       run the per-row instructions of stage s, once, in list order;
 *       for each element of the row (any order, in parallel):
 *         run the per-element instructions of stage s in list order;
 *     the REDUCE instructions of stage s then hold their reduction, over
 *     the row, of their per-element operand
 *
 * A REDUCE is a per-element instruction (each element's operand goes into
 * the reduction) whose value is per row. A per-element value is used only
 * by instructions of its own stage. A per-row value — a per-row
 * instruction's, or a REDUCE's — is used by any later instruction: a
 * REDUCE of stage s from stage s+1 on. A per-row instruction's operands are
 * per-row values; a STORE of a per-row value is a per-row instruction. LOAD reads its input at the current
 * element (per row: at the row; the input's strides are then 0 on the
 * reduced dims); STORE writes its operand to its output at the current
 * element (per row: once per row). Every output is stored exactly once per
 * element it covers. Rows may have length 0 (a sum over an empty dim): the
 * element loops run no times, REDUCE_SUM gives 0.
 *
 * Values. Each instruction has a `dtype`: f32, f64, f16, bf16 or bool,
 * except that a LOAD has its input's dtype and a STORE its output's (any
 * dtype the plugin accepts, see sy_fusion_extension_t.dtypes), and a CAST
 * converts to or from them. Arithmetic on f16, bf16 and f32 values computes
 * in f32 (f64 in f64) and rounds the result to the dtype, as the core's
 * kernels do; bool values are 0 or 1. Operands of arithmetic have the
 * instruction's dtype; compares take two operands of one dtype and give
 * bool; WHERE takes a bool and two values of its dtype. CONST is `imm` in
 * the compute type of its dtype (f32 or f64), not rounded to f16/bf16.
 * Every op means what the core op of the same name means (docs/ops.md):
 * RELU keeps NaN, MAXIMUM/MINIMUM and REDUCE_MAX/MIN propagate NaN,
 * compares with NaN are false (NE: true), GELU is the erf form and
 * GELU_TANH the tanh form, CAST from floating to bool is "!= 0". Results
 * should be within a few ulp of the core's kernels; a plugin may contract
 * a*b+c into an FMA.
 *
 * The host validates every kernel before a plugin sees it (fusion/ir): a
 * plugin may trust the invariants above. Since: 1.1. */
typedef enum sy_fused_op_t {
  SY_FUSED_LOAD = 1,  /* index: input                                  */
  SY_FUSED_STORE = 2, /* a; index: output (defines no value)           */
  SY_FUSED_CONST = 3, /* imm                                           */
  SY_FUSED_CAST = 4,  /* a, converted to dtype                         */
  /* unary: a */
  SY_FUSED_NEG = 10,
  SY_FUSED_ABS = 11,
  SY_FUSED_RELU = 12,
  SY_FUSED_SQUARE = 13,
  SY_FUSED_EXP = 14,
  SY_FUSED_LOG = 15,
  SY_FUSED_SQRT = 16,
  SY_FUSED_RSQRT = 17,
  SY_FUSED_SIN = 18,
  SY_FUSED_COS = 19,
  SY_FUSED_TANH = 20,
  SY_FUSED_SIGMOID = 21,
  SY_FUSED_SILU = 22,
  SY_FUSED_ERF = 23,
  SY_FUSED_RECIPROCAL = 24,
  SY_FUSED_GELU = 25,
  SY_FUSED_GELU_TANH = 26,
  /* binary: a, b */
  SY_FUSED_ADD = 40,
  SY_FUSED_SUB = 41,
  SY_FUSED_MUL = 42,
  SY_FUSED_DIV = 43,
  SY_FUSED_POW = 44,
  SY_FUSED_MAXIMUM = 45,
  SY_FUSED_MINIMUM = 46,
  /* compare: a, b -> bool */
  SY_FUSED_EQ = 60,
  SY_FUSED_NE = 61,
  SY_FUSED_LT = 62,
  SY_FUSED_LE = 63,
  SY_FUSED_GT = 64,
  SY_FUSED_GE = 65,
  /* select: a (bool) ? b : c */
  SY_FUSED_WHERE = 70,
  /* row reductions of a per-element a (see the Note) */
  SY_FUSED_REDUCE_SUM = 80,
  SY_FUSED_REDUCE_MAX = 81,
  SY_FUSED_REDUCE_MIN = 82,
} sy_fused_op_t;

/* One instruction. Frozen value type (an array element of the IR).
 * Since: 1.1. */
typedef struct sy_fused_instr_t {
  int32_t op;        /* sy_fused_op_t */
  sy_dtype_t dtype;  /* the value's dtype (STORE: the output's) */
  int32_t a, b, c;   /* operands: earlier instructions, or -1 */
  int32_t index;     /* LOAD: input index; STORE: output index; else 0 */
  int32_t stage;     /* 0 .. num_stages-1, non-decreasing */
  int32_t row_level; /* 1: once per row; 0: per element */
  double imm;        /* CONST's value; else 0 */
} sy_fused_instr_t;

/* An input or output laid over the domain. Frozen value type.
 * Since: 1.1. */
typedef struct sy_fused_operand_t {
  sy_dtype_t dtype;
  int32_t reserved;
  int64_t strides[SY_MAX_RANK]; /* elements, over the domain's ndim dims */
} sy_fused_operand_t;

/* A fused kernel (Note [Fused-kernel IR]). Borrowed for the call it is
 * passed to; a plugin copies what it keeps. Since: 1.1. */
typedef struct sy_fused_kernel_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* name;  /* "fused3_softmax": for traces, logs and symbols */
  int32_t ndim;        /* 0 .. SY_MAX_RANK */
  int32_t reduce_ndim; /* 0 .. ndim */
  int64_t shape[SY_MAX_RANK];
  int32_t num_inputs;
  int32_t num_outputs;
  const sy_fused_operand_t* inputs;
  const sy_fused_operand_t* outputs;
  int32_t num_instrs;
  int32_t num_stages; /* >= 1 */
  const sy_fused_instr_t* instrs;
} sy_fused_kernel_t;

/* compile_fused's arguments. Since: 1.1. */
typedef struct sy_fused_compile_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_fused_kernel_t* kernel; /* borrowed for the call */
  int32_t device;                  /* index of the device it runs on */
  int32_t reserved;
  /* out: the compiled kernel, passed back to launch_fused and
   * release_fused. */
  void* out_handle;
  /* out, optional: bytes the host may keep in its kernel cache (memory and
   * disk, keyed by the IR, the device, the plugin's version and `compiler`)
   * and hand to load_fused in a later process instead of compiling again
   * (e.g. a CUBIN). Plugin-owned; valid until release_fused(out_handle). */
  const void* out_binary;
  size_t out_binary_size;
  /* Since 1.3: the launch configuration to compile, 0 .. the count
   * fused_configs gave - 1 (Note [Launch configurations]). 0 — what a 1.1
   * or 1.2 host means, and what the host passes to a plugin without
   * fused_configs — is the plugin's default. Read it only where
   * SY_STRUCT_HAS(args, sy_fused_compile_args_t, config) says the host's
   * struct has it. */
  int32_t config;
  int32_t reserved1;
} sy_fused_compile_args_t;

/* load_fused's arguments: a kernel from bytes an earlier compile_fused gave
 * for the same IR, device, plugin version and compiler. Since: 1.1. */
typedef struct sy_fused_load_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_fused_kernel_t* kernel; /* borrowed for the call */
  int32_t device;
  int32_t reserved;
  const void* binary; /* borrowed for the call */
  size_t binary_size;
  void* out_handle;   /* out, as compile_fused's */
  /* Since 1.3: the configuration the bytes were compiled for (as
   * sy_fused_compile_args_t.config; the host keeps one cache entry per
   * configuration). */
  int32_t config;
  int32_t reserved1;
} sy_fused_load_args_t;

/* launch_fused's arguments. The views are laid over the kernel's domain:
 * shape = the domain's, strides exactly the IR operands' strides, dtypes
 * the operands' (the host guarantees it). Since: 1.1. */
typedef struct sy_fused_launch_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  void* handle;                    /* from compile_fused or load_fused */
  sy_stream_t stream;              /* a stream of the kernel's device */
  const sy_tensor_view_t* inputs;  /* num_inputs of the IR */
  const sy_tensor_view_t* outputs; /* num_outputs of the IR */
  int32_t num_inputs;
  int32_t num_outputs;
  /* For host->kernel_workspace, as a kernel call's host_call. */
  sy_call_context_t* host_call;
} sy_fused_launch_args_t;

/* release_fused's arguments. Since: 1.1. */
typedef struct sy_fused_release_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  void* handle;
} sy_fused_release_args_t;

/* Note [Launch configurations] (since 1.3): one fused kernel may run in
 * several ways that give the same results — a CUDA row kernel's block and
 * cluster size, a cpu evaluator's tile — of which the fastest depends on
 * the device and the kernel. A plugin that has such choices lists them
 * with fused_configs: a count and a name for each, configuration 0 being
 * its default (what it compiles when nobody asks). The host compiles the
 * configuration it picked by passing its index in compile_fused's (and
 * load_fused's) `config`; the handle carries it, so launch_fused needs no
 * index. With autotuning on (SWITCHYARD_AUTOTUNE=on) the host compiles
 * each configuration, times them on the kernel's own shapes, keeps the
 * fastest whose outputs match configuration 0's, and stores the choice in
 * the autotune cache (keyed by the IR, the device and the plugin's name,
 * version and compiler, and the configurations' names); in mode cached it
 * takes a stored choice and otherwise 0; off, always 0. A plugin without
 * fused_configs always gets 0. Configurations must compute the same
 * results (within the IR's tolerance); they differ only in speed. */

/* At most this many configurations per kernel. Since: 1.3. */
#define SY_FUSED_MAX_CONFIGS 16

/* fused_configs' arguments. Since: 1.3. */
typedef struct sy_fused_configs_args_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_fused_kernel_t* kernel; /* borrowed for the call */
  int32_t device;                  /* index of the device it would run on */
  /* out: how many configurations, 1 .. SY_FUSED_MAX_CONFIGS (the host
   * zeroes it; 0 or 1 both mean "only the default"). */
  int32_t out_num_configs;
  /* out: out_num_configs names ("block 512, cluster 2"), one line each,
   * stable for a given kernel and device: they are part of the autotune
   * key. Plugin-owned; valid until the next fused_configs call on the same
   * thread (the host copies them at once). */
  const char* const* out_names;
} sy_fused_configs_args_t;

/* sy_fusion_extension_t.flags. Since: 1.1. */
/* The compiler takes kernels with reduce_ndim > 0 (row reductions). */
#define SY_FUSION_FLAG_ROW_REDUCTIONS 1u

/* The fusion hooks of one device type: an extension (type
 * SY_EXTENSION_FUSION) on the extension chain of the sy_device_api_t the
 * plugin registers for that type, or — for a plugin that compiles for a
 * device type another plugin provides — on its sy_plugin_api_t's chain.
 * Static: lives as long as the table it hangs from. The limits bound the
 * kernels the host builds (0: no limit); a group beyond them is split or
 * runs unfused. A device type without fusion hooks runs every graph
 * unfused, op by op. All hooks may be called from any thread; launch_fused
 * enqueues on `stream` like a kernel. Since: 1.1. */
typedef struct sy_fusion_extension_t {
  sy_extension_t base;     /* type SY_EXTENSION_FUSION */
  const char* device_type; /* the device type it compiles for */
  /* Names the code generator and its version ("cpu evaluator 1",
   * "nvrtc 13.0"); part of the host's cache key. */
  const char* compiler;
  uint32_t flags;          /* SY_FUSION_FLAG_* */
  int32_t max_instrs;
  int32_t max_inputs;
  int32_t max_outputs;
  int64_t max_row_length;  /* longest row a kernel with reductions may have */
  /* The dtypes LOAD and STORE may have; values beyond f32/f64/f16/bf16/bool
   * only flow through a CAST. */
  const sy_dtype_t* dtypes;
  int32_t num_dtypes;
  int32_t reserved;
  /* Required: compiles `kernel` for a device. An error (UNIMPLEMENTED for
   * "not this kernel") makes the host run the group unfused; the message
   * shows in the graph's description. */
  sy_error_t* (*compile_fused)(void* self, sy_fused_compile_args_t* args);
  /* Optional (NULL: the host always compiles). */
  sy_error_t* (*load_fused)(void* self, sy_fused_load_args_t* args);
  /* Required: enqueues one run of a compiled kernel. */
  sy_error_t* (*launch_fused)(void* self, const sy_fused_launch_args_t* args);
  /* Required: frees a handle; called once per handle, after its last
   * launch was enqueued (the plugin keeps what the enqueued work needs). */
  void (*release_fused)(void* self, const sy_fused_release_args_t* args);
  void* self; /* passed back to each hook */
  /* Optional (since 1.3; NULL: only the default, configuration 0): lists
   * the launch configurations of `kernel` (Note [Launch configurations]).
   * An error is a plugin bug the host reports (the group runs unfused). */
  sy_error_t* (*fused_configs)(void* self, sy_fused_configs_args_t* args);
} sy_fusion_extension_t;

/* ---- Pattern kernels (SY_EXTENSION_PATTERNS; since 1.1) -----------------
 * A small op graph (matmul → add → gelu) and a plugin op that computes it
 * in one kernel (cuBLASLt's epilogues, oneDNN's post-ops). The fusion pass
 * replaces a match by a call of `replacement` — a plugin-namespaced op
 * whose schema the plugin registers and whose tensor arguments are the
 * pattern's inputs, in order; each of its attributes takes the match's
 * attribute of the same name and kind (conv2d's stride for
 * cuda::conv2d_relu), else its default, and a match whose ops disagree
 * on one is left alone — when it resolves to a kernel for the match
 * (kernels may decline) and the host measured it faster than what runs
 * otherwise (epilogues are slower than separate kernels on some GPUs). */

/* One node of a pattern. Frozen value type. Since: 1.1. */
typedef struct sy_pattern_node_t {
  const char* op;     /* full op name: "matmul", "add.Tensor", "gelu" */
  /* Tensor arguments: >= 0 an earlier node's output; < 0 pattern input
   * -(k+1). */
  int32_t inputs[4];
  int32_t num_inputs;
  int32_t num_attrs;  /* 0: any attributes; else each must equal attrs[j] */
  const sy_attr_t* attrs; /* an entry of kind -1 matches any value */
} sy_pattern_node_t;

/* One pattern. The last node's output is the pattern's result; every other
 * node's output must be used only inside the match. Since: 1.1. */
typedef struct sy_pattern_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* name;        /* "matmul_bias_gelu" */
  const char* device_type;
  const sy_pattern_node_t* nodes;
  int32_t num_nodes;
  int32_t num_inputs;
  const char* replacement; /* "cuda::matmul_bias_gelu_tanh" */
} sy_pattern_t;

/* The extension (type SY_EXTENSION_PATTERNS), on the plugin's
 * sy_plugin_api_t chain or a device table's, like sy_fusion_extension_t.
 * Static. Since: 1.1. */
typedef struct sy_patterns_extension_t {
  sy_extension_t base; /* type SY_EXTENSION_PATTERNS */
  const sy_pattern_t* patterns;
  int32_t num_patterns;
  int32_t reserved;
} sy_patterns_extension_t;

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
static_assert(sizeof(sy_fused_instr_t) == 40, "sy_fused_instr_t is frozen");
static_assert(sizeof(sy_fused_operand_t) == 72, "sy_fused_operand_t is frozen");
static_assert(SY_STRUCT_SIZE(sy_fused_kernel_t, instrs) ==
                  sizeof(sy_fused_kernel_t), "sy_fused_kernel_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fused_compile_args_t, reserved1) ==
                  sizeof(sy_fused_compile_args_t), "sy_fused_compile_args_t 1.3");
static_assert(SY_STRUCT_SIZE(sy_fused_load_args_t, reserved1) ==
                  sizeof(sy_fused_load_args_t), "sy_fused_load_args_t 1.3");
static_assert(SY_STRUCT_SIZE(sy_fused_configs_args_t, out_names) ==
                  sizeof(sy_fused_configs_args_t), "sy_fused_configs_args_t 1.3");
static_assert(SY_STRUCT_SIZE(sy_fused_launch_args_t, host_call) ==
                  sizeof(sy_fused_launch_args_t), "sy_fused_launch_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fused_release_args_t, handle) ==
                  sizeof(sy_fused_release_args_t), "sy_fused_release_args_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_fusion_extension_t, fused_configs) ==
                  sizeof(sy_fusion_extension_t), "sy_fusion_extension_t 1.3");
static_assert(sizeof(sy_pattern_node_t) == 40, "sy_pattern_node_t is frozen");
static_assert(SY_STRUCT_SIZE(sy_pattern_t, replacement) ==
                  sizeof(sy_pattern_t), "sy_pattern_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_patterns_extension_t, reserved) ==
                  sizeof(sy_patterns_extension_t), "sy_patterns_extension_t 1.1");
#endif

#endif  /* SWITCHYARD_PLUGIN_FUSION_H_ */
