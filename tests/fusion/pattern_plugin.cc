// test_patterns: a kernel-only plugin for cpu that registers pattern
// kernels (SY_EXTENSION_PATTERNS on its plugin table), so the fusion pass's
// pattern substitution is tested without a GPU (patterns_test.cc):
//   matmul_add    matmul → add.Tensor            → test_patterns::matmul_add
//   add_gelu      add.Tensor → gelu("tanh")      → test_patterns::add_gelu,
//                 whose kernel declines every call
//   add_exp       add.Tensor → exp               → test_patterns::missing,
//                 an op nobody registers
// matmul_add's kernel computes a·b + bias over any strides in double and
// adds nothing else, so a test can compare it against float64.
#include <cstring>

#include "switchyard/plugin.hpp"

namespace {

constexpr const char* kName = "test_patterns";

sy_error_t* MatmulAddShape(const sy_shape_call_t* call) {
  const sy_tensor_meta_t& a = call->inputs[0];
  const sy_tensor_meta_t& b = call->inputs[1];
  const sy_tensor_meta_t& bias = call->inputs[2];
  if (a.ndim != 2 || b.ndim != 2 || bias.ndim != 1 || a.shape[1] != b.shape[0] ||
      bias.shape[0] != b.shape[1] || a.dtype != b.dtype || a.dtype != bias.dtype) {
    return sy::plugin::MakeError(SY_STATUS_INVALID_ARGUMENT,
                                 "test_patterns::matmul_add: expects a [M, K], b [K, N] and "
                                 "bias [N] of one dtype");
  }
  sy_tensor_meta_t& out = call->outputs[0];
  out = a;
  out.shape[1] = b.shape[1];
  return nullptr;
}

sy_error_t* SameShape(const sy_shape_call_t* call) {
  call->outputs[0] = call->inputs[0];
  return nullptr;
}

const float* At(const sy_tensor_view_t& v, int64_t i, int64_t j) {
  return reinterpret_cast<const float*>(static_cast<const char*>(v.data) + v.byte_offset) +
         i * v.strides[0] + j * (v.ndim > 1 ? v.strides[1] : 0);
}

sy_error_t* MatmulAdd(const sy_kernel_call_t* call) {
  const sy_tensor_view_t& a = call->inputs[0];
  const sy_tensor_view_t& b = call->inputs[1];
  const sy_tensor_view_t& bias = call->inputs[2];
  const sy_tensor_view_t& out = call->outputs[0];
  float* y = reinterpret_cast<float*>(static_cast<char*>(out.data) + out.byte_offset);
  for (int64_t i = 0; i < a.shape[0]; ++i) {
    for (int64_t j = 0; j < b.shape[1]; ++j) {
      double acc = *At(bias, j, 0);
      for (int64_t k = 0; k < a.shape[1]; ++k) acc += double{*At(a, i, k)} * *At(b, k, j);
      y[i * out.strides[0] + j * out.strides[1]] = static_cast<float>(acc);
    }
  }
  return nullptr;
}

sy_error_t* Declines(const sy_kernel_call_t* call) {
  return sy::plugin::Decline("test_patterns declines every call");
}

constexpr sy_attr_t kTanh = {.kind = SY_ATTR_STRING, .reserved = 0, .value = {.str = {"tanh", 4}}};
constexpr sy_pattern_node_t kMatmulAdd[] = {
    {"matmul", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"add.Tensor", {0, -3, 0, 0}, 2, 0, nullptr},
};
constexpr sy_pattern_node_t kAddGelu[] = {
    {"add.Tensor", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"gelu", {0, 0, 0, 0}, 1, 1, &kTanh},
};
constexpr sy_pattern_node_t kAddExp[] = {
    {"add.Tensor", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"exp", {0, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_t Pattern(const char* name, const sy_pattern_node_t* nodes,
                               const char* replacement, int32_t inputs) {
  return {.struct_size = sizeof(sy_pattern_t), .extension = nullptr, .name = name,
          .device_type = "cpu", .nodes = nodes, .num_nodes = 2, .num_inputs = inputs,
          .replacement = replacement};
}
constexpr sy_pattern_t kPatterns[] = {
    Pattern("matmul_add", kMatmulAdd, "test_patterns::matmul_add", 3),
    Pattern("add_gelu", kAddGelu, "test_patterns::add_gelu", 2),
    Pattern("add_exp", kAddExp, "test_patterns::missing", 2),
};
constexpr sy_patterns_extension_t kPatternsExtension = {
    .base = {.struct_size = sizeof(sy_patterns_extension_t), .type = SY_EXTENSION_PATTERNS,
             .reserved = 0, .next = nullptr},
    .patterns = kPatterns,
    .num_patterns = 3,
    .reserved = 0};

sy_error_t* RegisterSchema(const sy_host_api_t* host, sy_host_context_t* context,
                           const char* text, sy_shape_fn shape) {
  sy_schema_desc_t schema{};
  schema.struct_size = sizeof(schema);
  schema.schema = text;
  schema.shape_fn = shape;
  return host->register_schema(context, &schema);
}

sy_error_t* RegisterKernel(const sy_host_api_t* host, sy_host_context_t* context,
                           const char* op, const char* name, int32_t num_dtypes,
                           sy_kernel_fn fn, uint32_t flags) {
  const sy_dtype_t dtypes[3] = {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_F32};
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = op;
  desc.device_type = "cpu";
  desc.name = name;
  desc.dtypes = dtypes;
  desc.num_dtypes = num_dtypes;
  desc.fn = fn;
  desc.flags = flags;
  return host->register_kernel(context, &desc);
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
  SY_PLUGIN_RETURN_IF_ERROR(RegisterSchema(
      host, context, "test_patterns::matmul_add(Tensor a, Tensor b, Tensor bias) -> Tensor",
      MatmulAddShape));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterSchema(
      host, context, "test_patterns::add_gelu(Tensor a, Tensor b) -> Tensor", SameShape));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterKernel(host, context, "test_patterns::matmul_add",
                                           "matmul_add_f32", 3, MatmulAdd, 0));
  return RegisterKernel(host, context, "test_patterns::add_gelu", "add_gelu_declines", 2,
                        Declines, SY_KERNEL_FLAG_MAY_DECLINE);
}

void Unload() { sy::plugin::SetHost(nullptr); }

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = &kPatternsExtension.base,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = 1,
    .name = kName,
    .version = "1.0.0",
    .load = Load,
    .unload = Unload,
};

}  // namespace

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(const sy_host_api_t* host,
                                                        const sy_plugin_api_t** out_plugin) {
  return sy::plugin::InitPlugin(host, out_plugin, kPluginApi, kName);
}
