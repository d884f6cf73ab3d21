// Element functors of the binary arithmetic ops, shared by binary.cu
// (.Tensor) and binary_scalar.cu (.Scalar). Each works on a compute type T
// (float, int32_t, int64_t or bool):
// - integers wrap on overflow (computed unsigned, no signed-overflow UB);
// - bool: add and maximum are `or`, mul and minimum are `and`;
// - maximum/minimum propagate NaN;
// - integer div truncates toward zero (INT_MIN / -1 wraps to INT_MIN) and
//   integer pow wraps (0^0 is 1), as the cpu plugin's. Some integer b have
//   no result (a zero divisor, a negative exponent): `Refuses(b)` says so,
//   the functors give 0 there, and the kernels report it (binary.cu reads
//   a device flag back; binary_scalar.cu checks the Scalar on the host).
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
  static constexpr bool kBool = false, kInt = true;
  // An integer b without a result.
  template <class T>
  __host__ __device__ static bool Refuses(T b) {
    return b == T(0);
  }
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return WrapInt(T(0), a, [](auto x, auto y) { return x - y; });
      }
      return static_cast<T>(a / b);
    } else {
      return a / b;
    }
  }
};

struct PowOp {
  static constexpr std::string_view kTensor = "pow.Tensor";
  static constexpr std::string_view kScalar = "pow.Scalar";
  static constexpr bool kBool = false, kInt = true;
  template <class T>
  __host__ __device__ static bool Refuses(T b) {
    if constexpr (std::is_signed_v<T>) {
      return b < T(0);
    } else {
      return false;
    }
  }
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      // Square and multiply in the unsigned type (at least 32 bits, so
      // that 8-bit products never overflow into signed int).
      using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
      if (Refuses(b)) return T(0);
      U base = static_cast<U>(a), result = 1;
      for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * base);
        base = static_cast<U>(base * base);
      }
      return static_cast<T>(result);
    } else {
      return math::Pow(a, b);
    }
  }
};

// Op over integers with b checked: where Op refuses b, the result is 0 and
// *refused becomes 1 (a benign race: every writer writes 1; the stream's
// flag, device_checks.h).
template <class Op>
struct Checked {
  Op op;
  unsigned int* refused;
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    if (Op::Refuses(b)) {
      *refused = 1;
      return T(0);
    }
    return op(a, b);
  }
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
