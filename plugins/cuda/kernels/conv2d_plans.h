// The conv2d execution plans and their cache (Note [Conv plans] in
// conv2d.h): building the graph of one problem, choosing its engine, and
// running it. conv2d.cc checks calls and lays out operands; this file
// talks to cuDNN.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_PLANS_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_PLANS_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/cudnn_library.h"
#include "kernels/scratch.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::cuda {

// A problem, plain data (compared and hashed as bytes: zero-initialize).
struct ConvKey {
  int32_t device = 0;
  int32_t dtype = 0;     // sy_dtype_t: f32 f16 bf16
  int32_t nhwc = 0;      // 1: every operand channels-last, else NCHW
  int32_t bias = 0;      // 1: a bias [K] at unit stride
  int32_t relu = 0;
  int32_t variant = -1;  // -1: measured pick; k < 4: k-th heuristic choice;
                         // 4: the implicit-GEMM kernel where it takes the problem
  int32_t reduced = 0;   // 1: engines with REDUCED_PRECISION_REDUCTION too
  int32_t graphs = 0;    // 1: replayed as CUDA graphs (picked by GPU time)
  int64_t x[4] = {};     // N C H W
  int64_t w[4] = {};     // K C/g kH kW
  int64_t stride[2] = {}, padding[2] = {}, dilation[2] = {};
  int32_t align[4] = {};  // byte alignment (<= 16) of x, w, y, bias
};
// Hashed and compared as bytes: padding (uninitialized) would make equal
// problems miss the cache.
static_assert(std::has_unique_object_representations_v<ConvKey>,
              "ConvKey must have no padding bytes");

// Device pointers of one call, laid out as the key says.
struct ConvPointers {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
};

// Runs the key's plan (building and caching it first) on `stream`, or
// replays its CUDA graph for these buffers (Note [Conv graphs] in
// conv2d.h); `lease` is acquired only when cuDNN is called. The workspace
// comes from `scratch`. When no engine takes the problem, runs nothing,
// sets *no_engine and returns NULL (the answer is cached too).
sy_error_t* RunConvPlan(const CudnnLibrary& lib, CudnnHandleLease& lease,
                        const gpu::Stream& stream, Scratch& scratch,
                        const ConvKey& key, const ConvPointers& ptrs,
                        std::string_view op, bool* no_engine);

// The cache's capacity (>= 1 problem).
void SetConvPlanCacheCapacity(size_t problems);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_PLANS_H_
