// The direct convolution (conv2d_direct.h).
#include "kernels/conv2d_direct.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "switchyard/plugin.h"

namespace sy::cuda {
namespace {

template <class T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
__device__ __forceinline__ Acc<T> In(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

template <class T>
__device__ __forceinline__ T Out(Acc<T> v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return v;
  }
}

template <class T>
__global__ void DirectConvKernel(const DirectConvArgs a) {
  const T* x = static_cast<const T*>(a.x);
  const T* wt = static_cast<const T*>(a.w);
  const T* bias = static_cast<const T*>(a.bias);
  T* y = static_cast<T*>(a.y);
  const int64_t n_out = a.y_shape[0] * a.y_shape[1] * a.y_shape[2] * a.y_shape[3];
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t cin_g = a.w_shape[1];
  const int64_t cout_g = a.y_shape[1] / a.groups;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n_out; i += step) {
    const int64_t ow = i % a.y_shape[3];
    const int64_t oh = (i / a.y_shape[3]) % a.y_shape[2];
    const int64_t k = (i / (a.y_shape[3] * a.y_shape[2])) % a.y_shape[1];
    const int64_t n = i / (a.y_shape[3] * a.y_shape[2] * a.y_shape[1]);
    const int64_t g = k / cout_g;
    Acc<T> acc = bias != nullptr ? In(bias[k * a.bias_stride]) : Acc<T>(0);
    for (int64_t c = 0; c < cin_g; ++c) {
      const T* xc = x + n * a.x_strides[0] + (g * cin_g + c) * a.x_strides[1];
      const T* wc = wt + k * a.w_strides[0] + c * a.w_strides[1];
      for (int64_t r = 0; r < a.w_shape[2]; ++r) {
        const int64_t h = oh * a.stride[0] - a.padding[0] + r * a.dilation[0];
        if (h < 0 || h >= a.x_shape[2]) continue;
        for (int64_t s = 0; s < a.w_shape[3]; ++s) {
          const int64_t w = ow * a.stride[1] - a.padding[1] + s * a.dilation[1];
          if (w < 0 || w >= a.x_shape[3]) continue;
          acc += In(xc[h * a.x_strides[2] + w * a.x_strides[3]]) *
                 In(wc[r * a.w_strides[2] + s * a.w_strides[3]]);
        }
      }
    }
    if (a.relu && !(acc > Acc<T>(0)) && acc == acc) acc = Acc<T>(0);  // keeps NaN
    y[n * a.y_strides[0] + k * a.y_strides[1] + oh * a.y_strides[2] +
      ow * a.y_strides[3]] = Out<T>(acc);
  }
}

}  // namespace

cudaError_t LaunchDirectConv2d(const DirectConvArgs& args, cudaStream_t stream) {
  const int64_t n = args.y_shape[0] * args.y_shape[1] * args.y_shape[2] * args.y_shape[3];
  if (n == 0) return cudaSuccess;
  const int64_t b = (n + 255) / 256;
  const unsigned blocks = static_cast<unsigned>(b < 65536 ? b : 65536);
  switch (args.dtype) {
    case SY_DTYPE_F32: DirectConvKernel<float><<<blocks, 256, 0, stream>>>(args); break;
    case SY_DTYPE_F64: DirectConvKernel<double><<<blocks, 256, 0, stream>>>(args); break;
    case SY_DTYPE_F16: DirectConvKernel<__half><<<blocks, 256, 0, stream>>>(args); break;
    case SY_DTYPE_BF16:
      DirectConvKernel<__nv_bfloat16><<<blocks, 256, 0, stream>>>(args);
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace sy::cuda
