// gelu and silu from elementwise primitives.
//
// Note [Decomposed gelu accuracy]: ½·x·(1 + erf(x/√2)) cancels for very
// negative x (1 + erf → 0), so in f32 the result's *absolute* error is about
// |x|·6e-8 where the true value is tiny; the cpu kernel avoids this with an
// erfc form, which the primitive set does not have. Fine for a fallback.
#include <cmath>
#include <string_view>

#include "dispatcher/dispatch/decompositions/decompositions.h"
#include "dispatcher/dispatch/decompositions/op_chain.h"

namespace sy::core::decompositions {

// gelu(Tensor x, str approximate="none")
Result Gelu(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x_in = args.inputs[0];
  const sy_attr_t& approximate = args.attrs[0];
  const std::string_view mode(approximate.value.str.data,
                              approximate.value.str.size);
  OpChain c(runtime, "gelu");
  const Tensor x = c.Cast(x_in, ComputeDtype(x_in.dtype()));
  Tensor inner;
  if (mode == "tanh") {
    // tanh(√(2/π)·(x + 0.044715·x³))
    const Tensor cube = c.Call("mul.Tensor", {c.Call("square", {x}), x});
    const Tensor poly =
        c.Call("add.Tensor", {x, c.Scalar("mul.Scalar", cube, 0.044715)});
    inner = c.Call("tanh", {c.Scalar("mul.Scalar", poly,
                                     std::sqrt(2.0 / M_PI))});
  } else {  // "none"; the shape function rejects anything else
    inner = c.Call("erf", {c.Scalar("mul.Scalar", x, M_SQRT1_2)});
  }
  const Tensor half_x = c.Scalar("mul.Scalar", x, 0.5);
  const Tensor y =
      c.Call("mul.Tensor", {half_x, c.Scalar("add.Scalar", inner, 1.0)});
  return c.Result(c.Cast(y, FloatResultDtype(x_in.dtype())));
}

// silu(Tensor x) = x·sigmoid(x)
Result Silu(Dispatcher& runtime, const DecompositionArgs& args) {
  const Tensor& x_in = args.inputs[0];
  OpChain c(runtime, "silu");
  const Tensor x = c.Cast(x_in, ComputeDtype(x_in.dtype()));
  const Tensor y = c.Call("mul.Tensor", {x, c.Call("sigmoid", {x})});
  return c.Result(c.Cast(y, FloatResultDtype(x_in.dtype())));
}

}  // namespace sy::core::decompositions
