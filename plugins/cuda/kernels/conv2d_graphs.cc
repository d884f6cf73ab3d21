// A conv2d plan's CUDA graphs (conv2d_graphs.h).
#include "kernels/conv2d_graphs.h"

#include <algorithm>
#include <limits>

#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::StrCat;

constexpr std::string_view kOp = "conv2d";
// A replay within 3 % of a plain execute's time is as fast (timing noise).
constexpr float kTie = 1.03f;

void Debug(const std::string& line) {
  plugin::Log(plugin::Host(), nullptr, SY_LOG_DEBUG, StrCat("cuda plugin: conv2d: ", line));
}

// "what failed (cudaErrorX: text)", or "" for success.
std::string Why(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return "";
  return StrCat(what, " (", cudaGetErrorName(e), ": ", cudaGetErrorString(e), ")");
}

}  // namespace

ConvGraphs::~ConvGraphs() {
  for (const Entry& e : graphs_) cudaGraphExecDestroy(e.exec);
}

ConvGraphs::Step ConvGraphs::LaunchOrPlan(const ConvGraphBuffers& buffers,
                                          cudaError_t* launch_error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (verdict_ == Verdict::kPlain) return Step::kRunPlain;
  if (auto it = Find(graphs_, buffers); it != graphs_.end()) {
    std::rotate(graphs_.begin(), it, it + 1);  // most recently used first
    *launch_error = cudaGraphLaunch(graphs_.front().exec, buffers.stream);
    return Step::kLaunched;
  }
  if (auto it = Find(pending_, buffers); it != pending_.end()) {
    pending_.erase(it);
    return Step::kCapture;
  }
  // Seen for the first time: remember it, forgetting the oldest.
  if (pending_.size() == kCapacity) pending_.pop_back();
  pending_.insert(pending_.begin(), Entry{buffers, nullptr});
  return Step::kRunPlain;
}

bool ConvGraphs::Capture(const CudnnLibrary& lib, CudnnHandleLease& lease,
                         const ConvGraphBuffers& buffers, const PlainExecute& execute,
                         std::string_view what) {
  cudaGraphExec_t exec = nullptr;
  if (std::string why = Record(lib, lease, buffers, execute, &exec); !why.empty()) {
    Debug(StrCat(what, " runs without CUDA graphs: ", why));
    Settle(Verdict::kPlain);
    return false;
  }
  if (verdict() == Verdict::kUntried) {
    float plain_us = 0, graph_us = 0;
    const std::string why = Time(buffers, execute, exec, &plain_us, &graph_us);
    // Ties go to graphs: the host time they free serves the calls around.
    const bool graphs = why.empty() && graph_us <= plain_us * kTie;
    Debug(why.empty() ? StrCat(what, ": streamed back to back, a call takes ", graph_us,
                               " µs replayed from a CUDA graph and ", plain_us,
                               " µs executed plainly; ",
                               graphs ? "replays from now on" : "runs without graphs")
                      : StrCat(what, " runs without CUDA graphs: ", why));
    Settle(graphs ? Verdict::kGraphs : Verdict::kPlain);
    if (!graphs) {
      cudaGraphExecDestroy(exec);
      return false;
    }
  }
  cudaError_t launched = cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = Find(graphs_, buffers);
    if (verdict_ != Verdict::kGraphs) {
      cudaGraphExecDestroy(exec);
      return false;
    }
    if (it != graphs_.end()) {
      cudaGraphExecDestroy(exec);  // another thread captured them meanwhile
      std::rotate(graphs_.begin(), it, it + 1);
    } else {
      if (graphs_.size() == kCapacity) {
        cudaGraphExecDestroy(graphs_.back().exec);
        graphs_.pop_back();
      }
      graphs_.insert(graphs_.begin(), Entry{buffers, exec});
      Debug(StrCat("captured a CUDA graph of ", what, " (", graphs_.size(), " of ",
                   kCapacity, " for the plan)"));
    }
    launched = cudaGraphLaunch(graphs_.front().exec, buffers.stream);
  }
  if (launched != cudaSuccess) {
    (void)cudaGetLastError();
    Debug(StrCat(what, " runs without CUDA graphs: ",
                 Why(launched, "launching its graph failed")));
    Settle(Verdict::kPlain);
    return false;
  }
  return true;
}

std::string ConvGraphs::Record(const CudnnLibrary& lib, CudnnHandleLease& lease,
                               const ConvGraphBuffers& buffers,
                               const PlainExecute& execute, cudaGraphExec_t* exec) {
  cudaStream_t capture = nullptr;
  std::string why = Why(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking),
                        "creating the capture stream failed");
  if (!why.empty()) return why;
  cudaGraph_t graph = nullptr;
  if (sy_error_t* e = lease.Bind(lib, capture, kOp)) {
    DropError(e);
    why = "binding the cuDNN handle to the capture stream failed";
  } else {
    why = Why(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal),
              "beginning the capture failed");
    if (why.empty()) {
      why = execute();
      if (!why.empty()) why = StrCat("under capture, ", why);
      // Ended even when the execute failed, so the stream leaves capture.
      const std::string ended = Why(cudaStreamEndCapture(capture, &graph),
                                    "ending the capture failed");
      if (why.empty()) why = ended;
    }
    if (why.empty()) {
      why = Why(cudaGraphInstantiate(exec, graph, 0), "instantiating the graph failed");
    }
  }
  if (sy_error_t* e = lease.Bind(lib, buffers.stream, kOp)) {
    DropError(e);
    if (why.empty()) why = "binding the cuDNN handle back to the call's stream failed";
  }
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaStreamDestroy(capture);
  (void)cudaGetLastError();  // a failed capture leaves nothing sticky behind
  if (!why.empty() && *exec != nullptr) {
    cudaGraphExecDestroy(*exec);
    *exec = nullptr;
  }
  return why;
}

// From an idle GPU (the stream synchronized), a burst's GPU span is the
// larger of its kernels' time and the host's time to enqueue them, which
// is what a stream of calls runs at. A graph saves host time but can cost
// GPU time: on the H100, f16 and bf16 64→64 3×3 at 56² NHWC (N = 32) ran
// at 0.82–0.85 of PyTorch replayed, against 0.98–1.10 plainly (Note [Conv
// graphs]). So the first capture of a plan times both.
std::string ConvGraphs::Time(const ConvGraphBuffers& buffers, const PlainExecute& execute,
                             cudaGraphExec_t exec, float* plain_us, float* graph_us) {
  constexpr int kRounds = 3, kCalls = 5;
  cudaEvent_t start = nullptr, end = nullptr;
  std::string why = Why(cudaEventCreate(&start), "creating a timing event failed");
  if (why.empty()) why = Why(cudaEventCreate(&end), "creating a timing event failed");
  // The graph's first launch uploads it: not timed.
  if (why.empty()) why = Why(cudaGraphLaunch(exec, buffers.stream), "launching the graph failed");
  float best[2] = {std::numeric_limits<float>::infinity(),
                   std::numeric_limits<float>::infinity()};
  for (int r = 0; r < kRounds && why.empty(); ++r) {
    for (int replay = 0; replay < 2 && why.empty(); ++replay) {
      why = Why(cudaStreamSynchronize(buffers.stream), "synchronizing the stream failed");
      if (why.empty()) {
        why = Why(cudaEventRecord(start, buffers.stream), "recording an event failed");
      }
      for (int i = 0; i < kCalls && why.empty(); ++i) {
        why = replay != 0 ? Why(cudaGraphLaunch(exec, buffers.stream), "launching the graph failed")
                          : execute();
      }
      if (why.empty()) why = Why(cudaEventRecord(end, buffers.stream), "recording an event failed");
      if (why.empty()) why = Why(cudaEventSynchronize(end), "timing failed");
      float ms = 0;
      if (why.empty()) why = Why(cudaEventElapsedTime(&ms, start, end), "timing failed");
      if (why.empty()) best[replay] = std::min(best[replay], ms * 1000 / kCalls);
    }
  }
  if (start != nullptr) cudaEventDestroy(start);
  if (end != nullptr) cudaEventDestroy(end);
  (void)cudaGetLastError();
  *plain_us = best[0];
  *graph_us = best[1];
  return why;
}

void ConvGraphs::Settle(Verdict v) {
  std::lock_guard<std::mutex> lock(mu_);
  if (verdict_ == Verdict::kPlain) return;  // final
  verdict_ = v;
  if (v == Verdict::kPlain) {
    for (const Entry& e : graphs_) cudaGraphExecDestroy(e.exec);
    graphs_.clear();
    pending_.clear();
  }
}

}  // namespace sy::cuda
