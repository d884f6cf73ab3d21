// Binary elementwise kernels, comparisons and where.
#include "kernels/kernel_list.h"
#include "kernels/kernel_util.h"

namespace sy::cpu {

std::span<const plugin::KernelSpec> BinaryKernels() {
  static const KernelList* const list = [] {
    auto* l = new KernelList;
    l->Add("add.Tensor", DtypeList<SY_DTYPE_F32, SY_DTYPE_F32>, AddF32);
    l->Add("mul.Tensor", DtypeList<SY_DTYPE_F32, SY_DTYPE_F32>, MulF32);
    return l;
  }();
  return list->specs();
}

}  // namespace sy::cpu
