// Creation kernels: fill, copy, cast.
#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"

namespace sy::cpu {

std::span<const plugin::KernelSpec> CreationKernels() {
  static const KernelList* const list = [] {
    auto* l = new KernelList;
    l->Add("copy", DtypeList<SY_DTYPE_F32>, CopyF32);
    return l;
  }();
  return list->specs();
}

}  // namespace sy::cpu
