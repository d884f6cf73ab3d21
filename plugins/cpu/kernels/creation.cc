// Creation kernels: fill.Scalar, copy, and cast between every pair of the
// nine dtypes. Conversion semantics are Convert's (elementwise_engine.h):
// float to integer truncates toward zero and saturates, NaN to integer is 0,
// anything to bool is != 0, integer to integer wraps.
#include <cmath>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "kernels/elementwise_engine.h"
#include "kernels/kernel_list.h"

namespace sy::cpu {
namespace {

using ::sy::plugin::StrCat;

constexpr std::string_view kSelf[] = {"input 'self'"};
constexpr std::string_view kFill = "fill.Scalar";
constexpr std::string_view kCopy = "copy";
constexpr std::string_view kCast = "cast";
constexpr std::string_view kValue = "attribute 'value'";

// The Scalar as an element of storage type S. The shape function refuses
// values that do not fit an integer dtype; the kernel refuses them too
// rather than saturate silently.
template <class S>
sy_error_t* FillValue(const ScalarValue& s, sy_dtype_t dtype, S& out) {
  if constexpr (std::is_integral_v<S>) {
    int64_t value = s.i;
    if (s.is_float()) {
      const double t = std::trunc(s.f);
      // [-2^63, 2^63): what int64 holds; CheckIntFits narrows further.
      if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) {
        return OpError(kFill, StrCat(kValue, " is ", s.f,
                                     ", which does not fit in ",
                                     plugin::DtypeName(dtype), " of ",
                                     kSelf[0], "; pass a value in range, or "
                                     "cast input 'self' to a floating dtype "
                                     "first"));
      }
      value = static_cast<int64_t>(t);
    }
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckIntFits(value, dtype, kFill, kValue, kSelf[0]));
    out = static_cast<S>(value);
  } else {
    out = s.is_float() ? Convert<S>(s.f) : Convert<S>(s.i);
  }
  return nullptr;
}

// `self` only gives the shape and dtype; its elements are not read.
template <sy_dtype_t D>
sy_error_t* FillKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<kFill>, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckElementwise(call, kFill, kSelf, DtypeList<D>, 1));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckOutputDtype(out, kFill, D, D));
    ScalarValue s;
    SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, kFill, kValue, s));
    using S = Storage<D>;
    S value{};
    SY_PLUGIN_RETURN_IF_ERROR(FillValue(s, D, value));
    RunElementwise<Operand<S, S>>(Map{[value] { return value; }}, out, {});
    return nullptr;
  });
}

// Moves elements without conversion (bool bytes come out as 0 or 1).
template <sy_dtype_t D>
sy_error_t* CopyKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<kCopy>, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckElementwise(call, kCopy, kSelf, DtypeList<D>, 0));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckOutputDtype(out, kCopy, D, D));
    using S = Storage<D>;
    using X = Operand<S, std::conditional_t<D == SY_DTYPE_BOOL, bool, S>>;
    RunElementwise<X, X>(Map{[](auto v) { return v; }}, out,
                         {&call->inputs[0]});
    return nullptr;
  });
}

// Reads self in its compute type (f16/bf16 through f32, which holds them
// exactly; bool as 0/1) and converts once, on the way out.
template <sy_dtype_t D>
sy_error_t* CastKernel(const sy_kernel_call_t* call) {
  return plugin::Guard(kWhere<kCast>, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckElementwise(call, kCast, kSelf, DtypeList<D>, 1));
    const sy_tensor_view_t& out = call->outputs[0];
    const sy_attr_t& attr = call->attrs[0];
    if (attr.kind != SY_ATTR_DTYPE) {
      return OpError(kCast, StrCat("attribute 'dtype' has attribute kind ",
                                   attr.kind, " but a ScalarType is passed "
                                   "as SY_ATTR_DTYPE; the call does not "
                                   "match the op's schema"));
    }
    const sy_dtype_t to = attr.value.dtype;
    if (out.dtype != to) {
      return OpError(kCast, StrCat("output has dtype ",
                                   plugin::DtypeName(out.dtype),
                                   " but attribute 'dtype' is ",
                                   plugin::DtypeName(to),
                                   "; allocate the output with the dtype the "
                                   "op's shape function gives"));
    }
    using C = Compute<D>;
    const bool known = VisitDtype(to, [&]<sy_dtype_t E> {
      RunElementwise<Operand<Storage<E>, C>, Operand<Storage<D>, C>>(
          Map{[](C v) { return v; }}, out, {&call->inputs[0]});
    });
    if (!known) {
      return OpError(kCast, StrCat("attribute 'dtype' is not a valid dtype "
                                   "(code ", to, "); use one of f32 f64 f16 "
                                   "bf16 i32 i64 i8 u8 bool"));
    }
    return nullptr;
  });
}

}  // namespace

std::span<const plugin::KernelSpec> CreationKernels() {
  static const KernelList list = [] {
    KernelList l;
    ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
      l.Add(kFill, DtypeList<D>, FillKernel<D>);
    });
    ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
      l.Add(kCopy, DtypeList<D>, CopyKernel<D>);
    });
    ForEachDtype(AllDtypes{}, [&]<sy_dtype_t D> {
      l.Add(kCast, DtypeList<D>, CastKernel<D>);
    });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cpu
