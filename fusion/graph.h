// Graph capture, compilation and replay: the C++ surface of fusion/, which
// tests and benchmarks use and the C API (sy_graph_*) will wrap.
//
//   sy::fusion::Compiler compiler(dispatcher);          // one per runtime
//   auto capture = sy::fusion::Capture::Begin(dispatcher).value();
//   Tensor x = capture->Input(x0, "x").value();          // symbolic
//   Tensor y = capture->Input(y0, "y").value();
//   Tensor z = dispatcher.Call(add, {x, y}).value()[0];  // recorded, not run
//   capture->Output(z, "z");
//   sy::fusion::Graph graph = capture->End().value();
//   sy::fusion::CompiledGraph fused = compiler.Compile(graph).value();
//   std::vector<Tensor> out = fused.Launch({x1, y1}).value();  // runs
//
// Capture: between Begin and End every op the calling thread calls through
// the dispatcher is recorded, not run (dispatch/capture.h); its outputs are
// symbolic tensors (layout, no memory), which later ops take and views
// reshape. Real tensors the code uses without declaring them inputs are
// constants of the graph (a weight): the graph keeps them and reads their
// contents at every launch. An op that cannot be captured ends the capture
// with an error naming it (recorder.h). Other threads run as usual.
//
// Compile (docs/fusion.md): decompositions → dead code and common
// subexpressions → pattern kernels → fusion groups → fused kernels from the
// device's plugin (cached in memory and on disk) → a plan. A group the
// device's plugin cannot compile runs op by op, and Describe says why.
//
// Launch: the plan with new inputs of the captured dtypes, shapes and
// devices (an error names the first that differs); a contiguous-captured
// input may come strided (it is copied first). Outputs are new tensors.
//
// Lifetime: Graph, Compiler and CompiledGraph must not outlive the runtime
// (like tensors); a CompiledGraph holds its kernels, so it may outlive its
// Compiler. Thread-safety: Capture is used by one thread; Graph and
// CompiledGraph are immutable, and Launch may run on several threads at
// once; Compiler::Compile may be called from several threads.
#ifndef SWITCHYARD_FUSION_GRAPH_H_
#define SWITCHYARD_FUSION_GRAPH_H_

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/memory/tensor.h"
#include "fusion/backend/launch_tuning.h"

namespace sy::fusion {

class OpGraph;
class Recorder;
class KernelCache;
struct FusedKernel;
struct Plan;

// ---- Capture ---------------------------------------------------------------

struct CaptureOptions {
  // Base names of ops that end a capture (output shape depends on data);
  // empty keeps the default list (RecorderOptions).
  std::vector<std::string> uncapturable;
};

class Graph {
 public:
  Graph() = default;
  int num_inputs() const;
  int num_outputs() const;
  int num_ops() const;
  // The recorded ops, one per line, with their values and how each would
  // run now ("%2 = mul.Tensor(x, y) → kernel cpu::mul… (priority)").
  std::string Describe() const;
  const OpGraph& graph() const { return *graph_; }

 private:
  friend class Capture;
  friend class Compiler;
  std::shared_ptr<const OpGraph> graph_;
  core::Dispatcher* dispatcher_ = nullptr;
};

class Capture {
 public:
  // Starts recording the calling thread's op calls. Captures nest: the
  // innermost records; end them in reverse order of Begin, on this thread.
  static absl::StatusOr<std::unique_ptr<Capture>> Begin(core::Dispatcher& dispatcher,
                                                        CaptureOptions options = {});
  ~Capture();  // ends the recording if End was not called (on this thread)
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  // A graph input shaped like `example` (dtype, shape, strides, device; its
  // data is never read). Returns the symbolic tensor to compute with.
  absl::StatusOr<core::Tensor> Input(const core::Tensor& example, std::string name = "");
  absl::StatusOr<core::Tensor> Input(core::Device& device, sy_dtype_t dtype,
                                     absl::Span<const int64_t> shape,
                                     std::string name = "");
  // Marks a result as a graph output (in order of the calls).
  absl::Status Output(const core::Tensor& tensor, std::string name = "");
  // Stops recording and returns the graph, or the error that ended the
  // capture. At least one output must be marked.
  absl::StatusOr<Graph> End();

 private:
  Capture() = default;
  absl::Status CheckOpen(const char* what) const;

  core::Dispatcher* dispatcher_ = nullptr;
  std::thread::id thread_;
  std::shared_ptr<OpGraph> graph_;
  std::unique_ptr<Recorder> recorder_;
  std::optional<core::ScopedInterception> scope_;
  bool ended_ = false;
};

// ---- Compile ---------------------------------------------------------------

struct CompileOptions {
  // false: the plan runs every op as captured (the unfused baseline).
  bool fuse = true;
  // false: as if no plugin had fusion hooks (every group runs unfused).
  bool plugin_compilers = true;
  // Decompose softmax, log_softmax, layer_norm, rms_norm and contiguous
  // where the device has a fusion compiler, so they fuse with their
  // neighbours.
  bool decompose = true;
  // A composite whose decomposition would fuse with nothing (a group of its
  // parts alone) runs the op's own kernel where its device has one
  // (Note [Native single ops] in compile/compiler.cc; docs/fusion.md,
  // "Native kernels"); false: the fused kernel of its parts.
  bool native_single_ops = true;
  // Pattern kernels: used where measured faster than what runs otherwise,
  // always (tests), or never.
  enum class Patterns { kMeasured, kAlways, kOff };
  Patterns patterns = Patterns::kMeasured;
};

struct CompileStats {
  int captured_ops = 0;
  int ops_after_decomposition = 0;
  int dead_ops = 0;      // removed as dead code
  int merged_ops = 0;    // removed as common subexpressions
  int patterns = 0;      // matches replaced by a pattern kernel
  int fused_groups = 0;  // groups that run as one fused kernel
  int fused_ops = 0;     // ops inside them
  int unfused_groups = 0;  // groups no plugin compiled (run op by op)
  int kernels_compiled = 0;
  int kernels_from_memory = 0;
  int kernels_from_disk = 0;
  double codegen_ms = 0;  // in the plugins' compile_fused / load_fused
  // Launch configurations (docs/fusion.md, "Launch configurations"):
  // kernels whose configuration was measured now, or taken from the
  // autotune cache, and the time spent measuring.
  int launch_measured = 0;
  int launch_cached = 0;
  double launch_tune_ms = 0;
  double total_ms = 0;    // the whole Compile
};

class CompiledGraph {
 public:
  CompiledGraph() = default;
  // Runs the graph on new inputs (one per graph input, in order). The
  // work is enqueued on the devices' streams, like op calls.
  absl::StatusOr<std::vector<core::Tensor>> Launch(
      absl::Span<const core::Tensor> inputs) const;
  // The plan: each fused group with its ops and kernel, each op that runs
  // alone with its kernel and why it was not fused; with `kernels`, each
  // fused kernel's IR too (ir/fused_ir.h ToText).
  std::string Describe(bool kernels = false) const;
  const CompileStats& stats() const;
  // The IR of each fused kernel, in run order (ir/fused_ir.h); valid while
  // this graph lives. For tests and tools that check a plugin's code
  // generator on the kernels real graphs produce.
  std::vector<const FusedKernel*> fused_kernels() const;
  // The plan (compile/plan.h), or null before compilation.
  const Plan* plan() const { return plan_.get(); }

 private:
  friend class Compiler;
  std::shared_ptr<const Plan> plan_;
};

struct CompilerOptions {
  // Keep compiled kernels on disk (docs/fusion.md, "Kernel cache").
  bool disk_cache = true;
  // "" = DiskCache::DefaultDir() ($SWITCHYARD_CACHE_DIR/fusion, …).
  std::string cache_dir;
  // Launch configurations (backend/launch_tuning.h): the runtime's tuner
  // decides by its mode; without one every kernel runs configuration 0.
  LaunchTuning launch;
};

class Compiler {
 public:
  explicit Compiler(core::Dispatcher& dispatcher, CompilerOptions options = {});
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;

  absl::StatusOr<CompiledGraph> Compile(const Graph& graph,
                                        const CompileOptions& options = {});

  KernelCache& kernel_cache() { return *cache_; }

 private:
  core::Dispatcher* dispatcher_;
  std::shared_ptr<KernelCache> cache_;
  LaunchTuning launch_;
};

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_GRAPH_H_
