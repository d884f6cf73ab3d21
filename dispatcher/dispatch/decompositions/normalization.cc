// softmax, log_softmax, layer_norm and rms_norm from reductions and
// elementwise primitives. Each subtracts the row maximum before exp, as the
// kernels do, so large inputs do not overflow.
#include <cstdint>
#include <vector>

#include "dispatcher/dispatch/decompositions/decompositions.h"
#include "dispatcher/dispatch/decompositions/op_chain.h"

namespace sy::core::decompositions {
namespace {

// x − max(x, dim) with the max kept as a size-1 dim.
Tensor ShiftByMax(OpChain& c, const Tensor& x, int64_t dim) {
  const Tensor max = c.Call("max", {x}, {Attr({dim}), Attr(true)});
  return c.Call("sub.Tensor", {x, max});
}

}  // namespace

// softmax(Tensor x, int dim=-1)
Result Softmax(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x_in = args.inputs[0];
  const int64_t dim = args.attrs[0].value.i;
  OpChain c(runtime, "softmax");
  // An empty x has an empty result, while max over an empty dim has none.
  if (x_in.numel() == 0) return c.Result(c.Call("copy", {x_in}));
  const Tensor x = c.Cast(x_in, ComputeDtype(x_in.dtype()));
  const Tensor e = c.Call("exp", {ShiftByMax(c, x, dim)});
  const Tensor total = c.Call("sum", {e}, {Attr({dim}), Attr(true)});
  return c.Result(c.Cast(c.Call("div.Tensor", {e, total}), x_in.dtype()));
}

// log_softmax(Tensor x, int dim=-1)
Result LogSoftmax(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x_in = args.inputs[0];
  const int64_t dim = args.attrs[0].value.i;
  OpChain c(runtime, "log_softmax");
  // An empty x has an empty result, while max over an empty dim has none.
  if (x_in.numel() == 0) return c.Result(c.Call("copy", {x_in}));
  const Tensor x = c.Cast(x_in, ComputeDtype(x_in.dtype()));
  const Tensor shifted = ShiftByMax(c, x, dim);
  const Tensor total =
      c.Call("sum", {c.Call("exp", {shifted})}, {Attr({dim}), Attr(true)});
  const Tensor y = c.Call("sub.Tensor", {shifted, c.Call("log", {total})});
  return c.Result(c.Cast(y, x_in.dtype()));
}

// layer_norm(Tensor x, int[] normalized_shape, Tensor? weight=None,
//            Tensor? bias=None, float eps=1e-05)
Result LayerNorm(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x_in = args.inputs[args.input_offsets[0]];
  const bool has_weight = args.input_offsets[2] > args.input_offsets[1];
  const bool has_bias = args.input_offsets[3] > args.input_offsets[2];
  const int64_t k = args.attrs[0].value.ints.size;
  const double eps = args.attrs[1].value.f;
  std::vector<int64_t> dims;  // the trailing k dims, counted from the end
  for (int64_t d = -k; d < 0; ++d) dims.push_back(d);
  const Attr reduce_dims(absl::MakeConstSpan(dims));

  OpChain c(runtime, "layer_norm");
  const sy_dtype_t compute = ComputeDtype(x_in.dtype());
  const Tensor x = c.Cast(x_in, compute);
  const Tensor mean = c.Call("mean", {x}, {reduce_dims, Attr(true)});
  const Tensor centered = c.Call("sub.Tensor", {x, mean});
  const Tensor var =
      c.Call("mean", {c.Call("square", {centered})}, {reduce_dims, Attr(true)});
  const Tensor inv_std = c.Call("rsqrt", {c.Scalar("add.Scalar", var, eps)});
  Tensor y = c.Call("mul.Tensor", {centered, inv_std});
  if (has_weight) {
    const Tensor& w = args.inputs[args.input_offsets[1]];
    y = c.Call("mul.Tensor", {y, c.Cast(w, compute)});
  }
  if (has_bias) {
    const Tensor& b = args.inputs[args.input_offsets[2]];
    y = c.Call("add.Tensor", {y, c.Cast(b, compute)});
  }
  return c.Result(c.Cast(y, x_in.dtype()));
}

// rms_norm(Tensor x, Tensor weight, float eps=1e-06)
Result RmsNorm(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x_in = args.inputs[0];
  const Tensor& weight = args.inputs[1];
  const double eps = args.attrs[0].value.f;
  OpChain c(runtime, "rms_norm");
  const sy_dtype_t compute = ComputeDtype(x_in.dtype());
  const Tensor x = c.Cast(x_in, compute);
  const Tensor mean_square =
      c.Call("mean", {c.Call("square", {x})}, {Attr({int64_t{-1}}), Attr(true)});
  const Tensor inv_rms =
      c.Call("rsqrt", {c.Scalar("add.Scalar", mean_square, eps)});
  const Tensor y = c.Call(
      "mul.Tensor", {c.Call("mul.Tensor", {x, inv_rms}), c.Cast(weight, compute)});
  return c.Result(c.Cast(y, x_in.dtype()));
}

}  // namespace sy::core::decompositions
