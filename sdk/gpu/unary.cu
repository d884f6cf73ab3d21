// Unary elementwise kernels: neg abs relu square (floating and integer),
// exp log sqrt rsqrt sin cos tanh sigmoid silu erf reciprocal gelu
// (floating; integer and bool inputs give f32, computed in float as the
// cpu plugin does). f16/bf16 compute in float with the runtime's
// IEEE-accurate math (no fast-math: expf, erff … are within 1–4 ulp) and
// round once.
#include <string>
#include <string_view>

#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

#define SY_UNARY(NAME, OPNAME, EXPR)                     \
  struct NAME {                                          \
    static constexpr std::string_view kOp = OPNAME;      \
    template <class T>                                   \
    __device__ __forceinline__ T operator()(T x) const { \
      return EXPR;                                       \
    }                                                    \
  };

// Integer neg/abs/square wrap (computed unsigned: no signed overflow).
template <class T>
__device__ __forceinline__ T WrapNeg(T x) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(x));
  } else {
    return -x;
  }
}
template <class T>
__device__ __forceinline__ T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

SY_UNARY(Neg, "neg", WrapNeg(x))
template <class T>
__device__ __forceinline__ T AbsOf(T x) {
  if constexpr (std::is_unsigned_v<T>) {
    return x;  // u8
  } else {
    return x < T(0) ? WrapNeg(x) : x;
  }
}

SY_UNARY(Abs, "abs", AbsOf(x))
// relu(NaN) is NaN: x > 0 is false for NaN, so keep x when it is not >= 0
// only for NaN.
SY_UNARY(Relu, "relu", (x > T(0) || x != x) ? x : T(0))
SY_UNARY(Square, "square", WrapMul(x, x))
// Floating ops, over the compute type T (float; double for f64).
SY_UNARY(Exp, "exp", math::Exp(x))
SY_UNARY(Log, "log", math::Log(x))
SY_UNARY(Sqrt, "sqrt", math::Sqrt(x))
SY_UNARY(Rsqrt, "rsqrt", T(1) / math::Sqrt(x))
SY_UNARY(Sin, "sin", math::Sin(x))
SY_UNARY(Cos, "cos", math::Cos(x))
SY_UNARY(Tanh, "tanh", math::Tanh(x))
SY_UNARY(Sigmoid, "sigmoid", T(1) / (T(1) + math::Exp(-x)))
SY_UNARY(Silu, "silu", x / (T(1) + math::Exp(-x)))
SY_UNARY(Erf, "erf", math::Erf(x))
SY_UNARY(Reciprocal, "reciprocal", T(1) / x)
#undef SY_UNARY

// gelu(x) = x·½·erfc(−x/√2). f32: the runtime's erff, whose cancellation
// for very negative x costs at most |x|·6e-8 absolute (inside the 1e-6 of
// the spec up to |x| = 16, and erff(−x/√2) is exactly −1 beyond |x| ≈ 5.9).
// f16/bf16 (Note [Fast gelu]): erfc from Abramowitz–Stegun 7.1.26 with the
// hardware's exp2 and reciprocal — an absolute error under 2e-7 in erfc,
// so |x|·1e-7 in gelu, far inside 2ε + 1e-5 — because erff alone made the
// 16-bit kernels compute-bound at half the memory bandwidth.
// The exact forms take the compute type T; their constants, written once
// as doubles, round to the very floats the f32 kernels always used:
static_assert(static_cast<float>(0.70710678118654752) == 0.70710678118654752f &&
              static_cast<float>(0.79788456080286536) == 0.79788456080286536f &&
              static_cast<float>(0.044715) == 0.044715f);
struct GeluErf {
  template <class T>
  __device__ __forceinline__ T operator()(T x) const {
    return T(0.5) * x * (T(1) + math::Erf(x * T(0.70710678118654752)));
  }
};
struct GeluErfFast {
  __device__ __forceinline__ float operator()(float x) const {
    const float z = fabsf(x) * 0.70710678118654752f;
    const float t = __fdividef(1.0f, 1.0f + 0.3275911f * z);
    const float poly =
        t * (0.254829592f +
             t * (-0.284496736f +
                  t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    const float erfc_z = poly * __expf(-z * z);  // erfc(|x|/√2)
    return 0.5f * x * (x >= 0.0f ? 2.0f - erfc_z : erfc_z);
  }
};
struct GeluTanh {
  template <class T>
  __device__ __forceinline__ T operator()(T x) const {
    const T inner = T(0.79788456080286536) * (x + T(0.044715) * x * x * x);
    return T(0.5) * x * (T(1) + math::Tanh(inner));
  }
};

constexpr std::string_view kX = "input 'x'";

template <class Op, sy_dtype_t D>
sy_error_t* UnaryKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = Op::kOp;
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 0, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op, kX, D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", D, *stream));
    using S = Storage<D>;
    return LaunchElementwise<S, S>(Op{}, *stream, call->outputs[0],
                                   {&call->inputs[0]}, op);
  });
}

// A floating op on an integer or bool input: the value as float, the
// result f32 (docs/ops.md).
template <class Op>
struct OnFloat {
  Op op;
  template <class T>
  __device__ __forceinline__ float operator()(T x) const {
    return op(static_cast<float>(x));
  }
};

template <class Op, sy_dtype_t D>
sy_error_t* ToFloatKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = Op::kOp;
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 0, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op, kX, D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", SY_DTYPE_F32, *stream));
    return LaunchElementwise<float, Storage<D>>(OnFloat<Op>{Op{}}, *stream,
                                                call->outputs[0],
                                                {&call->inputs[0]}, op);
  });
}

template <sy_dtype_t D>
sy_error_t* GeluKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "gelu";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 1, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op, kX, D, *stream));
    using S = Storage<D>;
    constexpr bool kFloatIn = kIsFloating<S>;
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->outputs[0], op, "output",
                                        kFloatIn ? D : SY_DTYPE_F32, *stream));
    std::string_view approximate;
    SY_PLUGIN_RETURN_IF_ERROR(
        ReadString(call, 0, op, "approximate", approximate));
    if constexpr (!kFloatIn) {
      // Integer or bool x: f32 out, the exact forms in float.
      if (approximate == "none" || approximate == "tanh") {
        return approximate == "none"
                   ? LaunchElementwise<float, S>(OnFloat<GeluErf>{}, *stream,
                                                 call->outputs[0],
                                                 {&call->inputs[0]}, op)
                   : LaunchElementwise<float, S>(OnFloat<GeluTanh>{}, *stream,
                                                 call->outputs[0],
                                                 {&call->inputs[0]}, op);
      }
    } else if (approximate == "none") {
      if constexpr (!kIsHalfLike<S>) {
        return LaunchElementwise<S, S>(GeluErf{}, *stream, call->outputs[0],
                                       {&call->inputs[0]}, op);
      } else {
        return LaunchElementwise<S, S>(GeluErfFast{}, *stream,
                                       call->outputs[0], {&call->inputs[0]},
                                       op);
      }
    }
    if constexpr (kFloatIn) {
      if (approximate == "tanh") {
        return LaunchElementwise<S, S>(GeluTanh{}, *stream, call->outputs[0],
                                       {&call->inputs[0]}, op);
      }
    }
    return OpError(op, StrCat("attribute 'approximate' is '", approximate,
                              "'; pass \"none\" or \"tanh\""));
  });
}

template <class Op>
void AddFloat(KernelList& l) {
  ForEachDtype<kFloatDtypes>([&]<sy_dtype_t D>() {
    l.Add(Op::kOp, DtypeList<D>, UnaryKernel<Op, D>);
  });
}

// The op on integer and bool inputs (f32 out), after the floating ones.
template <class Op>
void AddFromInt(KernelList& l) {
  ForEachDtype<kIntDtypes, kBoolDtypes>([&]<sy_dtype_t D>() {
    l.Add(Op::kOp, DtypeList<D>, ToFloatKernel<Op, D>);
  });
}

template <class Op>
void AddNumeric(KernelList& l) {
  ForEachDtype<kFloatDtypes, kIntDtypes>([&]<sy_dtype_t D>() {
    l.Add(Op::kOp, DtypeList<D>, UnaryKernel<Op, D>);
  });
}

}  // namespace

std::span<const plugin::KernelSpec> UnaryKernels() {
  static const KernelList list = [] {
    KernelList l;
    AddNumeric<Neg>(l);
    AddNumeric<Abs>(l);
    AddNumeric<Relu>(l);
    AddNumeric<Square>(l);
    AddFloat<Exp>(l);
    AddFloat<Log>(l);
    AddFloat<Sqrt>(l);
    AddFloat<Rsqrt>(l);
    AddFloat<Sin>(l);
    AddFloat<Cos>(l);
    AddFloat<Tanh>(l);
    AddFloat<Sigmoid>(l);
    AddFloat<Silu>(l);
    AddFloat<Erf>(l);
    AddFloat<Reciprocal>(l);
    AddFromInt<Exp>(l);
    AddFromInt<Log>(l);
    AddFromInt<Sqrt>(l);
    AddFromInt<Rsqrt>(l);
    AddFromInt<Sin>(l);
    AddFromInt<Cos>(l);
    AddFromInt<Tanh>(l);
    AddFromInt<Sigmoid>(l);
    AddFromInt<Silu>(l);
    AddFromInt<Erf>(l);
    AddFromInt<Reciprocal>(l);
    ForEachDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>([&]<sy_dtype_t D>() {
      l.Add("gelu", DtypeList<D>, GeluKernel<D>);
    });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
