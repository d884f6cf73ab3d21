// RefTensor: a host tensor the harness computes with — float64 values in
// row-major order, plus the dtype they belong to and a shape.
//
// Every value is exactly representable in the dtype (Make rounds with
// RoundTo), so a RefTensor converts to the dtype's bytes and back without
// loss. Integers are held exactly up to 2^53; i64 values beyond that are
// the nearest double (see docs/testing.md, "Integers").
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_REFERENCE_TENSOR_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_REFERENCE_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "switchyard/common.h"

namespace sy::op_harness {

using Shape = std::vector<int64_t>;

struct RefTensor {
  sy_dtype_t dtype = SY_DTYPE_NONE;  // NONE: an omitted optional tensor
  Shape shape;
  std::vector<double> values;  // NumElements(shape) of them, row-major

  bool defined() const { return dtype != SY_DTYPE_NONE; }
  int64_t numel() const { return static_cast<int64_t>(values.size()); }
  int rank() const { return static_cast<int>(shape.size()); }

  // A tensor of `dtype` with `values` rounded to it (RoundTo). The number
  // of values must match the shape.
  static RefTensor Make(sy_dtype_t dtype, Shape shape,
                        std::vector<double> values);
  static RefTensor Filled(sy_dtype_t dtype, Shape shape, double value);
};

// The product of `shape` (1 for rank 0).
int64_t NumElements(std::span<const int64_t> shape);
// Row-major strides in elements.
std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape);
// The multi-index of row-major position `linear`.
void Unravel(int64_t linear, std::span<const int64_t> shape, int64_t* index);
// "[2, 3]"; "[]" for rank 0.
std::string ShapeString(std::span<const int64_t> shape);
// "f32[2, 3]"; "none" for an undefined tensor.
std::string Describe(const RefTensor& t);
// A value for messages: integers exactly, floats with enough digits to
// tell neighbouring values of `dtype` apart, "nan", "inf", "-0".
std::string FormatValue(sy_dtype_t dtype, double value);

// NumPy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<Shape> BroadcastShapes(std::span<const int64_t> a,
                                     std::span<const int64_t> b);
// Strides (in elements of `from`'s row-major layout) that walk `from`
// broadcast to `to`: 0 on stretched and added dims. `from` must broadcast
// to `to`.
std::vector<int64_t> BroadcastStrides(std::span<const int64_t> from,
                                      std::span<const int64_t> to);
// `t` materialized at shape `to` (which it must broadcast to).
RefTensor BroadcastTo(const RefTensor& t, std::span<const int64_t> to);
// Every value rounded to `dtype` (a cast).
RefTensor CastTo(const RefTensor& t, sy_dtype_t dtype);
// `t` with its dims reordered: result dim i is t's dim perm[i].
RefTensor PermuteDims(const RefTensor& t, std::span<const int64_t> perm);

// The dtype's storage bytes (little-endian, as the ABI lays them out).
std::vector<uint8_t> ToBytes(const RefTensor& t);
// Reads `bytes` (NumElements(shape) × DtypeSize(dtype)) back. A bool byte
// keeps its raw value, so a kernel writing 2 for true is caught.
RefTensor FromBytes(sy_dtype_t dtype, Shape shape,
                    std::span<const uint8_t> bytes);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_REFERENCE_TENSOR_H_
