// The floor of a call, for bench_dispatch's "direct" column: a plugin's
// kernel called through its function pointer with a ready sy_kernel_call_t.
// The kernel is reached the way the core reaches it — sy_plugin_init and
// the load slot — by a host of plugin.h alone, on a private copy of the
// plugin library (copied to a temporary folder: a library is initialized
// once per process and libswitchyard.so loads the original).
#ifndef SWITCHYARD_TOOLS_BENCH_PRIVATE_PLUGIN_H_
#define SWITCHYARD_TOOLS_BENCH_PRIVATE_PLUGIN_H_

#include <memory>
#include <string>
#include <vector>

#include "switchyard/plugin.h"

namespace sy::bench {

class PrivatePlugin {
 public:
  struct Kernel {
    std::string op, name;
    std::vector<sy_dtype_t> dtypes;
    sy_kernel_fn fn = nullptr;
    void* data = nullptr;
  };

  // Loads a copy of the plugin library at `library`. Exits the process with
  // a message when it cannot (a benchmark has no use for half a floor).
  static std::unique_ptr<PrivatePlugin> Load(const std::string& library);
  ~PrivatePlugin();  // the library copy stays mapped; its file is removed

  // The kernel registered for `op` with these dtypes, or nullptr.
  const Kernel* Find(const std::string& op, const std::vector<sy_dtype_t>& dtypes) const;
  // The device table of `type`, or nullptr.
  const sy_device_api_t* Device(const std::string& type) const;

 private:
  PrivatePlugin() = default;
  friend struct PrivatePluginAccess;

  std::string copy_dir_;
  std::vector<Kernel> kernels_;
  std::vector<const sy_device_api_t*> devices_;
};

}  // namespace sy::bench

#endif  // SWITCHYARD_TOOLS_BENCH_PRIVATE_PLUGIN_H_
