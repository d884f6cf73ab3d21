#include "dispatcher/dispatch/resolve.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/log.h"
#include "dispatcher/dispatch/kernel_call.h"
#include "dispatcher/dispatch/tuning.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::core {
namespace {

bool NameMatches(const KernelEntry& entry, absl::string_view name) {
  return entry.name == name || entry.QualifiedName() == name;
}

Resolution KernelRoute(const DispatchSlot& slot, int index) {
  Resolution r;
  r.route = Route::kKernel;
  r.slot = &slot;
  r.choice_index = index;
  r.kernel = slot.choices[index];
  return r;
}

// The first choice of `slot` from `start` on that takes the call, querying
// the ones that may decline; remembers the answer for the call's bucket.
// `declined` collects "kernel: reason" of those that declined before.
absl::StatusOr<Resolution> FirstTaker(RuntimeState& state, const BoundCall& bound,
                                      const DispatchSlot& slot, int start,
                                      std::string declined) {
  const int n = static_cast<int>(slot.choices.size());
  int taker = -1;
  for (int i = start; i < n; ++i) {
    const KernelChoice& choice = slot.choices[i];
    if (!choice.kernel->may_decline()) {
      taker = i;
      break;
    }
    absl::Status answer = QueryKernel(bound, choice);
    if (answer.ok()) {
      taker = i;
      break;
    }
    if (!absl::IsAborted(answer)) return answer;
    absl::StrAppend(&declined, declined.empty() ? "" : "; ",
                    choice.kernel->QualifiedName(), ": ", answer.message());
  }
  BucketChoice remembered;
  remembered.choice = static_cast<int16_t>(taker);
  remembered.declined = declined;
  const ShapeBucket bucket = bound.bucket();
  state.kernels.RecordBucketChoice(bound.op, &slot, bucket, std::move(remembered));
  if (!declined.empty()) {
    Log(LogLevel::kDebug,
        absl::StrCat(bound.op->full_name(), " on ", bound.device->label(),
                     " for shapes ", bucket.ToString(), ": declined by ",
                     declined));
  }
  // The note must outlive this call: read it back from the table when it
  // was recorded there (a full table keeps nothing; the note is dropped).
  absl::string_view note;
  if (const BucketTable* table = slot.bucket_table()) {
    if (const BucketChoice* entry = table->Find(bucket)) note = entry->declined;
  }
  if (taker < 0) {
    Resolution none;
    none.route = Route::kDecomposition;  // refined by the caller
    none.slot = &slot;
    none.declined = note;
    return none;
  }
  Resolution r = KernelRoute(slot, taker);
  r.declined = note;
  return r;
}

// The route when no kernel takes the call: the decomposition, the cpu
// fallback, or the error.
absl::StatusOr<Resolution> WithoutKernel(RuntimeState& state,
                                         const BoundCall& bound,
                                         absl::string_view declined) {
  Resolution r;
  r.declined = declined;
  if (bound.op->kind() == OpKind::kCollective) {
    // Only the engine that made the communicator can run it: no
    // decomposition, no cpu fallback (docs/distributed.md).
    return NoKernelError(state, bound, declined);
  }
  if (bound.op->decomposition_applies(bound.metas)) {
    r.route = Route::kDecomposition;
    return r;
  }
  if (state.cpu_fallback && bound.device->type().name() != "cpu") {
    r.route = Route::kCpuFallback;
    return r;
  }
  return NoKernelError(state, bound, declined);
}

absl::StatusOr<Resolution> Requested(RuntimeState& state, const BoundCall& bound,
                                     const RouteRequest& request) {
  const OpDef& op = *bound.op;
  if (request.kind == RouteRequest::Kind::kDecomposition) {
    if (op.decomposition() == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          op.full_name(), " has no decomposition; call it without asking "
          "for one"));
    }
    if (!op.decomposition_applies(bound.metas)) {
      return absl::FailedPreconditionError(absl::StrCat(
          op.full_name(), "'s decomposition does not apply to these inputs "
          "(their dtypes need no promotion)"));
    }
    Resolution r;
    r.route = Route::kDecomposition;
    r.requested = true;
    return r;
  }
  const OpDispatch* table = op.dispatch();
  const DispatchSlot* slot = table != nullptr ? table->Find(bound.key()) : nullptr;
  std::vector<std::string> here;
  if (slot != nullptr) {
    for (size_t i = 0; i < slot->choices.size(); ++i) {
      const KernelChoice& choice = slot->choices[i];
      here.push_back(choice.kernel->QualifiedName());
      if (!NameMatches(*choice.kernel, request.kernel)) continue;
      const KernelEntry& kernel = *choice.kernel;
      if (request.variant < -1 ||
          request.variant >= static_cast<int32_t>(kernel.variants.size())) {
        return absl::OutOfRangeError(absl::StrCat(
            op.full_name(), ": kernel ", kernel.QualifiedName(), " has ",
            kernel.variants.size(), " variant(s); variant ", request.variant,
            " does not exist (use -1 for its default)"));
      }
      Resolution r = KernelRoute(*slot, static_cast<int>(i));
      r.requested = true;
      r.kernel.variant = request.variant;
      r.kernel.variant_config =
          request.variant >= 0 ? kernel.variants[request.variant].config.data()
                               : nullptr;
      if (kernel.may_decline()) {
        absl::Status answer = QueryKernel(bound, r.kernel);
        if (absl::IsAborted(answer)) {
          return absl::FailedPreconditionError(absl::StrCat(
              op.full_name(), ": kernel ", kernel.QualifiedName(),
              " declines this call (", answer.message(), "); call it with "
              "inputs it takes, or let the dispatcher choose"));
        }
        if (!answer.ok()) return answer;
      }
      return r;
    }
  }
  std::vector<std::string> dtypes;
  for (int k = 0; k < op.num_tensor_args() && k < kMaxKeyedTensorArgs; ++k) {
    dtypes.emplace_back(DTypeName(bound.key_dtypes[k]));
  }
  return absl::NotFoundError(absl::StrCat(
      op.full_name(), ": no kernel '", request.kernel, "' for input dtypes (",
      absl::StrJoin(dtypes, ", "), ") on ", bound.device->label(),
      ". Kernels for these dtypes there: ",
      here.empty() ? "none" : absl::StrJoin(here, ", ")));
}

}  // namespace

absl::Status QueryKernel(const BoundCall& bound, const KernelChoice& choice) {
  KernelCallFrame frame(bound, {}, choice);
  sy_error_t* error = choice.kernel->fn(&frame.call());
  if (error == nullptr) return absl::OkStatus();
  if (error->code == SY_STATUS_KERNEL_DECLINED) {
    absl::Status declined = absl::AbortedError(
        error->message.empty() ? "no reason given" : error->message);
    DestroyError(error);
    return declined;
  }
  return TakeError(error, absl::StrCat(bound.op->full_name(), ": kernel '",
                                       choice.kernel->QualifiedName(),
                                       "' failed a query on ",
                                       bound.device->label()));
}

absl::StatusOr<Resolution> Resolve(RuntimeState& state, const BoundCall& bound,
                                   const RouteRequest& request) {
  const OpDef& op = *bound.op;
  if (op.kind() == OpKind::kView) {
    if (request.kind != RouteRequest::Kind::kDefault) {
      return absl::FailedPreconditionError(absl::StrCat(
          op.full_name(), " is a view op: the core computes its layout and "
          "no kernel or decomposition runs it"));
    }
    Resolution r;
    r.route = Route::kView;
    return r;
  }
  if (request.kind != RouteRequest::Kind::kDefault) {
    return Requested(state, bound, request);
  }
  const OpDispatch* table = op.dispatch();
  const DispatchSlot* slot = table != nullptr ? table->Find(bound.key()) : nullptr;
  if (slot == nullptr) return WithoutKernel(state, bound, {});
  if (!slot->needs_bucket) return KernelRoute(*slot, 0);

  const BucketTable* buckets = slot->bucket_table();
  const BucketChoice* known =
      buckets != nullptr
          ? buckets->Find(BucketSignatureOf(bound.metas.data(), bound.tensors.data(),
                                            bound.tensors.size()))
          : nullptr;
  if (known == nullptr) {
    // An untuned bucket: the tuner (if any) sees it first. It may publish
    // a verdict in a new snapshot; this call still runs this one's choice.
    if (TuningHook* hook = state.tuning.load(std::memory_order_acquire)) {
      hook->OnUntunedCall(bound, *slot);
    }
    absl::StatusOr<Resolution> r = FirstTaker(state, bound, *slot, 0, {});
    if (!r.ok() || r->route == Route::kKernel) return r;
    return WithoutKernel(state, bound, r->declined);
  }
  if (known->choice < 0) return WithoutKernel(state, bound, known->declined);
  Resolution r = KernelRoute(*slot, known->choice);
  r.declined = known->declined;
  if (known->tuned) {
    r.tuned_bucket = true;
    r.kernel.reason = ChoiceReason::kTuned;
    const KernelEntry& kernel = *r.kernel.kernel;
    r.kernel.variant = known->variant;
    r.kernel.variant_config =
        known->variant >= 0 ? kernel.variants[known->variant].config.data() : nullptr;
  }
  return r;
}

absl::StatusOr<Resolution> ResolveAfterDecline(RuntimeState& state,
                                               const BoundCall& bound,
                                               const Resolution& declined_at,
                                               absl::string_view reason) {
  const KernelEntry& kernel = *declined_at.kernel.kernel;
  const std::string who = kernel.QualifiedName();
  if (kernel.plugin_abi_minor < 1) {
    if (kernel.plugin != nullptr) {
      kernel.plugin->AddNote(absl::StrCat(
          "kernel ", kernel.name, " returned SY_STATUS_KERNEL_DECLINED, a "
          "code of plugin ABI 1.1, but the plugin answered ABI 1.0; the "
          "decline was refused"));
    }
    return absl::InternalError(absl::StrCat(
        bound.op->full_name(), ": kernel '", who, "' declined the call with "
        "SY_STATUS_KERNEL_DECLINED, a code of plugin ABI 1.1, but its plugin "
        "answered ABI 1.0; this is a bug in the plugin: rebuild it against "
        "SDK 1.1 and answer abi_minor 1, or do not decline"));
  }
  if (!kernel.may_decline()) {
    return absl::InternalError(absl::StrCat(
        bound.op->full_name(), ": kernel '", who, "' declined the call but "
        "was registered without SY_KERNEL_FLAG_MAY_DECLINE; this is a bug in "
        "the plugin: register it with the flag (and answer queries)"));
  }
  if (declined_at.requested || declined_at.slot == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        bound.op->full_name(), ": kernel ", who, " declines this call (",
        reason, "); call it with inputs it takes, or let the dispatcher "
        "choose"));
  }
  std::string declined(declined_at.declined);
  absl::StrAppend(&declined, declined.empty() ? "" : "; ", who, ": ", reason);
  absl::StatusOr<Resolution> r =
      FirstTaker(state, bound, *declined_at.slot, declined_at.choice_index + 1,
                 std::move(declined));
  if (!r.ok() || r->route == Route::kKernel) return r;
  return WithoutKernel(state, bound, r->declined);
}

std::string DescribeResolution(const Resolution& resolution) {
  std::string text;
  switch (resolution.route) {
    case Route::kView: return "view";
    case Route::kKernel: {
      const KernelChoice& k = resolution.kernel;
      text = absl::StrCat("kernel ", k.kernel->QualifiedName());
      if (k.variant >= 0) {
        absl::StrAppend(&text, " variant ", k.kernel->variants[k.variant].name);
      }
      absl::StrAppend(&text, " (",
                      resolution.requested ? "requested"
                                           : ChoiceReasonName(k.reason),
                      ")");
      break;
    }
    case Route::kDecomposition:
      text = resolution.requested ? "decomposition (requested)" : "decomposition";
      break;
    case Route::kCpuFallback: text = "cpu fallback"; break;
  }
  if (!resolution.declined.empty()) {
    absl::StrAppend(&text, "; declined: ", resolution.declined);
  }
  return text;
}

absl::Status NoKernelError(RuntimeState& state, const BoundCall& bound,
                           absl::string_view declined) {
  const OpDef& op = *bound.op;
  std::vector<std::string> dtypes;
  for (int k = 0; k < op.num_tensor_args() && k < kMaxKeyedTensorArgs; ++k) {
    dtypes.emplace_back(DTypeName(bound.key_dtypes[k]));
  }
  const std::string asked = absl::StrCat(
      op.full_name(), " with input dtypes (", absl::StrJoin(dtypes, ", "),
      ") on device ", bound.device->label());
  if (std::string gone = state.kernels.WithdrawnBy(&op, bound.key()); !gone.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the kernel for ", asked, " was removed when plugin '", gone,
        "' was unloaded; load the plugin again, or call the op on another "
        "device"));
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
      "no kernel for ", asked, ". Kernels exist for: ",
      have.empty() ? "none" : absl::StrJoin(have, "; "),
      declined.empty() ? "" : absl::StrCat(". Declined: ", declined),
      ". Cast the inputs to a supported dtype, load a plugin that provides "
      "this combination, or set SWITCHYARD_CPU_FALLBACK=1 to run it on cpu "
      "with copies"));
}

}  // namespace sy::core
