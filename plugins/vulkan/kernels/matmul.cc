// matmul (shaders/matmul.comp): NumPy rules — a 1-D a is a row, a 1-D b a
// column, batch dims broadcast (stride 0 where an operand has none or a
// 1). f32 and f16 (accumulating in float). A cooperative-matrix variant
// path (shaders/matmul_coopmat.comp, VK_NV_cooperative_matrix) serves f16
// where the device has it and the shape fits (CoopmatMisfit); everything
// else takes the tiled kernel. docs/vulkan.md, "Cooperative matrices".
#include <algorithm>

#include "kernels/elementwise.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

// Mirrors MatmulLayout in shaders/matmul.comp.
struct MatmulLayout {
  uint32_t m = 0, n = 0, k = 0, batch = 1;
  uint32_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0;
  uint32_t o_rs = 0, o_cs = 0, batch_ndim = 0, row_tiles = 1;
  uint32_t batch_shape[8] = {};
  uint32_t batch_stride[3][8] = {};
};
static_assert(sizeof(MatmulLayout) == 176);

struct MatmulPush {
  uint64_t out = 0, a = 0, b = 0, layout = 0;
};

// Why shaders/matmul_coopmat.comp cannot take the problem, or nullptr when
// it can: 128×128 output tiles (128×256 in the bn256 variant, which the
// caller picks only for N a multiple of 256), K in 16-byte chunks (8
// halves; the kernel zero-fills past K), unit column strides, and every
// row and batch start 16-byte aligned (its 16-byte loads and fragment
// stores). Static strings: checked on every f16 call.
const char* CoopmatMisfit(const MatmulLayout& l, const sy_tensor_view_t& a,
                          const sy_tensor_view_t& b, const sy_tensor_view_t& out) {
  if (a.ndim < 2 || b.ndim < 2) return "an operand is a vector";
  if (l.m % 128 != 0 || l.n % 128 != 0) return "M or N is not a multiple of 128";
  if (l.k % 8 != 0) return "K is not a multiple of 8";
  if (l.a_cs != 1 || l.b_cs != 1 || l.o_cs != 1) return "a column stride is not 1";
  if (l.a_rs % 8 != 0 || l.b_rs % 8 != 0 || l.o_rs % 8 != 0) {
    return "a row stride is not a multiple of 8";
  }
  for (uint32_t d = 0; d < l.batch_ndim; ++d) {
    for (int k = 0; k < 3; ++k) {
      if (l.batch_stride[k][d] % 8 != 0) return "a batch stride is not a multiple of 8";
    }
  }
  if (Address(a) % 16 != 0 || Address(b) % 16 != 0 || Address(out) % 16 != 0) {
    return "an operand is not 16-byte aligned";
  }
  return nullptr;
}

sy_error_t* Matmul(const sy_kernel_call_t* call) {
  constexpr std::string_view op = "matmul";
  return plugin::Guard("vulkan plugin: matmul", [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 2, 1, 0, &stream));
    const sy_tensor_view_t& a = call->inputs[0];
    const sy_tensor_view_t& b = call->inputs[1];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(a, op, "input 'a'", a.dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(b, op, "input 'b'", a.dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", a.dtype, *stream));
    if (a.ndim < 1 || b.ndim < 1) {
      return OpError(op, "both operands need at least one dimension");
    }
    MatmulLayout l;
    int64_t m = 1, k = a.shape[a.ndim - 1], n = 1;
    if (a.ndim == 1) {
      l.a_cs = static_cast<uint32_t>(a.strides[0]);
    } else {
      m = a.shape[a.ndim - 2];
      l.a_rs = static_cast<uint32_t>(a.strides[a.ndim - 2]);
      l.a_cs = static_cast<uint32_t>(a.strides[a.ndim - 1]);
    }
    if (b.ndim == 1) {
      l.b_rs = static_cast<uint32_t>(b.strides[0]);
    } else {
      n = b.shape[b.ndim - 1];
      l.b_rs = static_cast<uint32_t>(b.strides[b.ndim - 2]);
      l.b_cs = static_cast<uint32_t>(b.strides[b.ndim - 1]);
    }
    // The output's matrix dims: [.., M, N] without the squeezed ones.
    const int out_mat = (a.ndim > 1 ? 1 : 0) + (b.ndim > 1 ? 1 : 0);
    if (b.ndim > 1) l.o_cs = static_cast<uint32_t>(out.strides[out.ndim - 1]);
    if (a.ndim > 1) {
      l.o_rs = static_cast<uint32_t>(out.strides[out.ndim - out_mat]);
    }
    const int batch_nd = out.ndim - out_mat;
    if (batch_nd > 8) return OpError(op, "too many batch dims");
    int64_t batch = 1;
    for (int d = 0; d < batch_nd; ++d) {
      const int64_t size = out.shape[d];
      batch *= size;
      l.batch_shape[d] = static_cast<uint32_t>(size);
      l.batch_stride[0][d] = static_cast<uint32_t>(out.strides[d]);
      const int da = d - (batch_nd - (a.ndim - 2));
      const int db = d - (batch_nd - (b.ndim - 2));
      if (a.ndim > 2 && da >= 0 && a.shape[da] != 1) {
        l.batch_stride[1][d] = static_cast<uint32_t>(a.strides[da]);
      }
      if (b.ndim > 2 && db >= 0 && b.shape[db] != 1) {
        l.batch_stride[2][d] = static_cast<uint32_t>(b.strides[db]);
      }
    }
    if (m == 0 || n == 0 || batch == 0) return nullptr;
    constexpr int64_t kMax = int64_t{1} << 32;
    if (m >= kMax || n >= kMax || k >= kMax || batch >= kMax) {
      return OpError(op, "a dimension passes 2^32; split the operands");
    }
    l.m = static_cast<uint32_t>(m);
    l.n = static_cast<uint32_t>(n);
    l.k = static_cast<uint32_t>(k);
    l.batch = static_cast<uint32_t>(batch);
    l.batch_ndim = static_cast<uint32_t>(batch_nd);
    Context& ctx = stream->ctx();
    const char* misfit = nullptr;
    if (a.dtype == SY_DTYPE_F16) {
      misfit = ctx.caps.nv_cooperative_matrix ? CoopmatMisfit(l, a, b, out)
                                              : "the device has no cooperative matrices";
    }
    const bool coopmat = a.dtype == SY_DTYPE_F16 && misfit == nullptr;
    const bool bn256 = coopmat && ctx.caps.coopmat_bn == 256 && n % 256 == 0;
    const int64_t tile = 128;  // every kernel's tile height
    const int64_t tile_n = bn256 ? 256 : 128;
    l.row_tiles = static_cast<uint32_t>((m + tile - 1) / tile);
    const uint64_t gx = static_cast<uint64_t>((n + tile_n - 1) / tile_n);
    const uint64_t gy = static_cast<uint64_t>(l.row_tiles) * batch;
    if (gx > ctx.caps.max_group_count_x || gy > ctx.caps.max_group_count_y) {
      return OpError(op, "the output needs more workgroups than one dispatch "
                         "allows; split the batch");
    }
    const std::string name = bn256     ? std::string("matmul_coopmat_bn256_f16")
                             : coopmat ? std::string("matmul_coopmat_f16")
                                       : StrCat("matmul_", ShaderDtype(a.dtype));
    // Which kernel ran, at debug level (SWITCHYARD_LOG=debug): the f16
    // benchmark and tests/plugins/vulkan/matmul_test.cc check it.
    plugin::Log(plugin::Host(), nullptr, SY_LOG_DEBUG,
                StrCat("vulkan plugin: matmul on ", ctx.label, ": ", name, " for ", batch,
                       "×", m, "×", k, "×", n,
                       misfit != nullptr ? StrCat(" (not cooperative: ", misfit, ")")
                                         : std::string()));
    const ShaderCode* shader = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(Shader(op, name, &shader));
    std::string why;
    VkPipeline pipeline = ctx.Pipeline(*shader, {}, &why);
    if (pipeline == VK_NULL_HANDLE) return DeviceError(op, why);
    MatmulPush push{Address(out), Address(a), Address(b), 0};
    auto lock = stream->Lock();
    push.layout = stream->UploadParams(&l, sizeof l, &why);
    if (push.layout == 0) return DeviceError(op, why);
    if (!stream->Dispatch(pipeline, std::as_bytes(std::span(&push, 1)),
                          static_cast<uint32_t>(gx), static_cast<uint32_t>(gy),
                          &why)) {
      return DeviceError(op, why);
    }
    return nullptr;
  });
}

}  // namespace

void AddMatmulKernels(const Caps& caps, KernelList& list) {
  static constexpr sy_dtype_t kF32[] = {SY_DTYPE_F32, SY_DTYPE_F32};
  static constexpr sy_dtype_t kF16[] = {SY_DTYPE_F16, SY_DTYPE_F16};
  list.Add("matmul", kF32, Matmul);
  if (caps.storage16) list.Add("matmul", kF16, Matmul);
}

}  // namespace sy::vulkan
