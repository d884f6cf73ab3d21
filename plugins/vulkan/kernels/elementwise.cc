#include "kernels/elementwise.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace sy::vulkan {

using ::sy::plugin::StrCat;

namespace {

// Mirrors Layout in shaders/common.glsl.
struct LayoutTable {
  uint32_t ndim = 0;
  uint32_t pad[3] = {};
  uint32_t shape[8] = {};
  uint32_t stride[4][8] = {};
};
static_assert(sizeof(LayoutTable) == 176);

}  // namespace

sy_error_t* Shader(std::string_view op, std::string_view name,
                   const ShaderCode** out) {
  *out = FindShader(name);
  if (*out != nullptr) return nullptr;
  return DeviceError(op, StrCat("no SPIR-V variant '", name,
                                "' in this build; this is a bug in the "
                                "vulkan plugin's kernel list"));
}

bool Groups(const Context& ctx, uint64_t workgroups, uint32_t* x,
            uint32_t* y) {
  const uint64_t max_x = std::min<uint64_t>(ctx.caps.max_group_count_x, 65535);
  // As few rows as fit, then the rows as even as can be: gx·gy exceeds
  // `workgroups` by less than gy, where filling x first could launch up to
  // max_x − 1 workgroups that only find themselves past the end.
  const uint64_t w = std::max<uint64_t>(workgroups, 1);
  const uint64_t gy = (w + max_x - 1) / max_x;
  const uint64_t gx = (w + gy - 1) / gy;
  if (gy > ctx.caps.max_group_count_y) return false;
  *x = static_cast<uint32_t>(gx);
  *y = static_cast<uint32_t>(gy);
  return true;
}

sy_error_t* RunElementwise(Stream& stream, ElementwiseOp& e) {
  const sy_tensor_view_t& out = *e.out;
  const int n_ops = 1 + e.num_inputs;
  // Operands past the last input repeat the output's strides: ordered
  // along, never read.
  std::array<const int64_t*, 4> given = {out.strides, out.strides, out.strides, out.strides};
  for (int k = 0; k < e.num_inputs; ++k) given[k + 1] = e.inputs[k].strides;
  // The output's memory order (Note [Elementwise memory order] in
  // switchyard/plugin/views.hpp), then merge dims dense for every operand
  // and drop size-1 dims.
  const plugin::MemoryOrderedDims<4> ordered(plugin::Shape(out), given);
  const plugin::MergedDims<4> merged(ordered.shape(), ordered.strides());
  const int64_t numel = merged.numel();
  if (numel == 0) return nullptr;
  const int nd = merged.ndim();
  const int64_t* const shape = merged.shape();
  LayoutTable l;
  // Offsets are 32-bit in the shaders, and so is the index of the last
  // workgroup's last element.
  constexpr int64_t kMax = int64_t{1} << 32;
  if (numel > kMax - static_cast<int64_t>(kElementsPerGroup)) {
    return OpError(e.op, StrCat(numel, " elements exceed the vulkan plugin's "
                                "32-bit indexing; split the tensor"));
  }
  for (int k = 0; k < n_ops; ++k) {
    int64_t extent = 0;
    for (int d = 0; d < nd; ++d) extent += (shape[d] - 1) * merged.strides(k)[d];
    if (extent >= kMax) {
      return OpError(e.op, "an operand spans more than 2^32 elements; the "
                           "vulkan plugin indexes with 32 bits; make it "
                           "contiguous or split it");
    }
  }
  ElementwisePush& p = e.push;
  p.out = Address(out);
  for (int k = 0; k < e.num_inputs; ++k) p.in[k] = e.inputs[k].address;
  p.n = static_cast<uint32_t>(numel);
  const bool dense = nd <= 1 && !e.force_layout;
  if (!dense) {
    l.ndim = static_cast<uint32_t>(nd);
    for (int d = 0; d < nd; ++d) {
      l.shape[d] = static_cast<uint32_t>(shape[d]);
      for (int k = 0; k < n_ops; ++k) {
        l.stride[k][d] = static_cast<uint32_t>(merged.strides(k)[d]);
      }
    }
  } else {
    for (int k = 0; k < n_ops; ++k) {
      if (k > 0 || !e.force_layout) {
        p.step[k] = nd == 1 ? static_cast<uint32_t>(merged.strides(k)[0]) : 0;
      }
    }
  }
  Context& ctx = stream.ctx();
  std::string why;
  VkPipeline pipeline = ctx.Pipeline(*e.shader, e.spec, &why);
  if (pipeline == VK_NULL_HANDLE) return DeviceError(e.op, why);
  uint32_t gx = 0, gy = 0;
  if (!Groups(ctx, (numel + kElementsPerGroup - 1) / kElementsPerGroup, &gx, &gy)) {
    return OpError(e.op, "too many elements for one dispatch; split the tensor");
  }
  auto lock = stream.Lock();
  if (!dense) {
    p.layout = stream.UploadParams(&l, sizeof l, &why);
    if (p.layout == 0) return DeviceError(e.op, why);
  } else {
    p.layout = 0;
  }
  if (!stream.Dispatch(pipeline,
                       std::as_bytes(std::span(&p, 1)).first(76), gx, gy,
                       &why)) {
    return DeviceError(e.op, why);
  }
  return nullptr;
}

sy_error_t* RunSimple(Stream& stream, const sy_kernel_call_t* call,
                      std::string_view op, std::string_view shader_name,
                      std::span<const uint32_t> spec, int num_inputs,
                      const ElementwisePush& scalars) {
  ElementwiseOp e;
  e.op = op;
  SY_PLUGIN_RETURN_IF_ERROR(Shader(op, shader_name, &e.shader));
  e.spec = spec;
  e.out = &call->outputs[0];
  e.num_inputs = num_inputs;
  for (int k = 0; k < num_inputs; ++k) {
    e.inputs[k] = {Address(call->inputs[k]), call->inputs[k].strides};
  }
  e.push = scalars;
  return RunElementwise(stream, e);
}

}  // namespace sy::vulkan
