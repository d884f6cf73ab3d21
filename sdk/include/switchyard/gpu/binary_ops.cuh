// Element functors of the binary arithmetic ops, shared by binary.cu
// (.Tensor) and binary_scalar.cu (.Scalar). Each works on a compute type T
// (float, int32_t, int64_t or bool):
// - integers wrap on overflow (computed unsigned, no signed-overflow UB);
// - bool: add and maximum are `or`, mul and minimum are `and`;
// - maximum/minimum propagate NaN.
// Integer div and pow have no kernels here (a device-side zero divisor could
// only be reported after the fact); they run as floats after a cast, or on
// the cpu plugin.
#ifndef SWITCHYARD_GPU_BINARY_OPS_CUH_
#define SWITCHYARD_GPU_BINARY_OPS_CUH_

#include <string_view>
#include <type_traits>

#include "switchyard/gpu/device_types.cuh"

namespace sy::gpu {

template <class T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T, class F>
__device__ __forceinline__ T WrapInt(T a, T b, F f) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
}

struct AddOp {
  static constexpr std::string_view kTensor = "add.Tensor";
  static constexpr std::string_view kScalar = "add.Scalar";
  static constexpr bool kBool = true, kInt = true;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (kIsInt<T>) return WrapInt(a, b, [](auto x, auto y) { return x + y; });
    else return a + b;
  }
};

struct SubOp {
  static constexpr std::string_view kTensor = "sub.Tensor";
  static constexpr std::string_view kScalar = "sub.Scalar";
  static constexpr bool kBool = false, kInt = true;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) return WrapInt(a, b, [](auto x, auto y) { return x - y; });
    else return a - b;
  }
};

struct MulOp {
  static constexpr std::string_view kTensor = "mul.Tensor";
  static constexpr std::string_view kScalar = "mul.Scalar";
  static constexpr bool kBool = true, kInt = true;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (kIsInt<T>) return WrapInt(a, b, [](auto x, auto y) { return x * y; });
    else return a * b;
  }
};

struct DivOp {
  static constexpr std::string_view kTensor = "div.Tensor";
  static constexpr std::string_view kScalar = "div.Scalar";
  static constexpr bool kBool = false, kInt = false;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a / b; }
};

struct PowOp {
  static constexpr std::string_view kTensor = "pow.Tensor";
  static constexpr std::string_view kScalar = "pow.Scalar";
  static constexpr bool kBool = false, kInt = false;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return math::Pow(a, b); }
};

struct MaximumOp {
  static constexpr std::string_view kTensor = "maximum.Tensor";
  static constexpr std::string_view kScalar = "maximum.Scalar";
  static constexpr bool kBool = true, kInt = true;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return (a != a || a > b) ? a : b;  // a != a: a is NaN; b NaN falls through
  }
};

struct MinimumOp {
  static constexpr std::string_view kTensor = "minimum.Tensor";
  static constexpr std::string_view kScalar = "minimum.Scalar";
  static constexpr bool kBool = true, kInt = true;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return (a != a || a < b) ? a : b;
  }
};

// op(a, value): a binary op with its second operand fixed (the .Scalar
// overloads), as a unary functor.
template <class Op, class C>
struct BindB {
  Op op;
  C value;
  template <class T>
  __device__ __forceinline__ C operator()(T a) const {
    return op(static_cast<C>(a), value);
  }
};

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_BINARY_OPS_CUH_
