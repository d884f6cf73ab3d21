#include "cuda_source_check.h"

#include <cstdio>
#include <mutex>
#include <set>

#include "gtest/gtest.h"

#ifdef SWITCHYARD_TEST_NVRTC
#include "fused/cuda_codegen.h"
#include "fused/nvrtc_compiler.h"
#endif

namespace sy::fusion::testing {
namespace {

std::mutex mu;
std::set<std::string> compiled;  // sources NVRTC accepted

// One line at the end of the run: how many sources NVRTC compiled.
class Report : public ::testing::Environment {
 public:
  void TearDown() override {
    std::fprintf(stderr, "cuda_source_check: NVRTC compiled %d generated sources (sm_90)\n",
                 CudaSourcesCompiled());
  }
};
#ifdef SWITCHYARD_TEST_NVRTC
[[maybe_unused]] ::testing::Environment* const report =
    ::testing::AddGlobalTestEnvironment(new Report);
#endif

}  // namespace

int CudaSourcesCompiled() {
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int>(compiled.size());
}

#ifdef SWITCHYARD_TEST_NVRTC

void ExpectCudaSourceCompiles(const FusedKernel& kernel, const std::string& what) {
  using namespace ::sy::cuda::fusion;  // NOLINT
  const sy_fused_kernel_t abi = kernel.Abi();
  GeneratedKernel gen;
  std::string error;
  ASSERT_TRUE(GenerateCuda(abi, CodegenOptions{}, &gen, &error))
      << what << ": the CUDA code generator refused " << kernel.name << ": " << error << "\n"
      << ToText(kernel);
  EXPECT_FALSE(gen.scalar.entry.empty()) << what;
  std::string why;
  const NvrtcCompiler* nvrtc = NvrtcCompiler::Get(&why);
  if (nvrtc == nullptr) {
    static std::once_flag once;
    std::call_once(once, [&] {
      std::fprintf(stderr, "cuda_source_check: generated sources not compiled: %s\n",
                   why.c_str());
    });
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    if (compiled.count(gen.source) != 0) return;
  }
  std::string cubin;
  const bool ok = nvrtc->Compile(gen.source, 90, EntryName(kernel.name.c_str()), &cubin, &error);
  EXPECT_TRUE(ok) << what << ": " << error << "\nIR:\n" << ToText(kernel) << "\nsource:\n"
                  << gen.source;
  if (ok) {
    EXPECT_GT(cubin.size(), 0u) << what;
    std::lock_guard<std::mutex> lock(mu);
    compiled.insert(gen.source);
  }
}

#else

void ExpectCudaSourceCompiles(const FusedKernel&, const std::string&) {}

#endif

}  // namespace sy::fusion::testing
