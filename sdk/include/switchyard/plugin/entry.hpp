// sy::plugin entry: the body of sy_plugin_init that every plugin shares
// (InitPlugin), logging through the host, and reading the plugin's options
// during `load` (ABI 1.1). Part of plugin.hpp (read its rules first).
//
//   extern "C" SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
//       const sy_host_api_t* host, const sy_plugin_api_t** out_plugin) {
//     return sy::plugin::InitPlugin(host, out_plugin, kPluginApi, "myvendor",
//                                   [](const sy_host_api_t* h) { return Probe(h); });
//   }
#ifndef SWITCHYARD_PLUGIN_ENTRY_HPP_
#define SWITCHYARD_PLUGIN_ENTRY_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "switchyard/plugin.h"
#include "switchyard/plugin/errors.hpp"

namespace sy::plugin {

// sy_plugin_init for a plugin whose table is `table` (static; its
// abi_minor is the newest minor whose fields the plugin reads or fills):
// clears *out_plugin; returns NULL without a table when the host cannot
// even create errors (nothing can be reported then); checks versions
// (CheckHost, with `who` such as "cpu plugin" in its messages); keeps the
// host table (SetHost); runs `on_init(host)` — once-per-process work such as
// probing hardware, returning an error or NULL — and hands out the table.
// A C++ exception from on_init becomes an error. Never throws.
template <class OnInit>
sy_error_t* InitPlugin(const sy_host_api_t* host,
                       const sy_plugin_api_t** out_plugin,
                       const sy_plugin_api_t& table, std::string_view who,
                       OnInit&& on_init) noexcept {
  if (out_plugin != nullptr) *out_plugin = nullptr;
  // The leading fields (through error_create) are read whatever the host's
  // major, to be able to refuse it in words.
  if (host == nullptr || !SY_STRUCT_HAS(host, sy_host_api_t, error_create) ||
      host->error_create == nullptr) {
    return nullptr;
  }
  return internal::GuardWith(host, who, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckHost(host, out_plugin, who, table.abi_minor));
    SetHost(host);
    SY_PLUGIN_RETURN_IF_ERROR(std::forward<OnInit>(on_init)(host));
    *out_plugin = &table;
    return nullptr;
  });
}

// The same with nothing to do at init.
inline sy_error_t* InitPlugin(const sy_host_api_t* host,
                              const sy_plugin_api_t** out_plugin,
                              const sy_plugin_api_t& table,
                              std::string_view who) noexcept {
  return InitPlugin(host, out_plugin, table, who,
                    [](const sy_host_api_t*) -> sy_error_t* { return nullptr; });
}

// Writes a line to the host's log. During `load` pass its context (the host
// prefixes the plugin's name and keeps info-and-above lines in the load
// record); at other times pass NULL and name the plugin in the message.
inline void Log(const sy_host_api_t* host, sy_host_context_t* context,
                sy_log_level_t level, std::string_view message) noexcept {
  if (host == nullptr || !SY_STRUCT_HAS(host, sy_host_api_t, log) ||
      host->log == nullptr) {
    return;
  }
  try {
    host->log(context, level, std::string(message).c_str());
  } catch (...) {  // std::bad_alloc: drop the line rather than throw
  }
}

// ---- Options (ABI 1.1) ---------------------------------------------------

// True when the host can say the options' values (its table has the 1.1
// slot option_get). Without it — a 1.0 host, or a test's own host table —
// a plugin uses its declared defaults.
inline bool HostHasOptions(const sy_host_api_t* host) noexcept {
  return host != nullptr && SY_STRUCT_HAS(host, sy_host_api_t, option_get) &&
         host->option_get != nullptr;
}

// One entry of a plugin's option table (sy_plugin_api_t.options):
//
//   constexpr sy_plugin_option_t kOptions[] = {
//       plugin::Option("num_threads", SY_OPTION_INT, "0", "threads large ops use")};
//
// The strings must live as long as the table (literals, or statics).
constexpr sy_plugin_option_t Option(const char* name, sy_option_type_t type,
                                    const char* default_value, const char* help) noexcept {
  return {.struct_size = sizeof(sy_plugin_option_t),
          .extension = nullptr,
          .name = name,
          .type = static_cast<int32_t>(type),
          .reserved = 0,
          .default_value = default_value,
          .help = help};
}

// An option's default as the table's text, written at compile time from
// the constant the plugin also uses when the host cannot say the option's
// value (a 1.0 host), so the two never disagree:
//
//   inline constexpr int64_t kDefaultCacheSize = 64;
//   constexpr auto kCacheSizeText = plugin::OptionIntText(kDefaultCacheSize);
//   plugin::Option("cache_size", SY_OPTION_INT, kCacheSizeText.data(), "…")
//
// The text lives in the returned object: keep it in a constexpr (static)
// variable, as the table's strings must outlive the table.
struct OptionText {
  char text[21] = {};  // "-9223372036854775808" and its NUL
  constexpr const char* data() const noexcept { return text; }
};
constexpr OptionText OptionIntText(int64_t n) noexcept {
  OptionText out;
  // The magnitude as unsigned, so INT64_MIN has one too.
  uint64_t rest = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  char digits[20] = {};
  int len = 0;
  do {
    digits[len++] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  } while (rest > 0);
  int at = 0;
  if (n < 0) out.text[at++] = '-';
  while (len > 0) out.text[at++] = digits[--len];
  return out;
}
constexpr const char* OptionBoolText(bool b) noexcept { return b ? "true" : "false"; }

// The value of declared option `name` for this load (host->option_get; only
// during `load`, with its context). FAILED_PRECONDITION from a host older
// than 1.1; NOT_FOUND for an undeclared name.
inline sy_error_t* GetOption(const sy_host_api_t* host,
                             sy_host_context_t* context, const char* name,
                             sy_option_value_t* out) noexcept {
  if (!SY_STRUCT_HAS(host, sy_host_api_t, option_get) ||
      host->option_get == nullptr) {
    return MakeError(host, SY_STATUS_FAILED_PRECONDITION,
                     "option_get: the host is older than plugin ABI 1.1");
  }
  return host->option_get(context, name, out);
}

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_ENTRY_HPP_
