// Note [One stream per thread]: kernels run synchronously on the caller's
// thread (the cpu device's stream is synchronous), and several threads may
// call kernels at once. oneDNN documents primitives as safe to execute
// concurrently when built with DNNL_ENABLE_CONCURRENT_EXEC (Debian's build
// is; the scratchpad is then per execution), and the engine as shareable,
// but promises nothing about executing on one dnnl::stream from several
// threads. A CPU stream is cheap (no queue, no thread), so each thread gets
// its own, created on its first kernel call and kept until the thread ends;
// the engine it refers to is never destroyed and the library is never
// unmapped (-z nodelete), so the order of thread exit and unload does not
// matter.
#include "context.h"

#include <algorithm>

#include <cstdlib>
#include <memory>
#include <string>

namespace sy::onednn {
namespace {

struct Globals {
  dnnl::engine engine;
  bool native_bf16 = false;
  std::string isa;
  int cache_capacity = kDefaultPrimitiveCacheCapacity;
};

// Never freed: the primitive cache and every thread's stream refer to the
// engine until the process exits. The library is linked with -z nodelete,
// so this pointer stays reachable after `unload` and a reload reuses it.
Globals* g_globals = nullptr;

std::string IsaToString(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "generic";
  }
}

// SWITCHYARD_ONEDNN_CACHE_CAPACITY, ignored under setuid like every
// SWITCHYARD_* override; a value that is not a number in [0, 1<<20] keeps
// the default.
int CacheCapacityFromEnv() {
#if defined(__GLIBC__)
  const char* value = secure_getenv("SWITCHYARD_ONEDNN_CACHE_CAPACITY");
#else
  const char* value = std::getenv("SWITCHYARD_ONEDNN_CACHE_CAPACITY");
#endif
  if (value == nullptr || *value == '\0') return kDefaultPrimitiveCacheCapacity;
  char* end = nullptr;
  const long parsed = std::strtol(value, &end, 10);
  if (*end != '\0' || parsed < 0 || parsed > (1L << 20)) {
    return kDefaultPrimitiveCacheCapacity;
  }
  return static_cast<int>(parsed);
}

}  // namespace

void Init() {
  // Once per process: the library is never unmapped (-z nodelete), so a
  // plugin reloaded after unload finds its engine here.
  if (g_globals != nullptr) return;
  auto globals = std::make_unique<Globals>();
  globals->engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  globals->isa = IsaToString(isa);
  // bf16 arithmetic without AVX512-BF16 is emulated by oneDNN, slower than
  // f32; only these two ISAs (and their supersets) count.
  const auto bits = static_cast<unsigned>(isa);
  const auto bf16_bits = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);
  globals->native_bf16 = (bits & bf16_bits) == bf16_bits;
  globals->cache_capacity = CacheCapacityFromEnv();
  dnnl::set_primitive_cache_capacity(globals->cache_capacity);
  g_globals = globals.release();
}

const dnnl::engine& Engine() { return g_globals->engine; }

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(g_globals->engine);
  return stream;
}

bool HasNativeBf16() { return g_globals->native_bf16; }
std::string_view IsaName() { return g_globals->isa; }
int PrimitiveCacheCapacity() { return g_globals->cache_capacity; }

sy_error_t* OpError(std::string_view op, std::string_view what) {
  return plugin::MakeError(SY_STATUS_INVALID_ARGUMENT,
                           plugin::StrCat(op, ": ", what));
}

sy_error_t* DnnlError(std::string_view op, const dnnl::error& e) noexcept {
  try {
    const sy_status_code_t code = e.status == dnnl_out_of_memory
                                      ? SY_STATUS_RESOURCE_EXHAUSTED
                                      : SY_STATUS_INTERNAL;
    return plugin::MakeError(
        code, plugin::StrCat(op, ": oneDNN failed: ", e.what(), " (status ",
                             static_cast<int>(e.status),
                             "); pin the cpu plugin's kernel for this op "
                             "(Runtime::PinKernel) and report the shapes"));
  } catch (...) {
    return plugin::MakeError(SY_STATUS_INTERNAL, op);
  }
}

sy_error_t* CheckCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_tensor_args, int num_outputs, int num_attrs) {
  // `op` is "onednn plugin: <op>"; the SDK's checks take the two parts.
  const size_t colon = op.find(": ");
  const plugin::KernelSite site{op.substr(0, colon),
                                colon == std::string_view::npos ? op : op.substr(colon + 2)};
  // Optional tensor arguments make the input count vary: any count, then
  // input_offsets must cover the schema's tensor arguments.
  SY_PLUGIN_RETURN_IF_ERROR(
      plugin::CheckCall(call, site, -1, num_outputs, num_attrs));
  const int num_inputs = call->num_inputs;
  bool offsets_ok = call->num_tensor_args == num_tensor_args &&
                    call->input_offsets != nullptr;
  for (int k = 0; offsets_ok && k < num_tensor_args; ++k) {
    offsets_ok = call->input_offsets[k] >= 0 &&
                 call->input_offsets[k] <= call->input_offsets[k + 1];
  }
  if (!offsets_ok || call->input_offsets[0] != 0 ||
      call->input_offsets[num_tensor_args] != num_inputs) {
    return OpError(op, plugin::StrCat(
                           "expected ", num_tensor_args,
                           " tensor arguments with consistent input_offsets "
                           "but got ", call->num_tensor_args,
                           "; the op's schema and this kernel disagree"));
  }
  for (int i = 0; i < num_inputs; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(plugin::CheckView(
        call->inputs[i], site, plugin::StrCat("input ", i), SY_DTYPE_NONE, kDlpackCpu));
  }
  for (int i = 0; i < num_outputs; ++i) {
    SY_PLUGIN_RETURN_IF_ERROR(plugin::CheckView(
        call->outputs[i], site, plugin::StrCat("output ", i), SY_DTYPE_NONE, kDlpackCpu));
  }
  return nullptr;
}

sy_error_t* Admit(const sy_kernel_call_t* call, Work work) noexcept {
  if (work == Work::kAlways || work == Work::kConv || call == nullptr ||
      call->struct_size < SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data) ||
      call->num_inputs < 1 || call->inputs == nullptr ||
      call->num_outputs < 1 || call->outputs == nullptr) {
    return nullptr;
  }
  const sy_tensor_view_t& out = call->outputs[0];
  if (out.ndim < 0 || out.ndim > SY_MAX_RANK) return nullptr;
  if (work == Work::kElements || work == Work::kReduction) {
    int64_t largest = 0;
    for (int32_t i = 0; i < call->num_inputs; ++i) {
      const sy_tensor_view_t& in = call->inputs[i];
      if (in.ndim < 0 || in.ndim > SY_MAX_RANK) return nullptr;
      largest = std::max(largest, plugin::BucketedNumElements(in));
    }
    const int64_t min = ThresholdsOf(call).min_elements;
    if (largest < min) {
      return plugin::Decline(plugin::StrCat("elements ", largest, " < min_elements ", min));
    }
    // Note [Narrow reductions]: oneDNN's reduction primitive spreads its
    // work over the outputs, so a long reduction into fewer outputs than a
    // machine has cores runs on about one thread: summing 1 Mi f32 into one
    // value took 198 us against the cpu plugin's 47.5 us on a 16-core host
    // (docs/onednn.md). At 64 Ki, oneDNN looked faster while the cpu
    // plugin split two blocks over two threads; on one thread (its
    // kBlocksPerThread) the cpu plugin took 2.0 us against oneDNN's 6.5 us
    // on a 2-core VM, so from 64 Ki on the cpu plugin takes them. The answer
    // depends on the output's size, which the host's per-bucket cache of
    // declines does not see (buckets are of the inputs): a later call of
    // the same input bucket with other dims gets the first call's answer —
    // a slower kernel at worst, never a wrong result.
    const int64_t outputs = plugin::NumElements(out);
    if (work == Work::kReduction && outputs < kNarrowReductionOutputs &&
        largest >= kNarrowReductionElements) {
      return plugin::Decline(plugin::StrCat(
          "a reduction of ", largest, " elements into ", outputs,
          " output(s) runs on about one thread in oneDNN"));
    }
    return nullptr;
  }
  // kMatmul: 2·M·N·K from the output and the contracted dimension of 'a'.
  const sy_tensor_view_t& a = call->inputs[0];
  if (a.ndim < 1 || a.ndim > SY_MAX_RANK) return nullptr;
  int64_t flops = 0;
  if (__builtin_mul_overflow(plugin::BucketedNumElements(out),
                             2 * plugin::BucketedDim(a.shape[a.ndim - 1]), &flops)) {
    return nullptr;
  }
  const int64_t min = ThresholdsOf(call).min_matmul_flops;
  if (flops >= min) return nullptr;
  return plugin::Decline(plugin::StrCat("flops ", flops, " < min_matmul_flops ", min));
}

}  // namespace sy::onednn
