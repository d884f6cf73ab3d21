// sy_op_find, enumeration and metadata: what a binding needs to generate
// one function per op (names, argument kinds, defaults, schema text).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"

namespace sy::capi {
namespace {

// The C enum mirrors sy::core::ArgKind one to one.
static_assert(SY_ARG_TENSOR == static_cast<int>(ArgKind::kTensor));
static_assert(SY_ARG_TENSOR_LIST == static_cast<int>(ArgKind::kTensorList));
static_assert(SY_ARG_INT == static_cast<int>(ArgKind::kInt));
static_assert(SY_ARG_INT_LIST == static_cast<int>(ArgKind::kIntList));
static_assert(SY_ARG_FLOAT == static_cast<int>(ArgKind::kFloat));
static_assert(SY_ARG_BOOL == static_cast<int>(ArgKind::kBool));
static_assert(SY_ARG_SCALAR == static_cast<int>(ArgKind::kScalar));
static_assert(SY_ARG_STRING == static_cast<int>(ArgKind::kString));
static_assert(SY_ARG_DTYPE == static_cast<int>(ArgKind::kDType));
static_assert(SY_ARG_COMMUNICATOR == static_cast<int>(ArgKind::kCommunicator));

// The slot's first choice is what runs for a kernel's key unless a call's
// shape bucket says otherwise (a decline, a per-bucket verdict); the same
// rule as `switchyard info`.
const KernelChoice* ChoiceOf(const OpDef& def, const KernelEntry& kernel) {
  const OpDispatch* table = def.dispatch();
  const DispatchSlot* slot = table != nullptr ? table->Find(kernel.key) : nullptr;
  if (slot == nullptr || slot->choices.empty() ||
      slot->choices.front().kernel != &kernel) {
    return nullptr;
  }
  return &slot->choices.front();
}

absl::Status PutOp(ContextState& context, OpDef* def, sy_op_t* out_op) {
  absl::StatusOr<uint64_t> handle = context.OpHandle(def);
  if (!handle.ok()) return handle.status();
  *out_op = FromToken<sy_op_t>(*handle);
  return absl::OkStatus();
}

}  // namespace
}  // namespace sy::capi

using sy::capi::CheckNotNull;
using sy::capi::Guard;
using sy::capi::HandleTable;
using sy::capi::Token;

extern "C" {

SY_API sy_status_code_t sy_op_find(sy_context_t context, const char* name,
                                   sy_op_t* out_op) {
  return Guard("sy_op_find", [&]() -> absl::Status {
    auto state = sy::capi::ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(name, "name"); !s.ok()) return s;
    if (absl::Status s = CheckNotNull(out_op, "out_op"); !s.ok()) return s;
    absl::StatusOr<sy::core::OpHandle> op = (*state)->runtime->FindOp(name);
    if (!op.ok()) return op.status();
    return sy::capi::PutOp(**state, op->def(), out_op);
  });
}

SY_API sy_status_code_t sy_op_count(sy_context_t context, int32_t* out_count) {
  return Guard("sy_op_count", [&]() -> absl::Status {
    auto state = sy::capi::ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_count, "out_count"); !s.ok()) return s;
    const size_t count = (*state)->runtime->state().ops.All().size();
    if (count > static_cast<size_t>(INT32_MAX)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the context holds ", count, " ops, more than an int32_t can count"));
    }
    *out_count = static_cast<int32_t>(count);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_op_get(sy_context_t context, int32_t index,
                                  sy_op_t* out_op) {
  return Guard("sy_op_get", [&]() -> absl::Status {
    auto state = sy::capi::ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_op, "out_op"); !s.ok()) return s;
    std::vector<sy::core::OpDef*> ops = (*state)->runtime->state().ops.All();
    // Note [Enumerating ops while plugins come and go]: the list is read
    // fresh on every call, in registration order; a load appends to it, an
    // unload removes its plugin's ops. So an index below a count read
    // earlier stays valid unless a plugin was unloaded meanwhile; then
    // this says OUT_OF_RANGE, and a binding counts again (api/python's
    // _op_handles reads until a count after the last sy_op_get matches).
    if (index < 0 || static_cast<size_t>(index) >= ops.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          "op index ", index, " is out of range: there are ", ops.size(),
          " ops now (see sy_op_count); the list shortens when a plugin is "
          "unloaded, so count again"));
    }
    return sy::capi::PutOp(**state, ops[index], out_op);
  });
}

SY_API sy_status_code_t sy_op_get_info(sy_op_t op, sy_op_info_t* out_info) {
  return Guard("sy_op_get_info", [&]() -> absl::Status {
    auto ref = sy::capi::OpOf(op);
    if (!ref.ok()) return ref.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_info, SY_STRUCT_SIZE(sy_op_info_t, live), "out_info", "sy_op_info_t");
        !s.ok()) {
      return s;
    }
    const sy::capi::OpEntry& e = **ref;
    const sy::core::Schema& schema = e.def->schema();
    sy_op_info_t full{};
    full.full_name = e.def->full_name().c_str();
    full.ns = schema.ns.c_str();
    full.name = schema.name.c_str();
    full.overload = schema.overload.c_str();
    full.schema = e.schema_text.c_str();
    full.owner = e.owner.c_str();
    full.num_args = static_cast<int32_t>(schema.args.size());
    full.num_tensor_args = e.def->num_tensor_args();
    full.num_attrs = e.def->num_attrs();
    full.num_outputs = e.def->num_outputs();
    full.list_arg = e.def->list_arg();
    full.live = e.def->live() ? 1 : 0;
    sy::capi::WriteOutStruct(out_info, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_op_get_arg(sy_op_t op, int32_t index,
                                      sy_op_arg_t* out_arg) {
  return Guard("sy_op_get_arg", [&]() -> absl::Status {
    auto ref = sy::capi::OpOf(op);
    if (!ref.ok()) return ref.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_arg, SY_STRUCT_SIZE(sy_op_arg_t, kind_name), "out_arg", "sy_op_arg_t");
        !s.ok()) {
      return s;
    }
    const sy::capi::OpEntry& e = **ref;
    const sy::core::Schema& schema = e.def->schema();
    if (index < 0 || static_cast<size_t>(index) >= schema.args.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          e.def->full_name(), ": argument index ", index, " is out of range: it has ",
          schema.args.size(), " arguments"));
    }
    const sy::core::SchemaArg& arg = schema.args[index];
    sy_op_arg_t full{};
    full.name = arg.name.c_str();
    full.kind = static_cast<int32_t>(arg.kind);
    full.optional = arg.optional ? 1 : 0;
    full.has_default = arg.has_default ? 1 : 0;
    full.tensor_index = -1;
    full.attr_index = -1;
    full.default_value.kind = SY_ATTR_NONE;
    for (size_t k = 0; k < schema.tensor_args.size(); ++k) {
      if (schema.tensor_args[k] == index) full.tensor_index = static_cast<int32_t>(k);
    }
    for (size_t j = 0; j < schema.attr_args.size(); ++j) {
      if (schema.attr_args[j] != index) continue;
      full.attr_index = static_cast<int32_t>(j);
      if (arg.has_default) full.default_value = e.def->default_attr(static_cast<int>(j));
    }
    full.default_text = e.args[index].default_text.c_str();
    full.kind_name = e.args[index].kind_name.c_str();
    sy::capi::WriteOutStruct(out_arg, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_op_kernel_count(sy_op_t op, int32_t* out_count) {
  return Guard("sy_op_kernel_count", [&]() -> absl::Status {
    auto entry = sy::capi::OpOf(op);
    if (!entry.ok()) return entry.status();
    if (absl::Status s = CheckNotNull(out_count, "out_count"); !s.ok()) return s;
    const sy::capi::OpEntry& e = **entry;
    *out_count = static_cast<int32_t>(
        e.context->runtime->state().kernels.KernelsFor(e.def).size());
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_op_kernel_get(sy_op_t op, int32_t index,
                                         sy_kernel_info_t* out_kernel) {
  return Guard("sy_op_kernel_get", [&]() -> absl::Status {
    auto entry = sy::capi::OpOf(op);
    if (!entry.ok()) return entry.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_kernel, SY_STRUCT_SIZE(sy_kernel_info_t, chosen_because),
            "out_kernel", "sy_kernel_info_t");
        !s.ok()) {
      return s;
    }
    const sy::capi::OpEntry& e = **entry;
    const std::vector<const sy::core::KernelEntry*> kernels =
        e.context->runtime->state().kernels.KernelsFor(e.def);
    if (index < 0 || static_cast<size_t>(index) >= kernels.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          e.def->full_name(), ": kernel index ", index, " is out of range: it has ",
          kernels.size(), " kernel(s) (see sy_op_kernel_count)"));
    }
    const sy::core::KernelEntry& kernel = *kernels[index];
    const sy::capi::KernelDescription& d = e.context->Describe(kernel);
    const sy::core::KernelChoice* choice = sy::capi::ChoiceOf(*e.def, kernel);
    sy_kernel_info_t full{};
    full.name = d.name.c_str();
    full.plugin = d.plugin.c_str();
    full.device_type = d.device_type.c_str();
    full.dtypes = d.dtypes.data();
    full.num_dtypes = static_cast<int32_t>(d.dtypes.size());
    full.priority = kernel.priority;
    full.num_variants = static_cast<int32_t>(d.variant_names.size());
    full.variant_names = d.variant_names.data();
    full.may_decline = kernel.may_decline() ? 1 : 0;
    full.chosen = choice != nullptr ? 1 : 0;
    full.chosen_because =
        choice != nullptr ? sy::core::ChoiceReasonName(choice->reason) : "";
    sy::capi::WriteOutStruct(out_kernel, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_op_pin_kernel(sy_op_t op, const char* device_type,
                                         const char* kernel) {
  return Guard("sy_op_pin_kernel", [&]() -> absl::Status {
    auto entry = sy::capi::OpOf(op);
    if (!entry.ok()) return entry.status();
    if (absl::Status s = CheckNotNull(device_type, "device_type"); !s.ok()) return s;
    if (absl::Status s = CheckNotNull(kernel, "kernel"); !s.ok()) return s;
    const sy::capi::OpEntry& e = **entry;
    return e.context->runtime->state().kernels.Pin(e.def, device_type, kernel);
  });
}

SY_API sy_status_code_t sy_op_unpin_kernel(sy_op_t op, const char* device_type) {
  return Guard("sy_op_unpin_kernel", [&]() -> absl::Status {
    auto entry = sy::capi::OpOf(op);
    if (!entry.ok()) return entry.status();
    if (absl::Status s = CheckNotNull(device_type, "device_type"); !s.ok()) return s;
    const sy::capi::OpEntry& e = **entry;
    e.context->runtime->state().kernels.Unpin(e.def, device_type);
    return absl::OkStatus();
  });
}

}  // extern "C"
