// What every onednn kernel shares: the one oneDNN engine, a stream for the
// calling thread, the bf16 verdict, and the entry-point wrapper that turns
// oneDNN and C++ exceptions into sy_error_t.
//
// Thread-safety: everything here may be called from any thread at once.
// The engine is created once per process (Init) and never destroyed: oneDNN
// primitives in its primitive cache refer to it, and the cache outlives any
// one runtime. Streams are per thread (Note [One stream per thread]).
#ifndef SWITCHYARD_PLUGINS_ONEDNN_CONTEXT_H_
#define SWITCHYARD_PLUGINS_ONEDNN_CONTEXT_H_

#include <string>
#include <string_view>

#include "dnnl.hpp"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"
#include "thresholds.h"

namespace sy::onednn {

// Primitive cache capacity set in Init unless SWITCHYARD_ONEDNN_CACHE_CAPACITY
// overrides it: oneDNN's own default, written down so that a change in a
// later libdnnl does not silently change ours. Each entry is one compiled
// primitive (a few KiB of JIT code and metadata).
inline constexpr int kDefaultPrimitiveCacheCapacity = 1024;

// DLPack's kDLCPU: the device every onednn kernel runs on.
inline constexpr int32_t kDlpackCpu = 1;

// Once per process, from sy_plugin_init: creates the engine, reads the CPU
// ISA and sets the primitive cache capacity. Throws dnnl::error when oneDNN
// has no CPU engine.
void Init();

// The process's CPU engine. Requires Init.
const dnnl::engine& Engine();

// A stream on Engine() for the calling thread.
dnnl::stream& ThreadStream();

// True when the CPU has native bf16 arithmetic (AVX512-BF16 or AMX), as
// oneDNN sees it (DNNL_MAX_CPU_ISA caps it); bf16 kernels are registered
// only then. Requires Init.
bool HasNativeBf16();

// "avx512_core_amx", "avx2", …: oneDNN's effective ISA, for log lines.
std::string_view IsaName();

// The primitive cache capacity Init set.
int PrimitiveCacheCapacity();

// INVALID_ARGUMENT "onednn plugin: <op>: <what>".
sy_error_t* OpError(std::string_view op, std::string_view what);

// Note [Declining small calls]: a oneDNN call creates (or finds in its
// cache) a primitive and opens an OpenMP parallel region — tens of
// microseconds that the cpu plugin's kernels, which stay on the calling
// thread below their grain, do not pay. So every onednn kernel declines
// (plugin.h, ABI 1.1) calls whose work is below a threshold, and the
// dispatcher runs the cpu plugin's kernel instead. The work is measured in
// bucketed sizes (plugin::BucketedNumElements) so that one shape bucket
// always gets one answer. The thresholds are the plugin options
// min_elements and min_matmul_flops, per runtime (thresholds.h);
// docs/onednn.md has the measurements behind their defaults.
enum class Work {
  kElements,  // elementwise, softmax, norms: input elements
  kReduction,  // as kElements, and long reductions into few outputs
              // (Note [Narrow reductions])
  kMatmul,    // matmul, linear and fused linear: 2·M·N·K
  kConv,      // conv2d: never declined (oneDNN wins at every size measured)
  kAlways,    // the plugin's own ops (onednn::*): no other kernel exists
};

// plugin::Decline when the call's work is below the threshold of the
// runtime that made the call (thresholds.h, Note [Options per runtime]),
// else NULL.
// NULL for a malformed call too: CheckCall reports those.
sy_error_t* Admit(const sy_kernel_call_t* call, Work work) noexcept;

// Runs a kernel: declines small calls (Admit), answers a query, then runs
// `body` and returns its error; a dnnl::error becomes INTERNAL (or
// RESOURCE_EXHAUSTED for out_of_memory) naming the op and oneDNN's status,
// any other exception goes through plugin::Guard. `op` is a literal.
template <class F>
sy_error_t* RunKernel(std::string_view op, const sy_kernel_call_t* call,
                      Work work, F&& body) noexcept;

// Checks the call structure every kernel reads (struct_size, counts,
// non-NULL arrays, input_offsets covering `num_tensor_args` schema tensor
// arguments) and that every tensor is on a cpu device with rank
// 0..SY_MAX_RANK and no negative size or stride. Optional tensor arguments
// make the input count vary; Arg() finds them.
sy_error_t* CheckCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_tensor_args, int num_outputs, int num_attrs);

// Schema tensor argument k of a checked call, or NULL when it was omitted
// (an optional tensor given as None).
inline const sy_tensor_view_t* Arg(const sy_kernel_call_t* call, int k) {
  const int32_t begin = call->input_offsets[k];
  return call->input_offsets[k + 1] > begin ? &call->inputs[begin] : nullptr;
}

// ---- Implementation details ------------------------------------------------
sy_error_t* DnnlError(std::string_view op, const dnnl::error& e) noexcept;

template <class F>
sy_error_t* RunKernel(std::string_view op, const sy_kernel_call_t* call,
                      Work work, F&& body) noexcept {
  if (sy_error_t* declined = Admit(call, work)) return declined;
  if (call != nullptr && plugin::IsQuery(call)) return nullptr;
  return plugin::Guard(op, [&]() -> sy_error_t* {
    try {
      return body();
    } catch (const dnnl::error& e) {
      return DnnlError(op, e);
    }
  });
}

}  // namespace sy::onednn

#endif  // SWITCHYARD_PLUGINS_ONEDNN_CONTEXT_H_
