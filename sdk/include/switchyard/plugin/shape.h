/* Switchyard plugin ABI — shape functions and the schemas a plugin
 * registers.
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_SHAPE_H_
#define SWITCHYARD_PLUGIN_SHAPE_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/plugin/types.h"
#include "switchyard/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Shape functions -----------------------------------------------------
 * For ops a plugin defines in its own namespace. The host fills `inputs`
 * (one meta per tensor, Tensor[] arguments flattened; `input_offsets[k]` is
 * the first index of schema tensor argument k, with
 * input_offsets[num_tensor_args] == num_inputs, so an omitted optional
 * tensor spans zero entries) and `attrs`; the function writes `num_outputs`
 * metas, or returns an error that names the offending argument. It must be
 * a pure function of its inputs' metas and its attributes: the host may
 * reuse an earlier answer for a call with equal ones (since 1.1).
 * Since: 1.0. */
typedef struct sy_shape_call_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const sy_tensor_meta_t* inputs;
  int32_t num_inputs;
  int32_t num_tensor_args;
  const int32_t* input_offsets;
  const sy_attr_t* attrs;
  int32_t num_attrs;
  int32_t num_outputs;
  sy_tensor_meta_t* outputs; /* out: host-owned array of num_outputs */
  void* shape_data;          /* sy_schema_desc_t.shape_data */
} sy_shape_call_t;

typedef sy_error_t* (*sy_shape_fn)(const sy_shape_call_t* call);

/* How the host lays out the outputs it allocates for a kernel of a
 * plugin's op (outputs a caller passes keep their own strides; kernels
 * take any non-overlapping output strides either way). The rules are the
 * core ops' (docs/ops.md, "Output layout"). Since: 1.4. */
typedef enum sy_output_layout_t {
  SY_OUTPUT_LAYOUT_CONTIGUOUS = 0,
  /* A rank-4 [N, C, H, W] output is channels-last (memory order N, H, W,
   * C) when the call's first or second tensor input is densely
   * channels-last and not also contiguous: conv2d's rule. */
  SY_OUTPUT_LAYOUT_CHANNELS_LAST_LIKE_INPUTS = 1,
  /* ... when the first tensor input of the output's own shape (not
   * broadcast to it) is: the elementwise ops' rule. */
  SY_OUTPUT_LAYOUT_LIKE_FIRST_FULL_INPUT = 2
} sy_output_layout_t;

/* A schema a plugin adds, in its own namespace ("vendor::op(...) -> ...").
 * Schema text follows docs/architecture.md#schema-text. Since: 1.0. */
typedef struct sy_schema_desc_t {
  size_t struct_size;
  const sy_extension_t* extension;
  const char* schema;   /* copied */
  sy_shape_fn shape_fn; /* required */
  void* shape_data;     /* passed back in sy_shape_call_t; lives until unload */
  /* Since 1.4, read from a plugin that answers 1.4 or later (contiguous
   * otherwise): a sy_output_layout_t; another value is refused. */
  uint32_t output_layout;
  uint32_t reserved; /* 0 */
} sy_schema_desc_t;

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
static_assert(SY_STRUCT_SIZE(sy_shape_call_t, shape_data) ==
                  sizeof(sy_shape_call_t), "sy_shape_call_t 1.0 closes here");
static_assert(SY_STRUCT_SIZE(sy_schema_desc_t, reserved) ==
                  sizeof(sy_schema_desc_t), "sy_schema_desc_t 1.4 closes here");
#endif

#endif  /* SWITCHYARD_PLUGIN_SHAPE_H_ */
