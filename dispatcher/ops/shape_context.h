// What a shape function sees: the input metas and attributes of one call,
// already bound to the op's schema, with accessors and error builders that
// name the offending argument.
//
// Binding happens before any shape function runs: the number of tensors per
// argument, the kinds of attributes (a Scalar may be an int or a float; a
// float argument accepts an int) and defaults are already checked and filled
// in, so the accessors below never fail. Shape functions check meaning:
// ranks, broadcast compatibility, dims in range, dtypes allowed.
#ifndef SWITCHYARD_DISPATCHER_OPS_SHAPE_CONTEXT_H_
#define SWITCHYARD_DISPATCHER_OPS_SHAPE_CONTEXT_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "dispatcher/ops/schema.h"
#include "switchyard/plugin.h"

namespace sy::core {

class ShapeContext {
 public:
  // All spans are borrowed and must outlive the context. `input_offsets` has
  // schema.tensor_args.size() + 1 entries (see sy_shape_call_t).
  ShapeContext(const Schema& schema, absl::Span<const sy_tensor_meta_t> inputs,
               absl::Span<const int32_t> input_offsets,
               absl::Span<const sy_attr_t> attrs)
      : schema_(schema),
        inputs_(inputs),
        input_offsets_(input_offsets),
        attrs_(attrs) {}

  const Schema& schema() const { return schema_; }

  // Set by the core's call path, whose inputs are live tensors and so
  // well-formed by construction: the Checked wrapper then skips
  // re-validating them on every call.
  ShapeContext& set_inputs_trusted(bool trusted) {
    inputs_trusted_ = trusted;
    return *this;
  }
  bool inputs_trusted() const { return inputs_trusted_; }
  // The raw bound call, for forwarding to a plugin's C shape function.
  absl::Span<const sy_tensor_meta_t> inputs() const { return inputs_; }
  absl::Span<const int32_t> input_offsets() const { return input_offsets_; }
  absl::Span<const sy_attr_t> attrs() const { return attrs_; }

  // Tensor argument k (the k-th Tensor or Tensor[] of the schema).
  int num_tensors(int k) const {
    return input_offsets_[k + 1] - input_offsets_[k];
  }
  bool has_tensor(int k) const { return num_tensors(k) > 0; }
  const sy_tensor_meta_t& tensor(int k, int i = 0) const {
    return inputs_[input_offsets_[k] + i];
  }

  // Attribute j (the j-th non-tensor argument).
  const sy_attr_t& attr(int j) const { return attrs_[j]; }
  bool attr_is_none(int j) const { return attrs_[j].kind == SY_ATTR_NONE; }
  int64_t int_attr(int j) const { return attrs_[j].value.i; }
  // A float or Scalar argument, converted to double when given as an int.
  double float_attr(int j) const;
  bool bool_attr(int j) const { return attrs_[j].value.b != 0; }
  sy_dtype_t dtype_attr(int j) const { return attrs_[j].value.dtype; }
  absl::Span<const int64_t> ints_attr(int j) const {
    return {attrs_[j].value.ints.data,
            static_cast<size_t>(attrs_[j].value.ints.size)};
  }
  std::string_view string_attr(int j) const {
    return {attrs_[j].value.str.data,
            static_cast<size_t>(attrs_[j].value.str.size)};
  }

  // InvalidArgument: "<op>: argument '<name>' <what>", for tensor argument k
  // or attribute j. `what` should say what is wrong and what would be right,
  // e.g. "has shape [2, 3] but 'b' has [4]; they must broadcast".
  absl::Status TensorError(int k, std::string_view what) const;
  absl::Status AttrError(int j, std::string_view what) const;
  // For errors that involve no single argument.
  absl::Status OpError(std::string_view what) const;

  // The schema name of tensor argument k / attribute j, for messages.
  std::string_view tensor_name(int k) const;
  std::string_view attr_name(int j) const;

 private:
  const Schema& schema_;
  absl::Span<const sy_tensor_meta_t> inputs_;
  absl::Span<const int32_t> input_offsets_;
  absl::Span<const sy_attr_t> attrs_;
  bool inputs_trusted_ = false;
};

// A core op's shape/dtype function: writes one meta per return of the
// schema into `outputs` (already sized), or returns an InvalidArgument made
// with the context's error builders.
using CoreShapeFn = absl::Status (*)(const ShapeContext& ctx,
                                     absl::Span<sy_tensor_meta_t> outputs);

// How the core prepares a call before a kernel sees it.
enum class OpKind {
  kGeneral,      // kernels get the inputs as the caller passed them
  kElementwise,  // every tensor input arrives broadcast to the output's
                 // shape (stride 0 on broadcast dims): kernels walk equal
                 // shapes and never broadcast themselves
  kView,         // the core computes the result as a view of the input
                 // (reshape of a viewable layout, permute, transpose, slice,
                 // expand); no kernel is ever called
  kCollective,   // a collective op (docs/distributed.md): runs on the
                 // Communicator argument's device, by the kernel of the
                 // plugin whose engine made it; never tuned, decomposed,
                 // captured into a graph or run by the cpu fallback
};

// How the core lays out the outputs it allocates for a kernel (outputs the
// caller passes keep their own strides; kernels take any non-overlapping
// strides, sdk/include/switchyard/plugin.h).
enum class OutputLayout {
  kContiguous,
  // Note [Attention output layout]: a rank-4 [B, H, L, E] output is laid out
  // as [B, L, H, E] (the strides of a contiguous [B, L, H, E] tensor
  // transposed to [B, H, L, E]), which is how PyTorch's fused attention
  // returns it. The usual next step, transpose(1, 2).reshape(B, L, H * E)
  // into the output projection, is then a view instead of a copy (0.05 ms of
  // a 0.27 ms transformer block on the H100). Other ranks are contiguous.
  kHeadsInner,
  // Note [Channels-last outputs]: a rank-4 [N, C, H, W] output is laid out
  // channels-last (memory order N, H, W, C) when the call's first or
  // second tensor input is densely channels-last and not also contiguous,
  // as PyTorch's convolutions decide it (cudnn_conv_suggest_memory_format:
  // the input or the weight). A channels-last network then stays
  // channels-last from op to op, and a kernel that computes in NHWC
  // writes its result in place instead of into a temporary that is
  // scattered back (3–4× the time of a small bf16 conv2d on the H100).
  // Otherwise contiguous.
  kChannelsLastLikeInputs,
  // Note [Elementwise output layout]: a rank-4 output of an elementwise op
  // (the unary ops, the binary ops, the comparisons, where, cast) is laid out
  // channels-last when the first tensor input of the output's own shape is
  // densely channels-last and not also contiguous; inputs that are
  // broadcast to the output (a [1, C, 1, 1] bias, a scalar tensor) have no
  // say. That is PyTorch's TensorIterator rule for the usual cases (the
  // first operand that orders the dims decides): relu or a residual add
  // after a channels-last convolution stays channels-last instead of
  // transposing the activation into NCHW (an f16 ResNet stem's relu cost
  // 3.5× its convolution on the H200 for that), and a mixed-precision
  // network's casts keep it too, as PyTorch's .to(dtype) keeps the memory
  // format. copy stays contiguous (the core densifies views with it).
  // Otherwise contiguous.
  kLikeFirstFullInput,
};

// One entry of core op set v1: its schema text, shape function, kind and
// output layout.
struct CoreOpDef {
  const char* schema;
  CoreShapeFn shape_fn;
  OpKind kind = OpKind::kGeneral;
  OutputLayout output_layout = OutputLayout::kContiguous;
};

// Every op of core op set v1 (../shared/DESIGN.md), in registration order:
// for an op name with several overloads, the "Tensor" one comes first, which
// makes it the one a bare name resolves to.
absl::Span<const CoreOpDef> CoreOps();

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_OPS_SHAPE_CONTEXT_H_
