#include "switchyard/gpu/kernel_list.h"

#include <array>

#include "switchyard/gpu/target.h"

namespace sy::gpu {

std::span<const std::span<const plugin::KernelSpec>> AllSharedKernels() {
  static const std::array<std::span<const plugin::KernelSpec>, 8> families = {
      CreationKernels(),     UnaryKernels(),   BinaryKernels(),
      BinaryScalarKernels(), CompareKernels(), ReductionKernels(),
      NormKernels(),         LayoutKernels()};
  return families;
}

std::string KernelName(std::string_view op,
                       std::span<const sy_dtype_t> dtypes) {
  std::string name(op);
  for (sy_dtype_t dtype : dtypes) {
    name.push_back('.');
    name.append(plugin::DtypeName(dtype));
  }
  return name;
}

void KernelList::Add(std::string_view op, std::span<const sy_dtype_t> dtypes,
                     sy_kernel_fn fn, void* kernel_data) {
  const std::string& name = names_.emplace_back(KernelName(op, dtypes));
  specs_.push_back({.op = op,
                    .name = name,
                    .dtypes = dtypes,
                    .priority = ThisTarget().priority,
                    .fn = fn,
                    .kernel_data = kernel_data});
}

}  // namespace sy::gpu
