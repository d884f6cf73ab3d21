// contiguous, square, linear, and dtype promotion for mixed-dtype calls.
#include <vector>

#include "dispatcher/dispatch/decompositions/decompositions.h"
#include "dispatcher/dispatch/decompositions/op_chain.h"
#include "dispatcher/ops/dtype.h"

namespace sy::core::decompositions {

Result Contiguous(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x = args.inputs[0];
  if (x.is_contiguous()) return std::vector<Tensor>{x};
  OpChain c(runtime, "contiguous");
  return c.Result(c.Call("copy", {x}));
}

Result Square(Dispatcher& runtime, const DecompositionArgs& args) {
  OpChain c(runtime, "square");
  return c.Result(c.Call("mul.Tensor", {args.inputs[0], args.inputs[0]}));
}

// linear(x, weight, bias?) — weight is [out, in].
Result Linear(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x = args.inputs[args.input_offsets[0]];
  const Tensor& weight = args.inputs[args.input_offsets[1]];
  const bool has_bias = args.input_offsets[3] > args.input_offsets[2];
  OpChain c(runtime, "linear");
  Tensor y = c.Call("matmul", {x, c.Call("transpose", {weight}, {0, 1})});
  if (has_bias) y = c.Call("add.Tensor", {y, args.inputs[args.input_offsets[2]]});
  return c.Result(y);
}

bool InputsNeedPromotion(const OpDef& op,
                         absl::Span<const sy_tensor_meta_t> inputs) {
  const size_t first = op.schema().name == "where" ? 1 : 0;
  for (size_t i = first + 1; i < inputs.size(); ++i) {
    if (inputs[i].dtype != inputs[first].dtype) return true;
  }
  return false;
}

Result PromoteInputs(Dispatcher& runtime, const DecompositionArgs& args) {
  // Every tensor argument of these ops is a single tensor; `where`'s
  // condition (argument 0, bool) is not promoted with the others.
  const bool is_where = args.op->schema().name == "where";
  const size_t first = is_where ? 1 : 0;
  sy_dtype_t promoted = args.inputs[first].dtype();
  bool mixed = false;
  for (size_t i = first + 1; i < args.inputs.size(); ++i) {
    mixed = mixed || args.inputs[i].dtype() != promoted;
    promoted = PromoteTypes(promoted, args.inputs[i].dtype());
  }
  if (!mixed) {  // Resolve asked InputsNeedPromotion first
    return absl::InternalError(absl::StrCat(
        args.op->full_name(), ": dtype promotion called on inputs of one "
        "dtype; this is a Switchyard bug, please report it"));
  }

  OpChain c(runtime, args.op->full_name());
  std::vector<Tensor> inputs(args.inputs.begin(), args.inputs.end());
  for (size_t i = first; i < inputs.size(); ++i) {
    inputs[i] = c.Cast(inputs[i], promoted);
  }
  if (!c.ok()) return c.Result(Tensor());
  absl::StatusOr<OpHandle> op = runtime.FindOp(args.op->full_name());
  if (!op.ok()) return op.status();
  std::vector<Attr> attrs;
  for (const sy_attr_t& raw : args.attrs) {
    Attr attr;
    static_cast<sy_attr_t&>(attr) = raw;
    attrs.push_back(attr);
  }
  return runtime.Call(*op, inputs, attrs);
}

sy_dtype_t ComputeDtype(sy_dtype_t input) {
  if (input == SY_DTYPE_F32 || input == SY_DTYPE_F64) return input;
  return SY_DTYPE_F32;
}

sy_dtype_t FloatResultDtype(sy_dtype_t input) {
  return IsFloatingPoint(input) ? input : SY_DTYPE_F32;
}

}  // namespace sy::core::decompositions
