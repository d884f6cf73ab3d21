// How the onednn plugin lists its kernels.
//
// Each family file (kernels/*.cc) fills a KernelList through one function
// below; onednn_plugin.cc calls them in the order declared here, once per
// process, into a function-local static list (never a static initializer),
// and registers the result in every runtime's `load`. Every kernel has
// priority kPriority, above the cpu plugin's reference kernels (0), so it
// wins for the keys it registers; the cpu plugin keeps every other key.
//
// A family registers only keys whose semantics oneDNN computes as the core
// op set defines them (docs/onednn.md lists what is left out and why), and
// bf16 keys only when `bf16` is true (native bf16 arithmetic).
#ifndef SWITCHYARD_PLUGINS_ONEDNN_KERNELS_KERNEL_LIST_H_
#define SWITCHYARD_PLUGINS_ONEDNN_KERNELS_KERNEL_LIST_H_

#include <deque>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::onednn {

inline constexpr int32_t kPriority = 10;

// The SDK's list (plugin/kernels.hpp) at kPriority; every kernel may
// decline (context.h, Note [Declining small calls]) unless a family says
// otherwise with set_flags.
class KernelList : public plugin::KernelList {
 public:
  KernelList() : plugin::KernelList(kPriority, SY_KERNEL_FLAG_MAY_DECLINE) {}
};

// The floating dtypes a family registers: f32, and bf16 when `bf16`.
std::vector<sy_dtype_t> FloatDtypes(bool bf16);

// ---- The families ---------------------------------------------------------
void AddEltwiseKernels(KernelList& list, bool bf16);    // neg abs … gelu
void AddBinaryKernels(KernelList& list, bool bf16);     // add sub mul div
void AddReductionKernels(KernelList& list, bool bf16);  // sum
void AddSoftmaxKernels(KernelList& list, bool bf16);    // softmax log_softmax
void AddLayerNormKernels(KernelList& list, bool bf16);  // layer_norm
void AddMatmulKernels(KernelList& list, bool bf16);     // matmul linear
void AddConvKernels(KernelList& list, bool bf16);       // conv2d
void AddFusedKernels(KernelList& list, bool bf16);      // onednn::*

// The plugin's own schemas (onednn::linear_relu …), registered before the
// kernels; defined in fused_ops.cc.
std::span<const sy_schema_desc_t> FusedSchemas();

}  // namespace sy::onednn

#endif  // SWITCHYARD_PLUGINS_ONEDNN_KERNELS_KERNEL_LIST_H_
