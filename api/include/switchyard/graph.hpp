// Switchyard — graphs in C++: RAII over switchyard/graph.h, included by
// switchyard.hpp (include that). The C header's rules hold (what a capture
// records, how inputs are declared, threads, errors).
//
//   sy::Graph graph;
//   {
//     auto capture = sy::GraphCapture::Begin(ctx).value();  // this thread records
//     sy::Tensor x = capture.Input(x0, "x").value();        // symbolic, like x0
//     sy::Tensor y = mul.call({x, w}).value()[0];           // recorded, not run
//     capture.Output(y, "y");
//     graph = std::move(capture).End().value();
//   }
//   graph.Compile();
//   std::vector<sy::Tensor> out = graph.Launch({x1}).value();
//
// Ownership: Graph owns its sy_graph_t (released with it; move-only);
// GraphCapture owns the calling thread's capture: destroyed without End,
// it ends the capture and discards it. Thread-safety: GraphCapture is used
// on the thread that began it; Graph is as thread-safe as the C functions
// (Launch from several threads at once is fine).
#ifndef SWITCHYARD_GRAPH_HPP_
#define SWITCHYARD_GRAPH_HPP_

#include <string>
#include <utility>
#include <vector>

#include "switchyard/base.hpp"
#include "switchyard/context.hpp"
#include "switchyard/device.hpp"
#include "switchyard/graph.h"
#include "switchyard/tensor.hpp"

namespace sy {

// sy_graph_compile_args_t with C++ defaults.
struct GraphCompileOptions {
  bool fuse = true;
  bool plugin_compilers = true;
  bool decompose = true;
  sy_graph_patterns_t patterns = SY_GRAPH_PATTERNS_MEASURED;
};

// One input or output of a graph, as captured.
struct GraphValueInfo {
  std::string name;
  sy_dtype_t dtype = SY_DTYPE_NONE;
  std::vector<int64_t> shape;
  Device device;
};

class Graph {
 public:
  Graph() = default;  // none; GraphCapture::End makes one
  // Takes over a handle the caller owns.
  static Graph Adopt(sy_graph_t handle) { return Graph(handle); }
  Graph(Graph&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Graph& operator=(Graph&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() { reset(); }

  void reset() {
    if (handle_ != nullptr) sy_graph_release(std::exchange(handle_, nullptr));
  }
  sy_graph_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

  Status Compile(const GraphCompileOptions& options = {}) const {
    sy_graph_compile_args_t args;
    sy_graph_compile_args_init(&args);
    args.fuse = options.fuse ? 1 : 0;
    args.plugin_compilers = options.plugin_compilers ? 1 : 0;
    args.decompose = options.decompose ? 1 : 0;
    args.patterns = options.patterns;
    return Status::FromCode(sy_graph_compile(handle_, &args));
  }

  // New inputs of the captured dtypes, shapes and devices, in order.
  Result<std::vector<Tensor>> Launch(const std::vector<Tensor>& inputs) const {
    std::vector<sy_tensor_t> in;
    in.reserve(inputs.size());
    for (const Tensor& t : inputs) in.push_back(t.get());
    Result<sy_graph_info_t> i = info();
    if (!i.ok()) return i.status();
    std::vector<sy_tensor_t> made(static_cast<size_t>(i->num_outputs));
    if (sy_status_code_t code =
            sy_graph_launch(handle_, in.data(), static_cast<int32_t>(in.size()), made.data(),
                            static_cast<int32_t>(made.size()));
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<Tensor> out;
    out.reserve(made.size());
    for (sy_tensor_t t : made) out.push_back(Tensor::Adopt(t));
    return out;
  }

  Result<sy_graph_info_t> info() const {
    sy_graph_info_t c{};
    c.struct_size = sizeof c;
    if (sy_status_code_t code = sy_graph_get_info(handle_, &c); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return c;
  }
  Result<GraphValueInfo> input(int32_t index) const { return Value(0, index); }
  Result<GraphValueInfo> output(int32_t index) const { return Value(1, index); }

  // sy_graph_explain: text, or JSON with SY_GRAPH_EXPLAIN_JSON.
  Result<std::string> explain(int32_t flags = 0) const {
    const char* text = nullptr;
    if (sy_status_code_t code = sy_graph_explain(handle_, flags, &text);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(text);
  }

 private:
  explicit Graph(sy_graph_t handle) : handle_(handle) {}
  Result<GraphValueInfo> Value(int32_t is_output, int32_t index) const {
    sy_graph_value_info_t c{};
    c.struct_size = sizeof c;
    if (sy_status_code_t code = sy_graph_get_value(handle_, is_output, index, &c);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return GraphValueInfo{c.name, c.dtype, std::vector<int64_t>(c.shape, c.shape + c.ndim),
                          Device(c.device)};
  }
  sy_graph_t handle_ = nullptr;
};

// The calling thread's capture of one context, as a scope.
class GraphCapture {
 public:
  // Extra op names that end a capture (sy_graph_capture_args_t).
  static Result<GraphCapture> Begin(const Context& context,
                                    const std::vector<std::string>& uncapturable = {}) {
    std::vector<const char*> names;
    for (const std::string& n : uncapturable) names.push_back(n.c_str());
    sy_graph_capture_args_t args;
    sy_graph_capture_args_init(&args);
    args.uncapturable = names.data();
    args.num_uncapturable = static_cast<int32_t>(names.size());
    if (sy_status_code_t code = sy_graph_capture_begin(context.get(), &args);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return GraphCapture(context.get());
  }
  GraphCapture(GraphCapture&& other) noexcept
      : context_(std::exchange(other.context_, nullptr)) {}
  GraphCapture& operator=(GraphCapture&& other) noexcept {
    if (this != &other) {
      Discard();
      context_ = std::exchange(other.context_, nullptr);
    }
    return *this;
  }
  GraphCapture(const GraphCapture&) = delete;
  GraphCapture& operator=(const GraphCapture&) = delete;
  ~GraphCapture() { Discard(); }

  // The next graph input, shaped like `example`: the symbolic tensor to
  // compute with.
  Result<Tensor> Input(const Tensor& example, const std::string& name = "") const {
    sy_tensor_t t = nullptr;
    if (sy_status_code_t code = sy_graph_capture_input(
            context_, example.get(), name.empty() ? nullptr : name.c_str(), &t);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Tensor::Adopt(t);
  }
  Status Output(const Tensor& tensor, const std::string& name = "") const {
    return Status::FromCode(sy_graph_capture_output(context_, tensor.get(),
                                                    name.empty() ? nullptr : name.c_str()));
  }
  // Ends the capture (whatever the outcome) and returns the graph.
  Result<Graph> End() && {
    sy_graph_t g = nullptr;
    sy_status_code_t code = sy_graph_capture_end(std::exchange(context_, nullptr), &g);
    if (code != SY_STATUS_OK) return Status::FromCode(code);
    return Graph::Adopt(g);
  }

 private:
  explicit GraphCapture(sy_context_t context) : context_(context) {}
  void Discard() {
    if (context_ == nullptr) return;
    sy_graph_t g = nullptr;
    if (sy_graph_capture_end(std::exchange(context_, nullptr), &g) == SY_STATUS_OK) {
      sy_graph_release(g);
    }
  }
  sy_context_t context_ = nullptr;
};

}  // namespace sy

#endif  // SWITCHYARD_GRAPH_HPP_
