// NVRTC, loaded at run time like cuDNN (kernels/cudnn_library.h): the
// plugin never links libnvrtc, so it loads where NVRTC is absent, and fused
// groups then run unfused with the reason in the graph's description.
//
// NvrtcCompiler::Get() dlopens the library once per process ("libnvrtc.so"
// + the major the plugin was built with, then "libnvrtc.so"; or the file
// named by SWITCHYARD_NVRTC_LIBRARY, read with secure_getenv) and resolves
// the functions below, typed from nvrtc.h (a header of the toolkit, only at
// build time). Compile turns CUDA C into a CUBIN for one architecture.
//
// Thread-safety: Get() and Compile may be called from any thread (NVRTC
// programs are per call).
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_NVRTC_COMPILER_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_NVRTC_COMPILER_H_

#include <nvrtc.h>

#include <string>

namespace sy::cuda::fusion {

class NvrtcCompiler {
 public:
  // The loaded library, or null with the reason in *why_not.
  static const NvrtcCompiler* Get(std::string* why_not);

  // Compiles `source` for sm_<arch> (e.g. 90); the CUBIN goes to *cubin.
  // On failure returns false with NVRTC's log (and the source's first
  // lines, for a bug report) in *error.
  bool Compile(const std::string& source, int arch, const std::string& name,
               std::string* cubin, std::string* error) const;

  int major = 0, minor = 0;  // nvrtcVersion
  std::string path;          // what was dlopened

 private:
#define SY_NVRTC_FN(name) decltype(&::name) name##_ = nullptr
  SY_NVRTC_FN(nvrtcVersion);
  SY_NVRTC_FN(nvrtcGetErrorString);
  SY_NVRTC_FN(nvrtcCreateProgram);
  SY_NVRTC_FN(nvrtcDestroyProgram);
  SY_NVRTC_FN(nvrtcCompileProgram);
  SY_NVRTC_FN(nvrtcGetProgramLogSize);
  SY_NVRTC_FN(nvrtcGetProgramLog);
  SY_NVRTC_FN(nvrtcGetCUBINSize);
  SY_NVRTC_FN(nvrtcGetCUBIN);
#undef SY_NVRTC_FN
  friend struct NvrtcLoader;
};

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_NVRTC_COMPILER_H_
