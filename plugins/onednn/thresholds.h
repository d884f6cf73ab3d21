// The thresholds below which onednn's kernels decline a call (Note
// [Declining small calls], context.h), per runtime.
//
// Note [Options per runtime]: plugin options are read in `load`, which runs
// once per runtime, while the library — and its kernels — are shared by
// every runtime in the process (plugin.h, "Threads"). A value kept in a
// global would be the last loaded runtime's for all of them: a second
// context's `onednn.min_elements` would silently change the first's
// choices. So each runtime's kernels are registered with kernel_data of
// their own, a KernelData that carries the family's data and that
// runtime's Thresholds; the host hands it back on every call of that
// runtime's dispatch table. The registrations are kept per distinct pair of
// values (interned, never freed: the plugin is resident, and the pairs a
// process uses are few), so making many contexts costs nothing more.
#ifndef SWITCHYARD_PLUGINS_ONEDNN_THRESHOLDS_H_
#define SWITCHYARD_PLUGINS_ONEDNN_THRESHOLDS_H_

#include <cstdint>
#include <span>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::onednn {

// Defaults of the plugin options min_elements and min_matmul_flops (Note
// [Declining small calls]; docs/onednn.md has the measurements).
inline constexpr int64_t kDefaultMinElements = int64_t{1} << 16;
inline constexpr int64_t kDefaultMinMatmulFlops = int64_t{1} << 24;

// Reductions of at least this many elements into fewer than this many
// outputs are left to the cpu plugin (Note [Narrow reductions], context.cc).
inline constexpr int64_t kNarrowReductionElements = int64_t{1} << 16;
inline constexpr int64_t kNarrowReductionOutputs = 16;

// One runtime's option values.
struct Thresholds {
  int64_t min_elements = kDefaultMinElements;
  int64_t min_matmul_flops = kDefaultMinMatmulFlops;
};

// What a registered kernel's kernel_data points at.
struct KernelData {
  const void* op;  // the family's own kernel_data (the KernelList's)
  const Thresholds* thresholds;
};

// `specs` with each kernel_data wrapped in a KernelData carrying
// `thresholds`: what `load` registers. The result lives until the process
// exits. Thread-safe.
std::span<const plugin::KernelSpec> SpecsWithThresholds(
    std::span<const plugin::KernelSpec> specs, const Thresholds& thresholds);

// The family's data of a call of a kernel registered through
// SpecsWithThresholds.
template <class T>
const T* OpData(const sy_kernel_call_t* call) {
  return static_cast<const T*>(static_cast<const KernelData*>(call->kernel_data)->op);
}

// The thresholds of the runtime that made the call (the defaults for a
// call without kernel_data, e.g. from a test calling a kernel directly).
const Thresholds& ThresholdsOf(const sy_kernel_call_t* call) noexcept;

}  // namespace sy::onednn

#endif  // SWITCHYARD_PLUGINS_ONEDNN_THRESHOLDS_H_
