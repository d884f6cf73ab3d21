#include "dispatcher/dispatch/run.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/base/error.h"
#include "dispatcher/dispatch/cpu_fallback.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/dispatch/kernel_call.h"
#include "dispatcher/memory/call_workspace.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"

namespace sy::core {
namespace {

// True when two indices of `t` may reach one element: a stride 0 on a
// dimension of size > 1, or strides that do not each step past everything
// the smaller ones reach. False means no overlap for certain (the
// sufficient condition holds for every layout the core makes but a
// broadcast).
bool MayOverlapItself(const Tensor& t) {
  struct Dim {
    int64_t size, stride;
  };
  Dim dims[SY_MAX_RANK];
  int n = 0;
  for (int d = 0; d < t.ndim(); ++d) {
    if (t.shape()[d] == 0) return false;  // no elements, nothing overlaps
    if (t.shape()[d] > 1) dims[n++] = {t.shape()[d], t.strides()[d]};
  }
  std::sort(dims, dims + n, [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  int64_t reach = 0;  // the largest offset the smaller strides reach
  for (int i = 0; i < n; ++i) {
    if (dims[i].stride <= reach) return true;
    reach += (dims[i].size - 1) * dims[i].stride;
  }
  return false;
}

// DLPack's kDLCPU: the host device, whose kernels run synchronously.
constexpr int32_t kDlpackCpu = 1;

// Two events around a kernel on an asynchronous device, for a trace: the
// resolver waits for the end, reads the time and destroys both. Failing to
// make or record them costs the trace this call's device time, nothing else.
class DeviceSpan {
 public:
  explicit DeviceSpan(const Device& device)
      : device_(device), api_(device.type().api()) {}
  ~DeviceSpan() {
    if (start_ != nullptr) Destroy(api_.event_destroy(api_.device_data, start_));
    if (end_ != nullptr) Destroy(api_.event_destroy(api_.device_data, end_));
  }

  bool Begin() {
    return Ok(api_.event_create(api_.device_data, device_.index(), &start_)) &&
           Ok(api_.event_create(api_.device_data, device_.index(), &end_)) &&
           Ok(api_.event_record(api_.device_data, start_, device_.stream()));
  }

  // The resolver; the span gives its events up to it.
  trace::DeviceTime Finish() {
    if (!Ok(api_.event_record(api_.device_data, end_, device_.stream()))) return {};
    const sy_device_api_t* api = &api_;
    sy_event_t start = std::exchange(start_, nullptr);
    sy_event_t end = std::exchange(end_, nullptr);
    return [api, start, end]() -> float {
      float ms = -1;
      if (!Ok(api->event_synchronize(api->device_data, end)) ||
          !Ok(api->event_elapsed_ms(api->device_data, start, end, &ms))) {
        ms = -1;
      }
      Destroy(api->event_destroy(api->device_data, start));
      Destroy(api->event_destroy(api->device_data, end));
      return ms;
    };
  }

 private:
  static bool Ok(sy_error_t* error) {
    if (error == nullptr) return true;
    DestroyError(error);
    return false;
  }
  static void Destroy(sy_error_t* error) { Ok(error); }

  const Device& device_;
  const sy_device_api_t& api_;
  sy_event_t start_ = nullptr;
  sy_event_t end_ = nullptr;
};

// Runs one kernel choice into `outputs`. A decline comes back as Aborted
// with the kernel's reason.
absl::Status RunKernel(const BoundCall& bound, const KernelChoice& choice,
                       absl::Span<const Tensor* const> outputs) {
  KernelCallFrame frame(bound, outputs, choice);
  sy_call_context_t workspace(*bound.device);
  frame.call().host_call = &workspace;
  std::optional<DeviceSpan> span;
  if (trace::Enabled() && TracedDeviceTime() != nullptr &&
      bound.device->dl_device().device_type != kDlpackCpu) {
    span.emplace(*bound.device);
    if (!span->Begin()) span.reset();
  }
  sy_error_t* error = choice.kernel->fn(&frame.call());
  if (span.has_value() && error == nullptr) *TracedDeviceTime() = span->Finish();
  if (error == nullptr) return absl::OkStatus();
  if (error->code == SY_STATUS_KERNEL_DECLINED) {
    absl::Status declined = absl::AbortedError(
        error->message.empty() ? "no reason given" : error->message);
    DestroyError(error);
    return declined;
  }
  return KernelFailure(*bound.op, *choice.kernel, *bound.device, error);
}

// Copies results of a view or decomposition into caller-provided outputs.
absl::Status CopyResults(Dispatcher& dispatcher, const OpDef& op,
                         absl::Span<const Tensor> results,
                         absl::Span<const Tensor* const> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = *outputs[i];
    if (!out.is_contiguous()) {
      return absl::UnimplementedError(absl::StrCat(
          op.full_name(), ": output #", i, " is not contiguous, and this op "
          "runs as a view or decomposition here, which writes only contiguous "
          "outputs; pass a contiguous output or let the op allocate it"));
    }
    absl::StatusOr<OpHandle> contiguous = dispatcher.FindOp("contiguous");
    if (!contiguous.ok()) return contiguous.status();
    absl::StatusOr<std::vector<Tensor>> dense =
        dispatcher.Call(*contiguous, {results[i]});
    if (!dense.ok()) return dense.status();
    absl::Status status = out.device().CopyAsync(
        out.data(), (*dense)[0].data(), out.nbytes(), SY_COPY_DEVICE_TO_DEVICE);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// Hands results (view, decomposition, fallback) to the caller.
absl::Status Deliver(Dispatcher& dispatcher, const BoundCall& bound,
                     std::vector<Tensor> results,
                     absl::Span<const Tensor* const> provided,
                     TensorList* produced) {
  if (produced != nullptr) {
    for (Tensor& t : results) produced->push_back(std::move(t));
    return absl::OkStatus();
  }
  return CopyResults(dispatcher, *bound.op, results, provided);
}

// The dim order of an [N, C, H, W] tensor laid out channels-last.
constexpr int kNhwc[] = {0, 2, 3, 1};

// Densely channels-last ([N, C, H, W] with memory order N, H, W, C) and not
// also contiguous: PyTorch's suggest_memory_format. Dims of size 1 take any
// stride.
bool ChannelsLast(const Tensor* t) {
  if (t == nullptr || !t->defined() || t->ndim() != 4) return false;
  const absl::Span<const int64_t> shape = t->shape();
  const absl::Span<const int64_t> strides = t->strides();
  int64_t want[4];
  OrderedStrides(shape, kNhwc, want);
  for (int d = 0; d < 4; ++d) {
    if (shape[d] != 1 && strides[d] != want[d]) return false;
  }
  return !t->is_contiguous();
}

// Whether `t` repeats elements along a dim (stride 0 where the size is
// more than 1): an expanded input, which orders no dims.
bool Broadcast(const Tensor& t) {
  for (int d = 0; d < t.ndim(); ++d) {
    if (t.shape()[d] != 1 && t.strides()[d] == 0) return true;
  }
  return false;
}

}  // namespace

bool HasOwnOutputLayout(const OpDef& op, const sy_tensor_meta_t& meta) {
  return op.output_layout() != OutputLayout::kContiguous && meta.ndim == 4;
}

absl::Span<const int> KernelOutputOrder(const OpDef& op, const sy_tensor_meta_t& meta,
                                        absl::Span<const Tensor* const> inputs) {
  if (!HasOwnOutputLayout(op, meta)) return {};
  if (op.output_layout() == OutputLayout::kHeadsInner) {
    static constexpr int kBlhe[] = {0, 2, 1, 3};  // Note [Attention output layout]
    return kBlhe;
  }
  if (op.output_layout() == OutputLayout::kLikeFirstFullInput) {
    // Note [Elementwise output layout]
    for (const Tensor* input : inputs) {
      if (input != nullptr && input->defined() && SameShape(*input, meta) &&
          !Broadcast(*input)) {
        return ChannelsLast(input) ? absl::Span<const int>(kNhwc) : absl::Span<const int>();
      }
    }
    return {};
  }
  // Note [Channels-last outputs]
  for (size_t i = 0; i < std::min<size_t>(inputs.size(), 2); ++i) {
    if (ChannelsLast(inputs[i])) return kNhwc;
  }
  return {};
}

void KernelOutputStrides(const OpDef& op, const sy_tensor_meta_t& meta,
                         absl::Span<const Tensor* const> inputs,
                         int64_t strides[SY_MAX_RANK]) {
  const absl::Span<const int64_t> shape(meta.shape, meta.ndim);
  const absl::Span<const int> order = KernelOutputOrder(op, meta, inputs);
  if (order.empty()) {
    ContiguousStrides(shape, strides);
  } else {
    OrderedStrides(shape, order, strides);
  }
}

absl::StatusOr<Tensor> NewKernelOutput(const OpDef& op, Device& device,
                                       const sy_tensor_meta_t& meta,
                                       absl::Span<const Tensor* const> inputs) {
  const absl::Span<const int> order = KernelOutputOrder(op, meta, inputs);
  return order.empty() ? Tensor::Empty(device, meta) : Tensor::Empty(device, meta, order);
}

absl::Status KernelFailure(const OpDef& op, const KernelEntry& kernel,
                           const Device& device, sy_error_t* error) {
  return TakeError(error, absl::StrCat(op.full_name(), ": kernel '",
                                       kernel.QualifiedName(), "' on ",
                                       device.label()));
}

trace::DeviceTime*& TracedDeviceTime() {
  thread_local trace::DeviceTime* slot = nullptr;
  return slot;
}

absl::Status CheckOutput(const BoundCall& bound, int i, const Tensor& out) {
  const OpDef& op = *bound.op;
  const sy_tensor_meta_t& want = bound.outputs[i];
  if (!out.defined() || out.dtype() != want.dtype || !SameShape(out, want) ||
      &out.device() != bound.device) {
    std::vector<int64_t> shape(want.shape, want.shape + want.ndim);
    return absl::InvalidArgumentError(absl::StrCat(
        op.full_name(), ": output #", i, " is ", out.Describe(),
        " but the op produces ", AsAbsl(DTypeName(want.dtype)), "[",
        absl::StrJoin(shape, ", "), "] on ", bound.device->label(),
        "; pass a tensor of exactly that dtype, shape and device"));
  }
  for (const Tensor* input : bound.tensors) {
    if (&input->storage() == &out.storage()) {
      return absl::InvalidArgumentError(absl::StrCat(
          op.full_name(), ": output #", i,
          " shares storage with an input; outputs must not alias inputs — "
          "pass a separate tensor"));
    }
  }
  if (!out.is_contiguous() && MayOverlapItself(out)) {
    return absl::InvalidArgumentError(absl::StrCat(
        op.full_name(), ": output #", i, " (", out.Describe(), ", strides [",
        absl::StrJoin(out.strides(), ", "), "]) may reach one element from "
        "two indices (a stride of 0, or overlapping strides), so a kernel "
        "would write it twice; pass a contiguous output"));
  }
  return absl::OkStatus();
}

absl::Status RunResolved(Dispatcher& dispatcher, const BoundCall& bound,
                         Resolution resolution,
                         absl::Span<const Tensor* const> provided,
                         TensorList* produced) {
  const OpDef& op = *bound.op;
  RuntimeState& state = dispatcher.state();
  if (produced == nullptr) {
    for (size_t i = 0; i < provided.size(); ++i) {
      absl::Status status = CheckOutput(bound, static_cast<int>(i), *provided[i]);
      if (!status.ok()) return status;
    }
  }
  switch (resolution.route) {
    case Route::kView: {
      if (op.view_fn() == nullptr) {
        return absl::InternalError(absl::StrCat(
            op.full_name(), " is marked as a view op but the core has no view "
            "function for it; this is a Switchyard bug, please report it"));
      }
      absl::StatusOr<Tensor> view = op.view_fn()(
          dispatcher, *bound.tensors[0], bound.context(), bound.outputs[0]);
      if (!view.ok()) return view.status();
      std::vector<Tensor> results;
      results.push_back(*std::move(view));
      return Deliver(dispatcher, bound, std::move(results), provided, produced);
    }
    case Route::kKernel: {
      SmallVector<const Tensor*, 2> outputs;
      TensorList fresh;
      if (produced != nullptr) {
        for (const sy_tensor_meta_t& meta : bound.outputs) {
          absl::StatusOr<Tensor> out = NewKernelOutput(op, *bound.device, meta, bound.tensors);
          if (!out.ok()) return out.status();
          fresh.push_back(*std::move(out));
        }
        for (const Tensor& t : fresh) outputs.push_back(&t);
      } else {
        for (const Tensor* t : provided) outputs.push_back(t);
      }
      while (true) {
        absl::Status status = RunKernel(bound, resolution.kernel, outputs);
        if (status.ok()) break;
        if (!absl::IsAborted(status)) return status;
        absl::StatusOr<Resolution> next =
            ResolveAfterDecline(state, bound, resolution, status.message());
        if (!next.ok()) return next.status();
        resolution = *std::move(next);
        if (resolution.route != Route::kKernel) {
          return RunResolved(dispatcher, bound, resolution, provided, produced);
        }
      }
      if (produced != nullptr) {
        for (Tensor& t : fresh) produced->push_back(std::move(t));
      }
      return absl::OkStatus();
    }
    case Route::kDecomposition: {
      std::vector<Tensor> flat;
      flat.reserve(bound.tensors.size());
      for (const Tensor* t : bound.tensors) flat.push_back(*t);
      absl::StatusOr<std::vector<Tensor>> results = op.decomposition()(
          dispatcher, DecompositionArgs{flat, bound.offsets, bound.attrs, &op});
      if (!results.ok()) return results.status();
      return Deliver(dispatcher, bound, *std::move(results), provided, produced);
    }
    case Route::kCpuFallback: {
      absl::StatusOr<std::vector<Tensor>> results = RunOnCpu(dispatcher, bound);
      if (!results.ok()) {
        return absl::IsUnimplemented(results.status())
                   ? NoKernelError(state, bound, resolution.declined)
                   : results.status();
      }
      return Deliver(dispatcher, bound, *std::move(results), provided, produced);
    }
  }
  return absl::InternalError("unknown route");
}

}  // namespace sy::core
