#include "fused/nvrtc_compiler.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

// The NVRTC major the plugin was built with (CMakeLists.txt passes it).
#ifndef SY_NVRTC_MAJOR
#define SY_NVRTC_MAJOR 13
#endif

namespace sy::cuda::fusion {

struct NvrtcLoader {
  static NvrtcCompiler* Load(std::string* why_not) {
    std::vector<std::string> names;
#if defined(__GLIBC__)
    const char* env = secure_getenv("SWITCHYARD_NVRTC_LIBRARY");
#else
    const char* env = std::getenv("SWITCHYARD_NVRTC_LIBRARY");
#endif
    if (env != nullptr && env[0] != '\0') {
      names.push_back(env);
    } else {
      names.push_back("libnvrtc.so." + std::to_string(SY_NVRTC_MAJOR));
      names.push_back("libnvrtc.so");
    }
    void* handle = nullptr;
    std::string tried, path;
    for (const std::string& name : names) {
      handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle != nullptr) {
        path = name;
        break;
      }
      const char* err = dlerror();
      tried += (tried.empty() ? "" : "; ") + name + ": " + (err != nullptr ? err : "not found");
    }
    if (handle == nullptr) {
      *why_not = "NVRTC could not be loaded (" + tried +
                 "); install the CUDA toolkit's NVRTC (cuda-nvrtc) or set "
                 "SWITCHYARD_NVRTC_LIBRARY to libnvrtc.so's path";
      return nullptr;
    }
    auto* c = new NvrtcCompiler;
    bool ok = true;
#define SY_NVRTC_RESOLVE(name)                                                  \
  c->name##_ = reinterpret_cast<decltype(c->name##_)>(dlsym(handle, #name)); \
  ok = ok && c->name##_ != nullptr
    SY_NVRTC_RESOLVE(nvrtcVersion);
    SY_NVRTC_RESOLVE(nvrtcGetErrorString);
    SY_NVRTC_RESOLVE(nvrtcCreateProgram);
    SY_NVRTC_RESOLVE(nvrtcDestroyProgram);
    SY_NVRTC_RESOLVE(nvrtcCompileProgram);
    SY_NVRTC_RESOLVE(nvrtcGetProgramLogSize);
    SY_NVRTC_RESOLVE(nvrtcGetProgramLog);
    SY_NVRTC_RESOLVE(nvrtcGetCUBINSize);
    SY_NVRTC_RESOLVE(nvrtcGetCUBIN);
#undef SY_NVRTC_RESOLVE
    if (!ok) {
      *why_not = path + " lacks nvrtcGetCUBIN or another function the plugin needs; "
                        "install NVRTC 11.1 or newer";
      delete c;
      return nullptr;  // the library stays open: harmless, and never retried
    }
    c->nvrtcVersion_(&c->major, &c->minor);
    c->path = path;
    return c;
  }
};

const NvrtcCompiler* NvrtcCompiler::Get(std::string* why_not) {
  static std::string reason;
  static const NvrtcCompiler* const compiler = NvrtcLoader::Load(&reason);
  if (compiler == nullptr && why_not != nullptr) *why_not = reason;
  return compiler;
}

bool NvrtcCompiler::Compile(const std::string& source, int arch, const std::string& name,
                            std::string* cubin, std::string* error) const {
  nvrtcProgram program = nullptr;
  nvrtcResult r = nvrtcCreateProgram_(&program, source.c_str(), (name + ".cu").c_str(), 0,
                                      nullptr, nullptr);
  if (r != NVRTC_SUCCESS) {
    *error = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString_(r);
    return false;
  }
  const std::string arch_flag = "--gpu-architecture=sm_" + std::to_string(arch);
  // Full-precision math (no --use_fast_math): results stay within a few ulp
  // of the core's kernels, and the kernels are memory-bound anyway.
  const char* options[] = {arch_flag.c_str(), "--std=c++17", "-default-device",
                           "--extra-device-vectorization"};
  r = nvrtcCompileProgram_(program, 4, options);
  if (r != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize_(program, &size);
    std::string log(size, '\0');
    if (size > 0) nvrtcGetProgramLog_(program, log.data());
    *error = std::string("NVRTC failed to compile the generated kernel (") +
             nvrtcGetErrorString_(r) + "): " + log +
             " — a Switchyard bug; please report it with this message";
    nvrtcDestroyProgram_(&program);
    return false;
  }
  size_t size = 0;
  nvrtcGetCUBINSize_(program, &size);
  cubin->resize(size);
  nvrtcGetCUBIN_(program, cubin->data());
  nvrtcDestroyProgram_(&program);
  return true;
}

}  // namespace sy::cuda::fusion
