#include "dispatcher/core_decompositions.h"

#include "dispatcher/runtime.h"

namespace sy {
namespace {

// Calls `name` and returns its single output.
absl::StatusOr<Tensor> Call1(Runtime& runtime, const char* name,
                             absl::Span<const Tensor> inputs,
                             absl::Span<const Attr> attrs = {}) {
  absl::StatusOr<OpHandle> op = runtime.FindOp(name);
  if (!op.ok()) return op.status();
  absl::StatusOr<std::vector<Tensor>> out = runtime.Call(*op, inputs, attrs);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

absl::StatusOr<std::vector<Tensor>> Wrap(absl::StatusOr<Tensor> t) {
  if (!t.ok()) return t.status();
  return std::vector<Tensor>{*std::move(t)};
}

absl::StatusOr<std::vector<Tensor>> Contiguous(Runtime& runtime,
                                               const DecompositionArgs& args) {
  const Tensor& x = args.inputs[0];
  if (x.is_contiguous()) return std::vector<Tensor>{x};
  return Wrap(Call1(runtime, "copy", {x}));
}

absl::StatusOr<std::vector<Tensor>> Square(Runtime& runtime,
                                           const DecompositionArgs& args) {
  return Wrap(Call1(runtime, "mul.Tensor", {args.inputs[0], args.inputs[0]}));
}

absl::StatusOr<std::vector<Tensor>> Linear(Runtime& runtime,
                                           const DecompositionArgs& args) {
  const Tensor& x = args.inputs[args.input_offsets[0]];
  const Tensor& weight = args.inputs[args.input_offsets[1]];
  const bool has_bias = args.input_offsets[3] > args.input_offsets[2];
  absl::StatusOr<Tensor> wt =
      Call1(runtime, "transpose", {weight}, {Attr(0), Attr(1)});
  if (!wt.ok()) return wt.status();
  absl::StatusOr<Tensor> y = Call1(runtime, "matmul", {x, *wt});
  if (!y.ok() || !has_bias) return Wrap(std::move(y));
  return Wrap(Call1(runtime, "add.Tensor",
                    {*y, args.inputs[args.input_offsets[2]]}));
}

}  // namespace

void InstallCoreDecompositions(OpRegistry& ops) {
  struct Entry {
    const char* name;
    DecompositionFn fn;
  };
  const Entry entries[] = {
      {"contiguous", Contiguous}, {"square", Square}, {"linear", Linear}};
  for (const Entry& entry : entries) {
    if (OpDef* op = ops.Find(entry.name)) op->set_decomposition(entry.fn);
  }
}

}  // namespace sy
