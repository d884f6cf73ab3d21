// sy::plugin kernels: explicit, ordered kernel lists (KernelSpec,
// RegisterKernels), the checks and attribute readers kernels share, and
// the ABI 1.1 helpers for declining a call, answering a query and asking
// the host for scratch memory. Part of plugin.hpp (read its rules first).
//
// The host guarantees what plugin.h lists under sy_kernel_call_t (counts,
// views, dtypes, devices, attribute kinds), so a kernel the host calls
// needs none of the checks below to be safe. They exist for everyone else
// who calls kernels — a plugin's own tests, a vendor's harness — and cost a
// few nanoseconds; every message reads "<plugin>: <op>: <what>; <what to
// do>" and is INVALID_ARGUMENT.
#ifndef SWITCHYARD_PLUGIN_KERNELS_HPP_
#define SWITCHYARD_PLUGIN_KERNELS_HPP_

#include <algorithm>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin/dtypes.hpp"
#include "switchyard/plugin/errors.hpp"
#include "switchyard/plugin/views.hpp"

namespace sy::plugin {

// ---- Kernel registration -------------------------------------------------

// One entry of a plugin's ordered kernel list (plain data; constexpr-able).
// The strings need not be NUL-terminated; RegisterKernels copies them.
struct KernelSpec {
  std::string_view op;    // full schema name: "add.Tensor"
  std::string_view name;  // unique within the plugin: "cpu.add.f32"
  std::span<const sy_dtype_t> dtypes;  // one per schema tensor argument
  int32_t priority = 0;
  sy_kernel_fn fn = nullptr;
  void* kernel_data = nullptr;  // must live until unload
  uint32_t flags = 0;  // SY_KERNEL_FLAG_* (ABI 1.1; needs a 1.1 plugin)
};

// Registers `kernels` for `device_type` through host->register_kernel with
// `context`, in order, and stops at the first error, which it returns (the
// host withdraws everything a failed `load` registered, so nothing is rolled
// back here). Call only from `load`, with the context `load` was given.
// `host` must be non-NULL; SetHost is not needed.
// Errors: INVALID_ARGUMENT naming the entry when a spec has no fn or more
// than INT32_MAX dtypes; FAILED_PRECONDITION when the host table lacks
// register_kernel; RESOURCE_EXHAUSTED when copying the strings fails.
inline sy_error_t* RegisterKernels(
    const sy_host_api_t* host, sy_host_context_t* context,
    std::string_view device_type,
    std::span<const KernelSpec> kernels) noexcept {
  return internal::GuardWith(host, "RegisterKernels", [&]() -> sy_error_t* {
    if (!SY_STRUCT_HAS(host, sy_host_api_t, register_kernel) ||
        host->register_kernel == nullptr) {
      return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                       "RegisterKernels: the host table has no register_kernel "
                       "slot; the host is older than ABI 1.0 or damaged");
    }
    const std::string device(device_type);
    for (const KernelSpec& spec : kernels) {
      if (spec.fn == nullptr || spec.dtypes.size() > INT32_MAX) {
        return MakeError(host, SY_STATUS_INVALID_ARGUMENT,
                         StrCat("RegisterKernels: kernel '", spec.name,
                                "' for op '", spec.op, "' on '", device_type,
                                "' has no function or too many dtypes; fix "
                                "the plugin's kernel list"));
      }
      const std::string op(spec.op);
      const std::string name(spec.name);
      sy_kernel_desc_t desc{};
      desc.struct_size = sizeof(desc);
      desc.op = op.c_str();
      desc.device_type = device.c_str();
      desc.name = name.c_str();
      desc.dtypes = spec.dtypes.data();
      desc.num_dtypes = static_cast<int32_t>(spec.dtypes.size());
      desc.priority = spec.priority;
      desc.fn = spec.fn;
      desc.kernel_data = spec.kernel_data;
      desc.flags = spec.flags;
      if (sy_error_t* error = host->register_kernel(context, &desc)) {
        return error;
      }
    }
    return nullptr;
  });
}

// A static array of dtypes, one per schema tensor argument, for
// KernelSpec and KernelList: DtypeList<SY_DTYPE_F32, SY_DTYPE_F32>.
template <sy_dtype_t... D>
inline constexpr sy_dtype_t DtypeList[] = {D...};

// The kernel name for an op and its dtypes: "add.Tensor" with (f32, f32) →
// "add.Tensor.f32.f32"; a plugin's own op loses its namespace
// ("onednn::linear_relu" → "linear_relu.f32…", since the host qualifies
// kernel names with the plugin anyway). Unique within the plugin because
// the dispatch key is (op, device type, dtypes).
inline std::string KernelName(std::string_view op,
                              std::span<const sy_dtype_t> dtypes) {
  if (const size_t colon = op.rfind("::"); colon != std::string_view::npos) {
    op.remove_prefix(colon + 2);
  }
  std::string name(op);
  for (sy_dtype_t dtype : dtypes) {
    name.push_back('.');
    name.append(DtypeName(dtype));
  }
  return name;
}

// An append-only list of KernelSpecs that owns their strings and dtype
// arrays (stable addresses), for RegisterKernels. Build it once, in a
// function-local static (never a static initializer), and register its
// specs() in every `load`. Not thread-safe while being built.
class KernelList {
 public:
  // Every kernel added gets `priority` and `flags` (SY_KERNEL_FLAG_*).
  explicit KernelList(int32_t priority = 0, uint32_t flags = 0)
      : priority_(priority), flags_(flags) {}
  KernelList(const KernelList&) = delete;
  KernelList& operator=(const KernelList&) = delete;
  // Moving keeps every string and array where it is (deques move their
  // blocks), so the specs stay valid.
  KernelList(KernelList&&) = default;
  KernelList& operator=(KernelList&&) = default;

  // Adds a kernel named KernelName(op, dtypes).
  void Add(std::string_view op, std::span<const sy_dtype_t> dtypes,
           sy_kernel_fn fn, void* kernel_data = nullptr) {
    const std::string& stored_op = strings_.emplace_back(op);
    const std::string& name = strings_.emplace_back(KernelName(op, dtypes));
    const std::vector<sy_dtype_t>& stored =
        dtypes_.emplace_back(dtypes.begin(), dtypes.end());
    specs_.push_back({.op = stored_op,
                      .name = name,
                      .dtypes = stored,
                      .priority = priority_,
                      .fn = fn,
                      .kernel_data = kernel_data,
                      .flags = flags_});
  }
  void Add(std::string_view op, std::initializer_list<sy_dtype_t> dtypes,
           sy_kernel_fn fn, void* kernel_data = nullptr) {
    Add(op, std::span<const sy_dtype_t>(dtypes.begin(), dtypes.size()), fn,
        kernel_data);
  }

  // Flags for the kernels added from now on.
  void set_flags(uint32_t flags) { flags_ = flags; }

  std::span<const KernelSpec> specs() const { return specs_; }

 private:
  int32_t priority_;
  uint32_t flags_;
  std::deque<std::string> strings_;
  std::deque<std::vector<sy_dtype_t>> dtypes_;
  std::vector<KernelSpec> specs_;
};

// ---- Declining, queries, workspaces (ABI 1.1) ----------------------------

// A dimension as the host's shape buckets see it (plugin.h, sy_kernel_fn):
// sizes up to 8 as they are, larger ones rounded up to a power of two.
inline int64_t BucketedDim(int64_t d) noexcept {
  if (d <= 8) return d;
  return int64_t{1} << (64 - __builtin_clzll(static_cast<uint64_t>(d - 1)));
}

// The element count of `view` with every dimension bucketed (BucketedDim):
// the size to compare with a threshold when declining, so that every call
// of one bucket gets the same answer (saturates at INT64_MAX).
inline int64_t BucketedNumElements(const sy_tensor_view_t& view) noexcept {
  int64_t n = 1;
  for (int d = 0; d < view.ndim; ++d) {
    if (__builtin_mul_overflow(n, BucketedDim(view.shape[d]), &n)) return INT64_MAX;
  }
  return n;
}

// True when the host only asks whether the kernel takes the call
// (SY_KERNEL_CALL_QUERY): answer with NULL or Decline and touch nothing.
inline bool IsQuery(const sy_kernel_call_t* call) noexcept {
  return SY_STRUCT_HAS(call, sy_kernel_call_t, flags) &&
         (call->flags & SY_KERNEL_CALL_QUERY) != 0;
}

// True when the host has already checked the call against the op's schema
// and the kernel's registration (SY_KERNEL_CALL_HOST_CHECKED): the kernel
// may skip CheckCall, CheckView and its dtype and broadcast checks. False
// for a NULL call.
inline bool HostChecked(const sy_kernel_call_t* call) noexcept {
  return call != nullptr && SY_STRUCT_HAS(call, sy_kernel_call_t, flags) &&
         (call->flags & SY_KERNEL_CALL_HOST_CHECKED) != 0;
}

// The error a kernel returns to decline a call (plugin.h, sy_kernel_fn):
// `reason` says why, briefly ("numel 16 < 4096"). Only for kernels of a 1.1
// plugin registered with SY_KERNEL_FLAG_MAY_DECLINE. Requires SetHost.
inline sy_error_t* Decline(std::string_view reason) noexcept {
  return MakeError(static_cast<sy_status_code_t>(SY_STATUS_KERNEL_DECLINED),
                   reason);
}

// `size` bytes of scratch memory on the call's device for this call
// (host->kernel_workspace): valid for the work the kernel enqueues on its
// stream. FAILED_PRECONDITION from a host older than 1.1 (no slot, or no
// host_call in the call); the host's own errors otherwise. Requires SetHost.
inline sy_error_t* Workspace(const sy_kernel_call_t* call, size_t size,
                             void** out_ptr) noexcept {
  const sy_host_api_t* host = Host();
  if (!SY_STRUCT_HAS(host, sy_host_api_t, kernel_workspace) ||
      host->kernel_workspace == nullptr ||
      !SY_STRUCT_HAS(call, sy_kernel_call_t, host_call) ||
      call->host_call == nullptr) {
    return MakeError(SY_STATUS_FAILED_PRECONDITION,
                     "kernel workspace: the host is older than plugin ABI 1.1 "
                     "(no kernel_workspace slot or no host_call); allocate "
                     "through the device table instead");
  }
  return host->kernel_workspace(call->host_call, size, out_ptr);
}

// ---- Checks --------------------------------------------------------------

// Names a kernel in messages: "<plugin>: <op>: …".
struct KernelSite {
  std::string_view plugin;  // "cpu plugin"
  std::string_view op;      // "add.Tensor"
};

// INVALID_ARGUMENT "<plugin>: <op>: <what>". Requires SetHost.
inline sy_error_t* OpError(KernelSite site, std::string_view what) noexcept {
  try {
    return MakeError(SY_STATUS_INVALID_ARGUMENT,
                     StrCat(site.plugin, ": ", site.op, ": ", what));
  } catch (...) {
    return MakeError(SY_STATUS_RESOURCE_EXHAUSTED, site.plugin);
  }
}

// Checks what every kernel reads of the call: non-NULL, a struct_size that
// covers ABI 1.0, and exactly the given numbers of inputs, outputs and
// attributes (a negative number: any), with non-NULL arrays where the
// count is positive.
inline sy_error_t* CheckCall(const sy_kernel_call_t* call, KernelSite site,
                             int num_inputs, int num_outputs, int num_attrs) {
  if (call == nullptr) return OpError(site, "the kernel call is NULL");
  constexpr size_t kMinSize = SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data);
  if (call->struct_size < kMinSize) {
    return OpError(site, StrCat("the kernel call's struct_size is ",
                                call->struct_size, ", smaller than ABI 1.0's ",
                                kMinSize, "; the host is damaged or too old"));
  }
  // A count mismatch means the caller bound a different schema than the one
  // this kernel was registered for.
  const auto count = [&](int32_t got, const void* array, int want,
                         std::string_view what) -> sy_error_t* {
    if ((want < 0 || got == want) && (got <= 0 || array != nullptr) && got >= 0) {
      return nullptr;
    }
    return OpError(site, StrCat("expects ", want, " ", what, " but the call has ",
                                got, got > 0 && array == nullptr ? " (NULL)" : "",
                                "; the call does not match the op's schema"));
  };
  SY_PLUGIN_RETURN_IF_ERROR(
      count(call->num_inputs, call->inputs, num_inputs, "input tensors"));
  SY_PLUGIN_RETURN_IF_ERROR(
      count(call->num_outputs, call->outputs, num_outputs, "output tensors"));
  return count(call->num_attrs, call->attrs, num_attrs, "attributes");
}

// Checks one tensor view: rank 0..SY_MAX_RANK, shape and strides present,
// no negative dimension, an element count that fits int64, `dtype`
// (SY_DTYPE_NONE: any), DLPack device type `device_type` and id `device_id`
// (-1: any id), and data present when the tensor is not empty. `arg` names
// it in messages: "input 'a'", "output".
inline sy_error_t* CheckView(const sy_tensor_view_t& view, KernelSite site,
                             std::string_view arg, sy_dtype_t dtype,
                             int32_t device_type, int32_t device_id = -1) {
  if (view.ndim < 0 || view.ndim > SY_MAX_RANK) {
    return OpError(site, StrCat(arg, " has rank ", view.ndim,
                                "; tensors have rank 0 to ", SY_MAX_RANK));
  }
  if (view.ndim > 0 && (view.shape == nullptr || view.strides == nullptr)) {
    return OpError(site, StrCat(arg, " has rank ", view.ndim,
                                " but a NULL shape or strides; pass ", view.ndim,
                                " of each"));
  }
  int64_t count = 1;
  bool overflow = false;
  bool empty = false;
  for (int d = 0; d < view.ndim; ++d) {
    if (view.shape[d] < 0) {
      return OpError(site, StrCat(arg, " has a negative dimension in shape ",
                                  ShapeToString(Shape(view)),
                                  "; dimensions must be >= 0"));
    }
    empty = empty || view.shape[d] == 0;
    overflow = overflow || __builtin_mul_overflow(count, view.shape[d], &count);
  }
  if (overflow && !empty) {
    return OpError(site, StrCat(arg, " has shape ", ShapeToString(Shape(view)),
                                ", whose element count overflows int64"));
  }
  if (dtype != SY_DTYPE_NONE && view.dtype != dtype) {
    return OpError(site, StrCat(arg, " has dtype ", DtypeName(view.dtype),
                                " but this kernel was registered for ",
                                DtypeName(dtype), "; cast the tensor to ",
                                DtypeName(dtype)));
  }
  if (view.device.device_type != device_type) {
    return OpError(site, StrCat(arg, " is on DLPack device type ",
                                view.device.device_type,
                                ", not the kernel's device type (", device_type,
                                "); copy it to the kernel's device first"));
  }
  if (device_id >= 0 && view.device.device_id != device_id) {
    return OpError(site, StrCat(arg, " is on device ", view.device.device_id,
                                " but the call runs on device ", device_id,
                                "; copy it there first"));
  }
  if (view.data == nullptr && !empty) {
    return OpError(site, StrCat(arg, " has NULL data but ", count,
                                " elements; pass the tensor's storage"));
  }
  return nullptr;
}

// Checks that `view` has exactly `expected` as its shape; otherwise the
// error says "<arg> has shape [..] but <expected_what> [..]; <advice>".
inline sy_error_t* CheckShape(const sy_tensor_view_t& view,
                              std::span<const int64_t> expected, KernelSite site,
                              std::string_view arg, std::string_view expected_what,
                              std::string_view advice) {
  const std::span<const int64_t> shape = Shape(view);
  if (std::ranges::equal(shape, expected)) return nullptr;
  return OpError(site, StrCat(arg, " has shape ", ShapeToString(shape), " but ",
                              expected_what, " ", ShapeToString(expected), "; ",
                              advice));
}

// ---- Attribute readers ---------------------------------------------------
// Each reads attribute `index` (which must exist: CheckCall first), named
// `name` in messages, and checks the kind the schema gives it.

namespace internal {
inline sy_error_t* KindError(KernelSite site, std::string_view name,
                             int32_t kind, std::string_view want) {
  return OpError(site, StrCat("attribute '", name, "' has attribute kind ",
                              kind, " but ", want, " was expected; the call "
                              "does not match the op's schema"));
}
}  // namespace internal

// A Scalar attribute's value: an integer (bool counts as one) or a float.
struct ScalarValue {
  bool is_float = false;
  double f = 0;
  int64_t i = 0;
  double AsDouble() const { return is_float ? f : static_cast<double>(i); }
};

inline sy_error_t* ReadScalar(const sy_kernel_call_t* call, int index,
                              KernelSite site, std::string_view name,
                              ScalarValue& out) {
  const sy_attr_t& a = call->attrs[index];
  switch (a.kind) {
    case SY_ATTR_INT: out = {false, 0, a.value.i}; return nullptr;
    case SY_ATTR_BOOL: out = {false, 0, a.value.b != 0 ? 1 : 0}; return nullptr;
    case SY_ATTR_FLOAT: out = {true, a.value.f, 0}; return nullptr;
    default:
      return internal::KindError(site, name, a.kind, "a Scalar (int or float)");
  }
}

// With `is_none` non-NULL, None is accepted (and *is_none says so).
inline sy_error_t* ReadInt(const sy_kernel_call_t* call, int index,
                           KernelSite site, std::string_view name, int64_t& out,
                           bool* is_none = nullptr) {
  const sy_attr_t& a = call->attrs[index];
  if (is_none != nullptr) *is_none = a.kind == SY_ATTR_NONE;
  if (a.kind == SY_ATTR_NONE && is_none != nullptr) return nullptr;
  if (a.kind != SY_ATTR_INT) return internal::KindError(site, name, a.kind, "an int");
  out = a.value.i;
  return nullptr;
}

// An int is accepted for a float.
inline sy_error_t* ReadFloat(const sy_kernel_call_t* call, int index,
                             KernelSite site, std::string_view name, double& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind == SY_ATTR_FLOAT) {
    out = a.value.f;
  } else if (a.kind == SY_ATTR_INT) {
    out = static_cast<double>(a.value.i);
  } else {
    return internal::KindError(site, name, a.kind, "a float");
  }
  return nullptr;
}

inline sy_error_t* ReadBool(const sy_kernel_call_t* call, int index,
                            KernelSite site, std::string_view name, bool& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind != SY_ATTR_BOOL) return internal::KindError(site, name, a.kind, "a bool");
  out = a.value.b != 0;
  return nullptr;
}

inline sy_error_t* ReadInts(const sy_kernel_call_t* call, int index,
                            KernelSite site, std::string_view name,
                            std::span<const int64_t>& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind != SY_ATTR_INTS || a.value.ints.size < 0 ||
      (a.value.ints.size > 0 && a.value.ints.data == nullptr)) {
    return internal::KindError(site, name, a.kind, "an int list");
  }
  out = {a.value.ints.data, static_cast<size_t>(a.value.ints.size)};
  return nullptr;
}

inline sy_error_t* ReadString(const sy_kernel_call_t* call, int index,
                              KernelSite site, std::string_view name,
                              std::string_view& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind != SY_ATTR_STRING || a.value.str.data == nullptr || a.value.str.size < 0) {
    return internal::KindError(site, name, a.kind, "a str");
  }
  out = {a.value.str.data, static_cast<size_t>(a.value.str.size)};
  return nullptr;
}

// Wraps a dim in [-rank, rank) to [0, rank) (a scalar takes -1 and 0, as in
// PyTorch), or returns an error naming `name` and the valid range.
inline sy_error_t* WrapDim(int64_t dim, int rank, KernelSite site,
                           std::string_view name, int& out) {
  const int64_t lo = rank == 0 ? -1 : -rank;
  const int64_t hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi) {
    return OpError(site, StrCat("attribute '", name, "' is ", dim,
                                ", out of range for a tensor of rank ", rank,
                                "; pass a dim in [", lo, ", ", hi, "]"));
  }
  out = static_cast<int>(dim < 0 ? dim + (rank == 0 ? 1 : rank) : dim);
  return nullptr;
}

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_KERNELS_HPP_
