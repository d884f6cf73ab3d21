// How the cpu plugin's kernel families list their kernels.
//
// Each family file (kernels/*.cc) defines one function from the list below,
// returning its kernels in registration order; cpu_plugin.cc registers the
// families in the order they are declared here. A family builds its list on
// first use (never from a static initializer) into a function-local static
// object, so the strings and dtype arrays stay valid after registration and
// are freed when the library closes (a heap object whose only pointer lives
// in an unloaded library would leak).
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_LIST_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_LIST_H_

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

// ---- The families ---------------------------------------------------------
std::span<const plugin::KernelSpec> CreationKernels();   // fill copy cast
std::span<const plugin::KernelSpec> UnaryKernels();      // neg … gelu
std::span<const plugin::KernelSpec> BinaryKernels();     // add … where
std::span<const plugin::KernelSpec> ReductionKernels();  // sum … argmax
std::span<const plugin::KernelSpec> NormKernels();       // softmax … rms_norm
std::span<const plugin::KernelSpec> LinalgKernels();     // matmul conv2d
std::span<const plugin::KernelSpec> LayoutKernels();     // concat embedding

// ---- Building a list --------------------------------------------------------

// A static array of dtypes, one per schema tensor argument, for KernelSpec:
// DtypeList<SY_DTYPE_F32, SY_DTYPE_F32>.
template <sy_dtype_t... D>
inline constexpr sy_dtype_t DtypeList[] = {D...};

// The kernel name for an op and its dtypes: "add.Tensor" with (f32, f32) →
// "add.Tensor.f32.f32". Unique within the plugin because the dispatch key
// is (op, device type, dtypes).
std::string KernelName(std::string_view op, std::span<const sy_dtype_t> dtypes);

// An append-only list of KernelSpecs owning their names.
class KernelList {
 public:
  // Adds a priority-0 kernel named KernelName(op, dtypes). `op` must be a
  // string literal (or otherwise live as long as the library); `dtypes` a
  // static array such as DtypeList<…>.
  void Add(std::string_view op, std::span<const sy_dtype_t> dtypes,
           sy_kernel_fn fn, void* kernel_data = nullptr);

  std::span<const plugin::KernelSpec> specs() const { return specs_; }

 private:
  std::deque<std::string> names_;  // stable addresses for the string_views
  std::vector<plugin::KernelSpec> specs_;
};

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_LIST_H_
