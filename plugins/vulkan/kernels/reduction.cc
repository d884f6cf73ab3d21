// Reductions (shaders/reduce.comp) over rows (rows.h): sum mean max min
// over `dims` with keepdim, argmax over one dim or all of them. f32/f16
// accumulate in double (shaderFloat64), integers and bool in int64 (sum's result is i64).
#include <string>

#include "kernels/rows.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

constexpr const char* kOps[] = {"sum", "mean", "max", "min", "argmax"};

// Out strides aligned with x's dims: the output's own for kept dims (in
// order, or at the same place with keepdim), 0 for reduced ones.
void AlignOutStrides(const sy_tensor_view_t& x, const sy_tensor_view_t& out,
                     const bool* reduced, bool keepdim, int64_t* aligned) {
  int j = 0;
  for (int d = 0; d < x.ndim; ++d) {
    if (keepdim) {
      aligned[d] = reduced[d] || out.ndim <= d ? 0 : out.strides[d];
    } else if (reduced[d]) {
      aligned[d] = 0;
    } else {
      aligned[d] = j < out.ndim ? out.strides[j] : 0;
      ++j;
    }
  }
}

template <int kOp>
sy_error_t* Reduce(const sy_kernel_call_t* call) {
  const std::string_view op = kOps[kOp];
  return plugin::Guard(StrCat("vulkan plugin: ", op), [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 2, &stream));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", x.dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", SY_DTYPE_NONE, *stream));
    bool reduced[SY_MAX_RANK] = {};
    bool keepdim = false;
    SY_PLUGIN_RETURN_IF_ERROR(ReadBool(call, 1, op, "keepdim", keepdim));
    if constexpr (kOp == 4) {
      int64_t dim = 0;
      bool none = false;
      SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 0, op, "dim", dim, &none));
      if (none) {
        for (int d = 0; d < x.ndim; ++d) reduced[d] = true;
      } else {
        int wrapped = 0;
        SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, x.ndim, op, "dim", wrapped));
        if (x.ndim > 0) reduced[wrapped] = true;
      }
      if (none && !keepdim) keepdim = false;
    } else {
      std::span<const int64_t> dims;
      SY_PLUGIN_RETURN_IF_ERROR(ReadInts(call, 0, op, "dims", dims));
      if (dims.empty()) {
        for (int d = 0; d < x.ndim; ++d) reduced[d] = true;
      }
      for (int64_t dim : dims) {
        int wrapped = 0;
        SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, x.ndim, op, "dims", wrapped));
        if (x.ndim > 0) reduced[wrapped] = true;
      }
    }
    int64_t out_strides[SY_MAX_RANK] = {};
    AlignOutStrides(x, out, reduced, keepdim, out_strides);
    RowLayout layout;
    SY_PLUGIN_RETURN_IF_ERROR(BuildRows(op, x.ndim, x.shape, reduced,
                                        {out_strides, x.strides, nullptr, nullptr},
                                        &layout));
    RowPush push;
    push.out = Address(out);
    push.in[0] = Address(x);
    const uint32_t spec[] = {kOp};
    return RunRows(*stream, op,
                   StrCat("reduce_", ShaderDtype(x.dtype), "_", ShaderDtype(out.dtype)),
                   spec, push, layout);
  });
}

}  // namespace

void AddReductionKernels(const Caps& caps, KernelList& list) {
  static constexpr sy_dtype_t kAll[][1] = {
      {SY_DTYPE_F32}, {SY_DTYPE_F16}, {SY_DTYPE_I32}, {SY_DTYPE_I64}, {SY_DTYPE_BOOL}};
  for (const auto& d : kAll) {
    if (!DeviceHolds(caps, d[0]) || (d[0] == SY_DTYPE_BOOL && !caps.storage8)) continue;
    const bool floating = d[0] == SY_DTYPE_F32 || d[0] == SY_DTYPE_F16;
    if (floating && !caps.float64) continue;  // double accumulation
    list.Add("sum", d, Reduce<0>);
    if (floating) list.Add("mean", d, Reduce<1>);
    list.Add("max", d, Reduce<2>);
    list.Add("min", d, Reduce<3>);
    list.Add("argmax", d, Reduce<4>);
  }
}

}  // namespace sy::vulkan
