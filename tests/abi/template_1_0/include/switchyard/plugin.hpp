// Header-only C++20 helpers over the plugin ABI (plugin.h), namespace
// sy::plugin. Nothing here is part of the ABI: a plugin may use any of it or
// none, and it can change between SDK releases without breaking built plugins.
//
// What is here:
//   - the host table, kept once per plugin (SetHost / Host), and
//     CheckHost, the version gate of sy_plugin_init,
//   - errors: MakeError, StrCat, and Guard, which stops C++ exceptions at an
//     ABI entry point,
//   - dtypes: Half and BFloat16 (storage types converting to float),
//     DtypeTraits / CType / kDtypeOf, DtypeName, DtypeSize; StatusName,
//   - tensor views: NumElements, IsContiguous, DataPtr, ShapeToString,
//   - ForEachStridedRun, the N-operand strided walker of elementwise kernels,
//   - KernelSpec and RegisterKernels, for explicit, ordered kernel lists.
//
// Shared rules:
// - Every function is thread-safe unless it says otherwise; none keeps a
//   pointer to its arguments past the call.
// - Functions returning sy_error_t* return NULL on success, else a new error
//   that the caller owns (return it to the host, or host->error_destroy it).
// - Plugins must be built with hidden visibility (switchyard_add_plugin does
//   this): the host pointer below is an inline variable, and with default
//   visibility two plugins in one process would share one copy.
#ifndef SWITCHYARD_PLUGIN_HPP_
#define SWITCHYARD_PLUGIN_HPP_

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "switchyard/plugin.h"

namespace sy::plugin {

// ---- The host table ------------------------------------------------------

namespace internal {
inline std::atomic<const sy_host_api_t*> g_host{nullptr};
}  // namespace internal

// Stores the host table for MakeError and Host(). Call it from
// sy_plugin_init once the host is accepted: there is one table per process
// and it stays valid while the library is loaded (plugin.h). Not owned.
// Passing NULL (e.g. in `unload`) forgets it.
inline void SetHost(const sy_host_api_t* host) noexcept {
  internal::g_host.store(host, std::memory_order_release);
}

// The table last given to SetHost, or NULL.
inline const sy_host_api_t* Host() noexcept {
  return internal::g_host.load(std::memory_order_acquire);
}

// ---- Errors --------------------------------------------------------------

namespace internal {

template <class T>
void AppendPiece(std::string& out, const T& v) {
  using U = std::remove_cvref_t<T>;  // arrays (literals) stay arrays
  if constexpr (std::is_same_v<U, const char*> || std::is_same_v<U, char*>) {
    out.append(v != nullptr ? v : "(null)");
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out.append(std::string_view(v));
  } else if constexpr (std::is_same_v<U, bool>) {
    out.append(v ? "true" : "false");
  } else if constexpr (std::is_same_v<U, char>) {
    out.push_back(v);
  } else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
    if constexpr (std::is_enum_v<U>) {
      out.append(std::to_string(static_cast<std::underlying_type_t<U>>(v)));
    } else {
      out.append(std::to_string(v));
    }
  } else if constexpr (std::is_floating_point_v<U>) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    out.append(buf);
  } else if constexpr (std::is_pointer_v<U>) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", static_cast<const void*>(v));
    out.append(buf);
  } else {
    static_assert(sizeof(T) == 0, "StrCat: unsupported argument type");
  }
}

}  // namespace internal

// Concatenates strings, string_views, C strings (NULL prints "(null)"),
// chars, bools, integers, enums, floating-point values (%g) and pointers (%p).
// Throws std::bad_alloc like std::string does.
template <class... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (internal::AppendPiece(out, args), ...);
  return out;
}

// Creates an error through `host->error_create`; the message is copied.
// Never returns NULL and never throws: if the message cannot be copied, the
// error says "out of memory" instead. `host` must be non-NULL and cover
// error_create; a plugin whose host table is missing is a programming error,
// reported on stderr before abort().
inline sy_error_t* MakeError(const sy_host_api_t* host, sy_status_code_t code,
                             std::string_view message) noexcept {
  if (host == nullptr || !SY_STRUCT_HAS(host, sy_host_api_t, error_create) ||
      host->error_create == nullptr) {
    std::fputs(
        "switchyard plugin: MakeError called without a host table "
        "(call sy::plugin::SetHost in sy_plugin_init)\n",
        stderr);
    std::abort();
  }
  try {
    return host->error_create(code, std::string(message).c_str());
  } catch (...) {  // std::bad_alloc copying the message.
    return host->error_create(
        SY_STATUS_RESOURCE_EXHAUSTED,
        "switchyard plugin: out of memory while reporting an error");
  }
}

// As above, with the table given to SetHost.
inline sy_error_t* MakeError(sy_status_code_t code,
                             std::string_view message) noexcept {
  return MakeError(Host(), code, message);
}

// The version gate of sy_plugin_init: the same ABI major as the host, a
// host minor at least `abi_minor_used` (the newest minor whose fields the
// plugin reads or fills), a host table at least as large as this SDK's, and
// a non-NULL `out_plugin`. NULL when all hold, else an error that starts
// with `plugin` ("cpu plugin") and says what to rebuild. `host` must be non-NULL and cover
// error_create (check that first: without it nothing can be said).
inline sy_error_t* CheckHost(const sy_host_api_t* host,
                             const sy_plugin_api_t* const* out_plugin,
                             std::string_view plugin,
                             uint32_t abi_minor_used) noexcept {
  try {
    const std::string advice =
        StrCat("rebuild the plugin against the host's SDK, or use a host that "
               "speaks plugin ABI ", SY_PLUGIN_ABI_MAJOR);
    if (host->abi_major != SY_PLUGIN_ABI_MAJOR) {
      return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                       StrCat(plugin, ": the host speaks plugin ABI ",
                              host->abi_major, ".", host->abi_minor,
                              " but this plugin was built for ABI ",
                              SY_PLUGIN_ABI_MAJOR, ".", abi_minor_used, "; ",
                              advice));
    }
    if (host->abi_minor < abi_minor_used ||
        host->struct_size < sizeof(sy_host_api_t)) {
      return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                       StrCat(plugin, ": needs plugin ABI ", SY_PLUGIN_ABI_MAJOR,
                              ".", abi_minor_used, " but the host offers ABI ",
                              host->abi_major, ".", host->abi_minor, " with a ",
                              host->struct_size, "-byte host table; ", advice));
    }
    if (out_plugin == nullptr) {
      return MakeError(host, SY_STATUS_INVALID_ARGUMENT,
                       StrCat(plugin, ": sy_plugin_init: out_plugin is NULL; "
                              "pass the address of a const sy_plugin_api_t*"));
    }
    return nullptr;
  } catch (...) {  // std::bad_alloc building the message
    return MakeError(host, SY_STATUS_RESOURCE_EXHAUSTED,
                     "switchyard plugin: out of memory checking the host");
  }
}

namespace internal {

// Builds "<where>: <what><detail>; <advice>" without letting an exception
// out: a catch handler inside a noexcept function must not throw.
inline sy_error_t* ExceptionError(const sy_host_api_t* host,
                                  sy_status_code_t code, std::string_view where,
                                  std::string_view what,
                                  std::string_view detail,
                                  std::string_view advice) noexcept {
  try {
    return MakeError(host, code,
                     StrCat(where, ": ", what, detail, "; ", advice));
  } catch (...) {
    return MakeError(host, code, where);
  }
}

template <class F>
sy_error_t* GuardWith(const sy_host_api_t* host, std::string_view where,
                      F&& f) noexcept {
  constexpr std::string_view kBug = "this is a bug in the plugin; report it";
  try {
    return std::forward<F>(f)();
  } catch (const std::bad_alloc&) {
    return ExceptionError(host, SY_STATUS_RESOURCE_EXHAUSTED, where,
                          "out of memory", "",
                          "free memory or use smaller tensors");
  } catch (const std::exception& e) {
    return ExceptionError(host, SY_STATUS_INTERNAL, where,
                          "unexpected C++ exception: ", e.what(), kBug);
  } catch (...) {
    return ExceptionError(host, SY_STATUS_INTERNAL, where,
                          "unknown C++ exception", "", kBug);
  }
}

}  // namespace internal

// Runs `f()`, which returns sy_error_t*, and returns its result; a C++
// exception escaping f becomes an error whose message starts with `where`
// (e.g. "cpu plugin: matmul"): std::bad_alloc → RESOURCE_EXHAUSTED "…: out
// of memory; …", any other std::exception → INTERNAL with e.what(), anything
// else → INTERNAL. Wrap the body of every ABI entry point that can throw.
// Requires SetHost. Costs nothing when nothing is thrown.
template <class F>
sy_error_t* Guard(std::string_view where, F&& f) noexcept {
  return internal::GuardWith(Host(), where, std::forward<F>(f));
}

// As above, creating errors through `host` (non-NULL) instead of the table
// given to SetHost: for sy_plugin_init, before the host has been accepted.
template <class F>
sy_error_t* Guard(const sy_host_api_t* host, std::string_view where,
                  F&& f) noexcept {
  return internal::GuardWith(host, where, std::forward<F>(f));
}

// Returns from the enclosing function when `expr`, a sy_error_t*, is an
// error (non-NULL), handing that error on.
#define SY_PLUGIN_RETURN_IF_ERROR(expr)          \
  do {                                           \
    if (sy_error_t* sy_plugin_error_ = (expr)) { \
      return sy_plugin_error_;                   \
    }                                            \
  } while (false)

// ---- Dtypes --------------------------------------------------------------

// IEEE binary16 and bfloat16 as stored (C++20 has no standard type for
// either). They convert to and from float; compute in float and round once
// on the way out, as the core op set asks of f16/bf16 kernels. Conversions
// round to nearest even, keep NaN a (quiet) NaN, and overflow to infinity.
struct Half {
  uint16_t bits = 0;

  Half() = default;
  explicit Half(float value) noexcept : bits(FromFloat(value)) {}
  operator float() const noexcept { return ToFloat(bits); }

  static constexpr uint16_t FromFloat(float value) noexcept {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    const uint32_t sign = (f >> 16) & 0x8000u;
    const uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // Inf or NaN; NaN keeps a payload bit
      return static_cast<uint16_t>(sign | 0x7c00u |
                                   (abs > 0x7f800000u ? 0x200u : 0u));
    }
    if (abs >= 0x477ff000u) {  // rounds to 65520 or more: infinity
      return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
      // Adding 0.5 lets the FPU round the mantissa at 2^-24 granularity.
      const float scaled = std::bit_cast<float>(abs) + 0.5f;
      return static_cast<uint16_t>(sign |
                                   (std::bit_cast<uint32_t>(scaled) - 0x3f000000u));
    }
    const uint32_t odd = (abs >> 13) & 1u;  // round half to even
    const uint32_t rounded = abs + 0xc8000fffu + odd;  // rebias and round
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }

  static constexpr float ToFloat(uint16_t h) noexcept {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1fu) {  // Inf or NaN
      return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    }
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exactly
      const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
      return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(magnitude));
    }
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) |
                                (mantissa << 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  explicit BFloat16(float value) noexcept : bits(FromFloat(value)) {}
  operator float() const noexcept { return ToFloat(bits); }

  static constexpr uint16_t FromFloat(float value) noexcept {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it quiet
      return static_cast<uint16_t>((f >> 16) | 0x40u);
    }
    const uint32_t odd = (f >> 16) & 1u;  // round half to even
    return static_cast<uint16_t>((f + 0x7fffu + odd) >> 16);
  }

  static constexpr float ToFloat(uint16_t b) noexcept {
    return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
  }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

// DtypeTraits<D>::type is the C++ element type of dtype D. bool tensors hold
// one byte per element (DLPack's bool is 8 bits), read here as uint8_t so
// that a byte other than 0 or 1 is not undefined behaviour: test it with != 0.
template <sy_dtype_t D>
struct DtypeTraits;
// clang-format off
template <> struct DtypeTraits<SY_DTYPE_F16> { using type = Half; };
template <> struct DtypeTraits<SY_DTYPE_BF16> { using type = BFloat16; };
template <> struct DtypeTraits<SY_DTYPE_F32> { using type = float; };
template <> struct DtypeTraits<SY_DTYPE_F64> { using type = double; };
template <> struct DtypeTraits<SY_DTYPE_I32> { using type = int32_t; };
template <> struct DtypeTraits<SY_DTYPE_I64> { using type = int64_t; };
template <> struct DtypeTraits<SY_DTYPE_I8> { using type = int8_t; };
template <> struct DtypeTraits<SY_DTYPE_U8> { using type = uint8_t; };
template <> struct DtypeTraits<SY_DTYPE_BOOL> { using type = uint8_t; };

template <sy_dtype_t D>
using CType = typename DtypeTraits<D>::type;

// The dtype of C++ type T (bool → SY_DTYPE_BOOL; uint8_t → SY_DTYPE_U8).
template <class T>
inline constexpr sy_dtype_t kDtypeOf = SY_DTYPE_NONE;
template <> inline constexpr sy_dtype_t kDtypeOf<Half> = SY_DTYPE_F16;
template <> inline constexpr sy_dtype_t kDtypeOf<BFloat16> = SY_DTYPE_BF16;
template <> inline constexpr sy_dtype_t kDtypeOf<float> = SY_DTYPE_F32;
template <> inline constexpr sy_dtype_t kDtypeOf<double> = SY_DTYPE_F64;
template <> inline constexpr sy_dtype_t kDtypeOf<int32_t> = SY_DTYPE_I32;
template <> inline constexpr sy_dtype_t kDtypeOf<int64_t> = SY_DTYPE_I64;
template <> inline constexpr sy_dtype_t kDtypeOf<int8_t> = SY_DTYPE_I8;
template <> inline constexpr sy_dtype_t kDtypeOf<uint8_t> = SY_DTYPE_U8;
template <> inline constexpr sy_dtype_t kDtypeOf<bool> = SY_DTYPE_BOOL;
// clang-format on

// "f32", "bf16", "bool", …; "none" for SY_DTYPE_NONE; "invalid" otherwise.
// clang-format off
constexpr std::string_view DtypeName(sy_dtype_t dtype) noexcept {
  switch (dtype) {
    case SY_DTYPE_NONE: return "none";
    case SY_DTYPE_F32: return "f32";
    case SY_DTYPE_F64: return "f64";
    case SY_DTYPE_F16: return "f16";
    case SY_DTYPE_BF16: return "bf16";
    case SY_DTYPE_I32: return "i32";
    case SY_DTYPE_I64: return "i64";
    case SY_DTYPE_I8: return "i8";
    case SY_DTYPE_U8: return "u8";
    case SY_DTYPE_BOOL: return "bool";
    default: return "invalid";
  }
}
// clang-format on

// "OK", "INVALID_ARGUMENT", …: the status code's name, as absl spells it;
// "UNKNOWN_CODE" for a value outside sy_status_code_t.
// clang-format off
constexpr std::string_view StatusName(sy_status_code_t code) noexcept {
  switch (code) {
    case SY_STATUS_OK: return "OK";
    case SY_STATUS_CANCELLED: return "CANCELLED";
    case SY_STATUS_UNKNOWN: return "UNKNOWN";
    case SY_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case SY_STATUS_DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case SY_STATUS_NOT_FOUND: return "NOT_FOUND";
    case SY_STATUS_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case SY_STATUS_PERMISSION_DENIED: return "PERMISSION_DENIED";
    case SY_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case SY_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case SY_STATUS_ABORTED: return "ABORTED";
    case SY_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case SY_STATUS_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case SY_STATUS_INTERNAL: return "INTERNAL";
    case SY_STATUS_UNAVAILABLE: return "UNAVAILABLE";
    case SY_STATUS_DATA_LOSS: return "DATA_LOSS";
  }
  return "UNKNOWN_CODE";
}
// clang-format on

// Bytes per element of a single-lane dtype (bits / 8); 0 for SY_DTYPE_NONE.
constexpr size_t DtypeSize(sy_dtype_t dtype) noexcept {
  return SY_DTYPE_BITS(dtype) / 8;
}

// ---- Tensor views --------------------------------------------------------
// Preconditions for all of these: 0 <= view.ndim <= SY_MAX_RANK, and shape
// and strides point at ndim entries (kernels check views first).

inline std::span<const int64_t> Shape(const sy_tensor_view_t& view) noexcept {
  return {view.shape, static_cast<size_t>(view.ndim)};
}
inline std::span<const int64_t> Strides(const sy_tensor_view_t& view) noexcept {
  return {view.strides, static_cast<size_t>(view.ndim)};
}

// The product of the shape (1 for rank 0, 0 when any dimension is 0).
// Assumes it fits in int64 (the core allocated the tensor).
inline int64_t NumElements(const sy_tensor_view_t& view) noexcept {
  int64_t n = 1;
  for (int64_t d : Shape(view)) n *= d;
  return n;
}

// True when the elements are dense in row-major order, so element i lives at
// DataPtr<T>(view)[i]. Dimensions of size 1 may have any stride; an empty
// tensor is contiguous.
inline bool IsContiguous(const sy_tensor_view_t& view) noexcept {
  int64_t expected = 1;
  for (int d = view.ndim - 1; d >= 0; --d) {
    if (view.shape[d] == 0) return true;
    if (view.shape[d] != 1 && view.strides[d] != expected) return false;
    expected *= view.shape[d];
  }
  return true;
}

// The address of element (0, …, 0): data + byte_offset, as T*; NULL when
// data is NULL (an empty tensor may have no storage, and offsetting NULL is
// undefined behaviour). Use a const T for inputs. Does not check that T
// matches view.dtype.
template <class T>
T* DataPtr(const sy_tensor_view_t& view) noexcept {
  using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
  if (view.data == nullptr) return nullptr;
  return reinterpret_cast<T*>(static_cast<Byte*>(view.data) + view.byte_offset);
}

// "[2, 3]"; "[]" for rank 0. For error messages.
inline std::string ShapeToString(std::span<const int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out.append(", ");
    out.append(std::to_string(shape[i]));
  }
  out.push_back(']');
  return out;
}

// ---- Strided walker ------------------------------------------------------

// Visits every index of `shape` for N operands that share it, each with its
// own strides (in elements; any value, including 0 for broadcast dims and
// negative). The walk is split into innermost runs: for each run,
//   body(offsets, count, steps)
// is called, where element i of the run lives at offsets[k] + i * steps[k]
// for operand k (offsets and steps in elements, from DataPtr). Dimensions of
// size 1 are dropped and neighbours that are dense for every operand are
// merged first, so when all operands are contiguous (or share one dense
// layout) the whole tensor is a single run with steps of 1: the body's
// unit-stride branch is the fast path. Runs come in row-major order of the
// merged dimensions.
//
// Rank 0 gives one run of count 1 (steps 0); a zero in the shape gives no
// runs. Returns false, calling nothing, when shape.size() > SY_MAX_RANK.
// Each strides[k] must point at shape.size() values.
template <size_t N, class Body>
bool ForEachStridedRun(std::span<const int64_t> shape,
                       const std::array<const int64_t*, N>& strides,
                       Body&& body) {
  if (shape.size() > SY_MAX_RANK) return false;
  int64_t dims[SY_MAX_RANK];
  int64_t st[N][SY_MAX_RANK];
  int nd = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return true;
    if (shape[d] == 1) continue;
    bool merge = nd > 0;
    for (size_t k = 0; k < N && merge; ++k) {
      merge = st[k][nd - 1] == strides[k][d] * shape[d];
    }
    if (merge) {
      dims[nd - 1] *= shape[d];
      for (size_t k = 0; k < N; ++k) st[k][nd - 1] = strides[k][d];
    } else {
      dims[nd] = shape[d];
      for (size_t k = 0; k < N; ++k) st[k][nd] = strides[k][d];
      ++nd;
    }
  }
  std::array<int64_t, N> offsets{};
  std::array<int64_t, N> steps{};
  if (nd == 0) {
    body(std::as_const(offsets), int64_t{1}, std::as_const(steps));
    return true;
  }
  const int64_t count = dims[nd - 1];
  for (size_t k = 0; k < N; ++k) steps[k] = st[k][nd - 1];
  int64_t index[SY_MAX_RANK] = {};
  while (true) {
    body(std::as_const(offsets), count, std::as_const(steps));
    int d = nd - 2;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) {
        for (size_t k = 0; k < N; ++k) offsets[k] += st[k][d];
        break;
      }
      index[d] = 0;
      for (size_t k = 0; k < N; ++k) offsets[k] -= st[k][d] * (dims[d] - 1);
    }
    if (d < 0) return true;
  }
}

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
      if (sy_error_t* error = host->register_kernel(context, &desc)) {
        return error;
      }
    }
    return nullptr;
  });
}

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_HPP_
