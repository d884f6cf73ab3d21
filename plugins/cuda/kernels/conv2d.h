// conv2d on cuda through cuDNN's graph (backend) API (cudnn_graph.h), for
// f32, f16 and bf16, with or without bias; f64 through the plugin's own
// direct kernel (conv2d_direct.h); and the plugin's op
//   cuda::conv2d_relu(Tensor x, Tensor weight, Tensor? bias=None,
//                     int[] stride=[1, 1], int[] padding=[0, 0],
//                     int[] dilation=[1, 1], int groups=1) -> Tensor
// = relu(conv2d(…)), with the bias and the ReLU fused into the
// convolution's epilogue (for a pattern pass to substitute). Registered only
// when cuDNN loaded (cuda_plugin.cc decides and logs why not).
//
// Note [Conv plans]: a problem is (device, dtype, layout, shapes, stride,
// padding, dilation, groups, bias, ReLU, operand alignments, variant). Its
// execution plan is built once — operation graph (convolution, then a
// pointwise bias add and ReLU on a virtual f32 tensor), engine configs
// from heuristics mode A then B, plan — and kept in a bounded LRU cache
// (plugin option conv2d_plan_cache_size, default 256 problems); a call
// then costs a lookup, a variant pack and cudnnBackendExecute, or a CUDA
// graph's launch (Note [Conv graphs]). Which engine: without a variant,
// the top (at most 24) configurations, knob settings apart, are timed on
// the first call's own buffers (as cudnn.benchmark does) and the fastest
// kept — fastest for calls streamed back to back: under graphs the GPU
// time, else the larger of the GPU time and the host time to enqueue (an
// engine that launches several kernels can cost more to enqueue than a
// small problem takes on the GPU); variant k (cudnn_heuristic0..3) runs
// the k-th configuration, for the autotuner. A problem no engine takes is
// cached as such and runs on the direct kernel.
//
// Numerics: f32 never runs on TF32 tensor cores (engines with the
// TENSOR_CORE or DOWN_CONVERT_INPUTS numerical note are skipped; the op
// set's f32 tolerance rules TF32 out, like the GEMMs); f16/bf16 compute in
// f32 (engines with REDUCED_PRECISION_REDUCTION are skipped, unless the
// plugin option conv2d_reduced_precision allows them). The bias and
// ReLU run on the f32 accumulator, so the output rounds once.
//
// Layouts: NCHW and channels-last (NHWC) inputs are used in place: a call
// runs in NHWC when x is densely packed channels-last, else in NCHW; an
// operand packed otherwise (sliced, broadcast, the other layout) is first
// copied into that layout (strided_copy4d.h), and an output that is not is
// computed into a temporary and scattered back.
//
// Note [Conv graphs]: cudnnBackendExecute costs 6–7 µs of host time per
// call on the H100 (it enqueues each of the engine's kernels; NCHW 16-bit
// engines launch transposes around the convolution), plus a variant pack
// and the handle's lease. So a plan is captured into a CUDA graph
// (conv2d_graphs.h) the second time it runs with the same buffers —
// stream, x, weight, bias, output and workspace, which the graph bakes in
// — and later calls with them are one cudaGraphLaunch. The second time,
// not the first: a buffer set seen once (a temporary) is not worth an
// instantiation, and the first call runs plainly, so lazy loading and
// first-use work are done before a capture. Graphs are kept only where
// they pay: a replay saves host time but can cost GPU time (f16 64→64
// 3×3 at 56² NHWC, N = 32, ran 34 µs a call replayed against 28 µs
// plainly), so the plan's first capture times 5 calls streamed back to
// back each way from an idle GPU (the faster of 3 bursts) and settles for
// the plan: graphs unless replays are more than 3 % slower (a tie goes to
// the graph, whose freed host time serves the calls around it). The
// debug log gives both figures. Under graphs the engine search ranks by
// GPU time alone (a replay's host time does not depend on the engine). Up
// to 8 graphs a plan, least recently used dropped; they live and die with
// the plan's cache entry. The capture runs on a private stream in
// thread-local mode, so another thread's work on the caller's stream
// never lands in the graph. A plan that fails to capture runs plainly
// from then on (the log says why); a caller's stream that is itself being
// captured gets the plain execute, which its own capture records. Plugin
// option conv2d_graphs (default on) turns graphs off.
//
// The plugin's own implicit-GEMM kernel (conv2d_implicit_gemm.h) for 16-bit
// problems with few input channels (the stem) is timed beside the engines
// in the measured pick and kept in the same cache entry when it wins.
//
// Thread safety: kernels are stateless sy_kernel_fns; the plan cache is
// mutex-guarded, plans are shared and executed under the device's cuDNN
// handle lease (cudnn_library.h); a plan's graphs are guarded by their own
// mutex, held across a launch.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_H_

#include <cstddef>

#include "switchyard/plugin.h"

namespace sy::cuda {

// The variants conv2d registers for the autotuner: cuDNN's heuristic
// choices 0..3 (cudnn_heuristic0..3), then, for f16 and bf16 only, the
// plugin's implicit-GEMM kernel (implicit_gemm, Note [Implicit GEMM conv]
// in conv2d_implicit_gemm.h), which runs the measured pick where the
// kernel does not take the problem.
inline constexpr int kConv2dHeuristicVariants = 4;
inline constexpr int kConv2dImplicitGemmVariant = kConv2dHeuristicVariants;
inline constexpr int kConv2dVariants = kConv2dHeuristicVariants + 1;
// The options' defaults (the plugin's option table says them as text):
// the plan cache's capacity (problems), graphs on, reduced precision off.
inline constexpr int kConv2dPlanCacheDefault = 256;
inline constexpr bool kConv2dGraphsDefault = true;
inline constexpr bool kConv2dReducedPrecisionDefault = false;

// Sets the plan cache's capacity (>= 1); a smaller one evicts at once.
void SetConv2dPlanCacheCapacity(size_t problems);

// Whether plans are replayed as CUDA graphs (Note [Conv graphs]; plugin
// option conv2d_graphs, default on). Process-wide; part of each plan's key
// (the engine search ranks by GPU time alone under graphs).
void SetConv2dGraphs(bool enabled);

// Lets calls use engines with cuDNN's REDUCED_PRECISION_REDUCTION note
// (plugin option conv2d_reduced_precision, default off; f32 still never
// runs TF32). Process-wide like the cache's capacity; part of each plan's
// key, so plans built under the other setting are never reused.
void SetConv2dReducedPrecision(bool allowed);

// Registers the schema of cuda::conv2d_relu and the kernels of it and of
// conv2d: f64 (the direct kernel) always; f32, f16 and bf16 (cuDNN, with
// variants) only when `cudnn` (CudnnLibrary::Get() succeeded).
sy_error_t* RegisterConv2dKernels(const sy_host_api_t* host,
                                  sy_host_context_t* context, bool cudnn);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_H_
