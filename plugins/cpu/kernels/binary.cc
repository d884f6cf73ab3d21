// Binary elementwise kernels: add sub mul div pow maximum minimum (.Tensor
// for two inputs of one dtype, .Scalar for a tensor and a Scalar), the
// comparisons eq ne lt le gt ge, and where.
//
// Semantics (NumPy's where it has them):
// - Integers wrap on overflow (int_math.h). Integer div truncates toward
//   zero; INT_MIN / -1 wraps to INT_MIN; a zero divisor is an error, as is
//   a negative exponent in integer pow (pow overflow wraps).
// - bool: add and maximum are `or`, mul and minimum are `and`; sub, div and
//   pow refuse bool (their shape functions do too).
// - maximum/minimum propagate NaN; comparisons with NaN are false, except
//   ne. f16/bf16 compute in f32 and round once.
// - A Scalar keeps the tensor's dtype (a float Scalar on an integer or bool
//   tensor computes in f32 and gives f32). For arithmetic it is converted to
//   the compute type; an integer Scalar that does not fit an integer tensor's
//   dtype is an error. Comparisons are exact instead: the Scalar is rounded
//   to a floating tensor's dtype first (as NumPy and PyTorch do), and
//   integer or bool tensors compare in i64 against an integer Scalar and in
//   f64 against a float one.
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernels/elementwise_engine.h"
#include "kernels/int_math.h"
#include "kernels/kernel_list.h"
#include "kernels/vector_math.h"

namespace sy::cpu {
namespace {

using ::sy::plugin::DtypeName;
using ::sy::plugin::StrCat;

constexpr std::string_view kAB[] = {"input 'a'", "input 'b'"};
constexpr std::string_view kA[] = {"input 'a'"};
constexpr std::string_view kScalarB = "attribute 'b'";

template <class T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ---- Arithmetic ---------------------------------------------------------------
// Element functors over the compute type T (float, double, an integer type
// or bool). kBool: whether the op accepts bool.

struct Add {
  static constexpr std::string_view kTensor = "add.Tensor";
  static constexpr std::string_view kScalar = "add.Scalar";
  static constexpr bool kBool = true;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a || b;
    } else if constexpr (kIsInt<T>) {
      return WrapAdd(a, b);
    } else {
      return a + b;
    }
  }
};

struct Sub {
  static constexpr std::string_view kTensor = "sub.Tensor";
  static constexpr std::string_view kScalar = "sub.Scalar";
  static constexpr bool kBool = false;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      return WrapSub(a, b);
    } else {
      return a - b;
    }
  }
};

struct Mul {
  static constexpr std::string_view kTensor = "mul.Tensor";
  static constexpr std::string_view kScalar = "mul.Scalar";
  static constexpr bool kBool = true;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a && b;
    } else if constexpr (kIsInt<T>) {
      return WrapMul(a, b);
    } else {
      return a * b;
    }
  }
};

struct Div {
  static constexpr std::string_view kTensor = "div.Tensor";
  static constexpr std::string_view kScalar = "div.Scalar";
  static constexpr bool kBool = false;
  // An integer b without a result; the kernel reports it.
  template <class T>
  static bool Refuses(T b) {
    return b == T{0};
  }
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      return TruncDiv(a, b);
    } else {
      return a / b;
    }
  }
};

// Floating pow goes through VecPow (ArrayOf below).
struct Pow {
  static constexpr std::string_view kTensor = "pow.Tensor";
  static constexpr std::string_view kScalar = "pow.Scalar";
  static constexpr bool kBool = false;
  template <class T>
  static bool Refuses(T b) {
    if constexpr (std::is_signed_v<T>) {
      return b < T{0};
    } else {
      return false;
    }
  }
  template <class T>
  T operator()(T a, T b) const {
    return WrapPow(a, b);
  }
};

// NaN in either input gives NaN: `a > b` is false when b is NaN, so the
// result is b.
struct Maximum {
  static constexpr std::string_view kTensor = "maximum.Tensor";
  static constexpr std::string_view kScalar = "maximum.Scalar";
  static constexpr bool kBool = true;
  template <class T>
  T operator()(T a, T b) const {
    return (a != a || a > b) ? a : b;  // a != a: a is NaN
  }
};

struct Minimum {
  static constexpr std::string_view kTensor = "minimum.Tensor";
  static constexpr std::string_view kScalar = "minimum.Scalar";
  static constexpr bool kBool = true;
  template <class T>
  T operator()(T a, T b) const {
    return (a != a || a < b) ? a : b;
  }
};

// An element op that may refuse its b: every element is still written (0
// where refused), and `refused` is set for the kernel to report.
template <class Op>
struct Checked {
  Op op;
  std::atomic<bool>* refused;
  template <class T>
  void operator()(int64_t n, T* out, const T* a, const T* b) const {
    bool any = false;
    for (int64_t i = 0; i < n; ++i) {
      const bool bad = Op::Refuses(b[i]);
      any = any || bad;
      out[i] = bad ? T{0} : op(a[i], b[i]);
    }
    if (any) refused->store(true, std::memory_order_relaxed);
  }
};

template <class C, class Op>
auto ArrayOf(const Op& op, std::atomic<bool>& refused) {
  if constexpr (std::is_same_v<Op, Pow> && std::is_floating_point_v<C>) {
    return [](int64_t n, C* out, const C* a, const C* b) {
      VecPow(n, out, a, b);
    };
  } else if constexpr (kIsInt<C> && requires { Op::Refuses(C{}); }) {
    return Checked<Op>{op, &refused};
  } else {
    return Map{op};
  }
}

// What went wrong when an integer op refused `b` (an element of the tensor,
// or the Scalar).
template <class Op>
std::string RefusedMessage(std::string_view b, sy_dtype_t dtype) {
  if constexpr (std::is_same_v<Op, Div>) {
    return StrCat(b, ", and integer division (", DtypeName(dtype),
                  ") by zero has no result; divide by nonzero values, or cast "
                  "the inputs to a floating dtype to get infinities");
  } else {
    return StrCat(b, ", and an integer input 'a' (", DtypeName(dtype),
                  ") cannot be raised to a negative power; use nonnegative "
                  "exponents, or cast 'a' to a floating dtype first");
  }
}

template <class Op, sy_dtype_t D>
sy_error_t* ArithTensorKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<Op::kTensor>, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckElementwise(call, Op::kTensor, kAB, DtypeList<D, D>, 0));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckOutputDtype(out, Op::kTensor, D, D));
    using X = Operand<Storage<D>>;
    std::atomic<bool> refused{false};
    RunElementwise<X, X, X>(ArrayOf<Compute<D>>(Op{}, refused), out,
                            {&call->inputs[0], &call->inputs[1]});
    if (refused.load()) {
      return OpError(Op::kTensor,
                     RefusedMessage<Op>(std::is_same_v<Op, Div>
                                            ? "input 'b' has a zero element"
                                            : "input 'b' has a negative element",
                                        D));
    }
    return nullptr;
  });
}

// Runs `op` on a tensor of storage S and the Scalar `value` of compute type
// C, writing OutS.
template <class OutS, class S, class C, class Op>
void RunWithScalar(const Op& op, const sy_kernel_call_t* call, C value) {
  sy_tensor_view_t scalar = call->inputs[0];
  scalar.data = &value;
  scalar.byte_offset = 0;
  scalar.strides = kBroadcastStrides;
  std::atomic<bool> unused{false};
  RunElementwise<Operand<OutS, C>, Operand<S, C>, Operand<C, C>>(
      ArrayOf<C>(op, unused), call->outputs[0], {&call->inputs[0], &scalar});
}

template <class Op, sy_dtype_t D>
sy_error_t* ArithScalarKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<Op::kScalar>, [&]() -> sy_error_t* {
    constexpr std::string_view op = Op::kScalar;
    SY_PLUGIN_RETURN_IF_ERROR(CheckElementwise(call, op, kA, DtypeList<D>, 1));
    ScalarValue s;
    SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, op, kScalarB, s));
    using S = Storage<D>;
    if (s.is_float() && !kIsFloatDtype<D>) {
      SY_PLUGIN_RETURN_IF_ERROR(CheckOutputDtype(
          call->outputs[0], op, D, SY_DTYPE_F32, " and a float Scalar"));
      RunWithScalar<float, S>(Op{}, call, static_cast<float>(s.f));
      return nullptr;
    }
    SY_PLUGIN_RETURN_IF_ERROR(CheckOutputDtype(call->outputs[0], op, D, D));
    if constexpr (D == SY_DTYPE_BOOL && !Op::kBool) {
      return OpError(op, StrCat("input 'a' is bool, and ", op,
                                " of a bool tensor and a bool or integer "
                                "Scalar has no bool result; cast 'a' to a "
                                "numeric dtype first"));
    } else {
      using C = Compute<D>;
      C value{};
      SY_PLUGIN_RETURN_IF_ERROR(ScalarAs(s, D, op, kScalarB, kA[0], value));
      if constexpr (kIsInt<C> && requires { Op::Refuses(C{}); }) {
        if (Op::Refuses(value)) {
          return OpError(op, RefusedMessage<Op>(
                                 StrCat(kScalarB, " is ", s.i), D));
        }
      }
      RunWithScalar<S, S>(Op{}, call, value);
      return nullptr;
    }
  });
}

// ---- Comparisons ----------------------------------------------------------------

#define SY_COMPARE_OP(NAME, NAME_STR, OP)                              \
  struct NAME {                                                        \
    static constexpr std::string_view kTensor = NAME_STR ".Tensor";    \
    static constexpr std::string_view kScalar = NAME_STR ".Scalar";    \
    template <class T>                                                 \
    bool operator()(T a, T b) const {                                  \
      return a OP b;                                                   \
    }                                                                  \
  };
SY_COMPARE_OP(Eq, "eq", ==)
SY_COMPARE_OP(Ne, "ne", !=)
SY_COMPARE_OP(Lt, "lt", <)
SY_COMPARE_OP(Le, "le", <=)
SY_COMPARE_OP(Gt, "gt", >)
SY_COMPARE_OP(Ge, "ge", >=)
#undef SY_COMPARE_OP

using BoolOut = Operand<BoolByte, bool>;

template <class Op, sy_dtype_t D>
sy_error_t* CompareTensorKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<Op::kTensor>, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckElementwise(call, Op::kTensor, kAB, DtypeList<D, D>, 0));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckOutputDtype(out, Op::kTensor, D, SY_DTYPE_BOOL));
    using X = Operand<Storage<D>>;
    RunElementwise<BoolOut, X, X>(Map{Op{}}, out,
                                  {&call->inputs[0], &call->inputs[1]});
    return nullptr;
  });
}

template <class Op, class C, class S>
void RunCompareScalar(const sy_kernel_call_t* call, C value) {
  sy_tensor_view_t scalar = call->inputs[0];
  scalar.data = &value;
  scalar.byte_offset = 0;
  scalar.strides = kBroadcastStrides;
  RunElementwise<BoolOut, Operand<S, C>, Operand<C, C>>(
      Map{Op{}}, call->outputs[0], {&call->inputs[0], &scalar});
}

template <class Op, sy_dtype_t D>
sy_error_t* CompareScalarKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<Op::kScalar>, [&]() -> sy_error_t* {
    constexpr std::string_view op = Op::kScalar;
    SY_PLUGIN_RETURN_IF_ERROR(CheckElementwise(call, op, kA, DtypeList<D>, 1));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckOutputDtype(call->outputs[0], op, D, SY_DTYPE_BOOL));
    ScalarValue s;
    SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, op, kScalarB, s));
    using S = Storage<D>;
    if constexpr (kIsFloatDtype<D>) {
      const S rounded = s.is_float() ? Convert<S>(s.f) : Convert<S>(s.i);
      RunCompareScalar<Op, Compute<D>, S>(call, Convert<Compute<D>>(rounded));
    } else if (s.is_float()) {
      RunCompareScalar<Op, double, S>(call, s.f);
    } else {
      RunCompareScalar<Op, int64_t, S>(call, s.i);
    }
    return nullptr;
  });
}

// ---- where ------------------------------------------------------------------------

constexpr std::string_view kWhereOp = "where";
constexpr std::string_view kCondAB[] = {"input 'condition'", "input 'a'",
                                        "input 'b'"};

// The condition arrives as a 0/1 byte: GCC vectorizes a select on uint8_t
// but not on bool.
struct Select {
  template <class T>
  T operator()(uint8_t c, T a, T b) const {
    return c != 0 ? a : b;
  }
};

// a and b are moved, not converted: f16/bf16 stay in their bits.
template <sy_dtype_t D>
sy_error_t* WhereKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<kWhereOp>, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckElementwise(
        call, kWhereOp, kCondAB, DtypeList<SY_DTYPE_BOOL, D, D>, 0));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckOutputDtype(out, kWhereOp, D, D));
    using S = Storage<D>;
    using X = Operand<S, std::conditional_t<D == SY_DTYPE_BOOL, bool, S>>;
    RunElementwise<X, Operand<BoolByte, uint8_t>, X, X>(
        Map{Select{}}, out,
        {&call->inputs[0], &call->inputs[1], &call->inputs[2]});
    return nullptr;
  });
}

// ---- The list -------------------------------------------------------------------

template <class Op>
void AddArith(KernelList& list) {
  if constexpr (Op::kBool) {
    ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
      list.Add(Op::kTensor, DtypeList<D, D>, ArithTensorKernel<Op, D>);
    });
  } else {
    ForEachDtype(NumericDtypes{}, [&]<sy_dtype_t D> {
      list.Add(Op::kTensor, DtypeList<D, D>, ArithTensorKernel<Op, D>);
    });
  }
  // Every dtype: a float Scalar makes even sub/div/pow of bool valid (f32).
  ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
    list.Add(Op::kScalar, DtypeList<D>, ArithScalarKernel<Op, D>);
  });
}

template <class Op>
void AddCompare(KernelList& list) {
  ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
    list.Add(Op::kTensor, DtypeList<D, D>, CompareTensorKernel<Op, D>);
  });
  ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
    list.Add(Op::kScalar, DtypeList<D>, CompareScalarKernel<Op, D>);
  });
}

}  // namespace

std::span<const plugin::KernelSpec> BinaryKernels() {
  static const KernelList list = [] {
    KernelList l;
    AddArith<Add>(l);
    AddArith<Sub>(l);
    AddArith<Mul>(l);
    AddArith<Div>(l);
    AddArith<Pow>(l);
    AddArith<Maximum>(l);
    AddArith<Minimum>(l);
    AddCompare<Eq>(l);
    AddCompare<Ne>(l);
    AddCompare<Lt>(l);
    AddCompare<Le>(l);
    AddCompare<Gt>(l);
    AddCompare<Ge>(l);
    ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
      l.Add(kWhereOp, DtypeList<SY_DTYPE_BOOL, D, D>, WhereKernel<D>);
    });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cpu
