// sy::plugin errors: the host table kept once per plugin (SetHost / Host),
// StrCat, MakeError, Guard (which stops C++ exceptions at an ABI entry
// point), CheckHost (the version gate of sy_plugin_init) and
// SY_PLUGIN_RETURN_IF_ERROR. Part of plugin.hpp (read its rules first).
#ifndef SWITCHYARD_PLUGIN_ERRORS_HPP_
#define SWITCHYARD_PLUGIN_ERRORS_HPP_

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
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

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_ERRORS_HPP_
