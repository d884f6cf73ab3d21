// One source, many test plugins: TEST_VARIANT picks the behaviour (good, or
// broken in one specific way), PLUGIN_NAME the name in the plugin table.
// Each variant is built by switchyard_add_plugin like any vendor plugin.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "fake_device.h"
#include "switchyard/plugin.h"

#define VARIANT_GOOD 0
#define VARIANT_REPORTS_MAJOR_2 1
#define VARIANT_TRUNCATED_TABLE 2
#define VARIANT_NEEDS_NEWER_MINOR 3
#define VARIANT_NEGOTIATES_MINOR 4
#define VARIANT_INIT_ERROR 5
#define VARIANT_LOAD_ERROR 6
#define VARIANT_NO_ENTRY 7
#define VARIANT_MINIMAL 8

namespace {

const sy_host_api_t* g_host = nullptr;

[[maybe_unused]] sy_error_t* Err(sy_status_code_t code, const char* message) {
  return g_host->error_create(code, message);
}

// Calls fn(offsets…) for every element of `shape`, with one element offset
// per operand (strides in elements).
template <int N, typename F>
void ForEach(const sy_tensor_view_t* const (&views)[N], F fn) {
  const sy_tensor_view_t& ref = *views[0];
  int64_t numel = 1;
  for (int d = 0; d < ref.ndim; ++d) numel *= ref.shape[d];
  int64_t index[SY_MAX_RANK] = {};
  for (int64_t n = 0; n < numel; ++n) {
    int64_t offsets[N];
    for (int v = 0; v < N; ++v) {
      offsets[v] = 0;
      for (int d = 0; d < ref.ndim; ++d) offsets[v] += index[d] * views[v]->strides[d];
    }
    fn(offsets);
    for (int d = ref.ndim - 1; d >= 0; --d) {
      if (++index[d] < ref.shape[d]) break;
      index[d] = 0;
    }
  }
}

float* F32(const sy_tensor_view_t& v) {
  return reinterpret_cast<float*>(static_cast<char*>(v.data) + v.byte_offset);
}

sy_error_t* AddF32(const sy_kernel_call_t* call) {
  const sy_tensor_view_t* views[3] = {&call->outputs[0], &call->inputs[0],
                                      &call->inputs[1]};
  float* out = F32(call->outputs[0]);
  const float* a = F32(call->inputs[0]);
  const float* b = F32(call->inputs[1]);
  ForEach<3>(views, [&](const int64_t* o) { out[o[0]] = a[o[1]] + b[o[2]]; });
  return nullptr;
}

sy_error_t* DoubleF32(const sy_kernel_call_t* call) {
  const sy_tensor_view_t* views[2] = {&call->outputs[0], &call->inputs[0]};
  float* out = F32(call->outputs[0]);
  const float* x = F32(call->inputs[0]);
  ForEach<2>(views, [&](const int64_t* o) { out[o[0]] = 2 * x[o[1]]; });
  return nullptr;
}

// Writes a constant: lets tests see which kernel ran.
template <int kValue>
sy_error_t* FillMarker(const sy_kernel_call_t* call) {
  const sy_tensor_view_t* views[1] = {&call->outputs[0]};
  float* out = F32(call->outputs[0]);
  ForEach<1>(views, [&](const int64_t* o) { out[o[0]] = kValue; });
  return nullptr;
}

sy_error_t* SameShape(const sy_shape_call_t* call) {
  call->outputs[0] = call->inputs[0];
  return nullptr;
}

sy_error_t* Register(const sy_host_api_t* host, sy_host_context_t* ctx,
                     const char* op, const char* device, const char* name,
                     std::initializer_list<sy_dtype_t> dtypes, int priority,
                     sy_kernel_fn fn) {
  sy_dtype_t list[8];
  std::copy(dtypes.begin(), dtypes.end(), list);
  sy_kernel_desc_t desc{};
  desc.struct_size = sizeof(desc);
  desc.op = op;
  desc.device_type = device;
  desc.name = name;
  desc.dtypes = list;
  desc.num_dtypes = static_cast<int32_t>(dtypes.size());
  desc.priority = priority;
  desc.fn = fn;
  return host->register_kernel(ctx, &desc);
}

#define TRY(expr)                       \
  do {                                  \
    if (sy_error_t* e = (expr)) return e; \
  } while (0)

[[maybe_unused]] sy_error_t* LoadGood(const sy_host_api_t* host, sy_host_context_t* ctx) {
  TRY(host->register_device(ctx, sy_test::FakeDeviceApi(host)));
  sy_schema_desc_t schema{};
  schema.struct_size = sizeof(schema);
  schema.schema = PLUGIN_NAME "::double_it(Tensor x) -> Tensor";
  schema.shape_fn = SameShape;
  TRY(host->register_schema(ctx, &schema));
  // The same op with the elementwise ops' output layout (ABI 1.4): a
  // channels-last input gives a channels-last output.
  schema.schema = PLUGIN_NAME "::double_keep(Tensor x) -> Tensor";
  schema.output_layout = SY_OUTPUT_LAYOUT_LIKE_FIRST_FULL_INPUT;
  TRY(host->register_schema(ctx, &schema));
  const sy_dtype_t f32 = SY_DTYPE_F32;
  TRY(Register(host, ctx, "add.Tensor", "fakedev", "add_f32", {f32, f32}, 0, AddF32));
  TRY(Register(host, ctx, PLUGIN_NAME "::double_it", "fakedev", "double_f32", {f32}, 0,
               DoubleF32));
  TRY(Register(host, ctx, PLUGIN_NAME "::double_keep", "fakedev", "double_keep_f32", {f32}, 0,
               DoubleF32));
  TRY(Register(host, ctx, "add.Tensor", "cpu", "add_marker", {f32, f32}, -1,
               FillMarker<42>));
  TRY(Register(host, ctx, "relu", "cpu", "relu_high", {f32}, 10, FillMarker<7>));
  // Lets tests see the layout the core gives attention's output.
  TRY(Register(host, ctx, "scaled_dot_product_attention", "fakedev", "sdpa_marker",
               {f32, f32, f32, SY_DTYPE_NONE}, 0, FillMarker<3>));
  return nullptr;
}

sy_error_t* Load(const sy_host_api_t* host, sy_host_context_t* ctx) {
#if TEST_VARIANT == VARIANT_GOOD
  return LoadGood(host, ctx);
#elif TEST_VARIANT == VARIANT_LOAD_ERROR
  TRY(Register(host, ctx, "relu", "cpu", "relu_never", {SY_DTYPE_F32}, 100,
               FillMarker<13>));
  return Err(SY_STATUS_UNAVAILABLE, "test_load_error: device lost during load");
#else
  return Register(host, ctx, "relu", "cpu", "relu_" PLUGIN_NAME, {SY_DTYPE_F32}, -5,
                  FillMarker<5>);
#endif
}

[[maybe_unused]] void Unload() {}
[[noreturn, maybe_unused]] void UnloadMustNotBeCalled() { std::abort(); }

[[maybe_unused]] sy_plugin_api_t g_table = {
    sizeof(sy_plugin_api_t), nullptr, SY_PLUGIN_ABI_MAJOR, SY_PLUGIN_ABI_MINOR,
    PLUGIN_NAME, "9.9.9", Load, Unload, /*flags=*/0, /*num_options=*/0, /*options=*/nullptr};

}  // namespace

#if TEST_VARIANT != VARIANT_NO_ENTRY
extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
  g_host = host;
#if TEST_VARIANT == VARIANT_REPORTS_MAJOR_2
  g_table.abi_major = 2;
#elif TEST_VARIANT == VARIANT_TRUNCATED_TABLE
  // As built by an SDK whose table ended at `load`: the host must not read
  // the `unload` slot behind it.
  g_table.struct_size = SY_STRUCT_SIZE(sy_plugin_api_t, load);
  g_table.unload = reinterpret_cast<void (*)(void)>(UnloadMustNotBeCalled);
#elif TEST_VARIANT == VARIANT_NEEDS_NEWER_MINOR
  g_table.abi_minor = SY_PLUGIN_ABI_MINOR + 1;
#elif TEST_VARIANT == VARIANT_NEGOTIATES_MINOR
  g_table.abi_minor = std::min<uint32_t>(host->abi_minor, SY_PLUGIN_ABI_MINOR + 1);
#elif TEST_VARIANT == VARIANT_INIT_ERROR
  return host->error_create(SY_STATUS_FAILED_PRECONDITION,
                            "test_init_error: this plugin needs a frobnicator; "
                            "none found");
#endif
  *out_plugin = &g_table;
  return nullptr;
}
#else
extern "C" SY_PLUGIN_EXPORT int not_the_entry_point(void) { return 0; }
#endif
