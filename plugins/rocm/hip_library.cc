// Note [HIP loaded at run time] (hip_library.h): the forwarders, the
// recorded code-object registrations, and loading the runtime.
#include "hip_library.h"

#include <dlfcn.h>
#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "switchyard/plugin.hpp"

// Every HIP function the plugin calls that returns hipError_t: its name,
// parameter list and argument list. A forwarder of exactly that signature
// is defined below, so the compiler checks each against the declaration in
// hip_runtime_api.h, and the link (--no-undefined) fails if the plugin
// calls a HIP function missing here.
#define SY_HIP_FUNCTIONS(X)                                                  \
  X(hipGetDeviceCount, (int* count), (count))                                \
  X(hipGetDeviceProperties, (hipDeviceProp_t * prop, int device),            \
    (prop, device))                                                          \
  X(hipDriverGetVersion, (int* version), (version))                          \
  X(hipRuntimeGetVersion, (int* version), (version))                         \
  X(hipGetDevice, (int* device), (device))                                   \
  X(hipSetDevice, (int device), (device))                                    \
  X(hipGetLastError, (), ())                                                 \
  X(hipDeviceGetAttribute,                                                   \
    (int* value, hipDeviceAttribute_t attribute, int device),                \
    (value, attribute, device))                                              \
  X(hipMalloc, (void** ptr, size_t size), (ptr, size))                       \
  X(hipFree, (void* ptr), (ptr))                                             \
  X(hipHostMalloc, (void** ptr, size_t size, unsigned int flags),            \
    (ptr, size, flags))                                                      \
  X(hipHostFree, (void* ptr), (ptr))                                         \
  X(hipHostGetDevicePointer,                                                 \
    (void** device_ptr, void* host_ptr, unsigned int flags),                 \
    (device_ptr, host_ptr, flags))                                           \
  X(hipMemcpyAsync,                                                          \
    (void* dst, const void* src, size_t size, hipMemcpyKind kind,            \
     hipStream_t stream),                                                    \
    (dst, src, size, kind, stream))                                          \
  X(hipMemsetAsync, (void* dst, int value, size_t size, hipStream_t stream), \
    (dst, value, size, stream))                                              \
  X(hipStreamCreateWithFlags, (hipStream_t * stream, unsigned int flags),    \
    (stream, flags))                                                         \
  X(hipStreamDestroy, (hipStream_t stream), (stream))                        \
  X(hipStreamSynchronize, (hipStream_t stream), (stream))                    \
  X(hipStreamWaitEvent,                                                      \
    (hipStream_t stream, hipEvent_t event, unsigned int flags),              \
    (stream, event, flags))                                                  \
  X(hipEventCreate, (hipEvent_t * event), (event))                           \
  X(hipEventCreateWithFlags, (hipEvent_t * event, unsigned flags),           \
    (event, flags))                                                          \
  X(hipEventDestroy, (hipEvent_t event), (event))                            \
  X(hipEventRecord, (hipEvent_t event, hipStream_t stream), (event, stream)) \
  X(hipEventSynchronize, (hipEvent_t event), (event))                        \
  X(hipEventElapsedTime, (float* ms, hipEvent_t start, hipEvent_t stop),     \
    (ms, start, stop))                                                       \
  X(hipPointerGetAttributes,                                                 \
    (hipPointerAttribute_t * attributes, const void* ptr), (attributes, ptr)) \
  X(hipLaunchKernel,                                                         \
    (const void* function, dim3 grid, dim3 block, void** args,               \
     size_t shared_bytes, hipStream_t stream),                               \
    (function, grid, block, args, shared_bytes, stream))                     \
  X(__hipPushCallConfiguration,                                              \
    (dim3 grid, dim3 block, size_t shared_bytes, hipStream_t stream),        \
    (grid, block, shared_bytes, stream))                                     \
  X(__hipPopCallConfiguration,                                               \
    (dim3 * grid, dim3 * block, size_t * shared_bytes, hipStream_t * stream), \
    (grid, block, shared_bytes, stream))

// What hipcc's generated code calls to register and unregister code
// objects; not declared in HIP's public headers. `module` is the handle
// __hipRegisterFatBinary returned.
extern "C" {
void** __hipRegisterFatBinary(const void* data);
void __hipRegisterFunction(void** module, const void* host_function,
                           char* device_function, const char* device_name,
                           int thread_limit, void* tid, void* bid,
                           void* block_dim, void* grid_dim, int* warp_size);
void __hipUnregisterFatBinary(void** module);
}

namespace sy::rocm {
namespace {

using ::sy::plugin::StrCat;

// The resolved runtime. Plain pointers in static storage, zero before
// LoadHip: usable from the constructors that run while the plugin opens,
// and never destroyed.
// (Spelled from the parameter lists: in C++ some HIP names are overloaded
// by templates, so `decltype(&::name)` would be ambiguous.)
struct Table {
#define SY_HIP_POINTER(name, params, args) hipError_t(*name) params;
  SY_HIP_FUNCTIONS(SY_HIP_POINTER)
#undef SY_HIP_POINTER
  const char* (*hipGetErrorName)(hipError_t error);
  const char* (*hipGetErrorString)(hipError_t error);
  decltype(&::__hipRegisterFatBinary) register_fat_binary;
  decltype(&::__hipRegisterFunction) register_function;
};
Table g_hip;

// One kernel's registration, as hipcc's constructor made it.
struct Function {
  const void* host_function;
  char* device_function;
  const char* device_name;
  int thread_limit;
  void* tid;
  void* bid;
  void* block_dim;
  void* grid_dim;
  int* warp_size;
};

// One translation unit's code objects. Its address is the handle the
// generated code keeps and passes back.
struct Module {
  const void* data = nullptr;
  std::vector<Function> functions;
};

// The registrations recorded while the plugin opened. Created on first use
// (from the first constructor) and never destroyed: nodelete keeps the
// plugin mapped until exit, and exit-time destructors must not race the
// generated ones.
struct Registry {
  std::mutex mu;
  std::vector<Module*> modules;
};

Registry& Recorded() {
  static Registry* const registry = new Registry;
  return *registry;
}

template <class Fn>
bool Resolve(void* handle, const char* name, Fn* out, std::string* missing) {
  *out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*out == nullptr && missing->empty()) *missing = name;
  return *out != nullptr;
}

}  // namespace

const HipLibrary* LoadHip(std::string* why_not) {
  struct Result {
    HipLibrary library;
    std::string error;
    bool ok = false;
  };
  static const Result* const result = [] {
    auto* r = new Result;
    const char* name = secure_getenv("SWITCHYARD_HIP_LIBRARY");
    if (name == nullptr || *name == '\0') name = kHipLibraryName;
    // RTLD_LOCAL: HIP's symbols stay out of the process's global scope; if
    // another library already opened it, this is the same runtime.
    void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      r->error = StrCat("the HIP runtime library ", name,
                        " could not be loaded (",
                        error != nullptr ? error : "no reason given", ")");
      return r;
    }
    Table table{};
    std::string missing;
#define SY_HIP_RESOLVE(fn, params, args) \
  Resolve(handle, #fn, &table.fn, &missing);
    SY_HIP_FUNCTIONS(SY_HIP_RESOLVE)
#undef SY_HIP_RESOLVE
    Resolve(handle, "hipGetErrorName", &table.hipGetErrorName, &missing);
    Resolve(handle, "hipGetErrorString", &table.hipGetErrorString, &missing);
    Resolve(handle, "__hipRegisterFatBinary", &table.register_fat_binary,
            &missing);
    Resolve(handle, "__hipRegisterFunction", &table.register_function,
            &missing);
    Dl_info info{};
    const bool located =
        table.hipGetDeviceCount != nullptr &&
        dladdr(reinterpret_cast<void*>(table.hipGetDeviceCount), &info) != 0 &&
        info.dli_fname != nullptr;
    r->library.path = located ? info.dli_fname : name;
    if (!missing.empty()) {
      r->error = StrCat("the HIP runtime at ", r->library.path, " lacks ",
                        missing, "; it is older than ROCm 5.2 or not HIP's "
                        "runtime");
      dlclose(handle);
      return r;
    }
    g_hip = table;  // kept open for the life of the process
    if (g_hip.hipRuntimeGetVersion(&r->library.runtime_version) != hipSuccess) {
      (void)g_hip.hipGetLastError();
    }
    r->ok = true;
    return r;
  }();
  if (!result->ok) {
    if (why_not != nullptr) *why_not = result->error;
    return nullptr;
  }
  return &result->library;
}

bool RegisterCodeObjects(std::string* why_not) {
  static const std::string* const error = [] {
    auto* e = new std::string;
    if (g_hip.register_fat_binary == nullptr) {
      *e = "the HIP runtime is not loaded";
      return e;
    }
    Registry& registry = Recorded();
    std::lock_guard<std::mutex> lock(registry.mu);
    for (Module* m : registry.modules) {
      void** real = g_hip.register_fat_binary(m->data);
      if (real == nullptr) {
        *e = "the HIP runtime refused one of the plugin's code objects (set "
             "AMD_LOG_LEVEL=1 to see why)";
        return e;
      }
      for (const Function& f : m->functions) {
        g_hip.register_function(real, f.host_function, f.device_function,
                                f.device_name, f.thread_limit, f.tid, f.bid,
                                f.block_dim, f.grid_dim, f.warp_size);
      }
    }
    return e;
  }();
  if (!error->empty()) {
    if (why_not != nullptr) *why_not = *error;
    return false;
  }
  return true;
}

std::string HipVersionString(int version) {
  return StrCat(version / 10000000, ".", (version / 100000) % 100, ".",
                version % 100000);
}

}  // namespace sy::rocm

// ---- The forwarders -------------------------------------------------------
// Defined with HIP's names and signatures (the declarations come from
// hip_runtime_api.h); the version script makes them local to the plugin.

#define SY_HIP_FORWARD(fn, params, args)                            \
  extern "C" hipError_t fn params {                                 \
    const auto real = ::sy::rocm::g_hip.fn;                         \
    return real != nullptr ? real args : hipErrorNotInitialized;    \
  }
SY_HIP_FUNCTIONS(SY_HIP_FORWARD)
#undef SY_HIP_FORWARD

extern "C" const char* hipGetErrorName(hipError_t error) {
  const auto real = ::sy::rocm::g_hip.hipGetErrorName;
  return real != nullptr ? real(error) : "hipErrorNotInitialized";
}

extern "C" const char* hipGetErrorString(hipError_t error) {
  const auto real = ::sy::rocm::g_hip.hipGetErrorString;
  return real != nullptr ? real(error) : "the HIP runtime is not loaded";
}

// Recorded, not forwarded: the runtime may not exist yet (RegisterCodeObjects
// replays them).
extern "C" void** __hipRegisterFatBinary(const void* data) {
  auto* module = new sy::rocm::Module{data, {}};
  sy::rocm::Registry& registry = sy::rocm::Recorded();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.modules.push_back(module);
  return reinterpret_cast<void**>(module);
}

extern "C" void __hipRegisterFunction(void** module, const void* host_function,
                                      char* device_function,
                                      const char* device_name,
                                      int thread_limit, void* tid, void* bid,
                                      void* block_dim, void* grid_dim,
                                      int* warp_size) {
  sy::rocm::Registry& registry = sy::rocm::Recorded();
  std::lock_guard<std::mutex> lock(registry.mu);
  reinterpret_cast<sy::rocm::Module*>(module)->functions.push_back(
      {host_function, device_function, device_name, thread_limit, tid, bid,
       block_dim, grid_dim, warp_size});
}

// Deliberately nothing (Note [HIP loaded at run time]): this runs only at
// process exit (the plugin is nodelete), when the runtime may be gone.
extern "C" void __hipUnregisterFatBinary(void** module) {}
