#include "dispatcher/dispatch/call_plan.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "dispatcher/base/error.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/dispatch/kernel_call.h"
#include "dispatcher/dispatch/run.h"
#include "dispatcher/dispatch/shape_memo.h"
#include "dispatcher/memory/call_workspace.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_util.h"

namespace sy::core {
namespace {

constexpr int kEntries = 64;     // per thread, direct-mapped by op serial
constexpr int kMaxWords = 72;    // a call's signature
constexpr int kMaxInputs = 8;    // defined input tensors
constexpr int kMaxOutputs = 3;
constexpr int kMaxAttrs = 12;
constexpr int kMaxOffsets = 10;  // tensor arguments + 1

struct Plan {
  uint64_t op_serial = 0;  // 0: empty
  const OpDispatch* snapshot = nullptr;
  const DispatchSlot* slot = nullptr;
  const BucketTable* buckets = nullptr;  // null: the slot reads none
  Device* device = nullptr;
  KernelChoice choice;

  int num_words = 0;
  uint64_t words[kMaxWords];

  int num_inputs = 0;
  int32_t offsets[kMaxOffsets];
  int num_attrs = 0;
  sy_attr_t attrs[kMaxAttrs];
  uint32_t caller_lists = 0;  // attrs whose int list is the caller's memory
  int num_outputs = 0;
  sy_tensor_meta_t outputs[kMaxOutputs];
  // New outputs' bytes, for Tensor::EmptyChecked; 0: made by
  // NewKernelOutput (a layout of the op's own: Note [Attention output
  // layout], Note [Channels-last outputs]).
  size_t output_bytes[kMaxOutputs];
  // What Tensor::is_contiguous expects of each output's strides (dims of
  // size 1 excepted): the caller's outputs are checked against these.
  int64_t output_strides[kMaxOutputs][SY_MAX_RANK];
  uint32_t broadcast = 0;  // inputs viewed with `strides`
  int64_t strides[kMaxInputs][SY_MAX_RANK];
  // The kernel call as FillKernelCall makes it, but for what each call
  // sets: the views, the stream, the attributes and the workspace.
  sy_kernel_call_t call;
};

// One thread's plans, allocated on its first call and freed when it ends.
// `running` counts planned kernels running on the thread: a plan is not
// replaced while its kernel runs (a kernel calling back into the
// dispatcher would otherwise rewrite the attributes and strides it reads).
struct ThreadPlans {
  std::unique_ptr<Plan[]> table{new Plan[kEntries]};
  int running = 0;
  uint64_t planned = 0;  // calls run from a plan
};

ThreadPlans& Plans() {
  thread_local ThreadPlans plans;
  return plans;
}

// Where a signature is written; `size` counts past kMaxWords (too long to
// keep) without writing there.
struct Record {
  uint64_t* words;
  int size = 0;
  void Add(uint64_t word) {
    if (size < kMaxWords) words[size] = word;
    ++size;
  }
  bool fits() const { return size <= kMaxWords; }
};

// Compares the attribute words of a call's signature with a plan's while
// they are made (Matches): no buffer, no memcmp, no branch per word.
struct Match {
  const uint64_t* words;
  int size;  // the plan's
  int pos = 0;
  bool same = true;
  void Add(uint64_t word) {
    same &= pos < size && words[pos] == word;
    ++pos;
  }
  bool matched() const { return same && pos == size; }
};

// The first word of a call's signature: its argument counts.
uint64_t HeaderWord(const CallArgs& args) {
  return args.inputs.size() | uint64_t{args.attrs.size()} << 16 |
         uint64_t{args.list_sizes.size()} << 32;
}

// The word of a defined input after its device's address: what else of it
// is not shape or strides.
uint64_t TensorWord(const TensorImpl& impl) {
  return uint64_t{1} | uint64_t{impl.storage->symbolic()} << 1 |
         uint64_t{static_cast<uint32_t>(impl.meta.dtype)} << 8 |
         uint64_t{static_cast<uint32_t>(impl.meta.ndim)} << 32;
}

template <typename Sink>
bool SignAttrs(absl::Span<const sy_attr_t> attrs, Sink& sink) {
  for (const sy_attr_t& attr : attrs) {
    if (attr.kind == kAttrDefault) {  // the caller's "take the default"
      sink.Add(static_cast<uint64_t>(static_cast<uint32_t>(attr.kind)));
    } else if (!AppendAttrWords(attr, sink)) {
      return false;
    }
  }
  return true;
}

// The signature of a call's arguments as given (Note [Call plans]), into a
// Record. False for a call no plan may hold. Matches reads the same words.
bool Sign(const CallArgs& args, Record& sink) {
  sink.Add(HeaderWord(args));
  for (int32_t size : args.list_sizes) sink.Add(static_cast<uint64_t>(size));
  for (const Tensor* t : args.inputs) {
    if (t == nullptr || !t->defined()) {
      sink.Add(0);
      continue;
    }
    const TensorImpl& impl = *t->impl();
    sink.Add(reinterpret_cast<uintptr_t>(&impl.storage->device()));
    sink.Add(TensorWord(impl));
    for (int d = 0; d < impl.meta.ndim; ++d) {
      sink.Add(static_cast<uint64_t>(impl.meta.shape[d]));
      sink.Add(static_cast<uint64_t>(impl.strides[d]));
    }
  }
  return SignAttrs(args.attrs, sink);
}

// Whether a call's signature is `plan`'s, word for word as Sign writes it,
// leaving at the first difference. `inputs` receives the defined inputs.
bool Matches(const Plan& plan, const CallArgs& args, const Tensor** inputs) {
  const uint64_t* w = plan.words;
  const uint64_t* const end = w + plan.num_words;
  if (*w++ != HeaderWord(args)) return false;  // a plan has at least this word
  for (int32_t size : args.list_sizes) {
    if (w == end || *w++ != static_cast<uint64_t>(size)) return false;
  }
  int n = 0;
  for (const Tensor* t : args.inputs) {
    const TensorImpl* impl = t != nullptr ? t->impl() : nullptr;
    if (impl == nullptr) {
      if (w == end || *w++ != 0) return false;
      continue;
    }
    const int ndim = impl->meta.ndim;
    if (n == plan.num_inputs || end - w < 2 + 2 * ndim ||
        w[0] != reinterpret_cast<uintptr_t>(&impl->storage->device()) ||
        w[1] != TensorWord(*impl)) {
      return false;
    }
    w += 2;
    for (int d = 0; d < ndim; ++d, w += 2) {
      if (w[0] != static_cast<uint64_t>(impl->meta.shape[d]) ||
          w[1] != static_cast<uint64_t>(impl->strides[d])) {
        return false;
      }
    }
    inputs[n++] = t;
  }
  if (args.attrs.empty()) return w == end;
  Match rest{w, static_cast<int>(end - w)};
  return SignAttrs(args.attrs, rest) && rest.matched();
}

// Whether a caller's output passes every check RunResolved makes (its
// error then comes from the whole path): the dtype, shape and device the
// plan's output has, contiguous (a strided output takes the whole path,
// which checks it for self-overlap), and no storage shared with an input.
bool OutputFits(const Plan& plan, int index, const Tensor* out,
                const Tensor* const* inputs) {
  const TensorImpl* impl = out != nullptr ? out->impl() : nullptr;
  if (impl == nullptr) return false;
  const Storage& storage = *impl->storage;
  const sy_tensor_meta_t& want = plan.outputs[index];
  if (&storage.device() != plan.device || storage.symbolic() ||
      impl->meta.dtype != want.dtype || impl->meta.ndim != want.ndim) {
    return false;
  }
  const int64_t* contiguous = plan.output_strides[index];
  for (int d = 0; d < want.ndim; ++d) {
    if (impl->meta.shape[d] != want.shape[d] ||
        (impl->strides[d] != contiguous[d] && want.shape[d] != 1)) {
      return false;
    }
  }
  for (int j = 0; j < plan.num_inputs; ++j) {
    if (&inputs[j]->storage() == &storage) return false;
  }
  return true;
}

}  // namespace

std::optional<absl::Status> RunPlanned(const OpDef& op, const CallArgs& args) {
  if (args.route.kind != RouteRequest::Kind::kDefault || CaptureActive()) {
    return std::nullopt;
  }
  ThreadPlans& plans = Plans();
  const Plan& plan = plans.table[op.serial() % kEntries];
  if (plan.op_serial != op.serial() || op.dispatch() != plan.snapshot ||
      (plan.buckets != nullptr && plan.slot->bucket_table() != plan.buckets)) {
    return std::nullopt;
  }
  const Tensor* inputs[kMaxInputs];  // the defined ones
  if (!Matches(plan, args, inputs)) return std::nullopt;

  // Outputs: the caller's, checked, or new ones, made in `produced` (and
  // taken out again if the call does not complete).
  const Tensor* outputs[kMaxOutputs];
  TensorList* produced = args.produced;
  const size_t first_new = produced != nullptr ? produced->size() : 0;
  auto drop_new = [&] {
    if (produced != nullptr) produced->resize(first_new);
  };
  if (produced == nullptr) {
    if (args.outputs.size() != static_cast<size_t>(plan.num_outputs)) {
      return std::nullopt;
    }
    for (int i = 0; i < plan.num_outputs; ++i) {
      if (!OutputFits(plan, i, args.outputs[i], inputs)) return std::nullopt;
      outputs[i] = args.outputs[i];
    }
  } else {
    for (int i = 0; i < plan.num_outputs; ++i) {
      absl::StatusOr<Tensor> out =
          plan.output_bytes[i] != 0
              ? Tensor::EmptyChecked(*plan.device, plan.outputs[i], plan.output_bytes[i])
              : NewKernelOutput(op, *plan.device, plan.outputs[i], args.inputs);
      if (!out.ok()) {
        drop_new();
        return out.status();
      }
      produced->push_back(*std::move(out));
    }
    // Addresses taken once every output is in: pushing may move them.
    for (int i = 0; i < plan.num_outputs; ++i) outputs[i] = &(*produced)[first_new + i];
  }

  // The kernel call: the plan's, with this call's views.
  sy_tensor_view_t input_views[kMaxInputs];
  for (int j = 0; j < plan.num_inputs; ++j) {
    input_views[j] = inputs[j]->view();
    if ((plan.broadcast >> j) & 1u) {
      input_views[j].ndim = plan.outputs[0].ndim;
      input_views[j].shape = plan.outputs[0].shape;
      input_views[j].strides = plan.strides[j];
    }
  }
  sy_tensor_view_t output_views[kMaxOutputs];
  for (int i = 0; i < plan.num_outputs; ++i) output_views[i] = outputs[i]->view();
  sy_kernel_call_t call = plan.call;
  call.inputs = input_views;
  call.outputs = output_views;
  call.stream = plan.device->stream();
  sy_attr_t caller_attrs[kMaxAttrs];
  if (plan.caller_lists != 0) {
    std::copy(plan.attrs, plan.attrs + plan.num_attrs, caller_attrs);
    for (int j = 0; j < plan.num_attrs; ++j) {
      if ((plan.caller_lists >> j) & 1u) caller_attrs[j].value.ints = args.attrs[j].value.ints;
    }
    call.attrs = caller_attrs;
  }
  sy_call_context_t workspace(*plan.device);
  call.host_call = &workspace;

  ++plans.running;
  sy_error_t* error = plan.choice.kernel->fn(&call);
  --plans.running;
  if (error == nullptr) {
    ++plans.planned;
    return absl::OkStatus();
  }
  drop_new();
  if (error->code == SY_STATUS_KERNEL_DECLINED) {
    DestroyError(error);  // the whole path runs it and handles the decline
    return std::nullopt;
  }
  return KernelFailure(op, *plan.choice.kernel, *plan.device, error);
}

uint64_t PlannedCallsOnThisThread() { return Plans().planned; }

void RememberPlan(const CallArgs& args, const BoundCall& bound,
                  const Resolution& resolution) {
  const OpDef& op = *bound.op;
  ThreadPlans& plans = Plans();
  if (plans.running > 0 || resolution.route != Route::kKernel ||
      resolution.requested || resolution.slot == nullptr ||
      args.route.kind != RouteRequest::Kind::kDefault || CaptureActive() ||
      op.kind() == OpKind::kCollective ||
      bound.tensors.size() > static_cast<size_t>(kMaxInputs) ||
      bound.outputs.size() > static_cast<size_t>(kMaxOutputs) ||
      bound.attrs.size() > static_cast<size_t>(kMaxAttrs) ||
      bound.offsets.size() > static_cast<size_t>(kMaxOffsets)) {
    return;
  }
  // Made from the snapshot now published, or not at all.
  const OpDispatch* snapshot = op.dispatch();
  if (snapshot == nullptr || snapshot->Find(bound.key()) != resolution.slot) {
    return;
  }
  const DispatchSlot& slot = *resolution.slot;
  const BucketTable* buckets = nullptr;
  if (slot.needs_bucket) {
    // Only a choice the bucket table holds is the same on the next call; a
    // bucket a full table does not keep is queried again each time.
    buckets = slot.bucket_table();
    const BucketChoice* entry =
        buckets == nullptr
            ? nullptr
            : buckets->Find(BucketSignatureOf(bound.metas.data(), bound.tensors.data(),
                                              bound.tensors.size()));
    if (entry == nullptr || entry->choice != resolution.choice_index ||
        entry->tuned != resolution.tuned_bucket) {
      return;
    }
  }
  Plan& plan = plans.table[op.serial() % kEntries];
  plan.op_serial = 0;  // empty until complete
  Record signature{plan.words};
  if (!Sign(args, signature) || !signature.fits()) return;
  plan.num_words = signature.size;
  plan.snapshot = snapshot;
  plan.slot = &slot;
  plan.buckets = buckets;
  plan.device = bound.device;
  plan.choice = resolution.kernel;
  plan.num_inputs = static_cast<int>(bound.tensors.size());
  std::copy(bound.offsets.begin(), bound.offsets.end(), plan.offsets);
  plan.num_attrs = static_cast<int>(bound.attrs.size());
  std::copy(bound.attrs.begin(), bound.attrs.end(), plan.attrs);
  plan.caller_lists = 0;
  for (size_t j = 0; j < args.attrs.size(); ++j) {
    if (args.attrs[j].kind == SY_ATTR_INTS) plan.caller_lists |= 1u << j;
  }
  plan.num_outputs = static_cast<int>(bound.outputs.size());
  std::copy(bound.outputs.begin(), bound.outputs.end(), plan.outputs);
  for (int i = 0; i < plan.num_outputs; ++i) {
    const sy_tensor_meta_t& meta = plan.outputs[i];
    const std::optional<int64_t> numel =
        NumElements(absl::MakeConstSpan(meta.shape, static_cast<size_t>(meta.ndim)));
    const bool own_layout = HasOwnOutputLayout(op, meta);
    plan.output_bytes[i] = numel.has_value() && !own_layout
                               ? static_cast<size_t>(*numel) * DTypeSize(meta.dtype)
                               : 0;
    int64_t expected = 1;  // as Tensor::is_contiguous walks them
    for (int d = meta.ndim - 1; d >= 0; --d) {
      plan.output_strides[i][d] = expected;
      expected *= meta.shape[d];
    }
  }
  plan.broadcast = 0;
  if (op.kind() == OpKind::kElementwise) {
    for (int i = 0; i < plan.num_inputs; ++i) {
      if (BroadcastInput(*bound.tensors[i], plan.outputs[0], plan.strides[i])) {
        plan.broadcast |= 1u << i;
      }
    }
  }
  KernelCallParts parts;
  parts.op = &op;
  parts.device = plan.device;
  parts.choice = &plan.choice;
  parts.input_offsets = plan.offsets;
  parts.attrs = plan.attrs;
  parts.num_attrs = plan.num_attrs;
  FillKernelCall(parts, nullptr, plan.num_inputs, nullptr, plan.num_outputs, plan.call);
  plan.op_serial = op.serial();
}

}  // namespace sy::core
