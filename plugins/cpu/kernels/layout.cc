// concat and embedding.
#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"

namespace sy::cpu {

std::span<const plugin::KernelSpec> LayoutKernels() {
  static const KernelList* const list = [] {
    auto* l = new KernelList;

    return l;
  }();
  return list->specs();
}

}  // namespace sy::cpu
