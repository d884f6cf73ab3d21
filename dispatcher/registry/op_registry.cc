#include "dispatcher/registry/op_registry.h"

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "dispatcher/base/error.h"
#include "dispatcher/ops/dtype.h"

namespace sy::core {

namespace {

uint64_t NextSerial() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// The sy_attr_t form of a schema default. Lists and strings point into the
// Schema (owned by the OpDef, never moved after construction).
sy_attr_t AttrFromDefault(const SchemaArg& arg) {
  sy_attr_t attr{};
  attr.kind = SY_ATTR_NONE;
  if (!arg.has_default) return attr;
  const DefaultValue& value = arg.default_value;
  if (const auto* i = std::get_if<int64_t>(&value)) {
    if (arg.kind == ArgKind::kFloat) {
      attr.kind = SY_ATTR_FLOAT;
      attr.value.f = static_cast<double>(*i);
    } else {
      attr.kind = SY_ATTR_INT;
      attr.value.i = *i;
    }
  } else if (const auto* f = std::get_if<double>(&value)) {
    attr.kind = SY_ATTR_FLOAT;
    attr.value.f = *f;
  } else if (const auto* b = std::get_if<bool>(&value)) {
    attr.kind = SY_ATTR_BOOL;
    attr.value.b = *b ? 1 : 0;
  } else if (const auto* list = std::get_if<std::vector<int64_t>>(&value)) {
    attr.kind = SY_ATTR_INTS;
    attr.value.ints.data = list->data();
    attr.value.ints.size = static_cast<int64_t>(list->size());
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    attr.kind = SY_ATTR_STRING;
    attr.value.str.data = s->c_str();
    attr.value.str.size = static_cast<int64_t>(s->size());
  } else if (const auto* d = std::get_if<sy_dtype_t>(&value)) {
    attr.kind = SY_ATTR_DTYPE;
    attr.value.dtype = *d;
  }
  return attr;
}

}  // namespace

OpDef::OpDef(int32_t id, Schema schema, OpKind kind, CoreShapeFn core_shape,
             sy_shape_fn plugin_shape, void* plugin_shape_data,
             std::string owner)
    : id_(id),
      serial_(NextSerial()),
      schema_(std::move(schema)),
      full_name_(schema_.FullName()),
      kind_(kind),
      core_shape_(core_shape),
      plugin_shape_(plugin_shape),
      plugin_shape_data_(plugin_shape_data),
      owner_(std::move(owner)) {
  for (size_t k = 0; k < schema_.tensor_args.size(); ++k) {
    if (schema_.args[schema_.tensor_args[k]].kind == ArgKind::kTensorList) {
      list_arg_ = static_cast<int>(k);
    }
  }
  for (int index : schema_.attr_args) {
    const SchemaArg& arg = schema_.args[index];
    defaults_.push_back(AttrFromDefault(arg));
    required_.push_back(!arg.has_default && !arg.optional);
  }
}

absl::Status OpDef::InferShapes(const ShapeContext& ctx,
                                absl::Span<sy_tensor_meta_t> outputs) const {
  if (core_shape_ != nullptr) return core_shape_(ctx, outputs);
  // A plugin's shape function: hand it the same data through the C struct.
  sy_shape_call_t call{};
  call.struct_size = sizeof(call);
  call.inputs = ctx.inputs().data();
  call.num_inputs = static_cast<int32_t>(ctx.inputs().size());
  call.num_tensor_args = num_tensor_args();
  call.input_offsets = ctx.input_offsets().data();
  call.attrs = ctx.attrs().data();
  call.num_attrs = static_cast<int32_t>(ctx.attrs().size());
  call.num_outputs = static_cast<int32_t>(outputs.size());
  call.outputs = outputs.data();
  call.shape_data = plugin_shape_data_;
  absl::Status status = TakeError(
      plugin_shape_(&call),
      absl::StrCat(full_name_, " (shape function of plugin '", owner_, "')"));
  if (!status.ok()) return status;
  for (const sy_tensor_meta_t& out : outputs) {
    bool sizes_ok = out.ndim >= 0 && out.ndim <= SY_MAX_RANK;
    for (int d = 0; sizes_ok && d < out.ndim; ++d) sizes_ok = out.shape[d] >= 0;
    if (!sizes_ok || !IsValidDType(out.dtype)) {
      return absl::InternalError(absl::StrCat(
          full_name_, ": the shape function of plugin '", owner_,
          "' produced an invalid result (rank ", out.ndim, ", dtype 0x",
          absl::Hex(out.dtype), "; ranks are 0..", SY_MAX_RANK,
          ", sizes >= 0, dtypes one of the nine core dtypes); report this "
          "to the plugin's author"));
    }
  }
  return absl::OkStatus();
}

absl::Status OpRegistry::AddCoreOps() {
  for (const CoreOpDef& def : CoreOps()) {
    absl::StatusOr<Schema> schema = ParseSchema(def.schema);
    if (!schema.ok()) return schema.status();
    absl::StatusOr<OpDef*> op = Add(*std::move(schema), def.kind, def.shape_fn,
                                    nullptr, nullptr, "");
    if (!op.ok()) return op.status();
    (*op)->set_output_layout(def.output_layout);
  }
  return absl::OkStatus();
}

absl::StatusOr<OpDef*> OpRegistry::Add(Schema schema, OpKind kind,
                                       CoreShapeFn core_shape,
                                       sy_shape_fn plugin_shape,
                                       void* plugin_shape_data,
                                       std::string owner) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string full_name = schema.FullName();
  if (auto it = by_full_name_.find(full_name);
      it != by_full_name_.end() && it->second->live()) {
    const std::string& first = it->second->owner();
    return absl::AlreadyExistsError(absl::StrCat(
        "op '", full_name, "' is already registered by ",
        first.empty() ? "the core op set" : absl::StrCat("plugin '", first, "'"),
        "; give the new schema another name or overload"));
  }
  auto def = std::make_unique<OpDef>(static_cast<int32_t>(ops_.size()),
                                     std::move(schema), kind, core_shape,
                                     plugin_shape, plugin_shape_data,
                                     std::move(owner));
  OpDef* raw = def.get();
  ops_.push_back(std::move(def));
  by_full_name_[full_name] = raw;
  std::string base = raw->schema().BaseName();
  auto base_it = by_base_name_.find(base);
  if (base_it == by_base_name_.end() || !base_it->second->live()) {
    by_base_name_[base] = raw;
  }
  return raw;
}

OpDef* OpRegistry::Find(absl::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_full_name_.find(name);
  if (it == by_full_name_.end()) {
    it = by_base_name_.find(name);
    if (it == by_base_name_.end()) return nullptr;
  }
  return it->second->live() ? it->second : nullptr;
}

std::vector<OpDef*> OpRegistry::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<OpDef*> all;
  for (const auto& op : ops_) {
    if (op->live()) all.push_back(op.get());
  }
  return all;
}

void OpRegistry::Retire(absl::string_view owner) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& op : ops_) {
    if (!op->owner().empty() && op->owner() == owner) op->set_live(false);
  }
}

}  // namespace sy::core
