// The cuda plugin's code generator checked on a machine without a GPU:
// ExpectCudaSourceCompiles turns a fused kernel's IR into CUDA C
// (plugins/cuda/fused/cuda_codegen.h) and compiles it with NVRTC for sm_90
// (the H100), failing the test with NVRTC's log when either step fails.
//
// Built with the cuda plugin (SWITCHYARD_TEST_NVRTC): NVRTC is dlopened as
// the plugin does; where it cannot be loaded the check prints why once and
// does nothing. Without the cuda plugin it is a no-op. A source compiled
// once in the process is not compiled again.
#ifndef SWITCHYARD_TESTS_FUSION_CUDA_SOURCE_CHECK_H_
#define SWITCHYARD_TESTS_FUSION_CUDA_SOURCE_CHECK_H_

#include <string>

#include "fusion/ir/fused_ir.h"

namespace sy::fusion::testing {

void ExpectCudaSourceCompiles(const FusedKernel& kernel, const std::string& what);

// How many distinct sources NVRTC compiled in this process (0 where NVRTC
// is absent or the cuda plugin is not built).
int CudaSourcesCompiled();

}  // namespace sy::fusion::testing

#endif  // SWITCHYARD_TESTS_FUSION_CUDA_SOURCE_CHECK_H_
