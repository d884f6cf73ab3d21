// conv2d's kernels, which LinalgKernels() (matmul.cc) lists after matmul's.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_CONV2D_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_CONV2D_H_

#include "kernels/kernel_list.h"

namespace sy::cpu {

// Appends conv2d for f32, f64, f16 and bf16, each with and without bias.
void AddConv2dKernels(KernelList& list);

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_CONV2D_H_
