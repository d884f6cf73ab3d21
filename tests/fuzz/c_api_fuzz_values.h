// Values the C API fuzzer draws from its input: dtypes, shapes, attributes
// and forged handles. Each draw is mostly plausible (so calls get past the
// first check and reach kernels) and sometimes hostile (invalid dtypes,
// negative or overflowing sizes, wrong attribute kinds, NULL pointers with
// sizes, tokens that look like handles but are not).
//
// Sizes stay small: a tensor the fuzzer creates holds at most kMaxNumel
// elements. Overflowing sizes are drawn only from values whose byte count
// cannot fit in memory at all, so a clean error is the only right answer.
#ifndef SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_VALUES_H_
#define SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_VALUES_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fuzzer/FuzzedDataProvider.h"
#include "switchyard/switchyard.h"

namespace sy_fuzz {

inline constexpr int64_t kMaxNumel = 4096;

inline constexpr sy_dtype_t kDTypes[] = {
    SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16, SY_DTYPE_I32,
    SY_DTYPE_I64, SY_DTYPE_I8,  SY_DTYPE_U8,  SY_DTYPE_BOOL};

// Sizes and integers that must be refused or must not overflow silently.
// Nothing between 2^31 and 2^40: a request of a few GiB is valid, and would
// only exhaust the fuzzer's memory limit.
inline constexpr int64_t kEdgeInts[] = {
    -1,
    -2,
    std::numeric_limits<int64_t>::min(),
    std::numeric_limits<int64_t>::max(),
    int64_t{1} << 40,  // × 4 bytes: more than any allocator gives
    int64_t{1} << 62,  // × anything > 4: overflows 64 bits
    std::numeric_limits<int32_t>::min()};

inline sy_dtype_t DrawDType(FuzzedDataProvider& in) {
  if (in.ConsumeProbability<float>() < 0.93f) {
    return in.PickValueInArray(kDTypes);
  }
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return SY_DTYPE_NONE;
    case 1:  // a real dtype with two lanes
      return in.PickValueInArray(kDTypes) | (2u << 16);
    case 2:  // float with 8 or 128 bits
      return SY_DTYPE_MAKE(2, in.ConsumeBool() ? 8 : 128);
    default:
      return in.ConsumeIntegral<uint32_t>();
  }
}

// A small integer, sometimes an edge value.
inline int64_t DrawInt(FuzzedDataProvider& in) {
  if (in.ConsumeProbability<float>() < 0.9f) {
    return in.ConsumeIntegralInRange<int64_t>(-4, 8);
  }
  return in.PickValueInArray(kEdgeInts);
}

inline double DrawFloat(FuzzedDataProvider& in) {
  static constexpr double kFloats[] = {
      0.0, -0.0, 1.0, -1.0, 0.5, 1e-6, 1e-5, 2.0, 1e308, -1e308, 5e-324,
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN()};
  if (in.ConsumeBool()) return in.PickValueInArray(kFloats);
  return in.ConsumeFloatingPoint<double>();
}

// A shape for a new tensor: rank 0..4 (sometimes 8, or an invalid 9 or -1),
// sizes 0..6, at most kMaxNumel elements unless `hostile`.
struct Shape {
  std::vector<int64_t> dims;
  int32_t ndim = 0;  // may disagree with dims.size() when hostile
  bool hostile = false;
};

inline Shape DrawShape(FuzzedDataProvider& in) {
  Shape s;
  const int rank_kind = in.ConsumeIntegralInRange<int>(0, 19);
  int rank = rank_kind < 17 ? in.ConsumeIntegralInRange<int>(0, 4)
                            : (rank_kind == 17 ? SY_MAX_RANK : 0);
  int64_t numel = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t d = in.ConsumeIntegralInRange<int64_t>(0, 6);
    if (numel * (d == 0 ? 1 : d) > kMaxNumel) d = 1;
    numel *= d == 0 ? 1 : d;
    s.dims.push_back(d);
  }
  s.ndim = rank;
  if (rank_kind == 18) {  // a rank the API must refuse
    s.ndim = in.ConsumeBool() ? SY_MAX_RANK + 1 : -1;
    s.dims.assign(SY_MAX_RANK + 1, 1);
    s.hostile = true;
  } else if (rank_kind == 19 && rank == 0) {  // one size it must refuse
    s.dims = {in.PickValueInArray(kEdgeInts), in.ConsumeIntegralInRange<int64_t>(1, 4)};
    s.ndim = 2;
    s.hostile = true;
  }
  return s;
}

inline int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int i = 0; i < s.ndim; ++i) n *= s.dims[i];
  return n;
}

// Storage for one attribute's pointed-to data: it must outlive the call.
struct AttrStorage {
  int64_t ints[SY_MAX_RANK] = {};
  std::string text;
};

inline constexpr const char* kStrings[] = {"none", "tanh", "", "mean",
                                           "same", "valid", "exact"};

// An attribute of kind `kind` (a sy_attr_kind_t, or anything else for a
// kind the API must refuse).
inline sy_attr_t DrawAttrOfKind(FuzzedDataProvider& in, int32_t kind,
                                AttrStorage& storage) {
  sy_attr_t attr{};
  attr.kind = kind;
  switch (kind) {
    case SY_ATTR_INT:
      attr.value.i = DrawInt(in);
      break;
    case SY_ATTR_FLOAT:
      attr.value.f = DrawFloat(in);
      break;
    case SY_ATTR_BOOL:
      attr.value.b = in.ConsumeProbability<float>() < 0.9f
                         ? in.ConsumeIntegralInRange<int32_t>(0, 1)
                         : in.ConsumeIntegral<int32_t>();
      break;
    case SY_ATTR_INTS: {
      const int64_t size = in.ConsumeIntegralInRange<int64_t>(0, SY_MAX_RANK);
      for (int64_t i = 0; i < size; ++i) storage.ints[i] = DrawInt(in);
      attr.value.ints.data = storage.ints;
      attr.value.ints.size = size;
      if (in.ConsumeProbability<float>() < 0.05f) {
        // NULL with a size, or a negative size: refused, never read.
        attr.value.ints.data = in.ConsumeBool() ? nullptr : storage.ints;
        attr.value.ints.size = in.ConsumeBool() ? -1 : 3;
        if (attr.value.ints.data != nullptr) attr.value.ints.size = -1;
      }
      break;
    }
    case SY_ATTR_STRING:
      storage.text = in.ConsumeBool() ? std::string(in.PickValueInArray(kStrings))
                                      : in.ConsumeRandomLengthString(16);
      attr.value.str.data = storage.text.c_str();
      attr.value.str.size = static_cast<int64_t>(storage.text.size());
      if (in.ConsumeProbability<float>() < 0.05f) {
        attr.value.str.data = nullptr;
        attr.value.str.size = in.ConsumeBool() ? 0 : 4;
      }
      break;
    case SY_ATTR_DTYPE:
      attr.value.dtype = DrawDType(in);
      break;
    default:  // SY_ATTR_NONE, SY_ATTR_DEFAULT and garbage kinds carry nothing
      attr.value.i = in.ConsumeIntegral<int64_t>();
      break;
  }
  return attr;
}

// The attribute kind that fits a schema argument kind (sy_arg_kind_t).
inline int32_t AttrKindFor(int32_t arg_kind, FuzzedDataProvider& in) {
  switch (arg_kind) {
    case SY_ARG_INT:
      return SY_ATTR_INT;
    case SY_ARG_INT_LIST:
      return SY_ATTR_INTS;
    case SY_ARG_FLOAT:
      return in.ConsumeBool() ? SY_ATTR_FLOAT : SY_ATTR_INT;
    case SY_ARG_BOOL:
      return SY_ATTR_BOOL;
    case SY_ARG_SCALAR:
      return in.ConsumeBool() ? SY_ATTR_FLOAT : SY_ATTR_INT;
    case SY_ARG_STRING:
      return SY_ATTR_STRING;
    case SY_ARG_DTYPE:
      return SY_ATTR_DTYPE;
    case SY_ARG_COMMUNICATOR:
      return SY_ATTR_COMMUNICATOR;
    default:
      return SY_ATTR_NONE;
  }
}

// A token that looks like a handle (Note [Handle tokens] in
// api/src/handle_table.h: 0x5A, kind, generation, slot) or is plain
// garbage. It may by chance name a live handle; callers check.
inline uint64_t DrawForgedToken(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return in.ConsumeIntegral<uint64_t>();
  const uint64_t kind = in.ConsumeIntegralInRange<uint64_t>(0, 15);
  const uint64_t generation = in.ConsumeIntegralInRange<uint64_t>(0, 4);
  const uint64_t slot = in.ConsumeIntegralInRange<uint64_t>(0, 300);
  return (uint64_t{0x5A} << 56) | (kind << 52) | (generation << 28) | slot;
}

}  // namespace sy_fuzz

#endif  // SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_VALUES_H_
