// Integer arithmetic without undefined behaviour, for the elementwise
// kernels: results wrap modulo 2^bits (two's complement), as NumPy's and
// PyTorch's integer tensors do. Signed overflow is undefined in C++, so each
// operation runs on the unsigned type of the same width and converts back,
// which C++20 defines as modular.
//
// Division and pow have inputs without a result (division by zero, a
// negative exponent); they are the caller's to refuse: the functions here
// require b != 0 and b >= 0 respectively.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_INT_MATH_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_INT_MATH_H_

#include <cstdint>
#include <type_traits>

namespace sy::cpu {

// The unsigned type the operations on T run in. For 8-bit types it is
// `unsigned`, wide enough that promotion to int cannot overflow a product.
template <class T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                    std::make_unsigned_t<T>>;

template <class T>
constexpr T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) +
                        static_cast<WrapType<T>>(b));
}

template <class T>
constexpr T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) -
                        static_cast<WrapType<T>>(b));
}

template <class T>
constexpr T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) *
                        static_cast<WrapType<T>>(b));
}

// -INT_MIN wraps to INT_MIN; -1 for u8 is 255.
template <class T>
constexpr T WrapNeg(T a) {
  return static_cast<T>(WrapType<T>{0} - static_cast<WrapType<T>>(a));
}

// abs(INT_MIN) wraps to INT_MIN, as in NumPy.
template <class T>
constexpr T WrapAbs(T a) {
  if constexpr (std::is_signed_v<T>) {
    return a < 0 ? WrapNeg(a) : a;
  } else {
    return a;
  }
}

// Truncates toward zero. Requires b != 0. INT_MIN / -1, whose quotient does
// not fit (and traps on x86), wraps to INT_MIN like the other overflows.
template <class T>
constexpr T TruncDiv(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return WrapNeg(a);
  }
  return static_cast<T>(a / b);
}

// a^b by repeated squaring, wrapping on overflow; 0^0 is 1. Requires b >= 0.
template <class T>
constexpr T WrapPow(T a, T b) {
  WrapType<T> base = static_cast<WrapType<T>>(a);
  WrapType<T> result = 1;
  for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
    if (e & 1) result = static_cast<WrapType<T>>(result * base);
    base = static_cast<WrapType<T>>(base * base);
  }
  return static_cast<T>(result);
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_INT_MATH_H_
