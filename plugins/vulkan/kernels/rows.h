// The host side of row kernels (shaders/rows.glsl): reductions and
// normalizations see their input as rows — the "inner" dims (reduced or
// normalized) for each index of the "outer" dims — with up to four
// operands' strides (0 output, 1 x, 2 weight, 3 bias), each given over
// x's dims. One workgroup per row.
#ifndef SWITCHYARD_PLUGINS_VULKAN_KERNELS_ROWS_H_
#define SWITCHYARD_PLUGINS_VULKAN_KERNELS_ROWS_H_

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/kernel_util.h"
#include "kernels/shaders.h"

namespace sy::vulkan {

// Mirrors RowLayout in shaders/rows.glsl.
struct RowLayout {
  uint32_t outer_ndim = 0;
  uint32_t inner_ndim = 0;
  uint32_t rows = 1;
  uint32_t row_size = 1;
  uint32_t outer_shape[8] = {};
  uint32_t inner_shape[8] = {};
  uint32_t outer_stride[4][8] = {};
  uint32_t inner_stride[4][8] = {};
};
static_assert(sizeof(RowLayout) == 336);

// Mirrors the push constants of rows.glsl. dense_rows and dense_size are
// RunRows's (Note [Dense rows] in shaders/rows.glsl).
struct RowPush {
  uint64_t out = 0;
  uint64_t in[3] = {};
  uint64_t layout = 0;
  float eps = 0;
  uint32_t dense_rows = 0;
  uint32_t dense_size = 0;
  uint32_t pad = 0;
};
static_assert(sizeof(RowPush) == 56);

// Splits x's dims (`shape`, rank `ndim`) into outer and inner (`inner[d]`),
// dropping size-1 dims. strides[k] has ndim entries, or is null for an
// operand that is absent (zeros). Errors when a count passes 32 bits.
sy_error_t* BuildRows(std::string_view op, int ndim, const int64_t* shape,
                      const bool* inner,
                      const std::array<const int64_t*, 4>& strides,
                      RowLayout* out);

// Uploads `layout` and dispatches one workgroup per row; where the rows are
// dense (Note [Dense rows]), says so in `push` too. `push.in[1]` and
// `push.in[2]` are 0 where weight and bias are absent.
sy_error_t* RunRows(Stream& stream, std::string_view op,
                    std::string_view shader_name,
                    std::span<const uint32_t> spec, RowPush push,
                    const RowLayout& layout);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_KERNELS_ROWS_H_
