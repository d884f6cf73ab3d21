// test_patterns: a kernel-only plugin for cpu that registers pattern
// kernels (SY_EXTENSION_PATTERNS on its plugin table), so the fusion pass's
// pattern substitution is tested without a GPU (patterns_test.cc):
//   matmul_add    matmul → add.Tensor            → test_patterns::matmul_add
//   add_gelu      add.Tensor → gelu("tanh")      → test_patterns::add_gelu,
//                 whose kernel declines every call
//   add_exp       add.Tensor → exp               → test_patterns::missing,
//                 an op nobody registers
//   exp_sum       exp → sum(dims, keepdim)       → test_patterns::exp_sum,
//                 which takes sum's dims and keepdim (the pass carries
//                 them over)
//   sum_max       sum(dims, keepdim) → max(dims, keepdim)
//                 → test_patterns::sum_max(dims, keepdim), whose kernel
//                 declines every call (only the attribute check is tested)
//   exp_neg       exp → neg                      → test_patterns::scaled_exp_neg,
//                 whose attribute `factor` is required and no op of the
//                 match has
//   exp_attention exp → scaled_dot_product_attention
//                 → test_patterns::exp_attention, whose output is
//                 contiguous where attention's is [B, L, H, E] (the layout
//                 check); neither has a kernel
// matmul_add's kernel computes a·b + bias over any strides in double and
// adds nothing else, so a test can compare it against float64; exp_sum
// likewise sums exp(x) of rank-2 f32 in double.
//
// It also gives cpu a scaled_dot_product_attention kernel (f32, rank 4, no
// mask), so that a capture on cpu records attention as a kernel, whose
// output the core lays out [B, L, H, E] (Note [Attention output layout];
// patterns_test.cc's AttentionOutput tests). The kernel declines, at call
// time only (as a kernel that declines on data alignment must), calls
// whose head dim is 3: replay then takes the decomposition.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

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

float At4(const sy_tensor_view_t& v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return reinterpret_cast<const float*>(static_cast<const char*>(v.data) + v.byte_offset)
      [a * v.strides[0] + b * v.strides[1] + c * v.strides[2] + d * v.strides[3]];
}

// softmax(q·kᵀ·scale [causal]) · v in double, over any strides.
sy_error_t* Attention(const sy_kernel_call_t* call) {
  const sy_tensor_view_t& q = call->inputs[0];
  const sy_tensor_view_t& k = call->inputs[1];
  const sy_tensor_view_t& v = call->inputs[2];
  const sy_tensor_view_t& out = call->outputs[0];
  if (call->num_inputs != 3 || q.ndim != 4) {
    return sy::plugin::Decline("test_patterns attention: rank 4, no mask only");
  }
  if (q.shape[3] == 3 && (call->flags & SY_KERNEL_CALL_QUERY) == 0) {
    return sy::plugin::Decline("test_patterns attention: head dim 3, at call time");
  }
  if ((call->flags & SY_KERNEL_CALL_QUERY) != 0) return nullptr;
  const bool causal = call->attrs[0].value.b != 0;
  const double scale = call->attrs[1].kind == SY_ATTR_FLOAT
                           ? call->attrs[1].value.f
                           : 1.0 / std::sqrt(static_cast<double>(q.shape[3]));
  const int64_t L = q.shape[2], S = k.shape[2], E = q.shape[3], Ev = v.shape[3];
  float* y = reinterpret_cast<float*>(static_cast<char*>(out.data) + out.byte_offset);
  std::vector<double> p(S);
  for (int64_t b = 0; b < q.shape[0]; ++b) {
    for (int64_t h = 0; h < q.shape[1]; ++h) {
      for (int64_t i = 0; i < L; ++i) {
        double max = -INFINITY, sum = 0;
        for (int64_t j = 0; j < S; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < E; ++e) dot += double{At4(q, b, h, i, e)} * At4(k, b, h, j, e);
          p[j] = causal && j > i ? -INFINITY : dot * scale;
          max = std::max(max, p[j]);
        }
        for (int64_t j = 0; j < S; ++j) sum += p[j] = std::exp(p[j] - max);
        for (int64_t e = 0; e < Ev; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < S; ++j) acc += p[j] * At4(v, b, h, j, e);
          y[b * out.strides[0] + h * out.strides[1] + i * out.strides[2] + e * out.strides[3]] =
              static_cast<float>(acc / sum);
        }
      }
    }
  }
  return nullptr;
}

// A rank-2 reduction's shape: attrs[0] the dims (none: all), attrs[1]
// keepdim.
sy_error_t* ReduceShape(const sy_shape_call_t* call) {
  const sy_tensor_meta_t& x = call->inputs[0];
  if (x.ndim != 2) {
    return sy::plugin::MakeError(SY_STATUS_INVALID_ARGUMENT, "test_patterns: rank 2 only");
  }
  bool reduced[2] = {call->attrs[0].value.ints.size == 0, call->attrs[0].value.ints.size == 0};
  for (int64_t k = 0; k < call->attrs[0].value.ints.size; ++k) {
    const int64_t d = call->attrs[0].value.ints.data[k];
    reduced[d < 0 ? d + 2 : d] = true;
  }
  sy_tensor_meta_t& out = call->outputs[0];
  out = x;
  out.ndim = 0;
  for (int d = 0; d < 2; ++d) {
    if (!reduced[d]) {
      out.shape[out.ndim++] = x.shape[d];
    } else if (call->attrs[1].value.b != 0) {
      out.shape[out.ndim++] = 1;
    }
  }
  return nullptr;
}

// Σ exp(x) over the dims of attrs[0] (none: all), keepdim attrs[1]; rank 2.
sy_error_t* ExpSum(const sy_kernel_call_t* call) {
  const sy_tensor_view_t& x = call->inputs[0];
  const sy_tensor_view_t& out = call->outputs[0];
  if (x.ndim != 2) return sy::plugin::Decline("test_patterns exp_sum: rank 2 only");
  if ((call->flags & SY_KERNEL_CALL_QUERY) != 0) return nullptr;
  const sy_attr_t& dims = call->attrs[0];
  const bool keep = call->attrs[1].value.b != 0;
  bool reduced[2] = {dims.value.ints.size == 0, dims.value.ints.size == 0};
  for (int64_t k = 0; k < dims.value.ints.size; ++k) {
    const int64_t d = dims.value.ints.data[k];
    reduced[d < 0 ? d + 2 : d] = true;
  }
  float* y = reinterpret_cast<float*>(static_cast<char*>(out.data) + out.byte_offset);
  for (int64_t i = 0; i < (reduced[0] ? 1 : x.shape[0]); ++i) {
    for (int64_t j = 0; j < (reduced[1] ? 1 : x.shape[1]); ++j) {
      double sum = 0;
      for (int64_t r = reduced[0] ? 0 : i; r < (reduced[0] ? x.shape[0] : i + 1); ++r) {
        for (int64_t c = reduced[1] ? 0 : j; c < (reduced[1] ? x.shape[1] : j + 1); ++c) {
          sum += std::exp(double{*At(x, r, c)});
        }
      }
      int64_t at = 0;
      int k = 0;
      if (!reduced[0] || keep) at += i * out.strides[k++];
      if (!reduced[1] || keep) at += j * out.strides[k++];
      y[at] = static_cast<float>(sum);
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
constexpr sy_pattern_node_t kExpSum[] = {
    {"exp", {-1, 0, 0, 0}, 1, 0, nullptr},
    {"sum", {0, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_node_t kSumMax[] = {
    {"sum", {-1, 0, 0, 0}, 1, 0, nullptr},
    {"max", {0, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_node_t kExpNeg[] = {
    {"exp", {-1, 0, 0, 0}, 1, 0, nullptr},
    {"neg", {0, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_node_t kExpAttention[] = {
    {"exp", {-1, 0, 0, 0}, 1, 0, nullptr},
    {"scaled_dot_product_attention", {0, -2, -3, 0}, 3, 0, nullptr},
};
constexpr sy_pattern_t kPatterns[] = {
    sy::plugin::Pattern("matmul_add", "cpu", kMatmulAdd, 3, "test_patterns::matmul_add"),
    sy::plugin::Pattern("add_gelu", "cpu", kAddGelu, 2, "test_patterns::add_gelu"),
    sy::plugin::Pattern("add_exp", "cpu", kAddExp, 2, "test_patterns::missing"),
    sy::plugin::Pattern("exp_sum", "cpu", kExpSum, 1, "test_patterns::exp_sum"),
    sy::plugin::Pattern("sum_max", "cpu", kSumMax, 1, "test_patterns::sum_max"),
    sy::plugin::Pattern("exp_neg", "cpu", kExpNeg, 1, "test_patterns::scaled_exp_neg"),
    sy::plugin::Pattern("exp_attention", "cpu", kExpAttention, 3, "test_patterns::exp_attention"),
};
constexpr sy_patterns_extension_t kPatternsExtension = sy::plugin::PatternsExtension(kPatterns);

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
  // Attention's fourth, its mask, is omitted (SY_DTYPE_NONE).
  const sy_dtype_t dtypes[4] = {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_NONE};
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
  SY_PLUGIN_RETURN_IF_ERROR(RegisterSchema(
      host, context,
      "test_patterns::exp_sum(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor",
      ReduceShape));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterSchema(
      host, context,
      "test_patterns::sum_max(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor",
      ReduceShape));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterSchema(
      host, context, "test_patterns::scaled_exp_neg(Tensor x, float factor) -> Tensor",
      SameShape));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterSchema(
      host, context, "test_patterns::exp_attention(Tensor q, Tensor k, Tensor v) -> Tensor",
      SameShape));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterKernel(host, context, "test_patterns::matmul_add",
                                           "matmul_add_f32", 3, MatmulAdd, 0));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterKernel(host, context, "test_patterns::exp_sum",
                                           "exp_sum_f32", 1, ExpSum, SY_KERNEL_FLAG_MAY_DECLINE));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterKernel(host, context, "test_patterns::sum_max",
                                           "sum_max_declines", 1, Declines,
                                           SY_KERNEL_FLAG_MAY_DECLINE));
  SY_PLUGIN_RETURN_IF_ERROR(RegisterKernel(host, context, "scaled_dot_product_attention",
                                           "attention_f32", 4, Attention,
                                           SY_KERNEL_FLAG_MAY_DECLINE));
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
    .flags = 0,
    .num_options = 0,
    .options = nullptr,
};

}  // namespace

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(const sy_host_api_t* host,
                                                        const sy_plugin_api_t** out_plugin) {
  return sy::plugin::InitPlugin(host, out_plugin, kPluginApi, kName);
}
