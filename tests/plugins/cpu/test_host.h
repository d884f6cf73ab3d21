// A minimal Switchyard host for testing a plugin through the ABI alone: it
// dlopens the library, calls sy_plugin_init and `load` with a host table of
// its own, and records what the plugin registers (copying every string and
// array, as plugin.h requires of a host). Errors are a small struct. Each
// `load` is one "runtime" with a context of its own, as in a process where
// several runtimes share one loaded plugin.
//
// Not thread-safe except where a host slot must be (error_create,
// error_destroy, log); tests register from one thread. One TestHost at a
// time receives the log lines written with a NULL context.
#ifndef SWITCHYARD_TESTS_PLUGINS_CPU_TEST_HOST_H_
#define SWITCHYARD_TESTS_PLUGINS_CPU_TEST_HOST_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"

// The test host's error object (the ABI leaves its layout to the host).
struct sy_error_t {
  int32_t code;
  std::string message;
};

namespace sy::testing {

// The content of a sy_error_t; code OK for success.
struct Status {
  int32_t code = SY_STATUS_OK;
  std::string message;
  bool ok() const { return code == SY_STATUS_OK; }
};

// Takes ownership of `error` (NULL means success), destroys it and returns
// what it said.
Status TakeError(sy_error_t* error);

// Path of the cpu plugin under test (a compile definition).
const char* CpuPluginPath();

struct RegisteredKernel {
  int runtime = 0;  // which `load` registered it (0-based)
  std::string op;
  std::string device_type;
  std::string name;
  std::vector<sy_dtype_t> dtypes;
  int32_t priority = 0;
  sy_kernel_fn fn = nullptr;
  void* kernel_data = nullptr;
};

struct RegisteredDevice {
  int runtime = 0;
  std::string device_type;
  const sy_device_api_t* api = nullptr;  // plugin-owned, valid until unload
};

class TestHost {
 public:
  TestHost();
  ~TestHost();  // calls `unload` and closes the library
  TestHost(const TestHost&) = delete;
  TestHost& operator=(const TestHost&) = delete;

  // The host table handed to the plugin; tests may copy and alter it.
  const sy_host_api_t* api() const { return &api_; }

  // dlopen (RTLD_NOW | RTLD_LOCAL), sy_plugin_init, then `load`.
  Status Load(const std::string& path);
  // `load` again, as a second runtime in the same process would.
  Status LoadAnotherRuntime();

  // Makes register_kernel fail with INTERNAL from its n-th call (0-based).
  void FailKernelRegistrationAt(int n) { fail_kernel_at_ = n; }
  int kernel_registration_calls() const { return kernel_calls_; }

  void* library() const { return library_; }
  const sy_plugin_api_t* plugin() const { return plugin_; }
  const std::vector<RegisteredKernel>& kernels() const { return kernels_; }
  const std::vector<RegisteredDevice>& devices() const { return devices_; }
  std::vector<std::string> log() const;

  // The first kernel for `op` (and `dtypes`, when given), or NULL.
  const RegisteredKernel* FindKernel(
      std::string_view op, std::span<const sy_dtype_t> dtypes = {}) const;
  const sy_device_api_t* FindDevice(std::string_view device_type) const;

 private:
  // A context is the address of one of these.
  struct Runtime {
    TestHost* host;
    int id;
  };
  static Runtime* Loading(sy_host_context_t* context);
  Status RunLoad();
  static sy_error_t* RegisterSchema(sy_host_context_t* context,
                                    const sy_schema_desc_t* schema);
  static sy_error_t* RegisterKernel(sy_host_context_t* context,
                                    const sy_kernel_desc_t* kernel);
  static sy_error_t* RegisterDevice(sy_host_context_t* context,
                                    const sy_device_api_t* device);
  static void Log(sy_host_context_t* context, int32_t level,
                  const char* message);

  sy_host_api_t api_{};
  void* library_ = nullptr;
  const sy_plugin_api_t* plugin_ = nullptr;
  std::vector<std::unique_ptr<Runtime>> runtimes_;
  Runtime* loading_ = nullptr;  // the runtime whose `load` is running
  int fail_kernel_at_ = -1;
  int kernel_calls_ = 0;
  std::vector<RegisteredKernel> kernels_;
  std::vector<RegisteredDevice> devices_;
  mutable std::mutex log_mu_;
  std::vector<std::string> log_;
};

// Calls `kernel` with one tensor per schema tensor argument.
Status RunKernel(const RegisteredKernel& kernel,
                 std::span<const sy_tensor_view_t> inputs,
                 std::span<const sy_tensor_view_t> outputs,
                 std::span<const sy_attr_t> attrs = {},
                 sy_stream_t stream = nullptr);

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_PLUGINS_CPU_TEST_HOST_H_
