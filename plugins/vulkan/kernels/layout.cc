// concat (a strided bit copy of each input into its slice of the output,
// shaders/copy_bits.comp) and embedding (shaders/embedding.comp, which
// flags indices out of range; the kernel reads the flag back, so embedding
// synchronizes the stream, as the cuda plugin's does).
#include <vector>

#include "kernels/elementwise.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

sy_error_t* Concat(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "concat";
  return plugin::Guard("vulkan plugin: concat", [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, -1, 1, 1, &stream));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", SY_DTYPE_NONE, *stream));
    int64_t dim = 0;
    SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 0, op, "dim", dim));
    int d = 0;
    SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, out.ndim, op, "dim", d));
    const size_t esize = plugin::DtypeSize(out.dtype);
    const std::string shader = StrCat("copy_", esize);
    int64_t at = 0;
    for (int i = 0; i < call->num_inputs; ++i) {
      const sy_tensor_view_t& in = call->inputs[i];
      SY_PLUGIN_RETURN_IF_ERROR(
          CheckView(in, op, StrCat("tensors[", i, "]"), out.dtype, *stream));
      if (in.ndim != out.ndim) {
        return OpError(op, StrCat("tensors[", i, "] has rank ", in.ndim,
                                  " but the output has rank ", out.ndim));
      }
      sy_tensor_view_t slice = out;
      slice.shape = in.shape;
      slice.byte_offset =
          out.byte_offset + static_cast<uint64_t>(at * out.strides[d]) * esize;
      at += in.shape[d];
      ElementwiseOp e;
      e.op = op;
      SY_PLUGIN_RETURN_IF_ERROR(Shader(op, shader, &e.shader));
      e.out = &slice;
      e.num_inputs = 1;
      e.inputs[0] = {Address(in), in.strides};
      SY_PLUGIN_RETURN_IF_ERROR(RunElementwise(*stream, e));
    }
    return nullptr;
  });
}

sy_error_t* Embedding(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "embedding";
  return plugin::Guard("vulkan plugin: embedding", [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 2, 1, 0, &stream));
    const sy_tensor_view_t& weight = call->inputs[0];
    const sy_tensor_view_t& indices = call->inputs[1];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(weight, op, "input 'weight'", weight.dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(indices, op, "input 'indices'", indices.dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", weight.dtype, *stream));
    if (weight.ndim != 2 || out.ndim != indices.ndim + 1) {
      return OpError(op, "weight must be 2-D and the output indices.shape + "
                         "[weight.shape[1]]");
    }
    int64_t numel = 1;
    for (int d = 0; d < out.ndim; ++d) numel *= out.shape[d];
    if (numel == 0) return nullptr;
    int64_t col[SY_MAX_RANK] = {}, idx[SY_MAX_RANK] = {};
    for (int d = 0; d < indices.ndim; ++d) idx[d] = indices.strides[d];
    col[indices.ndim] = weight.strides[1];
    Context& ctx = stream->ctx();
    std::string why;
    const VkDeviceAddress flag = ctx.memory->Allocate(4, 256, &why);
    if (flag == 0) return DeviceError(op, StrCat("allocating the index flag: ", why));
    BufferRange flag_range;
    ctx.memory->Resolve(flag, 4, &flag_range);
    sy_error_t* error = [&]() -> sy_error_t* {
      {
        auto lock = stream->Lock();
        if (!stream->Fill(flag_range, 4, 0, &why)) return DeviceError(op, why);
      }
      ElementwiseOp e;
      e.op = op;
      SY_PLUGIN_RETURN_IF_ERROR(Shader(
          op, StrCat("embedding_", ShaderDtype(weight.dtype), "_", ShaderDtype(indices.dtype)),
          &e.shader));
      e.out = &out;
      e.num_inputs = 2;
      e.inputs[0] = {Address(weight), col};
      e.inputs[1] = {Address(indices), idx};
      e.force_layout = true;
      e.push.step[0] = static_cast<uint32_t>(weight.strides[0]);
      e.push.scalar_i = static_cast<int32_t>(weight.shape[0]);
      e.push.scalar_lo = static_cast<uint32_t>(flag);
      e.push.scalar_hi = static_cast<uint32_t>(flag >> 32);
      SY_PLUGIN_RETURN_IF_ERROR(RunElementwise(*stream, e));
      uint32_t flagged = 0;
      auto lock = stream->Lock();
      if (!stream->CopyToHost(&flagged, flag_range, 4, &why)) {
        return DeviceError(op, why);
      }
      if (flagged != 0) {
        return OpError(op, StrCat("an index is out of range: indices must lie "
                                  "in [0, ", weight.shape[0],
                                  ") (weight has ", weight.shape[0],
                                  " rows; negative indices are not allowed); "
                                  "the rows it named are zero in the output"));
      }
      return nullptr;
    }();
    ctx.memory->Free(flag);
    return error;
  });
}

}  // namespace

void AddLayoutKernels(const Caps& caps, KernelList& list) {
  static constexpr sy_dtype_t kOne[][1] = {
      {SY_DTYPE_F32}, {SY_DTYPE_F16}, {SY_DTYPE_BF16}, {SY_DTYPE_I32},
      {SY_DTYPE_I64}, {SY_DTYPE_I8},  {SY_DTYPE_U8},   {SY_DTYPE_BOOL}};
  for (const auto& d : kOne) {
    if (DeviceHolds(caps, d[0])) list.Add("concat", d, Concat);
  }
  static constexpr sy_dtype_t kEmb[][2] = {{SY_DTYPE_F32, SY_DTYPE_I32},
                                           {SY_DTYPE_F32, SY_DTYPE_I64},
                                           {SY_DTYPE_F16, SY_DTYPE_I32},
                                           {SY_DTYPE_F16, SY_DTYPE_I64}};
  for (const auto& d : kEmb) {
    if (DeviceHolds(caps, d[0])) list.Add("embedding", d, Embedding);
  }
}

}  // namespace sy::vulkan
