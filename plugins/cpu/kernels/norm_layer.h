// layer_norm and rms_norm kernels.
//
//   layer_norm(Tensor x, int[] normalized_shape, Tensor? weight=None,
//              Tensor? bias=None, float eps=1e-05) -> Tensor
//   rms_norm(Tensor x, Tensor weight, float eps=1e-06) -> Tensor
//
// x is f32, f64, f16 or bf16. weight and bias have x's dtype, or f32 when x
// is f16/bf16 (mixed-precision checkpoints keep f32 norm weights); each may
// be omitted in layer_norm (key dtype SY_DTYPE_NONE). Other combinations are
// left to the core's decomposition.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_NORM_LAYER_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_NORM_LAYER_H_

#include "kernels/kernel_list.h"

namespace sy::cpu {

// Appends the layer_norm kernels, then the rms_norm kernels, to `list`.
void AddLayerNormKernels(KernelList* list);

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_NORM_LAYER_H_
