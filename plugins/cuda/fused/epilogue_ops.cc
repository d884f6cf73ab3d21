// The cuda plugin's pattern ops: a matmul with its bias (and GELU) in
// cuBLASLt's epilogue, for the fusion pass's pattern substitution
// (fusion_extension.cc lists the patterns they replace).
//
//   cuda::matmul_bias(Tensor a, Tensor b, Tensor bias) -> Tensor
//       a @ b + bias            (a [..., K], b [K, N], bias [N])
//   cuda::matmul_bias_gelu(Tensor a, Tensor b, Tensor bias) -> Tensor
//       gelu(a @ b + bias, approximate="tanh")
//
// Both are linear's GEMM (gpu::BeginLinear) with the weight given as b's
// transpose — a view, nothing moves — so cuBLASLt runs them exactly as it
// runs linear and cuda::linear_gelu. cuBLASLt's GELU is the tanh form, so
// only gelu(…, approximate="tanh") matches; ReLU has no epilogue here yet
// (GemmEpilogue lacks it).
#include <cuda_runtime_api.h>

#include <span>
#include <string>

#include "cuda_util.h"
#include "fused/fusion_extension.h"
#include "kernels/gemm.h"
#include "switchyard/gpu/gemm_problem.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::gpu::GemmEpilogue;
using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

sy_error_t* Invalid(std::string_view op, const std::string& what) {
  return MakeError(SY_STATUS_INVALID_ARGUMENT, StrCat(op, ": ", what));
}

// a [..., K], b [K, N], bias [N] -> [..., N] of a's dtype.
sy_error_t* MatmulBiasShape(const sy_shape_call_t* call) {
  return plugin::Guard("cuda::matmul_bias shape", [&]() -> sy_error_t* {
    if (call == nullptr || call->num_inputs != 3 || call->num_outputs != 1) {
      return Invalid("cuda::matmul_bias", "expects a, b and bias, and one output");
    }
    const sy_tensor_meta_t& a = call->inputs[0];
    const sy_tensor_meta_t& b = call->inputs[1];
    const sy_tensor_meta_t& bias = call->inputs[2];
    if (a.dtype != SY_DTYPE_F32 && a.dtype != SY_DTYPE_F16 && a.dtype != SY_DTYPE_BF16) {
      return Invalid("cuda::matmul_bias", "takes f32, f16 or bf16");
    }
    if (b.dtype != a.dtype || bias.dtype != a.dtype) {
      return Invalid("cuda::matmul_bias", "a, b and bias must have one dtype");
    }
    if (a.ndim < 1 || b.ndim != 2 || a.shape[a.ndim - 1] != b.shape[0] || bias.ndim != 1 ||
        bias.shape[0] != b.shape[1]) {
      return Invalid("cuda::matmul_bias", "expects a [..., K], b [K, N] and bias [N]");
    }
    sy_tensor_meta_t& out = call->outputs[0];
    out = a;
    out.shape[a.ndim - 1] = b.shape[1];
    return nullptr;
  });
}

// Runs linear(a, bᵀ, bias) with `epilogue` (kNone or kGelu; the bias
// upgrades it).
sy_error_t* Run(const sy_kernel_call_t* call, sy_dtype_t dtype, std::string_view op,
                GemmEpilogue epilogue) {
  if (call == nullptr || call->num_inputs != 3) {
    return Invalid(op, "expects a, b and bias");
  }
  // b [K, N] as linear's weight [N, K]: its transpose, as a view.
  sy_tensor_view_t inputs[3] = {call->inputs[0], call->inputs[1], call->inputs[2]};
  const sy_tensor_view_t& b = call->inputs[1];
  const int64_t shape[2] = {b.shape[1], b.shape[0]};
  const int64_t strides[2] = {b.strides[1], b.strides[0]};
  inputs[1].shape = shape;
  inputs[1].strides = strides;
  sy_kernel_call_t linear = *call;
  linear.inputs = inputs;
  gpu::Stream* stream = nullptr;
  gpu::GemmProblem p;
  SY_PLUGIN_RETURN_IF_ERROR(gpu::BeginLinear(&linear, dtype, op, epilogue, &stream, &p));
  // cuBLASLt reads an epilogue's bias dense and 16-byte aligned.
  void* dense = nullptr;
  if (p.bias != nullptr &&
      (p.bias_stride != 1 || reinterpret_cast<uintptr_t>(p.bias) % 16 != 0)) {
    const int64_t n = p.b.cols;
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(
        cudaMallocAsync(&dense, n * plugin::DtypeSize(dtype), stream->stream),
        StrCat("cuda plugin: ", op), "allocating a dense bias failed"));
    if (sy_error_t* e = CopyVector(*stream, dtype, dense, p.bias, n, p.bias_stride, op)) {
      cudaFreeAsync(dense, stream->stream);
      return e;
    }
    p.bias = dense;
    p.bias_stride = 1;
  }
  sy_error_t* error = RunGemm(*stream, p, call->variant, op);
  if (dense != nullptr) cudaFreeAsync(dense, stream->stream);
  return error;
}

template <sy_dtype_t D>
sy_error_t* MatmulBias(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: cuda::matmul_bias",
                       [&] { return Run(call, D, "cuda::matmul_bias", GemmEpilogue::kNone); });
}

template <sy_dtype_t D>
sy_error_t* MatmulBiasGelu(const sy_kernel_call_t* call) {
  return plugin::Guard("cuda plugin: cuda::matmul_bias_gelu",
                       [&] { return Run(call, D, "cuda::matmul_bias_gelu", GemmEpilogue::kGelu); });
}

sy_error_t* Register(const sy_host_api_t* host, sy_host_context_t* context, const char* op,
                     sy_dtype_t d, sy_kernel_fn fn) {
  const sy_dtype_t dtypes[3] = {d, d, d};
  const std::string name = StrCat(op, ".", plugin::DtypeName(d));
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = op;
  desc.device_type = "cuda";
  desc.name = name.c_str();
  desc.dtypes = dtypes;
  desc.num_dtypes = 3;
  desc.priority = gpu::ThisTarget().priority;
  desc.fn = fn;
  return host->register_kernel(context, &desc);
}

}  // namespace

sy_error_t* RegisterPatternOps(const sy_host_api_t* host, sy_host_context_t* context) {
  for (const char* schema : {"cuda::matmul_bias(Tensor a, Tensor b, Tensor bias) -> Tensor",
                             "cuda::matmul_bias_gelu(Tensor a, Tensor b, Tensor bias) -> Tensor"}) {
    sy_schema_desc_t desc{};
    desc.struct_size = sizeof(desc);
    desc.schema = schema;
    desc.shape_fn = MatmulBiasShape;
    SY_PLUGIN_RETURN_IF_ERROR(host->register_schema(context, &desc));
  }
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "cuda::matmul_bias", SY_DTYPE_F32, MatmulBias<SY_DTYPE_F32>));
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "cuda::matmul_bias", SY_DTYPE_F16, MatmulBias<SY_DTYPE_F16>));
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "cuda::matmul_bias", SY_DTYPE_BF16, MatmulBias<SY_DTYPE_BF16>));
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "cuda::matmul_bias_gelu", SY_DTYPE_F32, MatmulBiasGelu<SY_DTYPE_F32>));
  SY_PLUGIN_RETURN_IF_ERROR(Register(host, context, "cuda::matmul_bias_gelu", SY_DTYPE_F16, MatmulBiasGelu<SY_DTYPE_F16>));
  return Register(host, context, "cuda::matmul_bias_gelu", SY_DTYPE_BF16, MatmulBiasGelu<SY_DTYPE_BF16>);
}

}  // namespace sy::cuda
