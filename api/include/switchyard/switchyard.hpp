// Switchyard — a header-only C++ layer over the C API (switchyard.h), as
// oneDNN's dnnl.hpp is over dnnl.h: the same library, the same rules
// (handles, threads, lifetimes: see switchyard.h), with RAII handles,
// result types and vectors instead of counts and out-parameters.
//
//   auto ctx = sy::Context::Create().value();         // discovers plugins
//   sy::Device cpu = ctx.device("cpu").value();
//   sy::Tensor x = sy::Tensor::FromVector<float>(cpu, {2, 3}, {1, 2, 3, 4, 5, 6}).value();
//   sy::Op relu = ctx.op("relu").value();             // once
//   sy::Result<std::vector<sy::Tensor>> y = relu.call({x});
//   if (!y.ok()) std::cerr << y.status().message() << "\n";
//   std::vector<float> values = (*y)[0].ToVector<float>().value();
//
// Needs C++20 (std::span) and links libswitchyard.so (CMake:
// Switchyard::api). Nothing here throws: every call that can fail returns
// sy::Status or sy::Result<T>, which carry the C API's code and message.
// Result::value() on an error prints the message and aborts (as
// absl::StatusOr::value() in a build without exceptions); test ok() first
// or use value_or(). Getters of a handle whose context was destroyed
// return zero values (SY_DTYPE_NONE, empty shapes, "").
//
// Ownership: Context owns its sy_context_t (destroyed with it; move-only).
// Tensor owns one reference to its sy_tensor_t (copying retains, destruction
// releases). Device and Op are plain handles that belong to their context
// (nothing to release) and must not be used after it is destroyed. Every
// class is as thread-safe as the C functions it calls: objects may be used
// from several threads, but one object must not be assigned to while
// another thread uses it.
#ifndef SWITCHYARD_SWITCHYARD_HPP_
#define SWITCHYARD_SWITCHYARD_HPP_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "switchyard/switchyard.h"

namespace sy {

// ===== Errors ==============================================================

// A status code (common.h) and the message the library gave with it.
class Status {
 public:
  Status() = default;  // OK
  Status(sy_status_code_t code, std::string message)
      : code_(code), message_(std::move(message)) {}

  // The calling thread's last error after a C call returned `code`.
  static Status FromCode(sy_status_code_t code) {
    if (code == SY_STATUS_OK) return Status();
    return Status(code, sy_last_error_message());
  }

  bool ok() const { return code_ == SY_STATUS_OK; }
  sy_status_code_t code() const { return code_; }
  // "sy_op_call: add.Tensor: …": what went wrong, where, what to do.
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT".
  const char* code_name() const { return sy_status_code_name(code_); }
  // "INVALID_ARGUMENT: sy_op_call: …", or "OK".
  std::string ToString() const {
    return ok() ? std::string("OK") : std::string(code_name()) + ": " + message_;
  }

 private:
  sy_status_code_t code_ = SY_STATUS_OK;
  std::string message_;
};

namespace detail {
[[noreturn]] inline void Die(const Status& status) {
  std::fprintf(stderr, "switchyard: value() of an error: %s\n", status.ToString().c_str());
  std::abort();
}
}  // namespace detail

// A value, or the Status that says why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as StatusOr
  // `status` must not be OK.
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status(SY_STATUS_INTERNAL, "Result made from an OK Status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & {
    if (!ok()) detail::Die(status_);
    return *value_;
  }
  const T& value() const& {
    if (!ok()) detail::Die(status_);
    return *value_;
  }
  T&& value() && {
    if (!ok()) detail::Die(status_);
    return std::move(*value_);
  }
  T value_or(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

  // Unchecked access: only after ok().
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

// ===== Versions and logging ================================================

struct Versions {
  std::string library;            // "0.1.0"
  uint32_t api_major = 0, api_minor = 0;        // this C API (SY_API_VERSION_*)
  uint32_t plugin_abi_major = 0, plugin_abi_minor = 0;  // the plugin ABI hosted
};

inline Versions GetVersions() {
  Versions v;
  v.library = sy_library_version();
  sy_api_version(&v.api_major, &v.api_minor);
  sy_plugin_abi_version(&v.plugin_abi_major, &v.plugin_abi_minor);
  return v;
}

// "off", "error", "warning", "info", "debug" (see switchyard.h, Logging).
inline Status SetLogLevel(const std::string& level) {
  return Status::FromCode(sy_log_set_level(level.c_str()));
}
inline std::string LogLevel() { return sy_log_level(); }

// Receives each log line: level (sy_log_level_t) and the line. The same
// rules as sy_log_set_callback: quick, and no calls back into Switchyard.
using LogCallback = std::function<void(int level, std::string_view message)>;

namespace detail {
struct LogTarget {
  std::mutex mu;
  LogCallback callback;
};
inline LogTarget& TheLogTarget() {
  static LogTarget* target = new LogTarget;  // lives as long as the process
  return *target;
}
inline void ForwardLog(void* user_data, int32_t level, const char* message) {
  auto* target = static_cast<LogTarget*>(user_data);
  std::lock_guard<std::mutex> lock(target->mu);
  if (target->callback) target->callback(level, message);
}
}  // namespace detail

// Sends log lines to `callback`; an empty one restores stderr.
inline Status SetLogCallback(LogCallback callback) {
  detail::LogTarget& target = detail::TheLogTarget();
  if (!callback) {
    Status status = Status::FromCode(sy_log_set_callback(nullptr, nullptr));
    std::lock_guard<std::mutex> lock(target.mu);
    target.callback = nullptr;
    return status;
  }
  {
    std::lock_guard<std::mutex> lock(target.mu);
    target.callback = std::move(callback);
  }
  return Status::FromCode(sy_log_set_callback(&detail::ForwardLog, &target));
}

// Chrome trace-event file of every op call (switchyard.h, Tracing).
inline Status StartTrace(const std::string& path) {
  return Status::FromCode(sy_trace_start(path.c_str()));
}
inline Status StopTrace() { return Status::FromCode(sy_trace_stop()); }

// ===== Data types ==========================================================

inline std::string DTypeName(sy_dtype_t dtype) { return sy_dtype_name(dtype); }
inline Result<sy_dtype_t> DTypeFromName(const std::string& name) {
  sy_dtype_t dtype = SY_DTYPE_NONE;
  if (sy_status_code_t code = sy_dtype_from_name(name.c_str(), &dtype); code != SY_STATUS_OK) {
    return Status::FromCode(code);
  }
  return dtype;
}
inline size_t DTypeSize(sy_dtype_t dtype) { return sy_dtype_size(dtype); }

// The sy_dtype_t of a C++ element type.
template <typename T>
constexpr sy_dtype_t DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return SY_DTYPE_F32;
  else if constexpr (std::is_same_v<T, double>) return SY_DTYPE_F64;
  else if constexpr (std::is_same_v<T, int32_t>) return SY_DTYPE_I32;
  else if constexpr (std::is_same_v<T, int64_t>) return SY_DTYPE_I64;
  else if constexpr (std::is_same_v<T, int8_t>) return SY_DTYPE_I8;
  else if constexpr (std::is_same_v<T, uint8_t>) return SY_DTYPE_U8;
  else if constexpr (std::is_same_v<T, bool>) return SY_DTYPE_BOOL;
  else static_assert(sizeof(T) == 0, "no Switchyard dtype for this type");
}

// ===== Attributes ==========================================================

// An op attribute: *is* a sy_attr_t (same layout), with constructors. Lists
// and strings are borrowed: what they point at must outlive the call.
struct Attr : sy_attr_t {
  Attr() : sy_attr_t{} { kind = SY_ATTR_NONE; }  // None
  Attr(int value) : Attr(static_cast<int64_t>(value)) {}  // NOLINT
  Attr(int64_t value) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_INT;
    this->value.i = value;
  }
  Attr(double value) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_FLOAT;
    this->value.f = value;
  }
  Attr(bool value) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_BOOL;
    this->value.b = value ? 1 : 0;
  }
  Attr(std::span<const int64_t> list) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_INTS;
    value.ints.data = list.data();
    value.ints.size = static_cast<int64_t>(list.size());
  }
  // Borrows the list's array, which lives until the end of the full
  // expression: fine for an argument of call(), not for a stored Attr.
  Attr(std::initializer_list<int64_t> list)
      : Attr(std::span<const int64_t>(list.begin(), list.size())) {}
  Attr(const std::vector<int64_t>& list)  // NOLINT
      : Attr(std::span<const int64_t>(list.data(), list.size())) {}
  Attr(const char* text) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_STRING;
    value.str.data = text;
    value.str.size = static_cast<int64_t>(std::char_traits<char>::length(text));
  }
  Attr(const std::string& text) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_STRING;
    value.str.data = text.c_str();
    value.str.size = static_cast<int64_t>(text.size());
  }

  static Attr None() { return Attr(); }
  // The schema's default (SY_ATTR_DEFAULT), to give a later attribute.
  static Attr Default() {
    Attr attr;
    attr.kind = SY_ATTR_DEFAULT;
    return attr;
  }
  static Attr DType(sy_dtype_t dtype) {
    Attr attr;
    attr.kind = SY_ATTR_DTYPE;
    attr.value.dtype = dtype;
    return attr;
  }
};
static_assert(sizeof(Attr) == sizeof(sy_attr_t));

// ===== Devices =============================================================

struct DeviceInfo {
  std::string label, type, plugin, name, vendor, driver_version;
  int32_t index = 0;
  int32_t compute_units = 0;
  uint64_t total_memory_bytes = 0;
  sy_device_t dl_device{};
  uint32_t float_flags = 0;  // SY_FLOAT_FLUSHES_*: subnormals it may flush
};

class Device {
 public:
  Device() = default;
  explicit Device(sy_device_handle_t handle) : handle_(handle) {}
  sy_device_handle_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  bool operator==(const Device& other) const { return handle_ == other.handle_; }

  Result<DeviceInfo> info() const {
    sy_device_info_t c{};
    c.struct_size = sizeof c;
    if (sy_status_code_t code = sy_device_get_info(handle_, &c); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return DeviceInfo{c.label,  c.type,  c.plugin,        c.name,
                      c.vendor, c.driver_version, c.index, c.compute_units,
                      c.total_memory_bytes, c.dl_device, c.float_flags};
  }
  // "cpu:0"; "" when the handle is bad.
  std::string label() const {
    Result<DeviceInfo> i = info();
    return i.ok() ? i->label : std::string();
  }
  Status synchronize() const { return Status::FromCode(sy_device_synchronize(handle_)); }
  Result<sy_allocator_stats_t> allocator_stats() const {
    sy_allocator_stats_t stats{};
    stats.struct_size = sizeof stats;
    if (sy_status_code_t code = sy_device_allocator_stats(handle_, &stats);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return stats;
  }
  Status empty_cache() const { return Status::FromCode(sy_device_empty_cache(handle_)); }

 private:
  sy_device_handle_t handle_ = nullptr;
};

// ===== Tensors =============================================================

// One reference to a tensor handle. A default-constructed Tensor is NULL:
// an omitted optional tensor argument in call().
class Tensor {
 public:
  Tensor() = default;
  // Takes over one reference the caller owns (what the C API hands out).
  static Tensor Adopt(sy_tensor_t handle) { return Tensor(handle); }

  Tensor(const Tensor& other) : handle_(other.handle_) {
    if (handle_ != nullptr) sy_tensor_retain(handle_);
  }
  Tensor(Tensor&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Tensor& operator=(Tensor other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  ~Tensor() {
    if (handle_ != nullptr) sy_tensor_release(handle_);
  }

  sy_tensor_t get() const { return handle_; }
  // Gives up the reference without releasing it.
  sy_tensor_t release() { return std::exchange(handle_, nullptr); }
  explicit operator bool() const { return handle_ != nullptr; }

  // ---- Making tensors ----
  static Result<Tensor> Empty(const Device& device, sy_dtype_t dtype,
                              std::span<const int64_t> shape) {
    sy_tensor_t t = nullptr;
    sy_status_code_t code = sy_tensor_empty(device.get(), dtype, shape.data(),
                                            static_cast<int32_t>(shape.size()), &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }
  static Result<Tensor> Empty(const Device& device, sy_dtype_t dtype,
                              std::initializer_list<int64_t> shape) {
    return Empty(device, dtype, std::span<const int64_t>(shape.begin(), shape.size()));
  }
  // Copies `nbytes` of dense row-major host data.
  static Result<Tensor> FromHost(const Device& device, sy_dtype_t dtype,
                                 std::span<const int64_t> shape, const void* data,
                                 size_t nbytes) {
    sy_tensor_t t = nullptr;
    sy_status_code_t code =
        sy_tensor_from_host(device.get(), dtype, shape.data(),
                            static_cast<int32_t>(shape.size()), data, nbytes, &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }
  template <typename T>
  static Result<Tensor> FromVector(const Device& device, std::span<const int64_t> shape,
                                   const std::vector<T>& values) {
    static_assert(!std::is_same_v<T, bool>, "std::vector<bool> is packed; use uint8_t");
    return FromHost(device, DTypeOf<T>(), shape, values.data(), values.size() * sizeof(T));
  }
  template <typename T>
  static Result<Tensor> FromVector(const Device& device, std::initializer_list<int64_t> shape,
                                   const std::vector<T>& values) {
    return FromVector<T>(device, std::span<const int64_t>(shape.begin(), shape.size()),
                         values);
  }
  // Takes a DLPack tensor (see sy_tensor_from_dlpack for `mode`).
  static Result<Tensor> FromDLPack(sy_context_t context, DLManagedTensor* managed,
                                   int32_t mode = SY_DLPACK_SHARE_OR_COPY) {
    sy_tensor_t t = nullptr;
    sy_status_code_t code = sy_tensor_from_dlpack(context, managed, mode, &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }

  // ---- What it is (no waiting) ----
  sy_dtype_t dtype() const {
    sy_dtype_t d = SY_DTYPE_NONE;
    return sy_tensor_dtype(handle_, &d) == SY_STATUS_OK ? d : SY_DTYPE_NONE;
  }
  int32_t ndim() const {
    int32_t n = 0;
    return sy_tensor_ndim(handle_, &n) == SY_STATUS_OK ? n : 0;
  }
  std::vector<int64_t> shape() const {
    int64_t dims[SY_MAX_RANK];
    if (sy_tensor_shape(handle_, dims, SY_MAX_RANK) != SY_STATUS_OK) return {};
    return std::vector<int64_t>(dims, dims + ndim());
  }
  std::vector<int64_t> strides() const {
    int64_t dims[SY_MAX_RANK];
    if (sy_tensor_strides(handle_, dims, SY_MAX_RANK) != SY_STATUS_OK) return {};
    return std::vector<int64_t>(dims, dims + ndim());
  }
  int64_t numel() const {
    int64_t n = 0;
    return sy_tensor_numel(handle_, &n) == SY_STATUS_OK ? n : 0;
  }
  size_t nbytes() const {
    size_t n = 0;
    return sy_tensor_nbytes(handle_, &n) == SY_STATUS_OK ? n : 0;
  }
  Device device() const {
    sy_device_handle_t d = nullptr;
    return sy_tensor_device(handle_, &d) == SY_STATUS_OK ? Device(d) : Device();
  }
  void* data_ptr() const {
    void* p = nullptr;
    return sy_tensor_data_ptr(handle_, &p) == SY_STATUS_OK ? p : nullptr;
  }

  // ---- Reading and moving (these wait for pending work) ----
  Status ToHost(void* dst, size_t nbytes) const {
    return Status::FromCode(sy_tensor_to_host(handle_, dst, nbytes));
  }
  template <typename T>
  Result<std::vector<T>> ToVector() const {
    static_assert(!std::is_same_v<T, bool>, "std::vector<bool> is packed; use uint8_t");
    std::vector<T> out(static_cast<size_t>(numel()));
    if (Status s = ToHost(out.data(), out.size() * sizeof(T)); !s.ok()) return s;
    return out;
  }
  Result<Tensor> To(const Device& device) const {
    sy_tensor_t t = nullptr;
    sy_status_code_t code = sy_tensor_to_device(handle_, device.get(), &t);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Tensor(t);
  }
  Result<DLManagedTensor*> ToDLPack() const {
    DLManagedTensor* managed = nullptr;
    sy_status_code_t code = sy_tensor_to_dlpack(handle_, &managed);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return managed;
  }

 private:
  explicit Tensor(sy_tensor_t handle) : handle_(handle) {}
  sy_tensor_t handle_ = nullptr;
};
// A span of Tensors is an array of handles: calls pass it to C as it is.
static_assert(sizeof(Tensor) == sizeof(sy_tensor_t) && std::is_standard_layout_v<Tensor>);

// ===== Ops =================================================================

struct OpInfo {
  std::string full_name, ns, name, overload, schema, owner;
  int32_t num_args = 0, num_tensor_args = 0, num_attrs = 0, num_outputs = 0;
  int32_t list_arg = -1;
  bool live = true;
};

struct OpArg {
  std::string name;
  sy_arg_kind_t kind = SY_ARG_TENSOR;
  std::string kind_name;      // "Tensor", "int[]", …
  bool optional = false;
  bool has_default = false;
  int32_t tensor_index = -1;  // among tensor arguments, or -1
  int32_t attr_index = -1;    // among attributes, or -1
  std::string default_text;   // "1e-06", "None", ""
  // The default as an attribute; its list or string points into the
  // context (valid as long as it lives).
  Attr default_value;
};

struct KernelInfo {
  std::string name, plugin, device_type;  // "cpu::add.Tensor.f32.f32", …
  std::vector<sy_dtype_t> dtypes;
  int32_t priority = 0;
  std::vector<std::string> variants;
  bool may_decline = false;
  bool chosen = false;
  std::string chosen_because;  // "pinned", "tuned", "priority" or ""
};

// How a call runs (sy_route_t): the resolution order, one named kernel and
// variant, or the decomposition.
struct Route {
  sy_route_t kind = SY_ROUTE_DEFAULT;
  std::string kernel;
  int32_t variant = -1;

  static Route Default() { return {}; }
  static Route Kernel(std::string name, int32_t variant = -1) {
    return {SY_ROUTE_KERNEL, std::move(name), variant};
  }
  static Route Decomposition() { return {SY_ROUTE_DECOMPOSITION, {}, -1}; }
};

class Op {
 public:
  Op() = default;
  explicit Op(sy_op_t handle) : handle_(handle) {}
  sy_op_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  bool operator==(const Op& other) const { return handle_ == other.handle_; }

  Result<OpInfo> info() const {
    sy_op_info_t c{};
    c.struct_size = sizeof c;
    if (sy_status_code_t code = sy_op_get_info(handle_, &c); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return OpInfo{c.full_name,       c.ns,        c.name,        c.overload,
                  c.schema,          c.owner,     c.num_args,    c.num_tensor_args,
                  c.num_attrs,       c.num_outputs, c.list_arg,  c.live != 0};
  }
  // How many tensors a call returns; -1 when the handle is bad.
  int32_t num_outputs() const {
    sy_op_info_t c{};
    c.struct_size = sizeof c;
    return sy_op_get_info(handle_, &c) == SY_STATUS_OK ? c.num_outputs : -1;
  }
  // "add.Tensor"; "" when the handle is bad.
  std::string name() const {
    Result<OpInfo> i = info();
    return i.ok() ? i->full_name : std::string();
  }

  // Every argument, in schema order.
  Result<std::vector<OpArg>> args() const {
    Result<OpInfo> i = info();
    if (!i.ok()) return i.status();
    std::vector<OpArg> out;
    for (int32_t k = 0; k < i->num_args; ++k) {
      sy_op_arg_t c{};
      c.struct_size = sizeof c;
      if (sy_status_code_t code = sy_op_get_arg(handle_, k, &c); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      OpArg arg;
      arg.name = c.name;
      arg.kind = static_cast<sy_arg_kind_t>(c.kind);
      arg.kind_name = c.kind_name;
      arg.optional = c.optional != 0;
      arg.has_default = c.has_default != 0;
      arg.tensor_index = c.tensor_index;
      arg.attr_index = c.attr_index;
      arg.default_text = c.default_text;
      static_cast<sy_attr_t&>(arg.default_value) = c.default_value;
      out.push_back(std::move(arg));
    }
    return out;
  }

  // Every kernel registered for the op, in registration order.
  Result<std::vector<KernelInfo>> kernels() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_op_kernel_count(handle_, &count); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<KernelInfo> out;
    for (int32_t k = 0; k < count; ++k) {
      sy_kernel_info_t c{};
      c.struct_size = sizeof c;
      if (sy_status_code_t code = sy_op_kernel_get(handle_, k, &c); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      KernelInfo info;
      info.name = c.name;
      info.plugin = c.plugin;
      info.device_type = c.device_type;
      info.dtypes.assign(c.dtypes, c.dtypes + c.num_dtypes);
      info.priority = c.priority;
      for (int32_t v = 0; v < c.num_variants; ++v) info.variants.emplace_back(c.variant_names[v]);
      info.may_decline = c.may_decline != 0;
      info.chosen = c.chosen != 0;
      info.chosen_because = c.chosen_because;
      out.push_back(std::move(info));
    }
    return out;
  }

  // ---- Calls ----
  // `inputs`: one per tensor argument (a NULL Tensor for an omitted
  // optional one; a Tensor[] argument takes the remaining ones); `attrs`:
  // the leading attributes. New outputs on the inputs' device.
  Result<std::vector<Tensor>> call(std::span<const Tensor> inputs,
                                   std::span<const Attr> attrs = {},
                                   const Route& route = {}) const {
    sy_op_info_t i{};
    i.struct_size = sizeof i;
    if (sy_status_code_t code = sy_op_get_info(handle_, &i); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<sy_tensor_t> made(static_cast<size_t>(i.num_outputs), nullptr);
    sy_op_call_args_t args = Args(inputs, attrs, route);
    args.out_outputs = made.data();
    args.num_outputs = static_cast<int32_t>(made.size());
    if (sy_status_code_t code = sy_op_call_ex(&args); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<Tensor> out;
    out.reserve(made.size());
    for (sy_tensor_t t : made) out.push_back(Tensor::Adopt(t));
    return out;
  }
  Result<std::vector<Tensor>> call(std::initializer_list<Tensor> inputs,
                                   std::initializer_list<Attr> attrs = {},
                                   const Route& route = {}) const {
    return call(std::span<const Tensor>(inputs.begin(), inputs.size()),
                std::span<const Attr>(attrs.begin(), attrs.size()), route);
  }
  // The first output of a call, for ops with one.
  Result<Tensor> call1(std::span<const Tensor> inputs, std::span<const Attr> attrs = {},
                       const Route& route = {}) const {
    Result<std::vector<Tensor>> out = call(inputs, attrs, route);
    if (!out.ok()) return out.status();
    return std::move((*out)[0]);
  }
  Result<Tensor> call1(std::initializer_list<Tensor> inputs,
                       std::initializer_list<Attr> attrs = {},
                       const Route& route = {}) const {
    return call1(std::span<const Tensor>(inputs.begin(), inputs.size()),
                 std::span<const Attr>(attrs.begin(), attrs.size()), route);
  }

  // Into `outputs`, which must have exactly the op's dtypes, shapes and
  // device. With the default route: sy_op_call_out, which takes no lock and
  // allocates nothing.
  Status call_out(std::span<const Tensor> inputs, std::span<const Attr> attrs,
                  std::span<const Tensor> outputs, const Route& route = {}) const {
    if (route.kind == SY_ROUTE_DEFAULT) {
      return Status::FromCode(sy_op_call_out(
          handle_, Handles(inputs), static_cast<int32_t>(inputs.size()), attrs.data(),
          static_cast<int32_t>(attrs.size()), Handles(outputs),
          static_cast<int32_t>(outputs.size())));
    }
    sy_op_call_args_t args = Args(inputs, attrs, route);
    args.outputs = Handles(outputs);
    args.num_outputs = static_cast<int32_t>(outputs.size());
    return Status::FromCode(sy_op_call_ex(&args));
  }

  // How such a call would run: "kernel cpu::add.Tensor.f32.f32 (priority)",
  // "view", "decomposition", … — or the error the call would return.
  Result<std::string> explain(std::span<const Tensor> inputs,
                              std::span<const Attr> attrs = {},
                              const Route& route = {}) const {
    sy_op_call_args_t args = Args(inputs, attrs, route);
    const char* text = nullptr;
    if (sy_status_code_t code = sy_op_explain_ex(&args, &text); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(text);
  }
  Result<std::string> explain(std::initializer_list<Tensor> inputs,
                              std::initializer_list<Attr> attrs = {},
                              const Route& route = {}) const {
    return explain(std::span<const Tensor>(inputs.begin(), inputs.size()),
                   std::span<const Attr>(attrs.begin(), attrs.size()), route);
  }

  // ---- Autotuning (docs/autotune.md) ----
  // Tunes this call's shape bucket now (sy_op_tune): the cache's verdict,
  // or every candidate checked and timed and the winner stored. The report
  // is JSON (switchyard.h). `force`: measure even where the cache has one.
  Result<std::string> tune(std::span<const Tensor> inputs, std::span<const Attr> attrs = {},
                           bool force = false) const {
    sy_op_call_args_t args = Args(inputs, attrs, {});
    const char* json = nullptr;
    if (sy_status_code_t code = sy_op_tune(&args, force ? SY_TUNE_FORCE : 0, &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  Result<std::string> tune(std::initializer_list<Tensor> inputs,
                           std::initializer_list<Attr> attrs = {}, bool force = false) const {
    return tune(std::span<const Tensor>(inputs.begin(), inputs.size()),
                std::span<const Attr>(attrs.begin(), attrs.size()), force);
  }

  // ---- Pins (per context) ----
  Status pin(const std::string& device_type, const std::string& kernel) const {
    return Status::FromCode(sy_op_pin_kernel(handle_, device_type.c_str(), kernel.c_str()));
  }
  Status unpin(const std::string& device_type) const {
    return Status::FromCode(sy_op_unpin_kernel(handle_, device_type.c_str()));
  }

 private:
  static const sy_tensor_t* Handles(std::span<const Tensor> tensors) {
    return reinterpret_cast<const sy_tensor_t*>(tensors.data());
  }
  sy_op_call_args_t Args(std::span<const Tensor> inputs, std::span<const Attr> attrs,
                         const Route& route) const {
    sy_op_call_args_t args;
    sy_op_call_args_init(&args);
    args.op = handle_;
    args.inputs = Handles(inputs);
    args.num_inputs = static_cast<int32_t>(inputs.size());
    args.attrs = attrs.data();
    args.num_attrs = static_cast<int32_t>(attrs.size());
    args.route = route.kind;
    args.kernel = route.kind == SY_ROUTE_KERNEL ? route.kernel.c_str() : nullptr;
    args.variant = route.variant;
    return args;
  }

  sy_op_t handle_ = nullptr;
};

// ===== Contexts ============================================================

// sy_context_options_t with owned strings. Defaults as sy_context_options_init.
struct ContextOptions {
  struct Refusal {
    std::string manifest_path, reason;
  };
  std::vector<std::string> plugin_paths;      // searched first
  std::vector<std::string> plugin_manifests;  // loaded by name (must load)
  std::vector<std::string> allow, deny;
  std::vector<std::string> plugin_options;    // "plugin.option=value"
  std::vector<Refusal> refused;               // manifests not to load
  bool use_environment = true;
  bool use_default_path = true;
  std::optional<bool> cpu_fallback;           // unset: SWITCHYARD_CPU_FALLBACK
  // Before each step of a plugin's load (sy_context_options_t.on_load_stage).
  std::function<void(const char* stage)> on_load_stage;
};

namespace detail {
// The C struct over a ContextOptions; the C strings point into `options`.
class CContextOptions {
 public:
  explicit CContextOptions(const ContextOptions& options) {
    sy_context_options_init(&c_);
    Fill(options.plugin_paths, paths_, &c_.plugin_paths, &c_.num_plugin_paths);
    Fill(options.plugin_manifests, manifests_, &c_.plugin_manifests,
         &c_.num_plugin_manifests);
    Fill(options.allow, allow_, &c_.allow, &c_.num_allow);
    Fill(options.deny, deny_, &c_.deny, &c_.num_deny);
    Fill(options.plugin_options, plugin_options_, &c_.plugin_options,
         &c_.num_plugin_options);
    for (const ContextOptions::Refusal& r : options.refused) {
      sy_plugin_refusal_t refusal;
      refusal.struct_size = sizeof refusal;
      refusal.extension = nullptr;
      refusal.manifest_path = r.manifest_path.c_str();
      refusal.reason = r.reason.c_str();
      refused_.push_back(refusal);
    }
    c_.refused = refused_.data();
    c_.num_refused = static_cast<int32_t>(refused_.size());
    c_.use_environment = options.use_environment ? 1 : 0;
    c_.use_default_path = options.use_default_path ? 1 : 0;
    c_.cpu_fallback = options.cpu_fallback.has_value() ? (*options.cpu_fallback ? 1 : 0) : -1;
    if (options.on_load_stage) {
      on_load_stage_ = &options.on_load_stage;
      c_.on_load_stage = [](void* user, const char* stage) {
        (*static_cast<const std::function<void(const char*)>*>(user))(stage);
      };
      c_.on_load_stage_user_data = const_cast<std::function<void(const char*)>*>(on_load_stage_);
    }
  }
  const sy_context_options_t* get() const { return &c_; }

 private:
  static void Fill(const std::vector<std::string>& from, std::vector<const char*>& to,
                   const char* const** field, int32_t* count) {
    for (const std::string& s : from) to.push_back(s.c_str());
    *field = to.data();
    *count = static_cast<int32_t>(to.size());
  }
  sy_context_options_t c_;
  std::vector<const char*> paths_, manifests_, allow_, deny_, plugin_options_;
  std::vector<sy_plugin_refusal_t> refused_;
  const std::function<void(const char*)>* on_load_stage_ = nullptr;
};
}  // namespace detail

struct PluginOption {
  std::string name, type, value, source, help;
};

// One plugin load attempt (sy_plugin_record_t) with owned strings.
struct LoadRecord {
  std::string name, manifest_path, library_path;
  sy_load_outcome_t outcome = SY_LOAD_FAILED;
  bool requested = false;
  std::string stage, reason, description, plugin_version;
  uint32_t host_abi_major = 0, host_abi_minor = 0;
  uint32_t plugin_abi_major = 0, plugin_abi_minor = 0;
  int32_t num_devices = 0, num_schemas = 0, num_kernels = 0;
  double load_ms = 0;
  std::vector<PluginOption> options;
  std::vector<std::string> notes;

  bool loaded() const {
    return outcome == SY_LOAD_LOADED || outcome == SY_LOAD_LOADED_NO_DEVICES;
  }
  // "loaded", "loaded, no devices", "failed", "skipped".
  std::string outcome_name() const {
    switch (outcome) {
      case SY_LOAD_LOADED: return "loaded";
      case SY_LOAD_LOADED_NO_DEVICES: return "loaded, no devices";
      case SY_LOAD_FAILED: return "failed";
      case SY_LOAD_SKIPPED: return "skipped";
    }
    return "unknown";
  }
};

// The manifests a context with `options` would try, without loading them.
inline Result<std::vector<std::string>> DiscoverPlugins(const ContextOptions& options = {}) {
  detail::CContextOptions c(options);
  const char* const* paths = nullptr;
  int32_t count = 0;
  if (sy_status_code_t code = sy_plugin_discover(c.get(), &paths, &count);
      code != SY_STATUS_OK) {
    return Status::FromCode(code);
  }
  return std::vector<std::string>(paths, paths + count);
}

class Context {
 public:
  Context() = default;  // none; Create makes one
  static Result<Context> Create(const ContextOptions& options = {}) {
    detail::CContextOptions c(options);
    sy_context_t context = nullptr;
    if (sy_status_code_t code = sy_context_create(c.get(), &context); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Context(context);
  }
  Context(Context&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Context& operator=(Context&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() { reset(); }

  // Destroys the context now: every handle of it becomes stale.
  void reset() {
    if (handle_ != nullptr) sy_context_destroy(std::exchange(handle_, nullptr));
  }
  sy_context_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

  // ---- Plugins ----
  Status LoadPlugin(const std::string& manifest_path) const {
    return Status::FromCode(sy_context_load_plugin(handle_, manifest_path.c_str()));
  }
  Status UnloadPlugin(const std::string& name) const {
    return Status::FromCode(sy_context_unload_plugin(handle_, name.c_str()));
  }
  Result<std::vector<LoadRecord>> load_records() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_context_plugin_record_count(handle_, &count);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<LoadRecord> out;
    for (int32_t i = 0; i < count; ++i) {
      sy_plugin_record_t c{};
      c.struct_size = sizeof c;
      if (sy_status_code_t code = sy_context_plugin_record(handle_, i, &c);
          code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      LoadRecord r;
      r.name = c.name;
      r.manifest_path = c.manifest_path;
      r.library_path = c.library_path;
      r.outcome = static_cast<sy_load_outcome_t>(c.outcome);
      r.requested = c.requested != 0;
      r.stage = c.stage;
      r.reason = c.reason;
      r.description = c.description;
      r.plugin_version = c.plugin_version;
      r.host_abi_major = c.host_abi_major;
      r.host_abi_minor = c.host_abi_minor;
      r.plugin_abi_major = c.plugin_abi_major;
      r.plugin_abi_minor = c.plugin_abi_minor;
      r.num_devices = c.num_devices;
      r.num_schemas = c.num_schemas;
      r.num_kernels = c.num_kernels;
      r.load_ms = c.load_ms;
      for (int32_t k = 0; k < c.num_options; ++k) {
        sy_plugin_option_info_t o{};
        o.struct_size = sizeof o;
        if (sy_status_code_t code = sy_context_plugin_record_option(handle_, i, k, &o);
            code != SY_STATUS_OK) {
          return Status::FromCode(code);
        }
        r.options.push_back({o.name, o.type, o.value, o.source, o.help});
      }
      for (int32_t k = 0; k < c.num_notes; ++k) {
        const char* note = nullptr;
        if (sy_status_code_t code = sy_context_plugin_record_note(handle_, i, k, &note);
            code != SY_STATUS_OK) {
          return Status::FromCode(code);
        }
        r.notes.emplace_back(note);
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  // Everything `switchyard info --json` prints.
  Result<std::string> info_json() const {
    const char* json = nullptr;
    if (sy_status_code_t code = sy_context_info_json(handle_, &json); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  Status synchronize() const { return Status::FromCode(sy_context_synchronize(handle_)); }

  // ---- Autotuning (docs/autotune.md) ----
  // "off", "cached" or "on".
  Status set_autotune(const std::string& mode) const {
    return Status::FromCode(sy_context_set_autotune(handle_, mode.c_str()));
  }
  Result<std::string> autotune() const {
    const char* mode = nullptr;
    if (sy_status_code_t code = sy_context_autotune(handle_, &mode); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(mode);
  }
  // Called after each case: (done, total, the case's row as JSON).
  using TuneProgress = std::function<void(int32_t, int32_t, const std::string&)>;
  // Runs a case file's cases ({"cases": […]}, docs/autotune.md); the rows
  // as JSON (sy_context_tune_cases).
  Result<std::string> tune_cases(const std::string& cases_json, bool force = false,
                                 const TuneProgress& progress = {}) const {
    const char* json = nullptr;
    const TuneProgress* user = progress ? &progress : nullptr;
    sy_tune_progress_fn forward = [](void* user_data, int32_t done, int32_t total,
                                     const char* row) {
      (*static_cast<const TuneProgress*>(user_data))(done, total, row);
    };
    if (sy_status_code_t code = sy_context_tune_cases(
            handle_, cases_json.c_str(), force ? SY_TUNE_FORCE : 0,
            user != nullptr ? forward : nullptr, const_cast<TuneProgress*>(user), &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  // Writes this machine's verdicts (every device's with `all_devices`) to
  // `path`; how many.
  Result<int64_t> autotune_export(const std::string& path, bool all_devices = false) const {
    int64_t count = 0;
    if (sy_status_code_t code =
            sy_context_autotune_export(handle_, path.c_str(), all_devices ? 1 : 0, &count);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return count;
  }
  // Imports an export; the record as JSON.
  Result<std::string> autotune_import(const std::string& path) const {
    const char* json = nullptr;
    if (sy_status_code_t code = sy_context_autotune_import(handle_, path.c_str(), &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  // What the cache holds, as JSON (`switchyard info --autotune`).
  Result<std::string> autotune_info_json() const {
    const char* json = nullptr;
    if (sy_status_code_t code = sy_context_autotune_info_json(handle_, &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }

  // ---- Devices and ops ----
  Result<std::vector<Device>> devices() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_device_count(handle_, &count); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<Device> out;
    for (int32_t i = 0; i < count; ++i) {
      sy_device_handle_t d = nullptr;
      if (sy_status_code_t code = sy_device_get(handle_, i, &d); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      out.emplace_back(d);
    }
    return out;
  }
  // "cpu", "cpu:0", "cuda:1".
  Result<Device> device(const std::string& spec) const {
    sy_device_handle_t d = nullptr;
    if (sy_status_code_t code = sy_device_find(handle_, spec.c_str(), &d);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Device(d);
  }
  // "add.Tensor" or "add" (its first overload).
  Result<Op> op(const std::string& name) const {
    sy_op_t o = nullptr;
    if (sy_status_code_t code = sy_op_find(handle_, name.c_str(), &o); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Op(o);
  }
  Result<std::vector<Op>> ops() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_op_count(handle_, &count); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<Op> out;
    for (int32_t i = 0; i < count; ++i) {
      sy_op_t o = nullptr;
      if (sy_status_code_t code = sy_op_get(handle_, i, &o); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      out.emplace_back(o);
    }
    return out;
  }

 private:
  explicit Context(sy_context_t handle) : handle_(handle) {}
  sy_context_t handle_ = nullptr;
};

}  // namespace sy

// The areas split into headers of their own (since 1.2).
#include "switchyard/graph.hpp"        // sy::Graph, sy::GraphCapture
#include "switchyard/distributed.hpp"  // sy::Communicator

#endif  // SWITCHYARD_SWITCHYARD_HPP_
