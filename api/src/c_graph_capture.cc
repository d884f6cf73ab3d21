// sy_graph_capture_*: the C face of fusion::Capture (fusion/graph.h).
//
// A capture is per thread (the dispatcher's interception is thread-local),
// so the C layer keeps the calling thread's capture in a thread_local: its
// context (kept alive by a shared_ptr, so that a capture outliving its
// context's handle never records into a destroyed runtime), and the
// fusion::Capture, which must be destroyed on the thread that began it —
// a thread_local's destructor runs there at thread exit.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/graph_capture.h"
#include "api/src/graph_object.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "fusion/capture/recorder.h"
#include "fusion/graph.h"

namespace sy::capi {
namespace {

struct ThreadCapture {
  uint64_t context_token = 0;
  // Declared first, so destroyed last: the capture's tensors need the runtime.
  std::shared_ptr<ContextState> context;
  std::unique_ptr<fusion::Capture> capture;
};

thread_local std::unique_ptr<ThreadCapture> t_capture;

// The context behind `handle`. A stale one that this thread still captures
// for loses its capture here (the header promises it).
absl::StatusOr<ContextObject*> FindContext(sy_context_t handle) {
  absl::StatusOr<ContextObject*> object =
      HandleTable::Instance().Find<ContextObject>(Token(handle), "context");
  if (!object.ok() && t_capture != nullptr && t_capture->context_token == Token(handle)) {
    t_capture.reset();
    return absl::Status(object.status().code(),
                        absl::StrCat(object.status().message(),
                                     "; this thread's capture of it was discarded"));
  }
  return object;
}

// This thread's capture of `handle`'s context.
absl::StatusOr<ThreadCapture*> CaptureOf(sy_context_t handle) {
  absl::StatusOr<ContextObject*> context = FindContext(handle);
  if (!context.ok()) return context.status();
  if (t_capture == nullptr) {
    return absl::FailedPreconditionError(
        "this thread does not capture a graph; call sy_graph_capture_begin first "
        "(a capture belongs to the thread that began it)");
  }
  if (t_capture->context.get() != (*context)->state.get()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "this thread captures a graph of another context (",
        TokenText(t_capture->context_token), "); pass that context, or end its "
        "capture first"));
  }
  return t_capture.get();
}

// A tensor argument of the capture's context.
absl::StatusOr<TensorObject*> TensorOfContext(sy_tensor_t handle, const ThreadCapture& c,
                                              const char* what) {
  absl::StatusOr<TensorObject*> tensor = TensorOf(handle, what);
  if (!tensor.ok()) return tensor.status();
  if ((*tensor)->context != c.context.get()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " belongs to another context than the capture's; tensors and the "
        "capture must come from the same context"));
  }
  return *tensor;
}

absl::Status Begin(sy_context_t handle, const sy_graph_capture_args_t* args) {
  absl::StatusOr<ContextObject*> context = FindContext(handle);
  if (!context.ok()) return context.status();
  fusion::CaptureOptions options;
  // CaptureOptions replaces the default list; the C API adds to it.
  options.uncapturable = fusion::RecorderOptions().uncapturable;
  if (args != nullptr) {
    if (absl::Status s = CheckStructSize(args->struct_size, sizeof(*args), "args",
                                         "sy_graph_capture_args_t");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckArray(args->uncapturable, args->num_uncapturable,
                                    "args->uncapturable");
        !s.ok()) {
      return s;
    }
    for (int32_t i = 0; i < args->num_uncapturable; ++i) {
      if (args->uncapturable[i] == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("args->uncapturable[", i, "] is NULL; pass an op's name"));
      }
      options.uncapturable.emplace_back(args->uncapturable[i]);
    }
  }
  if (t_capture != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "this thread already captures a graph of ",
        t_capture->context_token == Token(handle)
            ? std::string("this context")
            : absl::StrCat("context ", TokenText(t_capture->context_token)),
        "; captures do not nest — end it with sy_graph_capture_end first"));
  }
  ContextState& state = *(*context)->state;
  absl::StatusOr<std::unique_ptr<fusion::Capture>> capture =
      fusion::Capture::Begin(*state.runtime, std::move(options));
  if (!capture.ok()) return capture.status();
  auto thread_capture = std::make_unique<ThreadCapture>();
  thread_capture->context_token = Token(handle);
  thread_capture->context = state.shared_from_this();
  thread_capture->capture = *std::move(capture);
  t_capture = std::move(thread_capture);
  return absl::OkStatus();
}

absl::Status Input(sy_context_t handle, sy_tensor_t example, const char* name,
                   sy_tensor_t* out_input) {
  absl::StatusOr<ThreadCapture*> c = CaptureOf(handle);
  if (!c.ok()) return c.status();
  absl::StatusOr<TensorObject*> tensor = TensorOfContext(example, **c, "example");
  if (!tensor.ok()) return tensor.status();
  if (absl::Status s = CheckNotNull(out_input, "out_input"); !s.ok()) return s;
  if ((*tensor)->tensor.symbolic()) {
    return absl::InvalidArgumentError(
        "example is a symbolic tensor of a capture; declare inputs after real "
        "tensors (sy_tensor_empty makes one of any dtype and shape)");
  }
  absl::StatusOr<Tensor> input =
      (*c)->capture->Input((*tensor)->tensor, name == nullptr ? "" : name);
  if (!input.ok()) return input.status();
  absl::StatusOr<sy_tensor_t> made = NewTensorHandle(*(*c)->context, *std::move(input));
  if (!made.ok()) return made.status();
  *out_input = *made;
  return absl::OkStatus();
}

absl::Status Output(sy_context_t handle, sy_tensor_t tensor, const char* name) {
  absl::StatusOr<ThreadCapture*> c = CaptureOf(handle);
  if (!c.ok()) return c.status();
  absl::StatusOr<TensorObject*> t = TensorOfContext(tensor, **c, "tensor");
  if (!t.ok()) return t.status();
  return (*c)->capture->Output((*t)->tensor, name == nullptr ? "" : name);
}

absl::Status End(sy_context_t handle, sy_graph_t* out_graph) {
  absl::StatusOr<ThreadCapture*> c = CaptureOf(handle);
  if (!c.ok()) return c.status();
  // NULL changes nothing (the capture goes on); every other outcome ends it.
  if (absl::Status s = CheckNotNull(out_graph, "out_graph"); !s.ok()) return s;
  std::unique_ptr<ThreadCapture> ending = std::move(t_capture);
  absl::StatusOr<fusion::Graph> graph = ending->capture->End();
  if (!graph.ok()) return graph.status();
  absl::StatusOr<uint64_t> token =
      HandleTable::Instance().Add(new GraphObject(ending->context, *std::move(graph)));
  if (!token.ok()) return token.status();
  *out_graph = FromToken<sy_graph_t>(*token);
  return absl::OkStatus();
}

}  // namespace

void DiscardCaptureOf(uint64_t context_token) {
  if (t_capture != nullptr && t_capture->context_token == context_token) t_capture.reset();
}

}  // namespace sy::capi

using sy::capi::Guard;

extern "C" {

SY_API sy_status_code_t sy_graph_capture_args_init(sy_graph_capture_args_t* args) {
  return Guard("sy_graph_capture_args_init", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckNotNull(args, "args"); !s.ok()) return s;
    *args = sy_graph_capture_args_t{};
    args->struct_size = sizeof(*args);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_graph_capture_begin(sy_context_t context,
                                               const sy_graph_capture_args_t* args) {
  return Guard("sy_graph_capture_begin", [&] { return sy::capi::Begin(context, args); });
}

SY_API sy_status_code_t sy_graph_capture_input(sy_context_t context, sy_tensor_t example,
                                               const char* name, sy_tensor_t* out_input) {
  return Guard("sy_graph_capture_input",
               [&] { return sy::capi::Input(context, example, name, out_input); });
}

SY_API sy_status_code_t sy_graph_capture_output(sy_context_t context, sy_tensor_t tensor,
                                                const char* name) {
  return Guard("sy_graph_capture_output",
               [&] { return sy::capi::Output(context, tensor, name); });
}

SY_API sy_status_code_t sy_graph_capture_end(sy_context_t context, sy_graph_t* out_graph) {
  return Guard("sy_graph_capture_end", [&] { return sy::capi::End(context, out_graph); });
}

}  // extern "C"
