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

KernelList::KernelList() : plugin::KernelList(ThisTarget().priority) {}

}  // namespace sy::gpu
