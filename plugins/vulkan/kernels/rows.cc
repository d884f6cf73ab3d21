#include "kernels/rows.h"

#include "kernels/elementwise.h"

namespace sy::vulkan {

using ::sy::plugin::StrCat;

sy_error_t* BuildRows(std::string_view op, int ndim, const int64_t* shape,
                      const bool* inner,
                      const std::array<const int64_t*, 4>& strides,
                      RowLayout* l) {
  constexpr int64_t kMax = int64_t{1} << 32;
  int64_t rows = 1, row_size = 1;
  int64_t extent[4] = {};
  *l = RowLayout{};
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 0) {
      if (inner[d]) row_size = 0; else rows = 0;
    }
    if (shape[d] <= 1) continue;
    const bool in = inner[d];
    uint32_t& nd = in ? l->inner_ndim : l->outer_ndim;
    (in ? l->inner_shape : l->outer_shape)[nd] = static_cast<uint32_t>(shape[d]);
    for (int k = 0; k < 4; ++k) {
      const int64_t s = strides[k] != nullptr ? strides[k][d] : 0;
      extent[k] += (shape[d] - 1) * s;
      (in ? l->inner_stride : l->outer_stride)[k][nd] = static_cast<uint32_t>(s);
    }
    ++nd;
    (in ? row_size : rows) *= shape[d];
  }
  bool too_big = rows >= kMax || row_size >= kMax;
  for (int64_t e : extent) too_big = too_big || e >= kMax;
  if (too_big) {
    return OpError(op, "the tensor spans more than 2^32 elements; the vulkan "
                       "plugin indexes with 32 bits; split it");
  }
  l->rows = static_cast<uint32_t>(rows);
  l->row_size = static_cast<uint32_t>(row_size);
  return nullptr;
}

namespace {

// Note [Dense rows] (shaders/rows.glsl): one inner dim of unit stride for
// x, the output and each operand present, x and the output at row_size
// between rows, weight and bias the same for every row.
bool DenseRows(const RowLayout& l, const RowPush& push) {
  if (l.inner_ndim != 1 || l.outer_ndim > 1) return false;
  for (int k = 0; k < 4; ++k) {
    const bool present = k < 2 || push.in[k - 1] != 0;
    if (!present) continue;
    if (l.inner_stride[k][0] != 1) return false;
    const uint32_t between = k < 2 ? l.row_size : 0;
    if (l.outer_ndim == 1 && l.outer_stride[k][0] != between) return false;
  }
  return true;
}

}  // namespace

sy_error_t* RunRows(Stream& stream, std::string_view op,
                    std::string_view shader_name,
                    std::span<const uint32_t> spec, RowPush push,
                    const RowLayout& layout) {
  if (layout.rows == 0) return nullptr;
  const ShaderCode* shader = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(Shader(op, shader_name, &shader));
  Context& ctx = stream.ctx();
  std::string why;
  VkPipeline pipeline = ctx.Pipeline(*shader, spec, &why);
  if (pipeline == VK_NULL_HANDLE) return DeviceError(op, why);
  uint32_t gx = 0, gy = 0;
  if (!Groups(ctx, layout.rows, &gx, &gy)) {
    return OpError(op, "too many rows for one dispatch; split the tensor");
  }
  if (DenseRows(layout, push)) {
    push.dense_rows = layout.rows;
    push.dense_size = layout.row_size;
  }
  auto lock = stream.Lock();
  push.layout = stream.UploadParams(&layout, sizeof layout, &why);
  if (push.layout == 0) return DeviceError(op, why);
  if (!stream.Dispatch(pipeline, std::as_bytes(std::span(&push, 1)), gx, gy,
                       &why)) {
    return DeviceError(op, why);
  }
  return nullptr;
}

}  // namespace sy::vulkan
