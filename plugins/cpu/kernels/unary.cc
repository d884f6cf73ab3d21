// Unary elementwise kernels.
#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"

namespace sy::cpu {

std::span<const plugin::KernelSpec> UnaryKernels() {
  static const KernelList* const list = [] {
    auto* l = new KernelList;
    l->Add("relu", DtypeList<SY_DTYPE_F32>, ReluF32);
    return l;
  }();
  return list->specs();
}

}  // namespace sy::cpu
