// sy_op_call, sy_op_call_out, sy_op_call_ex, the explains and sy_op_tune: C handles and
// attributes turned into one sy::core::Dispatcher::Execute.
//
// sy_op_call_out's path takes no lock and allocates nothing (switchyard.h,
// "Threads"): each handle is looked up in place (HandleTable::TryFind, Note
// [Lock-free handle table]), the Tensor objects in the slots are passed by
// address, the attributes are passed as the caller gave them (the core's
// Bind fills SY_ATTR_DEFAULT and checks kinds), and the pointer arrays live
// on the stack for up to kInlineTensors tensors. Messages are built only
// on the way out of an error.
#include <string>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "api/src/autotune_json.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "dispatcher/base/log.h"
#include "dispatcher/base/small_vector.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/dispatch/resolve.h"

namespace sy::capi {
namespace {

using TensorPointers = SmallVector<const Tensor*, kInlineTensors>;

// A call's op and inputs, looked up.
struct PreparedCall {
  OpEntry* op = nullptr;
  TensorPointers inputs;
  int32_t list_size = 0;
  bool has_list = false;
  // The attributes with communicator tokens swapped for the communicators'
  // refs (only when the caller passed one: collective ops).
  SmallVector<sy_attr_t, kInlineTensors> attrs;
  bool has_communicator = false;
};

// "input #2 ('b')", "input #3 ('tensors'[1])" — the schema argument that a
// flat input index falls on, given the Tensor[] argument's length.
std::string DescribeInput(const OpDef& def, int32_t list_size, size_t i) {
  const Schema& schema = def.schema();
  size_t first = 0;
  for (int k = 0; k < def.num_tensor_args(); ++k) {
    const size_t count = k == def.list_arg() ? static_cast<size_t>(list_size) : 1;
    if (i < first + count) {
      const std::string& name = schema.args[schema.tensor_args[k]].name;
      if (k == def.list_arg()) {
        return absl::StrCat("input #", i, " ('", name, "'[", i - first, "])");
      }
      return absl::StrCat("input #", i, " ('", name, "')");
    }
    first += count;
  }
  return absl::StrCat("input #", i);
}

// The tensor behind `token` for argument `what` of a call of `op`, or the
// error (prefixed with the op's name). Cold: only on the way to an error.
ABSL_ATTRIBUTE_NOINLINE absl::Status TensorError(const OpEntry& op, uint64_t token,
                                                 const std::string& what) {
  const HandleTable& table = HandleTable::Instance();
  absl::Status status;
  if (table.TryFind(token, HandleKind::kTensor) != nullptr) {
    status = absl::InvalidArgumentError(absl::StrCat(
        what, " (", TokenText(token), ") belongs to another context; tensors and "
        "ops must come from the same context"));
  } else {
    status = table.FindError(token, HandleKind::kTensor, what);
  }
  return absl::Status(status.code(),
                      absl::StrCat(op.def->full_name(), ": ", status.message()));
}

// Looks up one tensor of `op`'s context; nullptr when it is not one.
inline const Tensor* TensorIn(const OpEntry& op, uint64_t token) {
  HandleObject* object = HandleTable::Instance().TryFind(token, HandleKind::kTensor);
  if (ABSL_PREDICT_FALSE(object == nullptr || object->context != op.context)) {
    return nullptr;
  }
  return &static_cast<TensorObject*>(object)->tensor;
}

absl::Status Prepare(sy_op_t op, const sy_tensor_t* inputs, int32_t num_inputs,
                     const sy_attr_t* attrs, int32_t num_attrs, PreparedCall& call) {
  const HandleTable& table = HandleTable::Instance();
  HandleObject* object = table.TryFind(Token(op), HandleKind::kOp);
  if (ABSL_PREDICT_FALSE(object == nullptr)) {
    return table.FindError(Token(op), HandleKind::kOp, "op");
  }
  call.op = static_cast<OpEntry*>(object);
  const OpDef& def = *call.op->def;
  if (ABSL_PREDICT_FALSE(num_inputs < 0 || (num_inputs > 0 && inputs == nullptr))) {
    return CheckArray(inputs, num_inputs, "inputs");
  }
  if (ABSL_PREDICT_FALSE(num_attrs < 0 || (num_attrs > 0 && attrs == nullptr))) {
    return CheckArray(attrs, num_attrs, "attrs");
  }
  // The Tensor[] argument's length is what is left after one handle for
  // every other tensor argument.
  if (def.list_arg() >= 0) {
    call.has_list = true;
    call.list_size = num_inputs - (def.num_tensor_args() - 1);
    if (call.list_size < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          def.full_name(), ": expects at least ", def.num_tensor_args() - 1,
          " input tensor(s) besides its Tensor[] argument, got ", num_inputs));
    }
  }
  for (int32_t i = 0; i < num_inputs; ++i) {
    const uint64_t token = Token(inputs[i]);
    if (token == 0) {  // an omitted optional tensor; Bind checks it may be
      call.inputs.push_back(nullptr);
      continue;
    }
    const Tensor* tensor = TensorIn(*call.op, token);
    if (ABSL_PREDICT_FALSE(tensor == nullptr)) {
      return TensorError(*call.op, token, DescribeInput(def, call.list_size, i));
    }
    call.inputs.push_back(tensor);
  }
  for (int32_t j = 0; j < num_attrs && j < def.num_attrs(); ++j) {
    if (ABSL_PREDICT_FALSE(attrs[j].kind == SY_ATTR_DEFAULT && def.attr_required(j))) {
      const Schema& schema = def.schema();
      return absl::InvalidArgumentError(absl::StrCat(
          def.full_name(), ": attribute '", schema.args[schema.attr_args[j]].name,
          "' has no default; pass a value instead of SY_ATTR_DEFAULT"));
    }
    if (ABSL_PREDICT_FALSE(attrs[j].kind == SY_ATTR_COMMUNICATOR)) {
      call.has_communicator = true;
    }
  }
  if (ABSL_PREDICT_FALSE(call.has_communicator)) {
    // The caller's token becomes the communicator's ref; the object stays
    // alive for the call through the caller's EpochScope (Guard).
    const Schema& schema = def.schema();
    for (int32_t j = 0; j < num_attrs; ++j) {
      sy_attr_t attr = attrs[j];
      if (attr.kind == SY_ATTR_COMMUNICATOR) {
        const std::string what = absl::StrCat(
            "attribute '",
            j < def.num_attrs() ? schema.args[schema.attr_args[j]].name : "?", "'");
        absl::StatusOr<const sy_communicator_ref_t*> ref =
            CommunicatorRefIn(call.op->context, attr.value.i, what);
        if (!ref.ok()) {
          return absl::Status(ref.status().code(),
                              absl::StrCat(def.full_name(), ": ", ref.status().message()));
        }
        attr.value.comm = *ref;
      }
      call.attrs.push_back(attr);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOutputCount(const OpDef& def, const void* outputs,
                              int32_t num_outputs, const char* what) {
  if (ABSL_PREDICT_FALSE(outputs == nullptr)) return CheckNotNull(outputs, what);
  if (ABSL_PREDICT_FALSE(num_outputs != def.num_outputs())) {
    return absl::InvalidArgumentError(absl::StrCat(
        def.full_name(), " returns ", def.num_outputs(), " tensor(s) but num_outputs is ",
        num_outputs, "; pass room for exactly that many"));
  }
  return absl::OkStatus();
}

CallArgs ArgsOf(const PreparedCall& call, const sy_attr_t* attrs, int32_t num_attrs) {
  CallArgs args;
  args.inputs = call.inputs;
  args.attrs = call.has_communicator
                   ? absl::MakeConstSpan(call.attrs.data(), call.attrs.size())
                   : absl::MakeConstSpan(attrs, static_cast<size_t>(num_attrs));
  if (call.has_list) args.list_sizes = absl::MakeConstSpan(&call.list_size, 1);
  return args;
}

// At log level debug, one line per call: how it is resolved (the same
// Resolve the call then runs, so the line says what runs).
ABSL_ATTRIBUTE_NOINLINE void LogResolution(const PreparedCall& call,
                                           const CallArgs& args) {
  absl::StatusOr<Resolution> resolution =
      call.op->context->runtime->ResolveCall(OpHandle(call.op->def), args);
  std::string device = "no device";
  for (const Tensor* t : call.inputs) {
    if (t != nullptr && t->defined()) {
      device = t->device().label();
      break;
    }
  }
  Log(LogLevel::kDebug,
      absl::StrCat(call.op->def->full_name(), " on ", device, ": ",
                   resolution.ok() ? DescribeResolution(*resolution)
                                   : absl::StrCat("fails: ",
                                                  resolution.status().message())));
}

inline bool DebugLogging() { return GetLogLevel() >= LogLevel::kDebug; }

// Into the caller's outputs.
absl::Status CallInto(const PreparedCall& call, const sy_attr_t* attrs,
                      int32_t num_attrs, const sy_tensor_t* outputs,
                      int32_t num_outputs, const RouteRequest& route) {
  const OpDef& def = *call.op->def;
  if (absl::Status s = CheckOutputCount(def, outputs, num_outputs, "outputs");
      ABSL_PREDICT_FALSE(!s.ok())) {
    return s;
  }
  TensorPointers out;
  for (int32_t i = 0; i < num_outputs; ++i) {
    const uint64_t token = Token(outputs[i]);
    if (ABSL_PREDICT_FALSE(token == 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          def.full_name(), ": output #", i, " is NULL; pass a tensor handle"));
    }
    const Tensor* tensor = TensorIn(*call.op, token);
    if (ABSL_PREDICT_FALSE(tensor == nullptr)) {
      return TensorError(*call.op, token, absl::StrCat("output #", i));
    }
    out.push_back(tensor);
  }
  CallArgs args = ArgsOf(call, attrs, num_attrs);
  args.outputs = out;
  args.route = route;
  if (ABSL_PREDICT_FALSE(DebugLogging())) LogResolution(call, args);
  return call.op->context->runtime->Execute(OpHandle(call.op->def), args);
}

// Into new tensors, each under a new handle (all or none).
absl::Status CallNew(const PreparedCall& call, const sy_attr_t* attrs,
                     int32_t num_attrs, sy_tensor_t* out_outputs, int32_t num_outputs,
                     const RouteRequest& route) {
  const OpDef& def = *call.op->def;
  if (absl::Status s = CheckOutputCount(def, out_outputs, num_outputs, "out_outputs");
      ABSL_PREDICT_FALSE(!s.ok())) {
    return s;
  }
  TensorList produced;
  CallArgs args = ArgsOf(call, attrs, num_attrs);
  args.produced = &produced;
  args.route = route;
  if (ABSL_PREDICT_FALSE(DebugLogging())) LogResolution(call, args);
  absl::Status status =
      call.op->context->runtime->Execute(OpHandle(call.op->def), args);
  if (!status.ok()) return status;
  SmallVector<uint64_t, kInlineTensors> made;
  made.resize(produced.size());
  for (size_t i = 0; i < produced.size(); ++i) {
    absl::StatusOr<sy_tensor_t> handle =
        NewTensorHandle(*call.op->context, std::move(produced[i]));
    if (!handle.ok()) {
      for (size_t j = 0; j < i; ++j) HandleTable::Instance().Discard(made[j]);
      return handle.status();
    }
    made[i] = Token(*handle);
  }
  for (size_t i = 0; i < produced.size(); ++i) {
    out_outputs[i] = FromToken<sy_tensor_t>(made[i]);
  }
  return absl::OkStatus();
}

absl::Status Explain(const PreparedCall& call, const sy_attr_t* attrs,
                     int32_t num_attrs, const RouteRequest& route,
                     const char** out_text) {
  if (absl::Status s = CheckNotNull(out_text, "out_text"); !s.ok()) return s;
  CallArgs args = ArgsOf(call, attrs, num_attrs);
  args.route = route;
  absl::StatusOr<Resolution> resolution =
      call.op->context->runtime->ResolveCall(OpHandle(call.op->def), args);
  if (!resolution.ok()) return resolution.status();
  *out_text = KeepThreadText(DescribeResolution(*resolution));
  return absl::OkStatus();
}

// The route sy_op_call_args_t asks for; `args` is checked.
absl::StatusOr<RouteRequest> RouteOf(const sy_op_call_args_t& args) {
  switch (args.route) {
    case SY_ROUTE_DEFAULT:
      return RouteRequest{};
    case SY_ROUTE_DECOMPOSITION:
      return RouteRequest::Decomposition();
    case SY_ROUTE_KERNEL:
      if (args.kernel == nullptr) {
        return absl::InvalidArgumentError(
            "args->kernel is NULL; SY_ROUTE_KERNEL needs a kernel name "
            "(sy_kernel_info_t.name, \"plugin::name\")");
      }
      return RouteRequest::Kernel(args.kernel, args.variant);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "args->route is ", args.route, "; use SY_ROUTE_DEFAULT (0), "
      "SY_ROUTE_KERNEL (1) or SY_ROUTE_DECOMPOSITION (2)"));
}

absl::Status CheckCallArgs(const sy_op_call_args_t* args) {
  if (args == nullptr) return CheckNotNull(args, "args");
  return CheckStructSize(args->struct_size, SY_STRUCT_SIZE(sy_op_call_args_t, reserved),
                         "args", "sy_op_call_args_t");
}

}  // namespace
}  // namespace sy::capi

using sy::capi::Guard;
using sy::capi::PreparedCall;

extern "C" {

SY_API sy_status_code_t sy_op_call(sy_op_t op, const sy_tensor_t* inputs,
                                   int32_t num_inputs, const sy_attr_t* attrs,
                                   int32_t num_attrs, sy_tensor_t* out_outputs,
                                   int32_t num_outputs) {
  return Guard("sy_op_call", [&]() -> absl::Status {
    PreparedCall call;
    if (absl::Status s = sy::capi::Prepare(op, inputs, num_inputs, attrs, num_attrs, call);
        !s.ok()) {
      return s;
    }
    return sy::capi::CallNew(call, attrs, num_attrs, out_outputs, num_outputs, {});
  });
}

SY_API sy_status_code_t sy_op_call_out(sy_op_t op, const sy_tensor_t* inputs,
                                       int32_t num_inputs, const sy_attr_t* attrs,
                                       int32_t num_attrs, const sy_tensor_t* outputs,
                                       int32_t num_outputs) {
  return Guard("sy_op_call_out", [&]() -> absl::Status {
    PreparedCall call;
    if (absl::Status s = sy::capi::Prepare(op, inputs, num_inputs, attrs, num_attrs, call);
        !s.ok()) {
      return s;
    }
    return sy::capi::CallInto(call, attrs, num_attrs, outputs, num_outputs, {});
  });
}

SY_API sy_status_code_t sy_op_call_ex(const sy_op_call_args_t* args) {
  return Guard("sy_op_call_ex", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckCallArgs(args); !s.ok()) return s;
    absl::StatusOr<sy::core::RouteRequest> route = sy::capi::RouteOf(*args);
    if (!route.ok()) return route.status();
    if ((args->outputs == nullptr) == (args->out_outputs == nullptr)) {
      return absl::InvalidArgumentError(
          "pass exactly one of args->outputs (write into these tensors) and "
          "args->out_outputs (receive new tensors)");
    }
    PreparedCall call;
    if (absl::Status s = sy::capi::Prepare(args->op, args->inputs, args->num_inputs,
                                           args->attrs, args->num_attrs, call);
        !s.ok()) {
      return s;
    }
    if (args->outputs != nullptr) {
      return sy::capi::CallInto(call, args->attrs, args->num_attrs, args->outputs,
                                args->num_outputs, *route);
    }
    return sy::capi::CallNew(call, args->attrs, args->num_attrs, args->out_outputs,
                             args->num_outputs, *route);
  });
}

SY_API sy_status_code_t sy_op_explain(sy_op_t op, const sy_tensor_t* inputs,
                                      int32_t num_inputs, const sy_attr_t* attrs,
                                      int32_t num_attrs, const char** out_text) {
  return Guard("sy_op_explain", [&]() -> absl::Status {
    PreparedCall call;
    if (absl::Status s = sy::capi::Prepare(op, inputs, num_inputs, attrs, num_attrs, call);
        !s.ok()) {
      return s;
    }
    return sy::capi::Explain(call, attrs, num_attrs, {}, out_text);
  });
}

SY_API sy_status_code_t sy_op_explain_ex(const sy_op_call_args_t* args,
                                         const char** out_text) {
  return Guard("sy_op_explain_ex", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckCallArgs(args); !s.ok()) return s;
    absl::StatusOr<sy::core::RouteRequest> route = sy::capi::RouteOf(*args);
    if (!route.ok()) return route.status();
    PreparedCall call;
    if (absl::Status s = sy::capi::Prepare(args->op, args->inputs, args->num_inputs,
                                           args->attrs, args->num_attrs, call);
        !s.ok()) {
      return s;
    }
    return sy::capi::Explain(call, args->attrs, args->num_attrs, *route, out_text);
  });
}

SY_API sy_status_code_t sy_op_tune(const sy_op_call_args_t* args, int32_t flags,
                                   const char** out_json) {
  return Guard("sy_op_tune", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckCallArgs(args); !s.ok()) return s;
    if (absl::Status s = sy::capi::CheckNotNull(out_json, "out_json"); !s.ok()) return s;
    if (args->route != SY_ROUTE_DEFAULT) {
      return absl::InvalidArgumentError(absl::StrCat(
          "args->route is ", args->route, "; sy_op_tune tunes the default "
          "resolution and takes SY_ROUTE_DEFAULT (0) only"));
    }
    PreparedCall call;
    if (absl::Status s = sy::capi::Prepare(args->op, args->inputs, args->num_inputs,
                                           args->attrs, args->num_attrs, call);
        !s.ok()) {
      return s;
    }
    sy::core::CallArgs call_args = sy::capi::ArgsOf(call, args->attrs, args->num_attrs);
    absl::StatusOr<std::string> report = sy::capi::TuneCallJson(
        *call.op->context->runtime, sy::core::OpHandle(call.op->def), call_args, flags);
    if (!report.ok()) return report.status();
    *out_json = sy::capi::KeepThreadText(*std::move(report));
    return absl::OkStatus();
  });
}

}  // extern "C"
