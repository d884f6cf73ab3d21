// A minimal plugin host over plugin.h alone, for the device checks: it opens
// a plugin library, calls sy_plugin_init and the load slot with a host
// table of its own, and keeps the device tables the plugin registers
// (schemas and kernels are accepted and dropped; option_get answers the
// declared defaults). The checks then call a device table directly, as the
// core would.
//
// It runs in a child process of switchyard-conformance (device_checks.h):
// the parent loads the same library through libswitchyard, and a library
// is initialized once per process.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_BARE_HOST_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_BARE_HOST_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "switchyard/plugin.h"

namespace sy::conformance {

class BareHost {
 public:
  // Opens and loads the plugin library at `path`. Errors say which step
  // failed (open, symbol, init, version, load) with the plugin's message.
  static absl::StatusOr<std::unique_ptr<BareHost>> Open(const std::string& path);
  // Runs the plugin's unload slot and closes the library (unless it asked
  // to stay resident).
  ~BareHost();
  BareHost(const BareHost&) = delete;
  BareHost& operator=(const BareHost&) = delete;

  const std::string& plugin_name() const { return plugin_name_; }
  // The device tables the plugin registered, in order.
  const std::vector<const sy_device_api_t*>& devices() const { return devices_; }

  // OK for NULL; else the error as a Status ("<where>: <message>", the
  // plugin's code), and the error is destroyed.
  static absl::Status Check(sy_error_t* error, const std::string& where);

 private:
  BareHost() = default;
  friend struct BareHostAccess;

  void* library_ = nullptr;
  const sy_plugin_api_t* plugin_ = nullptr;
  std::string plugin_name_;
  std::vector<const sy_device_api_t*> devices_;
  std::vector<std::string> refusals_;  // register_device calls refused
};

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_BARE_HOST_H_
