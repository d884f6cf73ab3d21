// conv2d plans through cuDNN's graph API, and their LRU cache (Note [Conv
// plans] in conv2d.h).
#include "kernels/conv2d_plans.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda_util.h"
#include "kernels/conv2d.h"
#include "kernels/conv2d_graphs.h"
#include "kernels/conv2d_implicit_gemm.h"
#include "kernels/cudnn_graph.h"
#include "kernels/gpu_spin.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::MakeError;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

constexpr int64_t kUidX = 1, kUidW = 2, kUidY = 3, kUidBias = 4, kUidConv = 5,
                  kUidAdd = 6;
// Configurations timed for a measured pick, and the most workspace one may
// use (larger ones are skipped, as cudnn.benchmark caps its own).
constexpr int kMaxTimed = 24;
constexpr int64_t kMaxWorkspace = int64_t{256} << 20;
// The plugin's own kernel as the search's reports name it.
constexpr std::string_view kOwnKernel = "the plugin's implicit GEMM";

cudnnDataType_t IoType(int32_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F16: return CUDNN_DATA_HALF;
    case SY_DTYPE_BF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

void PackedStrides(const int64_t* d, bool nhwc, std::vector<int64_t>* out) {
  if (nhwc) {
    *out = {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]};
  } else {
    *out = {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  }
}

void OutputDims(const ConvKey& k, int64_t* y) {
  y[0] = k.x[0];
  y[1] = k.w[0];
  for (int d = 0; d < 2; ++d) {
    const int64_t span = k.dilation[d] * (k.w[2 + d] - 1) + 1;
    y[2 + d] = (k.x[2 + d] + 2 * k.padding[d] - span) / k.stride[d] + 1;
  }
}

// The implicit-GEMM kernel's view of the problem (conv2d_implicit_gemm.h).
ImplicitGemmConvArgs OwnArgs(const ConvKey& k, const ConvPointers& ptrs) {
  ImplicitGemmConvArgs a;
  a.dtype = k.dtype;
  a.nhwc = k.nhwc != 0;
  a.relu = k.relu != 0;
  a.x = ptrs.x;
  a.w = ptrs.w;
  a.bias = k.bias != 0 ? ptrs.bias : nullptr;
  a.y = ptrs.y;
  for (int d = 0; d < 4; ++d) {
    a.x_shape[d] = k.x[d];
    a.w_shape[d] = k.w[d];
  }
  OutputDims(k, a.y_shape);
  for (int d = 0; d < 2; ++d) {
    a.stride[d] = k.stride[d];
    a.padding[d] = k.padding[d];
    a.dilation[d] = k.dilation[d];
  }
  return a;
}

std::string Describe(const ConvKey& k) {
  return StrCat(plugin::DtypeName(static_cast<sy_dtype_t>(k.dtype)), " ",
                k.nhwc ? "NHWC" : "NCHW", " x ",
                ShapeToString(std::span<const int64_t>(k.x, 4)), " weight ",
                ShapeToString(std::span<const int64_t>(k.w, 4)), " stride ",
                ShapeToString(std::span<const int64_t>(k.stride, 2)), " padding ",
                ShapeToString(std::span<const int64_t>(k.padding, 2)),
                " dilation ", ShapeToString(std::span<const int64_t>(k.dilation, 2)),
                k.bias ? " +bias" : "", k.relu ? " +relu" : "",
                k.reduced ? " (reduced-precision reduction allowed)" : "",
                k.graphs ? "" : " (without CUDA graphs)",
                k.variant >= 0 ? StrCat(" variant ", k.variant) : std::string());
}

struct KeyHash {
  size_t operator()(const ConvKey& k) const {
    const auto* p = reinterpret_cast<const unsigned char*>(&k);
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (size_t i = 0; i < sizeof(ConvKey); ++i) h = (h ^ p[i]) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};
struct KeyEq {
  bool operator()(const ConvKey& a, const ConvKey& b) const {
    return std::memcmp(&a, &b, sizeof(ConvKey)) == 0;
  }
};

// A cached outcome: a plan and its CUDA graphs, the plugin's own kernel
// (Note [Implicit GEMM conv]), or why there is neither.
struct Outcome {
  std::shared_ptr<const CudnnPlan> plan;
  std::shared_ptr<ConvGraphs> graphs;  // with a plan
  bool own = false;  // the implicit-GEMM kernel won the measured pick
  sy_status_code_t code = SY_STATUS_OK;
  std::string error;
};

class PlanCache {
 public:
  bool Find(const ConvKey& key, Outcome* out) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return false;
    lru_.splice(lru_.begin(), lru_, it->second.pos);  // most recently used
    *out = it->second.outcome;
    return true;
  }

  void Insert(const ConvKey& key, const Outcome& outcome) {
    std::vector<std::string> evicted;
    size_t size = 0, capacity = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) return;  // another thread built it meanwhile
      lru_.push_front(key);
      map_.emplace(key, Entry{outcome, lru_.begin()});
      Trim(&evicted);
      size = map_.size();
      capacity = capacity_;
    }
    Debug(StrCat("built the plan of ", Describe(key), ": ",
                 outcome.own    ? std::string(kOwnKernel)
                 : outcome.plan ? StrCat(outcome.plan->engine, ", ",
                                         outcome.plan->workspace, " bytes of workspace")
                                : StrCat("none (", outcome.error, ")"),
                 "; ", size, " of ", capacity, " problems cached"));
    for (const std::string& e : evicted) {
      Debug(StrCat("evicted the least recently used plan (", e, ")"));
    }
  }

  void SetCapacity(size_t capacity) {
    std::vector<std::string> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      capacity_ = std::max<size_t>(capacity, 1);
      Trim(&evicted);
    }
    for (const std::string& e : evicted) {
      Debug(StrCat("evicted the least recently used plan (", e, ")"));
    }
  }

 private:
  struct Entry {
    Outcome outcome;
    std::list<ConvKey>::iterator pos;
  };

  // Requires mu_. Plans in use elsewhere live on in their shared_ptrs.
  void Trim(std::vector<std::string>* evicted) {
    while (map_.size() > capacity_) {
      const ConvKey& last = lru_.back();
      evicted->push_back(Describe(last));
      map_.erase(last);
      lru_.pop_back();
    }
  }

  static void Debug(const std::string& line) {
    plugin::Log(plugin::Host(), nullptr, SY_LOG_DEBUG,
                StrCat("cuda plugin: conv2d: plan cache: ", line));
  }

  std::mutex mu_;
  size_t capacity_ = 256;
  std::list<ConvKey> lru_;
  std::unordered_map<ConvKey, Entry, KeyHash, KeyEq> map_;
};

PlanCache& Cache() {
  static PlanCache* cache = new PlanCache;  // outlives static destructors
  return *cache;
}

sy_error_t* BuildGraph(const CudnnBuilder& b, cudnnHandle_t handle,
                       const ConvKey& k, CudnnDesc* graph) {
  int64_t y[4];
  OutputDims(k, y);
  const cudnnDataType_t io = IoType(k.dtype);
  const bool epilogue = k.bias != 0 || k.relu != 0;
  CudnnBuilder::TensorSpec spec;
  CudnnDesc tx, tw, ty, tb, tconv, tadd;
  spec.type = io;
  spec.uid = kUidX;
  spec.dims.assign(k.x, k.x + 4);
  PackedStrides(k.x, k.nhwc, &spec.strides);
  spec.alignment = k.align[0];
  SY_PLUGIN_RETURN_IF_ERROR(b.Tensor(spec, &tx));
  spec.uid = kUidW;
  spec.dims.assign(k.w, k.w + 4);
  PackedStrides(k.w, k.nhwc, &spec.strides);
  spec.alignment = k.align[1];
  SY_PLUGIN_RETURN_IF_ERROR(b.Tensor(spec, &tw));
  spec.uid = kUidY;
  spec.dims.assign(y, y + 4);
  PackedStrides(y, k.nhwc, &spec.strides);
  spec.alignment = k.align[2];
  SY_PLUGIN_RETURN_IF_ERROR(b.Tensor(spec, &ty));
  if (epilogue) {
    CudnnBuilder::TensorSpec v = spec;
    v.type = CUDNN_DATA_FLOAT;
    v.is_virtual = true;
    v.alignment = 16;
    v.uid = kUidConv;
    SY_PLUGIN_RETURN_IF_ERROR(b.Tensor(v, &tconv));
    if (k.bias != 0 && k.relu != 0) {
      v.uid = kUidAdd;
      SY_PLUGIN_RETURN_IF_ERROR(b.Tensor(v, &tadd));
    }
  }
  if (k.bias != 0) {
    CudnnBuilder::TensorSpec bs;
    bs.type = io;
    bs.uid = kUidBias;
    bs.dims = {1, k.w[0], 1, 1};
    bs.strides = {k.w[0], 1, 1, 1};
    bs.alignment = k.align[3];
    SY_PLUGIN_RETURN_IF_ERROR(b.Tensor(bs, &tb));
  }

  CudnnDesc conv;
  SY_PLUGIN_RETURN_IF_ERROR(b.Create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
  const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t spatial = 2;
  SY_PLUGIN_RETURN_IF_ERROR(
      b.Set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE,
                                  CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS,
                                  CUDNN_TYPE_INT64, 1, &spatial));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS,
                                  CUDNN_TYPE_INT64, 2, k.dilation));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
                                  CUDNN_TYPE_INT64, 2, k.stride));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
                                  CUDNN_TYPE_INT64, 2, k.padding));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
                                  CUDNN_TYPE_INT64, 2, k.padding));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(conv, "the convolution descriptor"));

  CudnnDesc op_conv, op_add, op_relu;
  SY_PLUGIN_RETURN_IF_ERROR(
      b.Create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op_conv));
  const float alpha = 1.0f, beta = 0.0f;
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(op_conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                  CUDNN_TYPE_FLOAT, 1, &alpha));
  SY_PLUGIN_RETURN_IF_ERROR(b.Set(op_conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                                  CUDNN_TYPE_FLOAT, 1, &beta));
  SY_PLUGIN_RETURN_IF_ERROR(
      b.SetDesc(op_conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(op_conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, tx));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(op_conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, tw));
  SY_PLUGIN_RETURN_IF_ERROR(b.SetDesc(op_conv, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                                      epilogue ? tconv : ty));
  SY_PLUGIN_RETURN_IF_ERROR(b.Finalize(op_conv, "the convolution operation"));
  std::vector<const CudnnDesc*> ops = {&op_conv};
  if (k.bias != 0) {
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, tconv,
                                          &tb, nullptr, k.relu != 0 ? tadd : ty,
                                          &op_add));
    ops.push_back(&op_add);
  }
  if (k.relu != 0) {
    SY_PLUGIN_RETURN_IF_ERROR(b.Pointwise(CUDNN_POINTWISE_RELU_FWD, CUDNN_DATA_FLOAT,
                                          k.bias != 0 ? tadd : tconv, nullptr,
                                          nullptr, ty, &op_relu));
    ops.push_back(&op_relu);
  }
  return MakeOperationGraph(b, handle, ops, graph);
}

// Runs `plan` once with the call's buffers.
sy_error_t* Execute(const CudnnBuilder& b, cudnnHandle_t handle,
                    const CudnnPlan& plan, const ConvKey& k,
                    const ConvPointers& ptrs, void* workspace) {
  int64_t uids[4] = {kUidX, kUidW, kUidY, kUidBias};
  void* pointers[4] = {const_cast<void*>(ptrs.x), const_cast<void*>(ptrs.w), ptrs.y,
                       const_cast<void*>(ptrs.bias)};
  const size_t n = k.bias != 0 ? 4 : 3;
  return ExecutePlan(b, handle, plan, std::span<const int64_t>(uids, n),
                     std::span<void* const>(pointers, n), workspace);
}

// The fastest of `plans` and, when `own` is given, the plugin's own kernel
// (*best == plans.size()) when calls stream back to back: each plan's
// cost is the larger of its GPU time and the host time to enqueue it
// (cudnnBackendExecute's own work: some engines launch several kernels),
// since a stream of calls runs at the slower of the two. Large problems
// are ruled by the GPU time, as with cudnn.benchmark; small ones, where the
// GPU finishes before the host has enqueued the next call, by the enqueue.
// With CUDA graphs on (Note [Conv graphs]) the GPU time alone: a replay's
// host time is one graph launch whichever the engine (3.5–4 µs a call from
// Python on the H100), and the plan's first capture checks that its
// replays are no slower than its plain executes.
//
// The GPU time is that of 3 runs queued back to back behind a spinning
// kernel (gpu_spin.h), so they start only once all are enqueued: timed
// one run at a time from an idle GPU, the events also counted the host's
// enqueue (9–13 µs of 24–30 on f16 64→64 3×3 56² NHWC), and the search
// chose the engine quickest to enqueue over PyTorch's, 20 % faster on the
// GPU. One warm-up run, then 2 such bursts: the faster counts, for the GPU
// time and the host time alike (a shared host's noise only adds time).
// Plans that fail to run are dropped.
sy_error_t* Fastest(const CudnnBuilder& b, cudnnHandle_t handle,
                    const gpu::Stream& stream, Scratch& scratch,
                    std::vector<std::unique_ptr<CudnnPlan>>& plans,
                    const ImplicitGemmConvArgs* own, const ConvKey& k,
                    const ConvPointers& ptrs, size_t* best, std::string* report) {
  int64_t most = 0;
  for (const auto& p : plans) most = std::max(most, p->workspace);
  void* workspace = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(scratch.Get(static_cast<size_t>(most), b.op(),
                                        "allocating the engine search's workspace",
                                        &workspace));
  cudaEvent_t start = nullptr, end = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(CudaError(cudaEventCreate(&start), "cuda plugin: conv2d",
                                      "creating a timing event failed"));
  sy_error_t* error = CudaError(cudaEventCreate(&end), "cuda plugin: conv2d",
                                "creating a timing event failed");
  float best_ms = -1;
  const size_t candidates = plans.size() + (own != nullptr ? 1 : 0);
  for (size_t i = 0; i < candidates && error == nullptr; ++i) {
    constexpr int kBursts = 2, kRuns = 3;
    constexpr int64_t kSpinNs = 300'000;  // > 3 enqueues of the slowest engines (~30 µs)
    float gpu = std::numeric_limits<float>::infinity(), host = gpu;
    const bool is_own = i == plans.size();
    const std::string_view name = is_own ? kOwnKernel : plans[i]->engine;
    const auto run = [&] {
      if (is_own) return LaunchImplicitGemmConv(*own, stream.stream) == cudaSuccess;
      sy_error_t* e = Execute(b, handle, *plans[i], k, ptrs, workspace);
      DropError(e);
      return e == nullptr;
    };
    bool ok = run() && cudaStreamSynchronize(stream.stream) == cudaSuccess;  // warm-up
    for (int burst = 0; burst < kBursts && ok; ++burst) {
      ok = LaunchSpin(stream.stream, kSpinNs) == cudaSuccess &&
           cudaEventRecord(start, stream.stream) == cudaSuccess;
      const auto host_start = std::chrono::steady_clock::now();
      for (int r = 0; r < kRuns && ok; ++r) ok = run();
      const auto host_end = std::chrono::steady_clock::now();
      float ms = 0;
      ok = ok && cudaEventRecord(end, stream.stream) == cudaSuccess &&
           cudaEventSynchronize(end) == cudaSuccess &&
           cudaEventElapsedTime(&ms, start, end) == cudaSuccess;
      if (!ok) break;
      const float host_ms =
          std::chrono::duration<float, std::milli>(host_end - host_start).count();
      gpu = std::min(gpu, ms / kRuns);
      host = std::min(host, host_ms / kRuns);
    }
    if (!ok) (void)cudaStreamSynchronize(stream.stream);
    (void)cudaGetLastError();
    if (!ok) {
      *report += StrCat(name, " failed; ");
      continue;
    }
    const float cost = k.graphs != 0 ? gpu : std::max(gpu, host);
    *report += StrCat(name, " ", gpu, " ms (enqueue ", host, " ms); ");
    if (best_ms < 0 || cost < best_ms) {
      best_ms = cost;
      *best = i;
    }
  }
  if (start != nullptr) cudaEventDestroy(start);
  if (end != nullptr) cudaEventDestroy(end);
  if (error == nullptr && best_ms < 0) {
    error = MakeError(SY_STATUS_UNIMPLEMENTED,
                      StrCat("cuda plugin: conv2d: no engine ran ",
                             Describe(k), " (", *report,
                             "); run conv2d on cpu"));
  }
  return error;
}

// Whether this call may use the plan's CUDA graphs (the key says the
// option is on): the caller's stream is not itself being captured (its
// capture would take our launch; the plain execute it records instead is
// what it wants).
bool UseGraphs(const gpu::Stream& stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream.stream, &status) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return status == cudaStreamCaptureStatusNone;
}

// Builds the key's plan: engine configurations, plans, and for variant
// -1 the measured pick among them.
Outcome Build(const CudnnLibrary& lib, cudnnHandle_t handle,
              const gpu::Stream& stream, Scratch& scratch, const ConvKey& k,
              const ConvPointers& ptrs, std::string_view op) {
  CudnnBuilder b(lib, op);
  Outcome out;
  // The plugin's own kernel joins the measured pick where it takes the
  // problem, and runs it alone where cuDNN cannot. Variant implicit_gemm
  // asks for it, and is the measured pick where it does not take the
  // problem.
  const bool ask_own = k.variant == kConv2dImplicitGemmVariant;
  const int heuristic = ask_own ? -1 : k.variant;
  const ImplicitGemmConvArgs own_args = OwnArgs(k, ptrs);
  const bool own = heuristic < 0 && ImplicitGemmConvTakes(own_args);
  if (ask_own && own) {
    out.own = true;
    return out;
  }
  // A failure of the builder: its text stays in the builder (an error
  // object cannot be kept in the cache). Anything but running out of
  // memory means cuDNN cannot take the problem: UNIMPLEMENTED.
  const auto fail = [&](sy_error_t* e, std::string_view what) {
    DropError(e);
    out.own = own;
    if (own) return out;
    out.code = b.last_code() == SY_STATUS_RESOURCE_EXHAUSTED
                   ? SY_STATUS_RESOURCE_EXHAUSTED
                   : SY_STATUS_UNIMPLEMENTED;
    out.error = StrCat(what, " of ", Describe(k), " failed: ",
                       b.last_error().empty() ? "no details" : b.last_error());
    return out;
  };
  CudnnDesc graph;
  if (sy_error_t* e = BuildGraph(b, handle, k, &graph)) return fail(e, "building the graph");
  static constexpr cudnnBackendNumericalNote_t kNoTf32[] = {
      CUDNN_NUMERICAL_NOTE_TENSOR_CORE, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS,
      CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION};
  static constexpr cudnnBackendNumericalNote_t kTf32[] = {
      CUDNN_NUMERICAL_NOTE_TENSOR_CORE, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS};
  static constexpr cudnnBackendNumericalNote_t kF32Accumulate[] = {
      CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION};
  // Option conv2d_reduced_precision (k.reduced) lifts the reduction note
  // only; f32 never runs TF32 either way.
  std::span<const cudnnBackendNumericalNote_t> refused;
  if (k.dtype == SY_DTYPE_F32) {
    refused = k.reduced ? std::span<const cudnnBackendNumericalNote_t>(kTf32)
                        : std::span<const cudnnBackendNumericalNote_t>(kNoTf32);
  } else if (!k.reduced) {
    refused = kF32Accumulate;
  }
  std::vector<CudnnDesc> configs;
  const int wanted = heuristic >= 0 ? 64 : kMaxTimed;
  if (sy_error_t* e = EngineConfigs(b, handle, graph, refused, wanted, &configs)) {
    return fail(e, "the engine heuristics");
  }
  std::vector<std::unique_ptr<CudnnPlan>> plans;
  std::string why;
  // Variant k: the k-th configuration that builds (the last, if fewer).
  for (CudnnDesc& config : configs) {
    auto plan = std::make_unique<CudnnPlan>();
    if (sy_error_t* e = MakePlan(b, handle, config, plan.get())) {
      DropError(e);
      why = b.last_error();
      continue;
    }
    if (plan->workspace > kMaxWorkspace) {
      why = StrCat(plan->engine, " wants ", plan->workspace, " bytes of workspace");
      continue;
    }
    plans.push_back(std::move(plan));
    if (heuristic >= 0 && static_cast<int>(plans.size()) > heuristic) break;
    if (heuristic < 0 && static_cast<int>(plans.size()) >= kMaxTimed) break;
  }
  if (plans.empty() && own) {
    out.own = true;
    return out;
  }
  if (plans.empty()) {
    out.code = SY_STATUS_UNIMPLEMENTED;
    out.error = StrCat("no cuDNN engine takes ", Describe(k), " (",
                       configs.size(), " configurations",
                       why.empty() ? std::string() : StrCat("; last: ", why), ")");
    return out;
  }
  size_t chosen = plans.size() - 1;
  if (heuristic < 0) {
    chosen = 0;
    if (plans.size() + (own ? 1 : 0) > 1) {
      std::string report;
      if (sy_error_t* e = Fastest(b, handle, stream, scratch, plans,
                                  own ? &own_args : nullptr, k, ptrs, &chosen,
                                  &report)) {
        DropError(e);
        out.code = SY_STATUS_UNIMPLEMENTED;
        out.error = StrCat("no engine ran ", Describe(k), " (", report, ")");
        return out;
      }
      plugin::Log(plugin::Host(), nullptr, SY_LOG_DEBUG,
                  StrCat("cuda plugin: conv2d: timed ", Describe(k), ": ", report,
                         "chose ",
                         chosen == plans.size() ? kOwnKernel
                                                : std::string_view(plans[chosen]->engine)));
    }
  }
  if (chosen == plans.size()) {
    out.own = true;
    return out;
  }
  out.plan = std::shared_ptr<const CudnnPlan>(std::move(plans[chosen]));
  return out;
}

}  // namespace

void SetConvPlanCacheCapacity(size_t problems) { Cache().SetCapacity(problems); }

sy_error_t* RunConvPlan(const CudnnLibrary& lib, CudnnHandleLease& lease,
                        const gpu::Stream& stream, Scratch& scratch,
                        const ConvKey& key, const ConvPointers& ptrs,
                        std::string_view op, bool* no_engine) {
  *no_engine = false;
  Outcome outcome;
  if (!Cache().Find(key, &outcome)) {
    SY_PLUGIN_RETURN_IF_ERROR(lease.Acquire(lib, stream, op));
    outcome = Build(lib, lease.get(), stream, scratch, key, ptrs, op);
    if (outcome.plan != nullptr) outcome.graphs = std::make_shared<ConvGraphs>(outcome.plan);
    // Resource exhaustion may pass; anything else is the problem's answer.
    if (outcome.plan != nullptr || outcome.code != SY_STATUS_RESOURCE_EXHAUSTED) {
      Cache().Insert(key, outcome);
    }
  }
  if (outcome.own) {  // the kernel took the key's problem when it was built
    return CudaError(LaunchImplicitGemmConv(OwnArgs(key, ptrs), stream.stream),
                     StrCat("cuda plugin: ", op),
                     "launching the implicit-GEMM convolution failed");
  }
  if (outcome.plan == nullptr) {
    if (outcome.code == SY_STATUS_UNIMPLEMENTED) {
      *no_engine = true;
      return nullptr;
    }
    return MakeError(outcome.code,
                     StrCat("cuda plugin: ", op, ": ", outcome.error,
                            "; free device memory, or run it on the cpu device"));
  }
  void* workspace = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(scratch.Get(static_cast<size_t>(outcome.plan->workspace),
                                        op, "allocating the cuDNN workspace failed",
                                        &workspace));
  const ConvGraphBuffers buffers{stream.stream, ptrs.x,  ptrs.w,
                                 ptrs.bias,     ptrs.y,  workspace};
  ConvGraphs::Step step = ConvGraphs::Step::kRunPlain;
  if (key.graphs != 0 && UseGraphs(stream)) {
    cudaError_t launched = cudaSuccess;
    step = outcome.graphs->LaunchOrPlan(buffers, &launched);
    if (step == ConvGraphs::Step::kLaunched) {
      return CudaError(launched, StrCat("cuda plugin: ", op),
                       "launching the convolution's CUDA graph failed");
    }
  }
  SY_PLUGIN_RETURN_IF_ERROR(lease.Acquire(lib, stream, op));
  const CudnnBuilder b(lib, op);
  if (step == ConvGraphs::Step::kCapture) {
    const PlainExecute execute = [&]() -> std::string {
      sy_error_t* e = Execute(b, lease.get(), *outcome.plan, key, ptrs, workspace);
      if (e == nullptr) return std::string();
      DropError(e);
      return b.last_error();
    };
    if (outcome.graphs->Capture(lib, lease, buffers, execute,
                                StrCat(outcome.plan->engine, " of ", Describe(key)))) {
      return nullptr;
    }
  }
  return Execute(b, lease.get(), *outcome.plan, key, ptrs, workspace);
}

}  // namespace sy::cuda
