// The shared GPU kernel families and how they list their kernels.
//
// Each family source (sdk/gpu/<family>.cu) defines one function below,
// returning its kernels in registration order; a plugin registers them for
// its device type (gpu::ThisTarget().device_type) with
// plugin::RegisterKernels, family by family, in the order declared here.
// A family builds its list on first use into a function-local static (never
// from a static initializer), so strings and dtype arrays stay valid after
// registration. Which dtypes each family covers: dtypes.h.
//
// Priority: every shared kernel registers with ThisTarget().priority.
// Kernels are keyed by device type, so they never compete with the cpu
// plugin's; the value only matters against another plugin adding kernels
// to the same device type.
#ifndef SWITCHYARD_GPU_KERNEL_LIST_H_
#define SWITCHYARD_GPU_KERNEL_LIST_H_

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {

// ---- The families ---------------------------------------------------------
std::span<const plugin::KernelSpec> CreationKernels();       // fill copy cast
std::span<const plugin::KernelSpec> UnaryKernels();          // neg … gelu
std::span<const plugin::KernelSpec> BinaryKernels();         // add … minimum .Tensor
std::span<const plugin::KernelSpec> BinaryScalarKernels();   // add … minimum .Scalar
std::span<const plugin::KernelSpec> CompareKernels();        // eq … ge, where
std::span<const plugin::KernelSpec> ReductionKernels();      // sum … argmax
std::span<const plugin::KernelSpec> NormKernels();           // softmax … rms_norm
std::span<const plugin::KernelSpec> LayoutKernels();         // concat embedding

// All of the above, in that order.
std::span<const std::span<const plugin::KernelSpec>> AllSharedKernels();

// ---- Building a list --------------------------------------------------------

// A static array of dtypes, one per schema tensor argument.
template <sy_dtype_t... D>
inline constexpr sy_dtype_t DtypeList[] = {D...};

// "add.Tensor" with (f32, f32) -> "add.Tensor.f32.f32".
std::string KernelName(std::string_view op, std::span<const sy_dtype_t> dtypes);

// An append-only list of KernelSpecs owning their names.
class KernelList {
 public:
  // Adds a kernel named KernelName(op, dtypes) with ThisTarget().priority.
  // `op` must outlive the library (a literal); `dtypes` a static array.
  void Add(std::string_view op, std::span<const sy_dtype_t> dtypes,
           sy_kernel_fn fn, void* kernel_data = nullptr);

  std::span<const plugin::KernelSpec> specs() const { return specs_; }

 private:
  std::deque<std::string> names_;
  std::vector<plugin::KernelSpec> specs_;
};

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_KERNEL_LIST_H_
