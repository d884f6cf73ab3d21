// Creation kernels: fill.Scalar, copy, and cast between every pair of f32
// f16 bf16 i32 i64 bool. Conversions are Convert's (device_types.cuh):
// floating to integer truncates toward zero and saturates, NaN to integer
// is 0, anything to bool is != 0, integer to integer wraps.
#include <cmath>
#include <limits>

#include "kernels/elementwise.cuh"
#include "kernels/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::DtypeName;
using ::sy::plugin::StrCat;

constexpr std::string_view kSelf = "input 'self'";

template <class S>
struct Constant {
  S value;
  __device__ __forceinline__ Compute<S> operator()() const {
    if constexpr (std::is_same_v<S, BoolByte>) {
      return value != 0;
    } else {
      return Convert<Compute<S>>(value);
    }
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
    out = s.AsDouble() != 0 ? 1 : 0;
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
  } else if constexpr (std::is_same_v<S, float>) {
    out = static_cast<float>(s.AsDouble());
  } else if constexpr (std::is_same_v<S, __half>) {
    out = __double2half(s.AsDouble());
  } else {
    out = __double2bfloat16(s.AsDouble());
  }
  return nullptr;
}

template <sy_dtype_t D>
sy_error_t* FillKernel(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "fill.Scalar";
  return plugin::Guard("cuda plugin: fill.Scalar", [&]() -> sy_error_t* {
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
  return plugin::Guard("cuda plugin: copy", [&]() -> sy_error_t* {
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
  return plugin::Guard("cuda plugin: cast", [&]() -> sy_error_t* {
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
    const auto run = [&]<class Out>() {
      return LaunchElementwise<Out, In>(Identity{}, *stream, call->outputs[0],
                                        {&call->inputs[0]}, op);
    };
    switch (to) {
      case SY_DTYPE_F32: return run.template operator()<float>();
      case SY_DTYPE_F16: return run.template operator()<__half>();
      case SY_DTYPE_BF16: return run.template operator()<__nv_bfloat16>();
      case SY_DTYPE_I32: return run.template operator()<int32_t>();
      case SY_DTYPE_I64: return run.template operator()<int64_t>();
      case SY_DTYPE_BOOL: return run.template operator()<BoolByte>();
      default:
        return plugin::MakeError(
            SY_STATUS_UNIMPLEMENTED,
            StrCat("cuda plugin: cast: no CUDA kernel casts to ",
                   DtypeName(to), "; the cuda plugin casts between f32 f16 "
                   "bf16 i32 i64 bool; cast on the cpu device instead"));
    }
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
    AddAll<SY_DTYPE_F32>(l);
    AddAll<SY_DTYPE_F16>(l);
    AddAll<SY_DTYPE_BF16>(l);
    AddAll<SY_DTYPE_I32>(l);
    AddAll<SY_DTYPE_I64>(l);
    AddAll<SY_DTYPE_BOOL>(l);
    return l;
  }();
  return list.specs();
}

}  // namespace sy::cuda
