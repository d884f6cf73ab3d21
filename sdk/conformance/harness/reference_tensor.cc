#include "sdk/conformance/harness/reference_tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "switchyard/plugin.hpp"
#include "sdk/conformance/harness/dtypes.h"

namespace sy::op_harness {
namespace {

template <class T>
void Store(uint8_t* dst, T value) {
  std::memcpy(dst, &value, sizeof(T));
}

template <class T>
T Load(const uint8_t* src) {
  T value;
  std::memcpy(&value, src, sizeof(T));
  return value;
}

// Integer-valued doubles within int64 range convert exactly; RoundTo made
// them so.
int64_t AsInt64(double v) {
  if (!(v > -0x1p63)) return INT64_MIN;
  if (v >= 0x1p63) return INT64_MAX;
  return static_cast<int64_t>(v);
}

}  // namespace

RefTensor RefTensor::Make(sy_dtype_t dtype, Shape shape,
                          std::vector<double> values) {
  if (static_cast<int64_t>(values.size()) != NumElements(shape)) {
    throw std::logic_error("RefTensor::Make: " + std::to_string(values.size()) +
                           " values for shape " + ShapeString(shape));
  }
  for (double& v : values) v = RoundTo(dtype, v);
  return RefTensor{dtype, std::move(shape), std::move(values)};
}

RefTensor RefTensor::Filled(sy_dtype_t dtype, Shape shape, double value) {
  const int64_t n = NumElements(shape);
  return RefTensor{dtype, std::move(shape),
                   std::vector<double>(static_cast<size_t>(n),
                                       RoundTo(dtype, value))};
}

int64_t NumElements(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

void Unravel(int64_t linear, std::span<const int64_t> shape, int64_t* index) {
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t size = shape[d];
    index[d] = size == 0 ? 0 : linear % size;
    linear = size == 0 ? 0 : linear / size;
  }
}

std::string ShapeString(std::span<const int64_t> shape) {
  return plugin::ShapeToString(shape);
}

std::string Describe(const RefTensor& t) {
  if (!t.defined()) return "none";
  return std::string(DtypeName(t.dtype)) + ShapeString(t.shape);
}

std::string FormatValue(sy_dtype_t dtype, double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == 0 && std::signbit(value)) return "-0";
  char buf[40];
  if (!IsFloating(dtype)) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    const int digits = dtype == SY_DTYPE_F64 ? 17 : dtype == SY_DTYPE_F32 ? 9 : 5;
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
  }
  return buf;
}

std::optional<Shape> BroadcastShapes(std::span<const int64_t> a,
                                     std::span<const int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<int64_t> BroadcastStrides(std::span<const int64_t> from,
                                      std::span<const int64_t> to) {
  const std::vector<int64_t> own = RowMajorStrides(from);
  std::vector<int64_t> strides(to.size(), 0);
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    strides[lead + d] = from[d] == 1 && to[lead + d] != 1 ? 0 : own[d];
  }
  return strides;
}

RefTensor BroadcastTo(const RefTensor& t, std::span<const int64_t> to) {
  if (std::equal(t.shape.begin(), t.shape.end(), to.begin(), to.end())) return t;
  const std::vector<int64_t> strides = BroadcastStrides(t.shape, to);
  RefTensor out{t.dtype, Shape(to.begin(), to.end()), {}};
  const int64_t n = NumElements(to);
  out.values.resize(static_cast<size_t>(n));
  std::vector<int64_t> index(to.size());
  for (int64_t i = 0; i < n; ++i) {
    Unravel(i, to, index.data());
    int64_t offset = 0;
    for (size_t d = 0; d < to.size(); ++d) offset += index[d] * strides[d];
    out.values[static_cast<size_t>(i)] = t.values[static_cast<size_t>(offset)];
  }
  return out;
}

RefTensor CastTo(const RefTensor& t, sy_dtype_t dtype) {
  return RefTensor::Make(dtype, t.shape, t.values);
}

RefTensor PermuteDims(const RefTensor& t, std::span<const int64_t> perm) {
  const std::vector<int64_t> strides = RowMajorStrides(t.shape);
  Shape shape(perm.size());
  std::vector<int64_t> walk(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape[i] = t.shape[static_cast<size_t>(perm[i])];
    walk[i] = strides[static_cast<size_t>(perm[i])];
  }
  RefTensor out{t.dtype, shape, {}};
  const int64_t n = t.numel();
  out.values.resize(static_cast<size_t>(n));
  std::vector<int64_t> index(shape.size());
  for (int64_t i = 0; i < n; ++i) {
    Unravel(i, shape, index.data());
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d) offset += index[d] * walk[d];
    out.values[static_cast<size_t>(i)] = t.values[static_cast<size_t>(offset)];
  }
  return out;
}

std::vector<uint8_t> ToBytes(const RefTensor& t) {
  const size_t size = DtypeSize(t.dtype);
  std::vector<uint8_t> bytes(t.values.size() * size);
  for (size_t i = 0; i < t.values.size(); ++i) {
    const double v = t.values[i];
    uint8_t* dst = bytes.data() + i * size;
    switch (t.dtype) {
      case SY_DTYPE_F64: Store<double>(dst, v); break;
      case SY_DTYPE_F32: Store<float>(dst, static_cast<float>(v)); break;
      case SY_DTYPE_F16:
        Store<uint16_t>(dst, plugin::Half(static_cast<float>(v)).bits);
        break;
      case SY_DTYPE_BF16:
        Store<uint16_t>(dst, plugin::BFloat16(static_cast<float>(v)).bits);
        break;
      case SY_DTYPE_I64: Store<int64_t>(dst, AsInt64(v)); break;
      case SY_DTYPE_I32:
        Store<int32_t>(dst, static_cast<int32_t>(WrapInt(SY_DTYPE_I32, AsInt64(v))));
        break;
      case SY_DTYPE_I8:
        Store<int8_t>(dst, static_cast<int8_t>(WrapInt(SY_DTYPE_I8, AsInt64(v))));
        break;
      case SY_DTYPE_U8:
        Store<uint8_t>(dst, static_cast<uint8_t>(WrapInt(SY_DTYPE_U8, AsInt64(v))));
        break;
      case SY_DTYPE_BOOL: Store<uint8_t>(dst, v != 0 ? 1 : 0); break;
      default: break;
    }
  }
  return bytes;
}

RefTensor FromBytes(sy_dtype_t dtype, Shape shape,
                    std::span<const uint8_t> bytes) {
  const size_t size = DtypeSize(dtype);
  const size_t n = static_cast<size_t>(NumElements(shape));
  if (size == 0 || bytes.size() != n * size) {
    throw std::logic_error("FromBytes: " + std::to_string(bytes.size()) +
                           " bytes for " + std::string(DtypeName(dtype)) +
                           ShapeString(shape));
  }
  RefTensor t{dtype, std::move(shape), std::vector<double>(n)};
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* src = bytes.data() + i * size;
    double& v = t.values[i];
    switch (dtype) {
      case SY_DTYPE_F64: v = Load<double>(src); break;
      case SY_DTYPE_F32: v = Load<float>(src); break;
      case SY_DTYPE_F16: v = plugin::Half::ToFloat(Load<uint16_t>(src)); break;
      case SY_DTYPE_BF16:
        v = plugin::BFloat16::ToFloat(Load<uint16_t>(src));
        break;
      case SY_DTYPE_I64: v = static_cast<double>(Load<int64_t>(src)); break;
      case SY_DTYPE_I32: v = Load<int32_t>(src); break;
      case SY_DTYPE_I8: v = Load<int8_t>(src); break;
      case SY_DTYPE_U8:
      case SY_DTYPE_BOOL: v = Load<uint8_t>(src); break;
      default: break;
    }
  }
  return t;
}

}  // namespace sy::op_harness
