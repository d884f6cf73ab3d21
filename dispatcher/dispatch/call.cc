// The op call path: bind → shape → resolve → allocate → run.
// See Note [Dispatch snapshots] in kernel_table.h for why resolution is
// lock-free, and docs/architecture.md for the resolution order.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/dispatch/call_binding.h"
#include "dispatcher/dispatch/cpu_fallback.h"
#include "dispatcher/base/error.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/runtime/runtime.h"

namespace sy::core {
namespace {

// Strides that make `input` walk the output's shape (NumPy broadcasting:
// aligned at the right, stretched dims get stride 0).
void BroadcastStrides(const Tensor& input, const sy_tensor_meta_t& out,
                      int64_t* strides) {
  const int offset = out.ndim - input.ndim();
  for (int d = 0; d < out.ndim; ++d) {
    const int in_d = d - offset;
    if (in_d < 0 || (input.shape()[in_d] == 1 && out.shape[d] != 1)) {
      strides[d] = 0;
    } else {
      strides[d] = input.strides()[in_d];
    }
  }
}

// A plain loop: ranks are tiny, and std::equal on int64 becomes a memcmp
// call that costs more than the comparison.
bool SameShape(const Tensor& t, const sy_tensor_meta_t& meta) {
  if (t.ndim() != meta.ndim) return false;
  for (int d = 0; d < meta.ndim; ++d) {
    if (t.shape()[d] != meta.shape[d]) return false;
  }
  return true;
}

bool SharesStorage(const Tensor& a, const Tensor& b) {
  return &a.storage() == &b.storage();
}

absl::Status CheckOutput(const OpDef& op, const BoundCall& bound, int i,
                         const Tensor& out) {
  const sy_tensor_meta_t& want = bound.outputs[i];
  const bool same_shape = out.defined() && SameShape(out, want);
  if (!out.defined() || out.dtype() != want.dtype || !same_shape ||
      &out.device() != bound.device) {
    std::vector<int64_t> shape(want.shape, want.shape + want.ndim);
    return absl::InvalidArgumentError(absl::StrCat(
        op.full_name(), ": output #", i, " is ", out.Describe(),
        " but the op produces ", AsAbsl(DTypeName(want.dtype)), "[",
        absl::StrJoin(shape, ", "), "] on ", bound.device->label(),
        "; pass a tensor of exactly that dtype, shape and device"));
  }
  for (const Tensor* input : bound.tensors) {
    if (SharesStorage(*input, out)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op.full_name(), ": output #", i,
          " shares storage with an input; outputs must not alias inputs — "
          "pass a separate tensor"));
    }
  }
  return absl::OkStatus();
}

// Runs the chosen kernel on bound inputs into `outputs`.
absl::Status RunKernel(const BoundCall& bound, const DispatchSlot& slot,
                       absl::Span<const Tensor> outputs) {
  const OpDef& op = *bound.op;
  const size_t n = bound.tensors.size();
  SmallVector<sy_tensor_view_t, kInlineTensors> views;
  // Broadcast strides for elementwise ops live here, one row per input
  // that needs them (only those whose shape differs from the output's).
  SmallVector<int64_t, kInlineTensors * SY_MAX_RANK> strides;
  const bool elementwise = op.kind() == OpKind::kElementwise;
  for (size_t i = 0; i < n; ++i) {
    views.push_back(bound.tensors[i]->view());
    if (elementwise && !SameShape(*bound.tensors[i], bound.outputs[0])) {
      const sy_tensor_meta_t& out = bound.outputs[0];
      if (strides.empty()) strides.resize(n * SY_MAX_RANK);
      int64_t* row = strides.data() + i * SY_MAX_RANK;
      BroadcastStrides(*bound.tensors[i], out, row);
      views[i].ndim = out.ndim;
      views[i].shape = out.shape;
      views[i].strides = row;
    }
  }
  SmallVector<sy_tensor_view_t, 2> out_views;
  for (const Tensor& out : outputs) out_views.push_back(out.view());

  sy_kernel_call_t call;
  call.struct_size = sizeof(call);
  call.extension = nullptr;
  call.inputs = views.data();
  call.num_inputs = static_cast<int32_t>(n);
  call.num_tensor_args = op.num_tensor_args();
  call.input_offsets = bound.offsets.data();
  call.outputs = out_views.data();
  call.num_outputs = static_cast<int32_t>(outputs.size());
  call.num_attrs = static_cast<int32_t>(bound.attrs.size());
  call.attrs = bound.attrs.data();
  call.stream = bound.device->stream();
  call.variant = slot.variant;
  call.reserved = 0;
  call.variant_config = slot.variant_config;
  call.kernel_data = slot.kernel->kernel_data;
  sy_error_t* error = slot.kernel->fn(&call);
  if (error == nullptr) return absl::OkStatus();
  return TakeError(error, absl::StrCat(op.full_name(), ": kernel '",
                                       slot.kernel->QualifiedName(), "' on ",
                                       bound.device->label()));
}

// The "no kernel" error: what was asked, and who has the op.
absl::Status NoKernelError(RuntimeState& state, const BoundCall& bound) {
  const OpDef& op = *bound.op;
  std::vector<std::string> dtypes;
  for (int k = 0; k < op.num_tensor_args() && k < kMaxKeyedTensorArgs; ++k) {
    dtypes.emplace_back(DTypeName(bound.key_dtypes[k]));
  }
  std::vector<std::string> have;
  for (const KernelEntry* kernel : state.kernels.KernelsFor(&op)) {
    std::vector<std::string> names;
    for (sy_dtype_t d : kernel->dtypes) names.emplace_back(DTypeName(d));
    have.push_back(absl::StrCat(kernel->device_type_name, " (",
                                absl::StrJoin(names, ", "), ") from plugin '",
                                kernel->plugin ? kernel->plugin->name() : "?",
                                "'"));
  }
  std::sort(have.begin(), have.end());
  have.erase(std::unique(have.begin(), have.end()), have.end());
  return absl::UnimplementedError(absl::StrCat(
      "no kernel for ", op.full_name(), " with input dtypes (",
      absl::StrJoin(dtypes, ", "), ") on device ", bound.device->label(),
      ". Kernels exist for: ", have.empty() ? "none" : absl::StrJoin(have, "; "),
      ". Cast the inputs to a supported dtype, load a plugin that provides "
      "this combination, or set SWITCHYARD_CPU_FALLBACK=1 to run it on cpu "
      "with copies"));
}

// Copies decomposition results into caller-provided outputs.
absl::Status CopyResults(Runtime& runtime, const OpDef& op,
                         const std::vector<Tensor>& results,
                         absl::Span<const Tensor> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].is_contiguous()) {
      return absl::UnimplementedError(absl::StrCat(
          op.full_name(), ": output #", i, " is not contiguous, and this op "
          "runs as a decomposition here, which writes only contiguous "
          "outputs; pass a contiguous output or let the op allocate it"));
    }
    absl::StatusOr<OpHandle> contiguous = runtime.FindOp("contiguous");
    if (!contiguous.ok()) return contiguous.status();
    absl::StatusOr<std::vector<Tensor>> dense = runtime.Call(*contiguous, {results[i]});
    if (!dense.ok()) return dense.status();
    absl::Status status = outputs[i].device().CopyAsync(
        outputs[i].data(), (*dense)[0].data(), outputs[i].nbytes(),
        SY_COPY_DEVICE_TO_DEVICE);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace

// `provided`: caller's outputs (CallOut) or empty; `produced`: where newly
// allocated outputs go (Call).
static absl::Status Execute(Runtime& runtime, OpHandle handle,
                            absl::Span<const Tensor> inputs,
                            absl::Span<const Attr> attrs,
                            absl::Span<const int32_t> list_sizes,
                            absl::Span<const Tensor> provided,
                            std::vector<Tensor>* produced) {
  RuntimeState& state = runtime.state();
  const OpDef* op = handle.def();
  if (op == nullptr) {
    return absl::InvalidArgumentError(
        "op handle is empty; get one from Runtime::FindOp");
  }
  if (!op->live()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "op '", op->full_name(), "' was removed when plugin '", op->owner(),
        "' was unloaded; load the plugin again and look the op up anew"));
  }
  CallTracker::Scope in_flight(state.calls);
  BoundCall bound;
  absl::Status status = BindCall(*op, inputs, attrs, list_sizes, bound);
  if (!status.ok()) return status;

  if (produced == nullptr && provided.size() != bound.outputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        op->full_name(), ": produces ", bound.outputs.size(),
        " output(s) but ", provided.size(), " were passed"));
  }

  if (op->kind() == OpKind::kView) {
    if (op->view_fn() == nullptr) {
      return absl::InternalError(absl::StrCat(
          op->full_name(), " is marked as a view op but the core has no view "
          "function for it; this is a Switchyard bug, please report it"));
    }
    absl::StatusOr<Tensor> view = op->view_fn()(
        runtime, *bound.tensors[0], bound.context(), bound.outputs[0]);
    if (!view.ok()) return view.status();
    if (produced != nullptr) {
      produced->push_back(*std::move(view));
      return absl::OkStatus();
    }
    status = CheckOutput(*op, bound, 0, provided[0]);
    return status.ok() ? CopyResults(runtime, *op, {*view}, provided) : status;
  }

  const OpDispatch* table = op->dispatch();
  const DispatchSlot* slot = table != nullptr ? table->Find(bound.key()) : nullptr;

  if (slot != nullptr) {
    if (produced != nullptr) {
      produced->reserve(bound.outputs.size());
      for (const sy_tensor_meta_t& meta : bound.outputs) {
        absl::StatusOr<Tensor> out = Tensor::Empty(*bound.device, meta);
        if (!out.ok()) return out.status();
        produced->push_back(*std::move(out));
      }
      return RunKernel(bound, *slot, *produced);
    }
    for (size_t i = 0; i < provided.size(); ++i) {
      status = CheckOutput(*op, bound, static_cast<int>(i), provided[i]);
      if (!status.ok()) return status;
    }
    return RunKernel(bound, *slot, provided);
  }

  // No kernel: decomposition, then cpu fallback, then a clear error.
  std::vector<Tensor> results;
  bool decomposed = false;
  if (DecompositionFn decompose = op->decomposition()) {
    std::vector<Tensor> flat;
    for (const Tensor* t : bound.tensors) flat.push_back(*t);
    absl::StatusOr<std::vector<Tensor>> out = decompose(
        runtime, DecompositionArgs{flat, bound.offsets, bound.attrs, op});
    if (out.ok()) {
      results = *std::move(out);
      decomposed = true;
    } else if (!IsDeclinedDecomposition(out.status())) {
      return out.status();
    }
  }
  if (!decomposed) {
    if (!state.cpu_fallback || bound.device->type().name() == "cpu") {
      return NoKernelError(state, bound);
    }
    absl::StatusOr<std::vector<Tensor>> out =
        RunOnCpu(runtime, handle, bound, inputs, attrs, list_sizes);
    if (!out.ok()) {
      return out.status().code() == absl::StatusCode::kUnimplemented
                 ? NoKernelError(state, bound)
                 : out.status();
    }
    results = *std::move(out);
  }
  if (produced != nullptr) {
    *produced = std::move(results);
    return absl::OkStatus();
  }
  for (size_t i = 0; i < provided.size(); ++i) {
    status = CheckOutput(*op, bound, static_cast<int>(i), provided[i]);
    if (!status.ok()) return status;
  }
  return CopyResults(runtime, *op, results, provided);
}

absl::StatusOr<std::string> Runtime::Explain(OpHandle op,
                                             absl::Span<const Tensor> inputs,
                                             absl::Span<const Attr> attrs,
                                             absl::Span<const int32_t> list_sizes) {
  if (!op.valid()) return absl::InvalidArgumentError("op handle is empty");
  BoundCall bound;
  absl::Status status = BindCall(*op.def(), inputs, attrs, list_sizes, bound);
  if (!status.ok()) return status;
  if (op.def()->kind() == OpKind::kView) return std::string("view");
  const DispatchKey key = bound.key();
  const OpDispatch* table = op.def()->dispatch();
  if (const DispatchSlot* slot = table ? table->Find(key) : nullptr) {
    const char* why = "priority";
    switch (state_->kernels.ReasonFor(op.def(), key)) {
      case ChoiceReason::kPinned: why = "pinned"; break;
      case ChoiceReason::kTuned: why = "autotuned"; break;
      case ChoiceReason::kPriority: break;
    }
    return absl::StrCat("kernel ", slot->kernel->QualifiedName(), " (", why, ")");
  }
  if (op.def()->decomposition() != nullptr) return std::string("decomposition");
  if (state_->cpu_fallback && bound.device->type().name() != "cpu") {
    return std::string("cpu fallback");
  }
  return NoKernelError(*state_, bound);
}

absl::StatusOr<std::vector<Tensor>> Runtime::Call(
    OpHandle op, absl::Span<const Tensor> inputs, absl::Span<const Attr> attrs,
    absl::Span<const int32_t> list_sizes) {
  std::vector<Tensor> outputs;
  absl::Status status = Execute(*this, op, inputs, attrs, list_sizes, {}, &outputs);
  if (!status.ok()) return status;
  return outputs;
}

absl::StatusOr<std::vector<Tensor>> Runtime::CallDecomposed(
    OpHandle op, absl::Span<const Tensor> inputs, absl::Span<const Attr> attrs,
    absl::Span<const int32_t> list_sizes) {
  if (!op.valid()) return absl::InvalidArgumentError("op handle is empty");
  const DecompositionFn decompose = op.def()->decomposition();
  if (decompose == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        op.def()->full_name(), " has no decomposition; call it with Call"));
  }
  CallTracker::Scope in_flight(state_->calls);
  BoundCall bound;
  absl::Status status = BindCall(*op.def(), inputs, attrs, list_sizes, bound);
  if (!status.ok()) return status;
  std::vector<Tensor> flat;
  for (const Tensor* t : bound.tensors) flat.push_back(*t);
  absl::StatusOr<std::vector<Tensor>> out = decompose(
      *this, DecompositionArgs{flat, bound.offsets, bound.attrs, op.def()});
  if (!out.ok() && IsDeclinedDecomposition(out.status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        op.def()->full_name(), "'s decomposition does not apply to these "
        "inputs (", out.status().message(), ")"));
  }
  return out;
}

absl::Status Runtime::CallOut(OpHandle op, absl::Span<const Tensor> inputs,
                              absl::Span<const Attr> attrs,
                              absl::Span<const Tensor> outputs,
                              absl::Span<const int32_t> list_sizes) {
  return Execute(*this, op, inputs, attrs, list_sizes, outputs, nullptr);
}

}  // namespace sy::core
