// The plugin's own op cuda::linear_gelu: gelu(linear(x, weight, bias)) in
// one cuBLASLt call, the bias and GELU applied in the GEMM's epilogue
// instead of two more passes over the output. cuBLASLt's GELU is the tanh
// approximation, so the op equals gelu(…, approximate="tanh"); the schema
// says so in its name's documentation (docs/cuda.md).
#include <string>

#include "kernels/kernel_list.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {

sy_error_t* RegisterLinearGeluKernels(const sy_host_api_t* host,
                                      sy_host_context_t* context);

namespace {

using ::sy::plugin::MakeError;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr const char* kSchema =
    "cuda::linear_gelu(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor";

sy_error_t* Invalid(const std::string& what) {
  return MakeError(SY_STATUS_INVALID_ARGUMENT,
                   StrCat("cuda::linear_gelu: ", what));
}

// x [..., in], weight [out, in], bias [out] -> [..., out], x's dtype.
sy_error_t* LinearGeluShape(const sy_shape_call_t* call) {
  return plugin::Guard("cuda::linear_gelu shape", [&]() -> sy_error_t* {
    if (call == nullptr || call->num_inputs < 2 || call->num_outputs != 1 ||
        call->inputs == nullptr || call->outputs == nullptr) {
      return Invalid("expects x, weight and an optional bias, and one output");
    }
    const sy_tensor_meta_t& x = call->inputs[0];
    const sy_tensor_meta_t& w = call->inputs[1];
    const auto shape = [](const sy_tensor_meta_t& m) {
      return ShapeToString(std::span<const int64_t>(m.shape, m.ndim));
    };
    if (x.dtype != SY_DTYPE_F32 && x.dtype != SY_DTYPE_F16 &&
        x.dtype != SY_DTYPE_BF16) {
      return Invalid(StrCat("input 'x' has dtype ", plugin::DtypeName(x.dtype),
                            "; cast it to f32, f16 or bf16"));
    }
    if (w.dtype != x.dtype ||
        (call->num_inputs == 3 && call->inputs[2].dtype != x.dtype)) {
      return Invalid("x, weight and bias must have one dtype; cast them");
    }
    if (x.ndim < 1 || w.ndim != 2 || x.shape[x.ndim - 1] != w.shape[1]) {
      return Invalid(StrCat("input 'x' has shape ", shape(x), " and 'weight' ",
                            shape(w), "; pass x [..., in] and weight [out, "
                            "in]"));
    }
    if (call->num_inputs == 3) {
      const sy_tensor_meta_t& b = call->inputs[2];
      if (b.ndim != 1 || b.shape[0] != w.shape[0]) {
        return Invalid(StrCat("input 'bias' has shape ", shape(b),
                              "; pass a bias of shape [", w.shape[0], "]"));
      }
    }
    sy_tensor_meta_t& out = call->outputs[0];
    out.dtype = x.dtype;
    out.ndim = x.ndim;
    for (int d = 0; d < x.ndim; ++d) out.shape[d] = x.shape[d];
    out.shape[x.ndim - 1] = w.shape[0];
    return nullptr;
  });
}

}  // namespace

sy_error_t* RegisterFusedOps(const sy_host_api_t* host,
                             sy_host_context_t* context) {
  sy_schema_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.schema = kSchema;
  desc.shape_fn = LinearGeluShape;
  SY_PLUGIN_RETURN_IF_ERROR(host->register_schema(context, &desc));
  return RegisterLinearGeluKernels(host, context);
}

}  // namespace sy::cuda
