// Binary arithmetic kernels with a tensor and a Scalar (.Scalar): add sub
// mul div pow maximum minimum. The result has the tensor's dtype, except
// that a float Scalar on an integer or bool tensor computes in f32 and
// gives f32 (docs/ops.md). Integer div/pow refuse a zero divisor or a
// negative exponent before anything runs.
#include <limits>
#include <string>

#include "switchyard/gpu/binary_ops.cuh"
#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::DtypeName;
using ::sy::plugin::StrCat;

template <class Op, sy_dtype_t D>
sy_error_t* ScalarKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = Op::kScalar;
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 1, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[0], op, "input 'a'", D, *stream));
    ScalarValue s;
    SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, op, "b", s));
    using S = Storage<D>;
    const sy_tensor_view_t& out = call->outputs[0];
    const auto run = [&]<class OutS, class C>(C value) -> sy_error_t* {
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(
          out, op, "output",
          std::is_same_v<OutS, S> ? D : SY_DTYPE_F32, *stream));
      return LaunchElementwise<OutS, S>(BindB<Op, C>{Op{}, value}, *stream, out,
                                        {&call->inputs[0]}, op);
    };
    if constexpr (kIsFloating<S>) {
      return run.template operator()<S>(static_cast<Compute<S>>(s.AsDouble()));
    } else {
      if (s.is_float) return run.template operator()<float>(static_cast<float>(s.f));
      if constexpr (D == SY_DTYPE_BOOL) {
        if constexpr (Op::kBool) {
          return run.template operator()<S>(s.i != 0);
        } else {
          return OpError(op, StrCat("input 'a' is bool, and ", op,
                                    " of a bool tensor and an integer Scalar "
                                    "has no bool result; cast 'a' to a numeric "
                                    "dtype first"));
        }
      } else {
        static_assert(Op::kInt);
        if (s.i < std::numeric_limits<S>::min() ||
            s.i > std::numeric_limits<S>::max()) {
          return OpError(op, StrCat("attribute 'b' is ", s.i,
                                    ", which does not fit in ", DtypeName(D),
                                    " of input 'a'; pass a value in range or "
                                    "cast 'a' to a wider dtype"));
        }
        const S value = static_cast<S>(s.i);
        if constexpr (requires { Op::Refuses(S{}); }) {
          // Integer div/pow: the Scalar is known here, so refuse it before
          // anything runs (the cpu plugin's words).
          if (Op::Refuses(value)) {
            return OpError(op, StrCat(
                "attribute 'b' is ", s.i,
                std::is_same_v<Op, DivOp>
                    ? StrCat(", and integer division (", DtypeName(D),
                             ") by zero has no result; divide by nonzero "
                             "values, or cast the inputs to a floating dtype "
                             "to get infinities")
                    : StrCat(", and an integer input 'a' (", DtypeName(D),
                             ") cannot be raised to a negative power; use "
                             "nonnegative exponents, or cast 'a' to a "
                             "floating dtype first")));
          }
        }
        return run.template operator()<S>(value);
      }
    }
  });
}

template <class Op>
void Add(KernelList& l) {
  ForEachDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>([&]<sy_dtype_t D>() {
    l.Add(Op::kScalar, DtypeList<D>, ScalarKernel<Op, D>);
  });
}

}  // namespace

std::span<const plugin::KernelSpec> BinaryScalarKernels() {
  static const KernelList list = [] {
    KernelList l;
    Add<AddOp>(l);
    Add<SubOp>(l);
    Add<MulOp>(l);
    Add<DivOp>(l);
    Add<PowOp>(l);
    Add<MaximumOp>(l);
    Add<MinimumOp>(l);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
