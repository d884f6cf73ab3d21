// Random operand values for measuring candidates on inputs of the right
// dtype and size when no real call supplies them: `switchyard tune`'s
// cases (tune_cases.cc) and the fused kernels' launch configurations
// (fusion/backend/launch_tuning.cc). Host bytes, to upload with
// Dispatcher::FromHost.
#ifndef SWITCHYARD_AUTOTUNE_RANDOM_VALUES_H_
#define SWITCHYARD_AUTOTUNE_RANDOM_VALUES_H_

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "dispatcher/ops/dtype.h"
#include "switchyard/plugin/dtypes.hpp"

namespace sy::autotune {

// Which values:
//   kNormal    floats from N(0, 1); integers -8 … 8 (u8 0 … 16); bools.
//   kPositive  floats in [0.5, 2), away from 0 so that log, sqrt, rsqrt
//              and division stay finite; integers 1 … 4; bools.
enum class RandomValues { kNormal, kPositive };

// splitmix64 as a standard random bit generator: cheap enough for the
// 2^26-element operands of a long-row kernel, and the same in every
// process.
class SplitMix64 {
 public:
  using result_type = uint64_t;
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// Host bytes of `n` values of `dtype` drawn from `rng`.
template <class Rng>
std::vector<unsigned char> RandomBytes(sy_dtype_t dtype, int64_t n, RandomValues values,
                                       Rng& rng) {
  const size_t size = core::DTypeSize(dtype);
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * size);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int> small(-8, 8);
  const bool positive = values == RandomValues::kPositive;
  auto real = [&] {
    return positive ? 0.5 + 1.5 * static_cast<double>(rng() >> 11) * 0x1p-53 : normal(rng);
  };
  auto integer = [&] { return positive ? static_cast<int>(1 + rng() % 4) : small(rng); };
  for (int64_t i = 0; i < n; ++i) {
    unsigned char* at = bytes.data() + static_cast<size_t>(i) * size;
    auto put = [&](auto value) { std::memcpy(at, &value, sizeof value); };
    switch (dtype) {
      case SY_DTYPE_F32: put(static_cast<float>(real())); break;
      case SY_DTYPE_F64: put(real()); break;
      case SY_DTYPE_F16: put(plugin::Half(static_cast<float>(real()))); break;
      case SY_DTYPE_BF16: put(plugin::BFloat16(static_cast<float>(real()))); break;
      case SY_DTYPE_I32: put(static_cast<int32_t>(integer())); break;
      case SY_DTYPE_I64: put(static_cast<int64_t>(integer())); break;
      case SY_DTYPE_I8: put(static_cast<int8_t>(integer())); break;
      case SY_DTYPE_U8: put(static_cast<uint8_t>(integer() + (positive ? 0 : 8))); break;
      case SY_DTYPE_BOOL:
        put(static_cast<uint8_t>(positive ? integer() & 1 : integer() > 0));
        break;
      default: break;
    }
  }
  return bytes;
}

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_RANDOM_VALUES_H_
