// The host side of the plugin ABI: the one process-wide sy_host_api_t and
// the registration contexts that route a plugin's register_* calls to the
// runtime loading it.
#ifndef SWITCHYARD_DISPATCHER_LOADING_HOST_API_H_
#define SWITCHYARD_DISPATCHER_LOADING_HOST_API_H_

#include <string>

#include "switchyard/plugin.h"

namespace sy::core {

// What a registration context forwards to. Implemented by the loader.
class RegistrationSink {
 public:
  virtual ~RegistrationSink() = default;
  virtual const std::string& plugin_name() const = 0;
  virtual sy_error_t* RegisterSchema(const sy_schema_desc_t* desc) = 0;
  virtual sy_error_t* RegisterKernel(const sy_kernel_desc_t* desc) = 0;
  virtual sy_error_t* RegisterDevice(const sy_device_api_t* desc) = 0;
  // host->option_get during `load` (plugin.h, ABI 1.1).
  virtual sy_error_t* GetOption(const char* name, sy_option_value_t* out) = 0;
  // A line the plugin logged during `load` at info level or above, kept
  // for its load record. May be called from any thread.
  virtual void Note(std::string text) = 0;
};

// The host table: static, valid for the life of the process.
const sy_host_api_t* HostApi();

// A context that is live (accepted by register_*) for this object's
// lifetime: one per `load` call. Calls with any other context pointer,
// including a stale one, get FAILED_PRECONDITION and never dereference it.
class ScopedHostContext {
 public:
  explicit ScopedHostContext(RegistrationSink& sink);
  ~ScopedHostContext();
  ScopedHostContext(const ScopedHostContext&) = delete;
  ScopedHostContext& operator=(const ScopedHostContext&) = delete;

  sy_host_context_t* get() const { return context_; }

 private:
  sy_host_context_t* context_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_HOST_API_H_
