#include "dispatcher/dispatch/bind.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/collectives/communicator.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/dispatch/shape_memo.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"

namespace sy::core {
namespace {

const char* AttrKindName(int32_t kind) {
  switch (kind) {
    case SY_ATTR_NONE: return "None";
    case SY_ATTR_INT: return "an int";
    case SY_ATTR_FLOAT: return "a float";
    case SY_ATTR_BOOL: return "a bool";
    case SY_ATTR_INTS: return "an int list";
    case SY_ATTR_STRING: return "a string";
    case SY_ATTR_DTYPE: return "a dtype";
    case SY_ATTR_COMMUNICATOR: return "a communicator";
  }
  return "an attribute of unknown kind";
}

// Checks one given attribute against its schema argument; may convert
// (an int given for a float). Returns an error message or "".
std::string CheckAttr(const SchemaArg& arg, sy_attr_t& attr) {
  if (attr.kind == SY_ATTR_NONE) {
    return arg.optional ? "" : "is not optional; pass a value";
  }
  bool ok = false;
  switch (arg.kind) {
    case ArgKind::kInt: ok = attr.kind == SY_ATTR_INT; break;
    case ArgKind::kFloat:
      if (attr.kind == SY_ATTR_INT) {
        attr.value.f = static_cast<double>(attr.value.i);
        attr.kind = SY_ATTR_FLOAT;
      }
      ok = attr.kind == SY_ATTR_FLOAT;
      break;
    case ArgKind::kBool: ok = attr.kind == SY_ATTR_BOOL; break;
    case ArgKind::kIntList:
      ok = attr.kind == SY_ATTR_INTS &&
           (attr.value.ints.size == 0 || attr.value.ints.data != nullptr) &&
           attr.value.ints.size >= 0;
      break;
    case ArgKind::kScalar:
      ok = attr.kind == SY_ATTR_INT || attr.kind == SY_ATTR_FLOAT;
      break;
    case ArgKind::kString:
      ok = attr.kind == SY_ATTR_STRING && attr.value.str.data != nullptr;
      break;
    case ArgKind::kDType:
      ok = attr.kind == SY_ATTR_DTYPE && IsValidDType(attr.value.dtype);
      if (attr.kind == SY_ATTR_DTYPE && !ok) {
        return "is not a valid dtype; use one of f32 f64 f16 bf16 i32 i64 "
               "i8 u8 bool";
      }
      break;
    case ArgKind::kCommunicator:
      ok = attr.kind == SY_ATTR_COMMUNICATOR && attr.value.comm != nullptr;
      break;
    default: break;
  }
  if (ok) return "";
  return absl::StrCat("must be ", AsAbsl(ArgKindName(arg.kind)),
                      arg.optional ? " or None" : "", ", got ",
                      AttrKindName(attr.kind));
}

// A communicator is bound to one device: the call runs there, and every
// tensor must be there too (the engine reads and writes them in place).
absl::Status BindCommunicator(const OpDef& op, const SchemaArg& arg,
                              const sy_attr_t& attr, BoundCall& bound) {
  const Communicator& comm = Communicator::FromRef(attr.value.comm);
  if (bound.device == nullptr) {
    bound.device = &comm.device();
    return absl::OkStatus();
  }
  if (bound.device == &comm.device()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      op.full_name(), ": the tensors are on ", bound.device->label(),
      " but attribute '", arg.name, "' is a communicator bound to ",
      comm.device().label(), "; move the tensors to ", comm.device().label(),
      " or use a communicator made for ", bound.device->label()));
}

}  // namespace

ShapeBucket BoundCall::bucket() const {
  ShapeBucket bucket;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    AddToBucket(bucket, static_cast<int>(i), t.ndim(), t.shape().data(),
                t.strides().data());
  }
  return bucket;
}

absl::Status BindCall(const OpDef& op, absl::Span<const Tensor* const> inputs,
                      absl::Span<const sy_attr_t> attrs,
                      absl::Span<const int32_t> list_sizes, BoundCall& bound) {
  const Schema& schema = op.schema();
  bound.op = &op;
  const int num_args = op.num_tensor_args();
  if (op.kind() == OpKind::kCollective && CaptureActive()) {
    // A graph would replay it without holding its communicator, and a
    // replay on one rank alone would hang the others.
    return absl::FailedPreconditionError(absl::StrCat(
        op.full_name(), ": collective ops cannot be captured into a graph; "
        "call them between captured graphs"));
  }

  // Tensors.
  const size_t expected_lists = op.list_arg() >= 0 ? 1 : 0;
  if (list_sizes.size() != expected_lists) {
    return absl::InvalidArgumentError(absl::StrCat(
        op.full_name(), ": expects ", expected_lists,
        " list size(s) (one per Tensor[] argument), got ", list_sizes.size()));
  }
  size_t expected = static_cast<size_t>(num_args);
  if (expected_lists == 1) {
    if (list_sizes[0] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          op.full_name(), ": the list size must be >= 0, got ", list_sizes[0]));
    }
    expected = expected - 1 + static_cast<size_t>(list_sizes[0]);
  }
  if (inputs.size() != expected) {
    std::vector<std::string> names;
    for (int index : schema.tensor_args) names.push_back(schema.args[index].name);
    return absl::InvalidArgumentError(absl::StrCat(
        op.full_name(), ": expects ", expected, " input tensor(s) (",
        absl::StrJoin(names, ", "), ") but got ", inputs.size()));
  }
  ShapeKey key;  // Note [Shape memo]
  size_t next = 0;
  for (int k = 0; k < num_args; ++k) {
    const SchemaArg& arg = schema.args[schema.tensor_args[k]];
    bound.offsets.push_back(static_cast<int32_t>(bound.tensors.size()));
    const size_t count = k == op.list_arg() ? list_sizes[0] : 1;
    key.Add(count);
    for (size_t i = 0; i < count; ++i, ++next) {
      const Tensor* given = inputs[next];
      if (given == nullptr || !given->defined()) {
        if (arg.optional && k != op.list_arg()) continue;
        return absl::InvalidArgumentError(absl::StrCat(
            op.full_name(), ": argument '", arg.name, "'",
            count > 1 ? absl::StrCat(" element ", i) : std::string(),
            " is an undefined tensor; pass a tensor",
            arg.optional ? "" : " (the argument is required)"));
      }
      const Tensor& t = *given;
      if (t.symbolic() && !CaptureActive()) {
        return absl::FailedPreconditionError(absl::StrCat(
            op.full_name(), ": argument '", arg.name, "' is a symbolic tensor "
            "of a graph capture, which has no values; call ops on it inside "
            "the capture, or launch the captured graph to get real tensors"));
      }
      if (bound.device == nullptr) {
        bound.device = &t.device();
      } else if (&t.device() != bound.device) {
        return absl::InvalidArgumentError(absl::StrCat(
            op.full_name(), ": argument '", arg.name, "' is on ",
            t.device().label(), " but an earlier input is on ",
            bound.device->label(),
            "; move the inputs to one device first (sy_tensor_to_device in C, "
            "Tensor::To in C++, tensor.to(device) in Python)"));
      }
      bound.tensors.push_back(&t);
      bound.metas.push_back(t.meta());
      key.AddMeta(t.meta());
    }
    key.Add(bound.tensors.size());  // where an omitted optional was
    if (k < kMaxKeyedTensorArgs) {
      const sy_dtype_t dtype =
          bound.offsets[k] < static_cast<int32_t>(bound.tensors.size())
              ? bound.tensors[bound.offsets[k]]->dtype()
              : SY_DTYPE_NONE;
      bound.key_dtypes[k] = dtype;
      bound.key_indices[k] = DTypeIndex(dtype);
    }
  }
  bound.offsets.push_back(static_cast<int32_t>(bound.tensors.size()));
  // A collective op runs on its communicator's device, also one without
  // tensors (barrier, recv): checked with the attributes below.
  if (bound.device == nullptr && op.kind() != OpKind::kCollective) {
    return absl::InvalidArgumentError(absl::StrCat(
        op.full_name(), ": needs at least one input tensor to know which "
        "device to run on"));
  }

  // Attributes.
  const int num_attrs = op.num_attrs();
  if (attrs.size() > static_cast<size_t>(num_attrs)) {
    std::vector<std::string> names;
    for (int index : schema.attr_args) names.push_back(schema.args[index].name);
    return absl::InvalidArgumentError(absl::StrCat(
        op.full_name(), ": takes ", num_attrs, " attribute(s)",
        names.empty() ? std::string() : absl::StrCat(" (", absl::StrJoin(names, ", "), ")"),
        " but got ", attrs.size()));
  }
  for (int j = 0; j < num_attrs; ++j) {
    const SchemaArg& arg = schema.args[schema.attr_args[j]];
    if (static_cast<size_t>(j) < attrs.size()) {
      sy_attr_t attr = attrs[j];
      if (attr.kind == kAttrDefault) {
        if (op.attr_required(j)) {
          return absl::InvalidArgumentError(absl::StrCat(
              op.full_name(), ": attribute '", arg.name,
              "' has no default; pass a value"));
        }
        bound.attrs.push_back(op.default_attr(j));
        continue;
      }
      std::string problem = CheckAttr(arg, attr);
      if (!problem.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            op.full_name(), ": attribute '", arg.name, "' ", problem));
      }
      if (arg.kind == ArgKind::kCommunicator) {
        if (absl::Status s = BindCommunicator(op, arg, attr, bound); !s.ok()) {
          return s;
        }
      }
      bound.attrs.push_back(attr);
    } else if (op.attr_required(j)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op.full_name(), ": attribute '", arg.name, "' (",
          AsAbsl(ArgKindName(arg.kind)), ") is required; pass it after the ",
          bound.attrs.size(), " given"));
    } else {
      bound.attrs.push_back(op.default_attr(j));
    }
  }

  // Shapes: remembered, or the shape function's (Note [Shape memo]).
  for (const sy_attr_t& attr : bound.attrs) {
    if (!key.AddAttr(attr)) key.Spoil();
  }
  bound.outputs.resize(op.num_outputs());
  if (key.usable() &&
      RecallShapes(op.serial(), key, absl::MakeSpan(bound.outputs))) {
    return absl::OkStatus();
  }
  absl::Status status = op.InferShapes(bound.context(), absl::MakeSpan(bound.outputs));
  if (status.ok()) RememberShapes(op.serial(), key, bound.outputs);
  return status;
}

}  // namespace sy::core
