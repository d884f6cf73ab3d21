// argmax(Tensor x, int? dim=None, bool keepdim=False) -> Tensor (i64), for
// every dtype: the index of the first largest element along `dim`, or in
// the flattened (row-major) tensor when dim is None. NaN counts as larger
// than everything, so a slice containing NaN gives the index of its first
// NaN, as PyTorch does. bool compares its bytes tested != 0.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_ARGMAX_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_ARGMAX_H_

#include "kernels/kernel_list.h"

namespace sy::cpu {

// Appends argmax's kernels, one per input dtype (f32 first), to `list`.
void AddArgmaxKernels(KernelList* list);

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_ARGMAX_H_
