// Creation kernels: fill.Scalar, copy, and cast between every pair of the
// dtypes of Note [Kernel dtypes] (dtypes.h: f32 f16 bf16 i32 i64 bool).
// Conversions are Convert's (device_types.cuh):
// floating to integer truncates toward zero and saturates, NaN to integer
// is 0, anything to bool is != 0, integer to integer wraps.
#include <cmath>
#include <limits>
#include <string>

#include "switchyard/gpu/dtypes.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/gpu/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::DtypeName;
using ::sy::plugin::StrCat;

constexpr std::string_view kSelf = "input 'self'";

template <class S>
struct Constant {
  S value;
  __device__ __forceinline__ Compute<S> operator()() const {
    return Load(&value);
  }
};

struct Identity {
  template <class T>
  __device__ __forceinline__ T operator()(T v) const {
    return v;
  }
};

// The Scalar as storage type S: floats round, integers truncate toward
// zero (values that do not fit are an error, as the shape function says),
// bool is value != 0.
template <sy_dtype_t D>
sy_error_t* FillValue(const ScalarValue& s, Storage<D>& out) {
  using S = Storage<D>;
  if constexpr (D == SY_DTYPE_BOOL) {
    out = BoolByte{static_cast<uint8_t>(s.AsDouble() != 0 ? 1 : 0)};
  } else if constexpr (std::is_integral_v<S>) {
    const double t = s.is_float ? std::trunc(s.f) : 0;
    const bool fits =
        s.is_float ? (t >= static_cast<double>(std::numeric_limits<S>::min()) &&
                      t <= static_cast<double>(std::numeric_limits<S>::max()))
                   : (s.i >= std::numeric_limits<S>::min() &&
                      s.i <= std::numeric_limits<S>::max());
    if (!fits) {
      return OpError("fill.Scalar",
                     StrCat("attribute 'value' is ", s.AsDouble(),
                            ", which does not fit in ", DtypeName(D), " of ",
                            kSelf, "; pass a value in range, or cast the "
                            "tensor to a wider dtype first"));
    }
    out = s.is_float ? static_cast<S>(t) : static_cast<S>(s.i);
  } else if constexpr (std::is_floating_point_v<S>) {
    out = static_cast<S>(s.AsDouble());
  } else if constexpr (std::is_same_v<S, half>) {
    out = HalfFromDouble(s.AsDouble());
  } else {
    out = Bfloat16FromDouble(s.AsDouble());
  }
  return nullptr;
}

template <sy_dtype_t D>
sy_error_t* FillKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "fill.Scalar";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 1, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op, kSelf, D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", D, *stream));
    ScalarValue s;
    SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, op, "value", s));
    using S = Storage<D>;
    S value{};
    SY_PLUGIN_RETURN_IF_ERROR(FillValue<D>(s, value));
    return LaunchElementwise<S>(Constant<S>{value}, *stream, call->outputs[0],
                                {}, op);
  });
}

template <sy_dtype_t D>
sy_error_t* CopyKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "copy";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 0, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(call->inputs[0], op, kSelf, D, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", D, *stream));
    using S = Storage<D>;
    return LaunchElementwise<S, S>(Identity{}, *stream, call->outputs[0],
                                   {&call->inputs[0]}, op);
  });
}

template <sy_dtype_t From>
sy_error_t* CastKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "cast";
  static const std::string where = Where(op);
  return plugin::Guard(where, [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 1, &stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[0], op, kSelf, From, *stream));
    const sy_attr_t& attr = call->attrs[0];
    if (attr.kind != SY_ATTR_DTYPE) {
      return OpError(op, StrCat("attribute 'dtype' has attribute kind ",
                                attr.kind, " but a ScalarType is passed as "
                                "SY_ATTR_DTYPE; the call does not match the "
                                "op's schema"));
    }
    const sy_dtype_t to = attr.value.dtype;
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], op, "output", to, *stream));
    using In = Storage<From>;
    return VisitDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>(
        to,
        [&]<sy_dtype_t To>() -> sy_error_t* {
          return LaunchElementwise<Storage<To>, In>(
              Identity{}, *stream, call->outputs[0], {&call->inputs[0]}, op);
        },
        [&]() -> sy_error_t* {
          const Target& target = ThisTarget();
          return plugin::MakeError(
              SY_STATUS_UNIMPLEMENTED,
              StrCat(Where(op), ": no ", target.runtime,
                     " kernel casts to ", DtypeName(to), "; the ",
                     target.plugin, " plugin casts between ",
                     DtypeNames<kFloatDtypes, kIntDtypes, kBoolDtypes>(),
                     "; cast on the cpu device instead"));
        });
  });
}

template <sy_dtype_t D>
void AddAll(KernelList& l) {
  l.Add("fill.Scalar", DtypeList<D>, FillKernel<D>);
  l.Add("copy", DtypeList<D>, CopyKernel<D>);
  l.Add("cast", DtypeList<D>, CastKernel<D>);
}

}  // namespace

std::span<const plugin::KernelSpec> CreationKernels() {
  static const KernelList list = [] {
    KernelList l;
    ForEachDtype<kFloatDtypes, kIntDtypes, kBoolDtypes>(
        [&]<sy_dtype_t D>() { AddAll<D>(l); });
    return l;
  }();
  return list.specs();
}

}  // namespace sy::gpu
