// The host side of every elementwise kernel (shaders/elementwise.glsl):
// merges the operands' dims, picks the dense path (one run, a step per
// operand in push constants) or the strided one (a Layout uploaded to the
// stream's params buffer), and records the dispatch.
#ifndef SWITCHYARD_PLUGINS_VULKAN_KERNELS_ELEMENTWISE_H_
#define SWITCHYARD_PLUGINS_VULKAN_KERNELS_ELEMENTWISE_H_

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/kernel_util.h"
#include "kernels/shaders.h"

namespace sy::vulkan {

// Elements one 256-wide workgroup of an elementwise shader takes: 4 per
// invocation (SY_EPT in shaders/elementwise.glsl).
inline constexpr uint64_t kElementsPerGroup = 256 * 4;

// Mirrors the push constants of shaders/elementwise_push.glsl.
struct ElementwisePush {
  uint64_t out = 0;
  uint64_t in[3] = {};
  uint64_t layout = 0;
  uint32_t n = 0;
  uint32_t step[4] = {};
  float scalar_f = 0;
  int32_t scalar_i = 0;
  uint32_t scalar_lo = 0;
  uint32_t scalar_hi = 0;
};
static_assert(offsetof(ElementwisePush, n) == 40);
static_assert(offsetof(ElementwisePush, step) == 44);
static_assert(offsetof(ElementwisePush, scalar_f) == 60);
static_assert(offsetof(ElementwisePush, scalar_hi) == 72);

// One operand: its address and its strides over the output's shape.
struct Operand {
  uint64_t address = 0;
  const int64_t* strides = nullptr;
};

struct ElementwiseOp {
  std::string_view op;           // for messages
  const ShaderCode* shader = nullptr;
  std::span<const uint32_t> spec;  // specialization constants
  const sy_tensor_view_t* out = nullptr;  // shape and strides of the walk
  std::array<Operand, 3> inputs{};
  int num_inputs = 0;
  ElementwisePush push;          // scalar fields set by the caller
  bool force_layout = false;     // embedding reads step[0] itself
};

// The variant `name`, or an error naming it (a build without it).
sy_error_t* Shader(std::string_view op, std::string_view name,
                   const ShaderCode** out);

// Records the op on `stream` (whose lock the caller does not hold).
sy_error_t* RunElementwise(Stream& stream, ElementwiseOp& e);

// Runs a simple elementwise kernel: `shader_name` over call->outputs[0]
// and the first `num_inputs` inputs (views of the output's shape).
sy_error_t* RunSimple(Stream& stream, const sy_kernel_call_t* call,
                      std::string_view op, std::string_view shader_name,
                      std::span<const uint32_t> spec, int num_inputs,
                      const ElementwisePush& scalars = {});

// A grid of at least `workgroups` workgroups, as (x, y): x at most 65535,
// y as small as that allows, x·y − workgroups < y (the shaders number
// groups y·x_count + x and skip those past the end). False when y would
// pass the device's limit.
bool Groups(const Context& ctx, uint64_t workgroups, uint32_t* x, uint32_t* y);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_KERNELS_ELEMENTWISE_H_
