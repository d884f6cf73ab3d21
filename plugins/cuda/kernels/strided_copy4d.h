// A 4-d copy between two strided layouts on the GPU (element strides, any
// sign or zero on the source, e.g. broadcast views), for 2- and 4-byte
// elements. conv2d uses it to pack views cuDNN cannot read into NCHW
// temporaries and to scatter a packed result into a strided output.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_STRIDED_COPY4D_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_STRIDED_COPY4D_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sy::cuda {

// Enqueues dst[i] = src[i] for every index i of `shape` on `stream`;
// returns the launch's status (cudaSuccess, or cudaErrorInvalidValue for an
// element size other than 2 or 4).
cudaError_t CopyStrided4d(const void* src, const int64_t src_strides[4],
                          void* dst, const int64_t dst_strides[4],
                          const int64_t shape[4], size_t element_bytes,
                          cudaStream_t stream);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_STRIDED_COPY4D_H_
