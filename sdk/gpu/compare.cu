// Comparison kernels eq ne lt le gt ge (.Tensor and .Scalar), giving bool,
// and where(condition, a, b). Comparisons with NaN are false except ne.
// A Scalar is compared exactly: rounded to a floating tensor's dtype first
// (as NumPy and PyTorch do); integer and bool tensors compare in int64
// against an integer Scalar and in double against a float one.
#include <string>

#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

#define SY_COMPARE(NAME, NAME_STR, OP)                                 \
  struct NAME {                                                        \
    static constexpr std::string_view kTensor = NAME_STR ".Tensor";    \
    static constexpr std::string_view kScalar = NAME_STR ".Scalar";    \
    template <class T>                                                 \
    __device__ __forceinline__ bool operator()(T a, T b) const {       \
      return a OP b;                                                   \
    }                                                                  \
  };
SY_COMPARE(Eq, "eq", ==)
SY_COMPARE(Ne, "ne", !=)
SY_COMPARE(Lt, "lt", <)
SY_COMPARE(Le, "le", <=)
SY_COMPARE(Gt, "gt", >)
SY_COMPARE(Ge, "ge", >=)
#undef SY_COMPARE

template <class Op, class C>
struct CompareWith {
  Op op;
  C value;
  template <class T>
  __device__ __forceinline__ bool operator()(T a) const {
    return op(static_cast<C>(a), value);
  }
};

// Values are moved in their compute type, which holds every storage value
// exactly (f16/bf16 through float).
struct Select {
  template <class T>
  __device__ __forceinline__ T operator()(bool c, T a, T b) const {
    return c ? a : b;
  }
};

template <class Op, sy_dtype_t D>
sy_error_t* TensorKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = Op::kTensor;
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 2, 1, 0, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[0], op, "input 'a'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[1], op, "input 'b'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", SY_DTYPE_BOOL, *stream));
    using S = Storage<D>;
    return LaunchElementwise<BoolByte, S, S>(
        Op{}, *stream, call->outputs[0], {&call->inputs[0], &call->inputs[1]},
        op);
  });
}

// The Scalar rounded to a floating storage type S, in S's compute type.
template <class S>
Compute<S> RoundScalar(double v) {
  if constexpr (std::is_same_v<S, half>) {
    return ToFloat(HalfFromDouble(v));
  } else if constexpr (std::is_same_v<S, bfloat16>) {
    return ToFloat(Bfloat16FromDouble(v));
  } else {
    return static_cast<S>(v);
  }
}

template <class Op, sy_dtype_t D>
sy_error_t* ScalarKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = Op::kScalar;
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 1, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[0], op, "input 'a'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", SY_DTYPE_BOOL, *stream));
    ScalarValue s;
    SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, op, "b", s));
    using S = Storage<D>;
    const auto run = [&](auto value) {
      return LaunchElementwise<BoolByte, S>(
          CompareWith<Op, decltype(value)>{Op{}, value}, *stream,
          call->outputs[0], {&call->inputs[0]}, op);
    };
    if constexpr (kIsFloating<S>) {
      return run(RoundScalar<S>(s.AsDouble()));
    } else {
      if (s.is_float) return run(s.f);
      return run(s.i);
    }
  });
}

template <sy_dtype_t D>
sy_error_t* WhereKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "where";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 3, 1, 0, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op,
                                        "input 'condition'", SY_DTYPE_BOOL,
                                        *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[1], op, "input 'a'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[2], op, "input 'b'", D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", D, *stream));
    using S = Storage<D>;
    return LaunchElementwise<S, BoolByte, S, S>(
        Select{}, *stream, call->outputs[0],
        {&call->inputs[0], &call->inputs[1], &call->inputs[2]}, op);
  });
}

template <class Op>
void AddCompare(KernelList& l) {
  ForEachDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>([&]<sy_dtype_t D>() {
    l.Add(Op::kTensor, DtypeList<D, D>, TensorKernel<Op, D>);
  });
  ForEachDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>([&]<sy_dtype_t D>() {
    l.Add(Op::kScalar, DtypeList<D>, ScalarKernel<Op, D>);
  });
}

}  // namespace

std::span<const plugin::KernelSpec> CompareKernels() {
  static const KernelList list = [] {
    KernelList l;
    AddCompare<Eq>(l);
    AddCompare<Ne>(l);
    AddCompare<Lt>(l);
    AddCompare<Le>(l);
    AddCompare<Gt>(l);
    AddCompare<Ge>(l);
    ForEachDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>([&]<sy_dtype_t D>() {
      l.Add("where", DtypeList<SY_DTYPE_BOOL, D, D>, WhereKernel<D>);
    });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
