// A plugin of ABI 1.1 for the decline, option and workspace tests — or, with
// V10_DECLINES, a plugin that answers ABI 1.0 and declines anyway. It adds
// kernels to the cpu plugin's device type, above its priority:
//   neg        declines calls of fewer bucketed elements than the option
//              `threshold` (queries counted), else computes -x;
//   relu       declines every call (so the cpu plugin's runs);
//   exp        declines without SY_KERNEL_FLAG_MAY_DECLINE (a bug: the host
//              must refuse it);
// and ops of its own: test_v11::never (its only kernel declines every
// call), test_v11::scratch (asks the host for two workspaces, then copies x
// to the output through them), test_v11::counts (the plugin's counters as an
// i64[5]: queries, real calls, declines, workspace bytes asked, and calls
// or queries that came without SY_KERNEL_CALL_HOST_CHECKED) and
// test_v11::option (the options it was loaded with, as an f64[3]: threshold,
// flag, label length). Options `extra_kernels` (registers that many more
// neg kernels, for the registration-time test) and `long_name` (registers a
// kernel whose name is 1 MiB long, which the host must refuse).
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "switchyard/plugin.hpp"

namespace {

using sy::plugin::BucketedNumElements;
using sy::plugin::Decline;
using sy::plugin::IsQuery;
using sy::plugin::KernelSpec;

struct Counters {
  std::atomic<int64_t> queries{0}, calls{0}, declines{0}, workspace_bytes{0};
  std::atomic<int64_t> unchecked{0};  // calls and queries without HOST_CHECKED
};
Counters& Count() {
  static Counters counters;
  return counters;
}

// Every kernel here counts what reached it without the host's check flag.
void NoteHostCheck(const sy_kernel_call_t* call) {
  if (!sy::plugin::HostChecked(call)) ++Count().unchecked;
}

// The options of the last load.
std::atomic<int64_t> g_threshold{64};
std::atomic<bool> g_flag{false};
std::atomic<int64_t> g_label_length{0};

float* F32(const sy_tensor_view_t& v) {
  return reinterpret_cast<float*>(static_cast<char*>(v.data) + v.byte_offset);
}

// Contiguous f32 inputs only (the tests pass those).
template <class F>
sy_error_t* Map(const sy_kernel_call_t* call, F f) {
  const int64_t n = sy::plugin::NumElements(call->outputs[0]);
  const float* x = F32(call->inputs[0]);
  float* out = F32(call->outputs[0]);
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
  return nullptr;
}

[[maybe_unused]] sy_error_t* Neg(const sy_kernel_call_t* call) {
  NoteHostCheck(call);
  const int64_t elements = BucketedNumElements(call->inputs[0]);
  if (elements < g_threshold.load()) {
    if (IsQuery(call)) ++Count().queries;
    ++Count().declines;
    return Decline(sy::plugin::StrCat("elements ", elements, " < threshold ",
                                      g_threshold.load()));
  }
  if (IsQuery(call)) {
    ++Count().queries;
    return nullptr;
  }
  ++Count().calls;
  return Map(call, [](float v) { return -v; });
}

sy_error_t* AlwaysDeclines(const sy_kernel_call_t* call) {
  NoteHostCheck(call);
  if (IsQuery(call)) ++Count().queries;
  ++Count().declines;
  return Decline("this kernel declines every call");
}

[[maybe_unused]] sy_error_t* Scratch(const sy_kernel_call_t* call) {
  NoteHostCheck(call);
  if (IsQuery(call)) return nullptr;
  ++Count().calls;
  const int64_t n = sy::plugin::NumElements(call->outputs[0]);
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  void* first = nullptr;
  void* second = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::Workspace(call, 1 << 20, &first));
  SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::Workspace(call, bytes, &second));
  Count().workspace_bytes += (1 << 20) + static_cast<int64_t>(bytes);
  if (first == second || (bytes > 0 && second == nullptr)) {
    return sy::plugin::MakeError(SY_STATUS_INTERNAL,
                                 "test_v11: workspaces overlap or are NULL");
  }
  std::memset(first, 0xAB, 1 << 20);  // the whole first block is ours
  if (bytes > 0) {
    std::memcpy(second, F32(call->inputs[0]), bytes);
    std::memcpy(F32(call->outputs[0]), second, bytes);
  }
  return nullptr;
}

[[maybe_unused]] sy_error_t* Counts(const sy_kernel_call_t* call) {
  NoteHostCheck(call);
  if (IsQuery(call)) return nullptr;
  auto* out = reinterpret_cast<int64_t*>(static_cast<char*>(call->outputs[0].data) +
                                         call->outputs[0].byte_offset);
  out[0] = Count().queries;
  out[1] = Count().calls;
  out[2] = Count().declines;
  out[3] = Count().workspace_bytes;
  out[4] = Count().unchecked;
  return nullptr;
}

[[maybe_unused]] sy_error_t* Options(const sy_kernel_call_t* call) {
  if (IsQuery(call)) return nullptr;
  auto* out = reinterpret_cast<double*>(static_cast<char*>(call->outputs[0].data) +
                                        call->outputs[0].byte_offset);
  out[0] = static_cast<double>(g_threshold.load());
  out[1] = g_flag.load() ? 1.0 : 0.0;
  out[2] = static_cast<double>(g_label_length.load());
  return nullptr;
}

[[maybe_unused]] sy_error_t* SameShape(const sy_shape_call_t* call) {
  call->outputs[0] = call->inputs[0];
  return nullptr;
}

template <int N, sy_dtype_t D>
[[maybe_unused]] sy_error_t* Vector(const sy_shape_call_t* call) {
  call->outputs[0].dtype = D;
  call->outputs[0].ndim = 1;
  call->outputs[0].shape[0] = N;
  return nullptr;
}

constexpr sy_dtype_t kF32[] = {SY_DTYPE_F32};

#ifdef V10_DECLINES
constexpr uint32_t kMinor = 0;
constexpr KernelSpec kKernels[] = {
    {"sqrt", "sqrt_declines_under_1_0", kF32, 50, AlwaysDeclines},
};
#else
constexpr uint32_t kMinor = 1;
constexpr KernelSpec kKernels[] = {
    {"neg", "neg_declines_small", kF32, 50, Neg, nullptr, SY_KERNEL_FLAG_MAY_DECLINE},
    {"relu", "relu_declines_always", kF32, 50, AlwaysDeclines, nullptr,
     SY_KERNEL_FLAG_MAY_DECLINE},
    {"exp", "exp_declines_without_the_flag", kF32, 50, AlwaysDeclines},
    {"test_v11::never", "never", kF32, 0, AlwaysDeclines, nullptr,
     SY_KERNEL_FLAG_MAY_DECLINE},
    {"test_v11::scratch", "scratch", kF32, 0, Scratch},
    {"test_v11::counts", "counts", kF32, 0, Counts},
    {"test_v11::option", "option", kF32, 0, Options},
};
#endif

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* context) {
#ifndef V10_DECLINES
  if (sy::plugin::HostHasOptions(host)) {
    sy_option_value_t value{};
    SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::GetOption(host, context, "threshold", &value));
    g_threshold = value.value.i;
    SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::GetOption(host, context, "flag", &value));
    g_flag = value.value.b != 0;
    SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::GetOption(host, context, "label", &value));
    g_label_length = static_cast<int64_t>(std::strlen(value.value.str));
  }
  const sy_schema_desc_t schemas[] = {
      {sizeof(sy_schema_desc_t), nullptr, "test_v11::never(Tensor x) -> Tensor",
       SameShape, nullptr},
      {sizeof(sy_schema_desc_t), nullptr, "test_v11::scratch(Tensor x) -> Tensor",
       SameShape, nullptr},
      {sizeof(sy_schema_desc_t), nullptr, "test_v11::counts(Tensor x) -> Tensor",
       Vector<5, SY_DTYPE_I64>, nullptr},
      {sizeof(sy_schema_desc_t), nullptr, "test_v11::option(Tensor x) -> Tensor",
       Vector<3, SY_DTYPE_F64>, nullptr},
  };
  for (const sy_schema_desc_t& schema : schemas) {
    SY_PLUGIN_RETURN_IF_ERROR(host->register_schema(context, &schema));
  }
#endif
  SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::RegisterKernels(host, context, "cpu", kKernels));
#ifndef V10_DECLINES
  if (sy::plugin::HostHasOptions(host)) {
    sy_option_value_t extra{};
    SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::GetOption(host, context, "extra_kernels", &extra));
    // Each with a name of its own, under one key: duplicates are checked
    // by name, so this is the host's worst case.
    std::vector<std::string> names;
    names.reserve(static_cast<size_t>(extra.value.i));
    std::vector<KernelSpec> specs;
    for (int64_t i = 0; i < extra.value.i; ++i) {
      names.push_back("neg_extra_" + std::to_string(i));
      specs.push_back({"neg", names.back(), kF32, 1, Neg});
    }
    SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::RegisterKernels(host, context, "cpu", specs));
    sy_option_value_t long_name{};
    SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::GetOption(host, context, "long_name", &long_name));
    if (long_name.value.b != 0) {
      const std::string name(1 << 20, 'k');
      const KernelSpec spec{"neg", name, kF32, 1, Neg};
      SY_PLUGIN_RETURN_IF_ERROR(sy::plugin::RegisterKernels(
          host, context, "cpu", std::span<const KernelSpec>(&spec, 1)));
    }
  }
#endif
  return nullptr;
}

constexpr sy_plugin_option_t kOptions[] = {
    {sizeof(sy_plugin_option_t), nullptr, "threshold", SY_OPTION_INT, 0, "64",
     "neg declines calls of fewer bucketed elements"},
    {sizeof(sy_plugin_option_t), nullptr, "flag", SY_OPTION_BOOL, 0, "false",
     "a bool, for the option tests"},
    {sizeof(sy_plugin_option_t), nullptr, "label", SY_OPTION_STRING, 0, "x",
     "a string, for the option tests"},
    {sizeof(sy_plugin_option_t), nullptr, "extra_kernels", SY_OPTION_INT, 0, "0",
     "registers this many more neg kernels"},
    {sizeof(sy_plugin_option_t), nullptr, "long_name", SY_OPTION_BOOL, 0, "false",
     "registers a kernel with a 1 MiB name"},
};

constexpr sy_plugin_api_t kPluginApi = {
    .struct_size = sizeof(sy_plugin_api_t),
    .extension = nullptr,
    .abi_major = SY_PLUGIN_ABI_MAJOR,
    .abi_minor = kMinor,
    .name = PLUGIN_NAME,
    .version = "1.1.0",
    .load = Load,
    .unload = nullptr,
    .flags = 0,
    .num_options = kMinor >= 1 ? 5 : 0,
    .options = kMinor >= 1 ? kOptions : nullptr,
};

}  // namespace

extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  return sy::plugin::InitPlugin(host, out_plugin, kPluginApi, PLUGIN_NAME);
}
