// sy_op_call, sy_op_call_out, sy_op_explain: turning C handles and
// attributes into a sy::core::Runtime call.
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/status.h"

namespace sy::capi {
namespace {

struct PreparedCall {
  EntryRef<OpEntry> op;
  TensorVector inputs;
  absl::InlinedVector<Attr, 8> attrs;
  absl::InlinedVector<int32_t, 1> list_sizes;
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

absl::StatusOr<PreparedCall> Prepare(sy_op_t op, const sy_tensor_t* inputs,
                                     int32_t num_inputs, const sy_attr_t* attrs,
                                     int32_t num_attrs) {
  PreparedCall call;
  absl::StatusOr<EntryRef<OpEntry>> ref = HandleTable::Instance().FindOp(Token(op), "op");
  if (!ref.ok()) return ref.status();
  call.op = *std::move(ref);
  const OpDef& def = *call.op.entry->def;
  if (absl::Status s = CheckArray(inputs, num_inputs, "inputs"); !s.ok()) return s;
  if (absl::Status s = CheckArray(attrs, num_attrs, "attrs"); !s.ok()) return s;

  // The Tensor[] argument's length is what is left after one handle for
  // every other tensor argument.
  int32_t list_size = 0;
  if (def.list_arg() >= 0) {
    list_size = num_inputs - (def.num_tensor_args() - 1);
    if (list_size < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          def.full_name(), ": expects at least ", def.num_tensor_args() - 1,
          " input tensor(s) besides its Tensor[] argument, got ", num_inputs));
    }
    call.list_sizes.push_back(list_size);
  }
  std::vector<uint64_t> tokens(static_cast<size_t>(num_inputs));
  for (int32_t i = 0; i < num_inputs; ++i) tokens[i] = Token(inputs[i]);
  absl::Status status = HandleTable::Instance().FindTensors(
      tokens, call.op.context.get(),
      [&](size_t i) { return DescribeInput(def, list_size, i); }, call.inputs);
  if (!status.ok()) return absl::Status(status.code(), absl::StrCat(def.full_name(), ": ", status.message()));

  const Schema& schema = def.schema();
  for (int32_t j = 0; j < num_attrs; ++j) {
    Attr attr;
    static_cast<sy_attr_t&>(attr) = attrs[j];
    if (attr.kind == SY_ATTR_DEFAULT && j < def.num_attrs()) {
      if (def.attr_required(j)) {
        return absl::InvalidArgumentError(absl::StrCat(
            def.full_name(), ": attribute '", schema.args[schema.attr_args[j]].name,
            "' has no default; pass a value instead of SY_ATTR_DEFAULT"));
      }
      static_cast<sy_attr_t&>(attr) = def.default_attr(j);
    }
    call.attrs.push_back(attr);
  }
  return call;
}

absl::Status CheckOutputCount(const OpDef& def, const void* outputs,
                              int32_t num_outputs, const char* what) {
  if (absl::Status s = CheckNotNull(outputs, what); !s.ok()) return s;
  if (num_outputs != def.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        def.full_name(), " returns ", def.num_outputs(), " tensor(s) but num_outputs is ",
        num_outputs, "; pass room for exactly that many"));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace sy::capi

using sy::capi::Guard;

extern "C" {

SY_API sy_status_code_t sy_op_call(sy_op_t op, const sy_tensor_t* inputs,
                                   int32_t num_inputs, const sy_attr_t* attrs,
                                   int32_t num_attrs, sy_tensor_t* out_outputs,
                                   int32_t num_outputs) {
  return Guard("sy_op_call", [&]() -> absl::Status {
    auto call = sy::capi::Prepare(op, inputs, num_inputs, attrs, num_attrs);
    if (!call.ok()) return call.status();
    const sy::core::OpDef& def = *call->op.entry->def;
    if (absl::Status s = sy::capi::CheckOutputCount(def, out_outputs, num_outputs,
                                                   "out_outputs");
        !s.ok()) {
      return s;
    }
    auto& runtime = *call->op.context->runtime;
    absl::StatusOr<std::vector<sy::core::Tensor>> outputs =
        runtime.Call(sy::core::OpHandle(call->op.entry->def), call->inputs, call->attrs,
                     call->list_sizes);
    if (!outputs.ok()) return outputs.status();
    std::vector<uint64_t> tokens(outputs->size());
    absl::Status status = sy::capi::HandleTable::Instance().AddTensors(
        call->op.context, *outputs, tokens.data());
    if (!status.ok()) return status;
    for (size_t i = 0; i < tokens.size(); ++i) {
      out_outputs[i] = sy::capi::FromToken<sy_tensor_t>(tokens[i]);
    }
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_op_call_out(sy_op_t op, const sy_tensor_t* inputs,
                                       int32_t num_inputs, const sy_attr_t* attrs,
                                       int32_t num_attrs, const sy_tensor_t* outputs,
                                       int32_t num_outputs) {
  return Guard("sy_op_call_out", [&]() -> absl::Status {
    auto call = sy::capi::Prepare(op, inputs, num_inputs, attrs, num_attrs);
    if (!call.ok()) return call.status();
    const sy::core::OpDef& def = *call->op.entry->def;
    if (absl::Status s =
            sy::capi::CheckOutputCount(def, outputs, num_outputs, "outputs");
        !s.ok()) {
      return s;
    }
    std::vector<uint64_t> tokens(static_cast<size_t>(num_outputs));
    for (int32_t i = 0; i < num_outputs; ++i) tokens[i] = sy::capi::Token(outputs[i]);
    sy::capi::TensorVector out;
    absl::Status status = sy::capi::HandleTable::Instance().FindTensors(
        tokens, call->op.context.get(),
        [](size_t i) { return absl::StrCat("output #", i); }, out);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat(def.full_name(), ": ", status.message()));
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].defined()) {
        return absl::InvalidArgumentError(absl::StrCat(
            def.full_name(), ": output #", i, " is NULL; pass a tensor handle"));
      }
    }
    return call->op.context->runtime->CallOut(sy::core::OpHandle(call->op.entry->def),
                                              call->inputs, call->attrs, out,
                                              call->list_sizes);
  });
}

SY_API sy_status_code_t sy_op_explain(sy_op_t op, const sy_tensor_t* inputs,
                                      int32_t num_inputs, const sy_attr_t* attrs,
                                      int32_t num_attrs, const char** out_text) {
  return Guard("sy_op_explain", [&]() -> absl::Status {
    auto call = sy::capi::Prepare(op, inputs, num_inputs, attrs, num_attrs);
    if (!call.ok()) return call.status();
    if (absl::Status s = sy::capi::CheckNotNull(out_text, "out_text"); !s.ok()) return s;
    absl::StatusOr<std::string> text = call->op.context->runtime->Explain(
        sy::core::OpHandle(call->op.entry->def), call->inputs, call->attrs,
        call->list_sizes);
    if (!text.ok()) return text.status();
    *out_text = sy::capi::KeepThreadText(*std::move(text));
    return absl::OkStatus();
  });
}

}  // extern "C"
