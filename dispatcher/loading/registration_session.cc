#include "dispatcher/loading/registration_session.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/identifier.h"
#include "dispatcher/ops/dtype.h"

namespace sy::core {
namespace {

std::string Str(const char* s) { return s != nullptr ? s : ""; }

// The length of `s` (NULL: 0), or `limit + 1` when it is longer than
// `limit`: never reads past limit + 1 bytes of an unterminated string.
size_t BoundedLength(const char* s, size_t limit) {
  return s == nullptr ? 0 : strnlen(s, limit + 1);
}

std::string TooLong(absl::string_view what, absl::string_view where,
                    size_t limit) {
  return absl::StrCat(where, ": the ", what, " is longer than ", limit,
                      " bytes, the limit; use a shorter one");
}

}  // namespace

RegistrationSession::RegistrationSession(RuntimeState& state,
                                         PluginInstance& plugin)
    : state_(state), plugin_(plugin) {}

sy_error_t* RegistrationSession::Error(sy_status_code_t code,
                                       const std::string& message) const {
  return CreateError(code, message.c_str());
}

const Schema* RegistrationSession::FindSchema(const std::string& name) const {
  if (auto it = schema_index_.find(name); it != schema_index_.end()) {
    return &schemas_[it->second].schema;
  }
  const OpDef* op = state_.ops.Find(name);
  return op != nullptr ? &op->schema() : nullptr;
}

sy_error_t* RegistrationSession::RegisterSchema(const sy_schema_desc_t* desc) {
  if (desc == nullptr ||
      desc->struct_size < SY_STRUCT_SIZE(sy_schema_desc_t, shape_data)) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 "register_schema: the descriptor is null or its struct_size "
                 "is smaller than ABI 1.0's sy_schema_desc_t");
  }
  if (schemas_.size() >= kLimits.max_schemas) {
    return Error(SY_STATUS_RESOURCE_EXHAUSTED,
                 absl::StrCat("register_schema: the plugin registers more than ",
                              kLimits.max_schemas, " schemas, the limit"));
  }
  if (BoundedLength(desc->schema, kLimits.max_schema_bytes) >
      kLimits.max_schema_bytes) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 TooLong("schema text", "register_schema",
                         kLimits.max_schema_bytes));
  }
  absl::StatusOr<Schema> schema = ParseSchema(Str(desc->schema));
  if (!schema.ok()) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat("register_schema: ", schema.status().message()));
  }
  if (schema->ns != plugin_.name()) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat("register_schema: '", schema->FullName(),
                              "' must be in the plugin's own namespace; name "
                              "it '", plugin_.name(), "::", schema->name,
                              "'"));
  }
  if (desc->shape_fn == nullptr) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat("register_schema: '", schema->FullName(),
                              "' has no shape function; the core needs one "
                              "to allocate outputs"));
  }
  if (schema->tensor_args.size() > kMaxKeyedTensorArgs) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat("register_schema: '", schema->FullName(),
                              "' has ", schema->tensor_args.size(),
                              " tensor arguments; at most ",
                              kMaxKeyedTensorArgs, " are supported"));
  }
  if (FindSchema(schema->FullName()) != nullptr) {
    return Error(SY_STATUS_ALREADY_EXISTS,
                 absl::StrCat("register_schema: op '", schema->FullName(),
                              "' is already registered by this plugin; give "
                              "each signature its own overload name, as in '",
                              schema->BaseName(), ".variant(…)'"));
  }
  // Read from plugins that answer 1.4 (an older one's struct may end
  // before the field, or hold whatever its author left there).
  OutputLayout layout = OutputLayout::kContiguous;
  if (plugin_.abi_minor() >= 4 && SY_STRUCT_HAS(desc, sy_schema_desc_t, reserved)) {
    switch (desc->output_layout) {
      case SY_OUTPUT_LAYOUT_CONTIGUOUS: break;
      case SY_OUTPUT_LAYOUT_CHANNELS_LAST_LIKE_INPUTS:
        layout = OutputLayout::kChannelsLastLikeInputs;
        break;
      case SY_OUTPUT_LAYOUT_LIKE_FIRST_FULL_INPUT:
        layout = OutputLayout::kLikeFirstFullInput;
        break;
      default:
        return Error(SY_STATUS_INVALID_ARGUMENT,
                     absl::StrCat("register_schema: '", schema->FullName(),
                                  "' asks for output layout ", desc->output_layout,
                                  ", which is not a sy_output_layout_t; use "
                                  "SY_OUTPUT_LAYOUT_CONTIGUOUS (0), "
                                  "SY_OUTPUT_LAYOUT_CHANNELS_LAST_LIKE_INPUTS (1) or "
                                  "SY_OUTPUT_LAYOUT_LIKE_FIRST_FULL_INPUT (2)"));
    }
    if (desc->reserved != 0) {
      return Error(SY_STATUS_INVALID_ARGUMENT,
                   absl::StrCat("register_schema: '", schema->FullName(),
                                "' sets the reserved field to ", desc->reserved,
                                "; leave it 0"));
    }
  }
  const size_t index = schemas_.size();
  schema_index_.emplace(schema->FullName(), index);
  schema_index_.emplace(schema->BaseName(), index);  // the first overload keeps it
  schemas_.push_back({*std::move(schema), desc->shape_fn, desc->shape_data, layout});
  return nullptr;
}

sy_error_t* RegistrationSession::RegisterDevice(const sy_device_api_t* desc) {
  absl::Status valid = ValidateDeviceApi(desc);
  if (!valid.ok()) return ErrorFromStatus(valid);
  if (devices_.size() >= kLimits.max_device_types) {
    return Error(SY_STATUS_RESOURCE_EXHAUSTED,
                 absl::StrCat("register_device: the plugin registers more "
                              "than ", kLimits.max_device_types,
                              " device types, the limit"));
  }
  std::string name = Str(desc->device_type);
  DeviceType* existing = state_.devices.FindType(name);
  bool staged = false;
  for (const sy_device_api_t& d : devices_) staged |= Str(d.device_type) == name;
  if (existing != nullptr || staged) {
    return Error(SY_STATUS_ALREADY_EXISTS,
                 absl::StrCat("register_device: device type '", name,
                              "' is already provided",
                              existing && existing->plugin()
                                  ? absl::StrCat(" by plugin '",
                                                 existing->plugin()->name(), "'")
                                  : std::string(),
                              "; a device type has exactly one provider — add "
                              "kernels to it instead"));
  }
  sy_device_api_t copy{};
  std::memcpy(&copy, desc, std::min(sizeof(copy), desc->struct_size));
  copy.struct_size = sizeof(copy);
  devices_.push_back(copy);
  return nullptr;
}

sy_error_t* RegistrationSession::RegisterKernel(const sy_kernel_desc_t* desc) {
  if (desc == nullptr ||
      desc->struct_size < SY_STRUCT_SIZE(sy_kernel_desc_t, num_variants)) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 "register_kernel: the descriptor is null or its struct_size "
                 "is smaller than ABI 1.0's sy_kernel_desc_t");
  }
  if (kernels_.size() >= kLimits.max_kernels) {
    return Error(SY_STATUS_RESOURCE_EXHAUSTED,
                 absl::StrCat("register_kernel: the plugin registers more than ",
                              kLimits.max_kernels, " kernels, the limit"));
  }
  if (BoundedLength(desc->op, kLimits.max_name_bytes) > kLimits.max_name_bytes) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 TooLong("op name", "register_kernel", kLimits.max_name_bytes));
  }
  if (BoundedLength(desc->name, kLimits.max_name_bytes) > kLimits.max_name_bytes) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 TooLong("kernel name",
                         absl::StrCat("register_kernel for '", Str(desc->op), "'"),
                         kLimits.max_name_bytes));
  }
  if (BoundedLength(desc->device_type, kLimits.max_name_bytes) >
      kLimits.max_name_bytes) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 TooLong("device type name", "register_kernel",
                         kLimits.max_name_bytes));
  }
  std::string op_name = Str(desc->op);
  std::string kernel_name = Str(desc->name);
  std::string where = absl::StrCat("register_kernel '", kernel_name, "' for '",
                                   op_name, "'");
  if (kernel_name.empty()) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat("register_kernel for '", op_name,
                              "': the kernel has no name"));
  }
  const Schema* schema = FindSchema(op_name);
  if (schema == nullptr) {
    return Error(SY_STATUS_NOT_FOUND,
                 absl::StrCat(where, ": no op of that name; use a full schema "
                              "name such as 'add.Tensor' (see `switchyard "
                              "ops`), or register your own schema first"));
  }
  std::string device_type = Str(desc->device_type);
  // The rule manifests and register_device already apply: a kernel for a
  // device type that could never be registered would be dead weight.
  if (!IsLowercaseIdentifier(device_type)) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat(where, ": device_type '", device_type,
                              "' is not a device type name; use a lowercase "
                              "identifier ([a-z_][a-z0-9_]*) such as 'cpu'"));
  }
  if (desc->fn == nullptr) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat(where, ": the kernel function is null"));
  }
  const size_t tensor_args = schema->tensor_args.size();
  if (desc->num_dtypes < 0 || static_cast<size_t>(desc->num_dtypes) != tensor_args ||
      (desc->num_dtypes > 0 && desc->dtypes == nullptr)) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat(where, ": gives ", desc->num_dtypes,
                              " dtypes, but the op has ", tensor_args,
                              " tensor arguments (one dtype each, in order)"));
  }
  auto entry = std::make_unique<KernelEntry>();
  for (size_t k = 0; k < tensor_args; ++k) {
    sy_dtype_t dtype = desc->dtypes[k];
    const SchemaArg& arg = schema->args[schema->tensor_args[k]];
    bool ok = IsValidDType(dtype) || (dtype == SY_DTYPE_NONE && arg.optional);
    if (!ok) {
      return Error(SY_STATUS_INVALID_ARGUMENT,
                   absl::StrCat(where, ": dtype #", k, " (argument '", arg.name,
                                "') is 0x", absl::Hex(dtype),
                                ", not one of f32 f64 f16 bf16 i32 i64 i8 u8 "
                                "bool", arg.optional ? " or none" : ""));
    }
    entry->dtypes.push_back(dtype);
  }
  if (static_cast<size_t>(std::max(desc->num_variants, 0)) > kLimits.max_variants) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat(where, ": has ", desc->num_variants,
                              " variants; at most ", kLimits.max_variants,
                              " are allowed"));
  }
  if (desc->num_variants < 0 || (desc->num_variants > 0 && desc->variants == nullptr)) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 absl::StrCat(where, ": num_variants is ", desc->num_variants,
                              " but variants is null"));
  }
  for (int32_t v = 0; v < desc->num_variants; ++v) {
    const sy_kernel_variant_t& variant = desc->variants[v];
    if (variant.struct_size < SY_STRUCT_SIZE(sy_kernel_variant_t, config_size) ||
        variant.name == nullptr ||
        (variant.config_size > 0 && variant.config == nullptr)) {
      return Error(SY_STATUS_INVALID_ARGUMENT,
                   absl::StrCat(where, ": variant #", v,
                                " needs struct_size, a name, and config bytes "
                                "when config_size > 0"));
    }
    if (BoundedLength(variant.name, kLimits.max_name_bytes) > kLimits.max_name_bytes ||
        variant.config_size > kLimits.max_config_bytes) {
      return Error(SY_STATUS_INVALID_ARGUMENT,
                   absl::StrCat(where, ": variant #", v, " has a name over ",
                                kLimits.max_name_bytes, " bytes or a config over ",
                                kLimits.max_config_bytes, " bytes, the limits"));
    }
    const auto* bytes = static_cast<const uint8_t*>(variant.config);
    entry->variants.push_back(
        {variant.name, std::vector<uint8_t>(bytes, bytes + variant.config_size)});
  }
  if (!kernel_identities_
           .insert(KernelIdentity{op_name, kernel_name, device_type, entry->dtypes})
           .second) {
    std::vector<std::string> names;
    for (sy_dtype_t d : entry->dtypes) names.emplace_back(DTypeName(d));
    return Error(SY_STATUS_ALREADY_EXISTS,
                 absl::StrCat(where, " on ", device_type, " with dtypes (",
                              absl::StrJoin(names, ", "),
                              ") is registered twice"));
  }
  entry->name = kernel_name;
  entry->plugin = &plugin_;
  entry->device_type_name = device_type;
  entry->device_type = state_.devices.TypeId(device_type);
  entry->key = MakeDispatchKey(entry->device_type, entry->dtypes);
  entry->priority = desc->priority;
  entry->fn = desc->fn;
  entry->kernel_data = desc->kernel_data;
  entry->plugin_abi_minor = plugin_.abi_minor();
  // 1.1 fields count only from a plugin that answered 1.1 (a 1.0 plugin's
  // descriptor may be larger than it knows, if it padded it).
  if (plugin_.abi_minor() >= 1 && SY_STRUCT_HAS(desc, sy_kernel_desc_t, flags)) {
    if ((desc->flags & ~SY_KERNEL_FLAG_MAY_DECLINE) != 0) {
      return Error(SY_STATUS_INVALID_ARGUMENT,
                   absl::StrCat(where, ": flags 0x", absl::Hex(desc->flags),
                                " has bits this host does not know; the only "
                                "kernel flag is SY_KERNEL_FLAG_MAY_DECLINE"));
    }
    entry->flags = desc->flags;
  }
  kernels_.push_back({std::move(entry), op_name});
  return nullptr;
}

sy_error_t* RegistrationSession::GetOption(const char* name,
                                           sy_option_value_t* out) {
  if (name == nullptr || out == nullptr) {
    return Error(SY_STATUS_INVALID_ARGUMENT,
                 "option_get: name and out_value must not be NULL");
  }
  for (const PluginOptionValue& o : options_) {
    if (o.decl.name != name) continue;
    sy_option_value_t value{};
    value.type = o.decl.type;
    value.is_set = o.source != "default";
    switch (o.decl.type) {
      case SY_OPTION_INT: value.value.i = o.i; break;
      case SY_OPTION_FLOAT: value.value.f = o.f; break;
      case SY_OPTION_BOOL: value.value.b = o.b ? 1 : 0; break;
      case SY_OPTION_STRING: value.value.str = o.text.c_str(); break;
    }
    *out = value;
    return nullptr;
  }
  std::vector<std::string> names;
  for (const PluginOptionValue& o : options_) names.push_back(o.decl.name);
  return Error(SY_STATUS_NOT_FOUND,
               absl::StrCat("option_get: the plugin declares no option '",
                            BoundedLength(name, 64) > 64 ? "(too long)" : name,
                            "'; declared: ",
                            names.empty() ? "none" : absl::StrJoin(names, ", ")));
}

void RegistrationSession::Note(std::string text) {
  std::lock_guard<std::mutex> lock(notes_mu_);
  notes_.push_back(std::move(text));
}

std::vector<std::string> RegistrationSession::notes() const {
  std::lock_guard<std::mutex> lock(notes_mu_);
  return notes_;
}

absl::Status RegistrationSession::Commit(LoadRecord& record) {
  for (StagedSchema& staged : schemas_) {
    absl::StatusOr<OpDef*> op =
        state_.ops.Add(std::move(staged.schema), OpKind::kGeneral, nullptr,
                       staged.shape_fn, staged.shape_data, plugin_.name());
    if (!op.ok()) {
      Withdraw(state_, plugin_);
      return op.status();
    }
    (*op)->set_output_layout(staged.output_layout);
    ++record.num_schemas;
  }
  for (const sy_device_api_t& api : devices_) {
    absl::StatusOr<DeviceType*> type = state_.devices.Add(api, &plugin_);
    absl::Status status = type.ok() ? (*type)->Initialize() : type.status();
    if (!status.ok()) {
      Withdraw(state_, plugin_);
      return status;
    }
    ++record.num_devices;
    committed_devices_ += static_cast<int>((*type)->devices().size());
  }
  std::vector<std::unique_ptr<KernelEntry>> batch;
  for (StagedKernel& staged : kernels_) {
    staged.entry->op = state_.ops.Find(staged.op_name);
    batch.push_back(std::move(staged.entry));
  }
  record.num_kernels = static_cast<int>(batch.size());
  absl::Status status = state_.kernels.Add(std::move(batch));
  if (!status.ok()) Withdraw(state_, plugin_);
  return status;
}

void RegistrationSession::Withdraw(RuntimeState& state, PluginInstance& plugin) {
  state.kernels.RemovePlugin(&plugin);
  state.devices.RemoveOwnedBy(&plugin);
  state.ops.Retire(plugin.name());
}

}  // namespace sy::core
