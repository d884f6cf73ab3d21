// The recorder: the CallInterceptor (dispatcher/dispatch/capture.h) that
// writes each intercepted call into an OpGraph instead of running it, and
// hands back symbolic tensors (Note [Symbolic tensors]) for its outputs.
//
// What it records (Note [Buffers and values] in op_graph.h): a node per op
// call, with its bound attributes (copied) and input values; views become
// values, never nodes (the core's view function runs on the symbolic input,
// whose layout is the one the op's kernel writes: KernelOutputOrder,
// and a reshape that must copy records that copy); a call the dispatcher
// resolved to its decomposition is expanded into the decomposition's own
// calls when `expand_decompositions` is set (what the compiler's rebuild
// does), else recorded as the composite op.
//
// What ends a capture: an op listed as uncapturable (its output shape
// depends on the data), a call with caller-provided outputs (CallOut), a
// symbolic tensor of another capture, or an op of another runtime (the
// interception is per thread, not per dispatcher). The error names the op; every later
// call in the capture returns the same error, and so does Capture::End.
//
// Thread-safety: used only by the thread it intercepts for.
#ifndef SWITCHYARD_FUSION_CAPTURE_RECORDER_H_
#define SWITCHYARD_FUSION_CAPTURE_RECORDER_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "fusion/capture/op_graph.h"

namespace sy::fusion {

struct RecorderOptions {
  bool expand_decompositions = false;
  // Base names of ops whose output shape depends on input data; calling one
  // ends the capture. Plugins' ops of that kind belong here too.
  std::vector<std::string> uncapturable = {"nonzero", "unique", "masked_select"};
};

class Recorder : public core::CallInterceptor {
 public:
  Recorder(core::Dispatcher& dispatcher, OpGraph& graph, RecorderOptions options)
      : dispatcher_(dispatcher), graph_(graph), options_(std::move(options)) {}

  absl::StatusOr<core::TensorList> Record(
      const core::BoundCall& bound, const core::Resolution& resolution,
      absl::Span<const core::Tensor* const> provided) override;

  // Declares a graph input with `meta` and `strides` on `device`; returns
  // the symbolic tensor the captured code computes with.
  core::Tensor AddInput(core::Device& device, const sy_tensor_meta_t& meta,
                        absl::Span<const int64_t> strides, std::string name);

  // The value a tensor is (a graph input, a constant, or an op's result, in
  // some layout). `what` names it in errors ("output 'y'").
  absl::StatusOr<int> ValueOf(const core::Tensor& tensor, absl::string_view what);

  // OK, or the error that ended the capture.
  const absl::Status& failure() const { return failure_; }

 private:
  absl::Status Fail(absl::Status status);
  absl::StatusOr<int> BufferOf(const core::Tensor& tensor, absl::string_view what);

  core::Dispatcher& dispatcher_;
  OpGraph& graph_;
  RecorderOptions options_;
  absl::Status failure_;
  // Storage → buffer; the tensors in buffer_tensors_ keep each storage
  // alive, so an address is never reused while it is a key.
  absl::flat_hash_map<const core::Storage*, int> buffer_of_;
  std::vector<core::Tensor> buffer_tensors_;  // by buffer
};

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_CAPTURE_RECORDER_H_
