// The kernels gemm.cc needs around cuBLASLt: densifying an operand that
// has no unit stride, the output when K = 0 (zeros, or the bias and its
// GELU), densifying a bias.
#include "cuda_device.h"
#include "cuda_util.h"
#include "kernels/gemm.h"
#include "switchyard/gpu/elementwise.cuh"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::gpu::GemmMatrix;
using ::sy::gpu::GemmProblem;
using ::sy::gpu::LaunchElementwise;
using ::sy::gpu::OpError;

struct Identity {
  template <class T>
  __device__ __forceinline__ T operator()(T v) const {
    return v;
  }
};
struct Zero {
  __device__ __forceinline__ float operator()() const { return 0.0f; }
};

sy_tensor_view_t View(void* data, int ndim, const int64_t* shape,
                      const int64_t* strides, int device) {
  sy_tensor_view_t v{};
  v.data = data;
  v.device = {kDlpackCuda, device};
  v.ndim = ndim;
  v.shape = shape;
  v.strides = strides;
  return v;
}

template <class F>
sy_error_t* WithStorage(sy_dtype_t dtype, std::string_view op, F&& f) {
  switch (dtype) {
    case SY_DTYPE_F32: return f(float{});
    case SY_DTYPE_F64: return f(double{});
    case SY_DTYPE_F16: return f(gpu::half{});
    case SY_DTYPE_BF16: return f(gpu::bfloat16{});
    default:
      return OpError(op, "GEMM operands must be f32, f64, f16 or bf16");
  }
}

}  // namespace

sy_error_t* DensifyOperand(const gpu::Stream& stream, GemmProblem& p,
                           int which, void** out_buffer, std::string_view op) {
  GemmMatrix& m = which == 0 ? p.a : which == 1 ? p.b : p.c;
  const int nd = p.batch_ndim + 2;
  int64_t shape[SY_MAX_RANK + 2];
  int64_t src_strides[SY_MAX_RANK + 2];
  int64_t dst_strides[SY_MAX_RANK + 2];
  for (int d = 0; d < p.batch_ndim; ++d) {
    shape[d] = p.batch_shape[d];
    src_strides[d] = p.batch_stride[which][d];
  }
  shape[nd - 2] = m.rows;
  shape[nd - 1] = m.cols;
  src_strides[nd - 2] = m.rs;
  src_strides[nd - 1] = m.cs;
  int64_t count = 1;
  for (int d = nd - 1; d >= 0; --d) {
    dst_strides[d] = count;
    count *= shape[d];
  }
  const size_t bytes = static_cast<size_t>(count) * plugin::DtypeSize(p.dtype);
  void* buffer = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(CudaError(
      cudaMallocAsync(&buffer, bytes == 0 ? 1 : bytes, stream.stream),
      plugin::StrCat("cuda plugin: ", op),
      "allocating a dense copy of a GEMM operand failed"));
  *out_buffer = buffer;
  const sy_tensor_view_t dst = View(buffer, nd, shape, dst_strides, stream.device);
  const sy_tensor_view_t src = View(m.data, nd, shape, src_strides, stream.device);
  SY_PLUGIN_RETURN_IF_ERROR(WithStorage(p.dtype, op, [&](auto s) {
    using S = decltype(s);
    return LaunchElementwise<S, S>(Identity{}, stream, dst, {&src}, op);
  }));
  m.data = buffer;
  m.rs = m.cols;
  m.cs = 1;
  for (int d = 0; d < p.batch_ndim; ++d) p.batch_stride[which][d] = dst_strides[d];
  return nullptr;
}

sy_error_t* ZeroOutput(const gpu::Stream& stream, const GemmProblem& p,
                       std::string_view op) {
  const int nd = p.batch_ndim + 2;
  int64_t shape[SY_MAX_RANK + 2];
  int64_t strides[SY_MAX_RANK + 2];
  for (int d = 0; d < p.batch_ndim; ++d) {
    shape[d] = p.batch_shape[d];
    strides[d] = p.batch_stride[2][d];
  }
  shape[nd - 2] = p.c.rows;
  shape[nd - 1] = p.c.cols;
  strides[nd - 2] = p.c.rs;
  strides[nd - 1] = p.c.cs;
  const sy_tensor_view_t out = View(p.c.data, nd, shape, strides, stream.device);
  return WithStorage(p.dtype, op, [&](auto s) {
    using S = decltype(s);
    return LaunchElementwise<S>(Zero{}, stream, out, {}, op);
  });
}

namespace {
// cuBLASLt's GELU epilogue is the tanh form; K = 0 must match it.
struct GeluTanh {
  template <class T>
  __device__ __forceinline__ T operator()(T x) const {
    const T inner = T(0.79788456080286536) * (x + T(0.044715) * x * x * x);
    return T(0.5) * x * (T(1) + gpu::math::Tanh(inner));
  }
};
}  // namespace

sy_error_t* BiasOutput(const gpu::Stream& stream, const GemmProblem& p, bool gelu,
                       std::string_view op) {
  const int nd = p.batch_ndim + 2;
  int64_t shape[SY_MAX_RANK + 2];
  int64_t strides[SY_MAX_RANK + 2];
  int64_t bias_strides[SY_MAX_RANK + 2] = {};
  for (int d = 0; d < p.batch_ndim; ++d) {
    shape[d] = p.batch_shape[d];
    strides[d] = p.batch_stride[2][d];
  }
  shape[nd - 2] = p.c.rows;
  shape[nd - 1] = p.c.cols;
  strides[nd - 2] = p.c.rs;
  strides[nd - 1] = p.c.cs;
  bias_strides[nd - 1] = p.bias_stride;  // the bias broadcast over the rest
  const sy_tensor_view_t out = View(p.c.data, nd, shape, strides, stream.device);
  const sy_tensor_view_t bias =
      View(const_cast<void*>(p.bias), nd, shape, bias_strides, stream.device);
  return WithStorage(p.dtype, op, [&](auto s) {
    using S = decltype(s);
    return gelu ? LaunchElementwise<S, S>(GeluTanh{}, stream, out, {&bias}, op)
                : LaunchElementwise<S, S>(Identity{}, stream, out, {&bias}, op);
  });
}

sy_error_t* CopyVector(const gpu::Stream& stream, sy_dtype_t dtype,
                       void* dst, const void* src, int64_t n, int64_t stride,
                       std::string_view op) {
  const int64_t shape[1] = {n};
  const int64_t one[1] = {1};
  const int64_t src_stride[1] = {stride};
  const sy_tensor_view_t d = View(dst, 1, shape, one, stream.device);
  const sy_tensor_view_t s =
      View(const_cast<void*>(src), 1, shape, src_stride, stream.device);
  return WithStorage(dtype, op, [&](auto v) {
    using S = decltype(v);
    return LaunchElementwise<S, S>(Identity{}, stream, d, {&s}, op);
  });
}

}  // namespace sy::cuda
