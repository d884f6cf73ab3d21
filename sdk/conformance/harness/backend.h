// The backend under test: the one interface through which the harness
// reaches a device. Everything else in the harness is host code.
//
// Implementations: RuntimeBackend (runtime_backend.h) drives a device spec
// such as "cpu" or "cuda:0" through the public C++ API (switchyard.hpp);
// switchyard-conformance wraps it to judge one plugin. The interface speaks
// only standard C++ and the ABI's status codes, never dispatcher types.
//
// Thread-safety: the harness calls a backend from one thread at a time.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_BACKEND_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_BACKEND_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "switchyard/common.h"
#include "sdk/conformance/harness/reference_tensor.h"

namespace sy::op_harness {

// A call's outcome: an ABI status code and the message that came with it.
struct Status {
  sy_status_code_t code = SY_STATUS_OK;
  std::string message;

  bool ok() const { return code == SY_STATUS_OK; }
  static Status Ok() { return {}; }
  static Status Error(sy_status_code_t code, std::string message) {
    return {code, std::move(message)};
  }
};

// "INVALID_ARGUMENT", "UNIMPLEMENTED", …
std::string_view StatusCodeName(sy_status_code_t code);

// A value or the Status saying why there is none.
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, like StatusOr
  Result(Status status) : status_(std::move(status)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

// An op attribute as the harness states it. Unlike sy::Attr it owns its
// list and string, so cases can be built once and called many times.
struct AttrValue {
  enum class Kind { kNone, kInt, kFloat, kBool, kInts, kString, kDtype };
  Kind kind = Kind::kNone;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<int64_t> ints;
  std::string str;
  sy_dtype_t dtype = SY_DTYPE_NONE;

  static AttrValue None() { return {}; }
  static AttrValue Int(int64_t v) { AttrValue a; a.kind = Kind::kInt; a.i = v; return a; }
  static AttrValue Float(double v) { AttrValue a; a.kind = Kind::kFloat; a.f = v; return a; }
  static AttrValue Bool(bool v) { AttrValue a; a.kind = Kind::kBool; a.b = v; return a; }
  static AttrValue Ints(std::vector<int64_t> v) {
    AttrValue a; a.kind = Kind::kInts; a.ints = std::move(v); return a;
  }
  static AttrValue Str(std::string v) {
    AttrValue a; a.kind = Kind::kString; a.str = std::move(v); return a;
  }
  static AttrValue Dtype(sy_dtype_t v) { AttrValue a; a.kind = Kind::kDtype; a.dtype = v; return a; }

  // "None", "3", "2.5", "True", "[1, 2]", "\"tanh\"", "f16": for messages.
  std::string ToString() const;
};

// A tensor living on the device under test. Opaque to the harness; each
// backend derives its own. Shared, so a view and its base may both be held.
class BackendTensor {
 public:
  virtual ~BackendTensor() = default;
};
// nullptr stands for an omitted optional tensor argument.
using DeviceTensor = std::shared_ptr<BackendTensor>;

// How an op is to be run.
enum class CallMode {
  kDispatch,    // the normal resolution order (kernel, decomposition, …)
  kDecomposed,  // the op's core decomposition even where a kernel exists
};

class BackendUnderTest {
 public:
  virtual ~BackendUnderTest() = default;

  // The device the tensors live on, for messages: "cpu:0".
  virtual std::string DeviceLabel() const = 0;

  // The subnormals the device declares it may flush (SY_FLOAT_FLUSHES_*,
  // switchyard/common.h): where a result differs from the reference, the
  // harness also accepts, element by element, the reference of the inputs
  // with those subnormals flushed, flushed in turn (case_runner.h,
  // FlushedReference and CloserPerElement).
  virtual uint32_t FloatFlags() const { return 0; }

  // A new contiguous device tensor holding `host` (which is defined).
  virtual Result<DeviceTensor> Upload(const RefTensor& host) = 0;

  // The tensor's dtype, shape and values, read back densely in row-major
  // order whatever its layout. Waits for pending work.
  virtual Result<RefTensor> Download(const DeviceTensor& tensor) = 0;

  // Calls `op` (a schema full name: "add.Tensor", "exp") with one entry of
  // `inputs` per tensor argument (a Tensor[] argument takes list_sizes[0]
  // consecutive entries) and the leading attributes in schema order.
  // A missing kernel must come back as SY_STATUS_UNIMPLEMENTED: that is how
  // the harness tells "not provided" from "wrong". kDecomposed on a backend
  // that cannot force decompositions returns UNIMPLEMENTED too.
  virtual Result<std::vector<DeviceTensor>> Call(
      std::string_view op, std::span<const DeviceTensor> inputs,
      std::span<const AttrValue> attrs, std::span<const int32_t> list_sizes,
      CallMode mode) = 0;

  // How the call would run ("kernel cpu::add.Tensor.f32.f32 (priority)",
  // "decomposition"), for failure messages; "" when the backend cannot say.
  virtual std::string Explain(std::string_view op,
                              std::span<const DeviceTensor> inputs,
                              std::span<const AttrValue> attrs,
                              std::span<const int32_t> list_sizes) {
    return "";
  }

  // The call on one named kernel ("plugin::name") instead of the resolution
  // order — how switchyard-conformance runs a plugin's kernel that would
  // not be chosen. UNIMPLEMENTED where the backend cannot name kernels.
  virtual Result<std::vector<DeviceTensor>> CallKernel(
      std::string_view op, std::span<const DeviceTensor> inputs,
      std::span<const AttrValue> attrs, std::span<const int32_t> list_sizes,
      const std::string& kernel) {
    return Status::Error(SY_STATUS_UNIMPLEMENTED, "this backend cannot run a named kernel");
  }
  // Explain for such a call: "kernel p::name (requested)", or the error it
  // would return (a kernel that does not serve these dtypes, or declines
  // them).
  virtual Result<std::string> ExplainKernel(std::string_view op,
                                            std::span<const DeviceTensor> inputs,
                                            std::span<const AttrValue> attrs,
                                            std::span<const int32_t> list_sizes,
                                            const std::string& kernel) {
    return Status::Error(SY_STATUS_UNIMPLEMENTED, "this backend cannot run a named kernel");
  }
};

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_BACKEND_H_
