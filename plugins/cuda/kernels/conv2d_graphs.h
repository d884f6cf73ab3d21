// The CUDA graphs of one conv2d plan (Note [Conv graphs] in conv2d.h): one
// per set of buffers, replayed with one cudaGraphLaunch where
// cudnnBackendExecute would cost a variant pack, the handle and cuDNN's
// own enqueue of each of the engine's kernels; kept only where a
// measurement says replays stream faster. conv2d_plans.cc says when;
// this file captures, measures and keeps.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_GRAPHS_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_GRAPHS_H_

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/cudnn_graph.h"
#include "kernels/cudnn_library.h"

namespace sy::cuda {

// What a captured graph baked in: the stream it is launched on (one graph
// is never launched on two streams at once) and every device pointer the
// plan reads or writes. Compared as a whole.
struct ConvGraphBuffers {
  cudaStream_t stream = nullptr;
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;

  bool operator==(const ConvGraphBuffers&) const = default;
};

// Enqueues the plan once, plainly, with the buffers being captured, on
// the stream the handle is bound to. Returns why it failed, or "".
using PlainExecute = std::function<std::string()>;

// The graphs of one plan. Thread-safe: one mutex, held across a launch
// (an executable graph must not be launched from two threads at once).
// Keeps the plan alive, so a plan is destroyed after its graphs.
class ConvGraphs {
 public:
  // Graphs kept per plan, and buffer sets remembered as seen once; the
  // least recently used is dropped first.
  static constexpr size_t kCapacity = 8;

  explicit ConvGraphs(std::shared_ptr<const CudnnPlan> plan)
      : plan_(std::move(plan)) {}
  ~ConvGraphs();  // destroys the executable graphs (in flight: on completion)
  ConvGraphs(const ConvGraphs&) = delete;
  ConvGraphs& operator=(const ConvGraphs&) = delete;

  enum class Step {
    kLaunched,  // the graph of the buffers was launched on their stream
    kCapture,   // their second call: capture them now (Capture)
    kRunPlain,  // a first call with them, or graphs do not serve this plan
  };
  // Launches the graph of `buffers` if there is one; else says what to do.
  // *launch_error is the launch's own failure (with kLaunched).
  Step LaunchOrPlan(const ConvGraphBuffers& buffers, cudaError_t* launch_error);

  // Captures `execute` for `buffers` on a private stream (other threads'
  // work on the caller's stream stays out of the graph; the mode is
  // thread-local, so their CUDA calls are not refused meanwhile), binding
  // `lease`'s handle to it and back to buffers.stream. The first capture
  // of a plan also times replays against plain executes, streamed back to
  // back (Note [Conv graphs]), and settles for the plan whether graphs
  // serve it. Then, where they do, keeps the graph and launches it:
  // returns true. False: nothing of the call's own work is left in flight
  // but what `execute` enqueued in the timing; the caller runs it plainly.
  // The debug log says what was decided and why.
  bool Capture(const CudnnLibrary& lib, CudnnHandleLease& lease,
               const ConvGraphBuffers& buffers, const PlainExecute& execute,
               std::string_view what);

 private:
  struct Entry {
    ConvGraphBuffers buffers;
    cudaGraphExec_t exec = nullptr;  // NULL: seen once, not captured
  };
  enum class Verdict { kUntried, kGraphs, kPlain };

  // The entry of `list` for `buffers`, or list.end().
  static std::vector<Entry>::iterator Find(std::vector<Entry>& list,
                                           const ConvGraphBuffers& buffers) {
    return std::find_if(list.begin(), list.end(),
                        [&](const Entry& e) { return e.buffers == buffers; });
  }

  // The graph of one execute, or why not ("" and *exec set).
  std::string Record(const CudnnLibrary& lib, CudnnHandleLease& lease,
                     const ConvGraphBuffers& buffers, const PlainExecute& execute,
                     cudaGraphExec_t* exec);
  // Microseconds a call of each kind takes, streamed back to back on
  // buffers.stream (the faster of 3 bursts of 5), or why not.
  std::string Time(const ConvGraphBuffers& buffers, const PlainExecute& execute,
                   cudaGraphExec_t exec, float* plain_us, float* graph_us);
  Verdict verdict() {
    std::lock_guard<std::mutex> lock(mu_);
    return verdict_;
  }
  void Settle(Verdict v);

  std::shared_ptr<const CudnnPlan> plan_;
  std::mutex mu_;
  Verdict verdict_ = Verdict::kUntried;
  std::vector<Entry> graphs_;   // most recently used first
  std::vector<Entry> pending_;  // seen once; most recent first
};

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_GRAPHS_H_
