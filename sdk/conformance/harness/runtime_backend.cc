// RuntimeBackend over the public C++ API (switchyard.hpp): the harness
// drives a device exactly as an application does, through libswitchyard.so.
#include "sdk/conformance/harness/runtime_backend.h"

#include <map>
#include <utility>

#include "switchyard/switchyard.hpp"

namespace sy::op_harness {
namespace {

// The C function a message came through is noise to the harness's reader
// ("sy_op_call_ex: add.Tensor: …" → "add.Tensor: …").
std::string Unprefixed(const std::string& message) {
  const size_t colon = message.find(": ");
  if (message.rfind("sy_", 0) == 0 && colon != std::string::npos &&
      message.find(' ') > colon) {
    return message.substr(colon + 2);
  }
  return message;
}

Status FromApi(const sy::Status& status) {
  return Status::Error(status.code(), Unprefixed(status.message()));
}

class ApiTensor : public BackendTensor {
 public:
  explicit ApiTensor(sy::Tensor tensor) : tensor_(std::move(tensor)) {}
  const sy::Tensor& tensor() const { return tensor_; }

 private:
  sy::Tensor tensor_;
};

const sy::Tensor& Unwrap(const DeviceTensor& t) {
  static const sy::Tensor kUndefined;
  if (t == nullptr) return kUndefined;
  return static_cast<const ApiTensor&>(*t).tensor();
}

std::vector<sy::Tensor> UnwrapAll(std::span<const DeviceTensor> inputs) {
  std::vector<sy::Tensor> out;
  out.reserve(inputs.size());
  for (const DeviceTensor& t : inputs) out.push_back(Unwrap(t));
  return out;
}

// sy::Attr borrows lists and strings; `attrs` outlives the call.
std::vector<sy::Attr> ToAttrs(std::span<const AttrValue> attrs) {
  std::vector<sy::Attr> out;
  out.reserve(attrs.size());
  for (const AttrValue& a : attrs) {
    switch (a.kind) {
      case AttrValue::Kind::kNone: out.push_back(sy::Attr::None()); break;
      case AttrValue::Kind::kInt: out.emplace_back(a.i); break;
      case AttrValue::Kind::kFloat: out.emplace_back(a.f); break;
      case AttrValue::Kind::kBool: out.emplace_back(a.b); break;
      case AttrValue::Kind::kInts:
        out.emplace_back(std::span<const int64_t>(a.ints.data(), a.ints.size()));
        break;
      case AttrValue::Kind::kString: out.emplace_back(a.str); break;
      case AttrValue::Kind::kDtype: out.push_back(sy::Attr::DType(a.dtype)); break;
    }
  }
  return out;
}

class RuntimeBackend : public BackendUnderTest {
 public:
  // `owned` may be empty when the caller keeps the context.
  RuntimeBackend(sy::Context owned, const sy::Context* context, sy::Device device)
      : owned_(std::move(owned)),
        context_(context != nullptr ? context : &owned_),
        device_(device),
        label_(device.label()) {}

  std::string DeviceLabel() const override { return label_; }

  uint32_t FloatFlags() const override {
    sy::Result<sy::DeviceInfo> info = device_.info();
    return info.ok() ? info->float_flags : 0u;
  }

  Result<DeviceTensor> Upload(const RefTensor& host) override {
    const std::vector<uint8_t> bytes = ToBytes(host);
    sy::Result<sy::Tensor> t = sy::Tensor::FromHost(
        device_, host.dtype, std::span<const int64_t>(host.shape.data(), host.shape.size()),
        bytes.data(), bytes.size());
    if (!t.ok()) return FromApi(t.status());
    return DeviceTensor(std::make_shared<ApiTensor>(*std::move(t)));
  }

  Result<RefTensor> Download(const DeviceTensor& tensor) override {
    const sy::Tensor& t = Unwrap(tensor);
    if (!t) {
      return Status::Error(SY_STATUS_INVALID_ARGUMENT, "Download: the tensor is undefined");
    }
    std::vector<uint8_t> bytes(t.nbytes());
    if (sy::Status s = t.ToHost(bytes.data(), bytes.size()); !s.ok()) return FromApi(s);
    const std::vector<int64_t> shape = t.shape();
    return FromBytes(t.dtype(), Shape(shape.begin(), shape.end()), bytes);
  }

  // The C API takes a Tensor[] argument's length from the number of
  // inputs, which the harness makes agree with list_sizes.
  Result<std::vector<DeviceTensor>> Call(std::string_view op,
                                         std::span<const DeviceTensor> inputs,
                                         std::span<const AttrValue> attrs,
                                         std::span<const int32_t> /*list_sizes*/,
                                         CallMode mode) override {
    return Run(op, inputs, attrs,
               mode == CallMode::kDecomposed ? sy::Route::Decomposition() : sy::Route());
  }

  std::string Explain(std::string_view op, std::span<const DeviceTensor> inputs,
                      std::span<const AttrValue> attrs,
                      std::span<const int32_t> /*list_sizes*/) override {
    Result<std::string> how = Describe(op, inputs, attrs, sy::Route());
    return how.ok() ? *how : how.status().message;
  }

  Result<std::vector<DeviceTensor>> CallKernel(std::string_view op,
                                               std::span<const DeviceTensor> inputs,
                                               std::span<const AttrValue> attrs,
                                               std::span<const int32_t> /*list_sizes*/,
                                               const std::string& kernel) override {
    return Run(op, inputs, attrs, sy::Route::Kernel(kernel));
  }

  Result<std::string> ExplainKernel(std::string_view op,
                                    std::span<const DeviceTensor> inputs,
                                    std::span<const AttrValue> attrs,
                                    std::span<const int32_t> /*list_sizes*/,
                                    const std::string& kernel) override {
    return Describe(op, inputs, attrs, sy::Route::Kernel(kernel));
  }

 private:
  Result<std::vector<DeviceTensor>> Run(std::string_view op,
                                       std::span<const DeviceTensor> inputs,
                                       std::span<const AttrValue> attrs,
                                       const sy::Route& route) {
    Result<sy::Op> handle = Find(op);
    if (!handle.ok()) return handle.status();
    const std::vector<sy::Tensor> tensors = UnwrapAll(inputs);
    const std::vector<sy::Attr> converted = ToAttrs(attrs);
    sy::Result<std::vector<sy::Tensor>> out = handle->call(tensors, converted, route);
    if (!out.ok()) return FromApi(out.status());
    std::vector<DeviceTensor> results;
    for (sy::Tensor& t : *out) results.push_back(std::make_shared<ApiTensor>(std::move(t)));
    return results;
  }

  Result<std::string> Describe(std::string_view op, std::span<const DeviceTensor> inputs,
                               std::span<const AttrValue> attrs, const sy::Route& route) {
    Result<sy::Op> handle = Find(op);
    if (!handle.ok()) return handle.status();
    const std::vector<sy::Tensor> tensors = UnwrapAll(inputs);
    const std::vector<sy::Attr> converted = ToAttrs(attrs);
    sy::Result<std::string> how = handle->explain(tensors, converted, route);
    if (!how.ok()) return FromApi(how.status());
    return *how;
  }

  Result<sy::Op> Find(std::string_view op) {
    const std::string name(op);
    auto it = ops_.find(name);
    if (it != ops_.end()) return it->second;
    sy::Result<sy::Op> handle = context_->op(name);
    if (!handle.ok()) return FromApi(handle.status());
    ops_.emplace(name, *handle);
    return *handle;
  }

  sy::Context owned_;
  const sy::Context* context_;
  sy::Device device_;
  std::string label_;
  std::map<std::string, sy::Op, std::less<>> ops_;
};

}  // namespace

Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackend(
    const RuntimeBackendOptions& options) {
  sy::ContextOptions context_options;
  context_options.use_environment = false;
  context_options.use_default_path = false;
  context_options.plugin_paths = options.plugin_paths;
  context_options.plugin_options = options.plugin_options;
  context_options.cpu_fallback = options.cpu_fallback;
  sy::Result<sy::Context> context = sy::Context::Create(context_options);
  if (!context.ok()) return FromApi(context.status());
  sy::Result<std::vector<sy::LoadRecord>> records = context->load_records();
  if (!records.ok()) return FromApi(records.status());
  for (const sy::LoadRecord& record : *records) {
    if (record.outcome == SY_LOAD_FAILED) {
      return Status::Error(SY_STATUS_FAILED_PRECONDITION,
                           "a plugin under test did not load: " + record.description);
    }
  }
  sy::Result<sy::Device> device = context->device(options.device);
  if (!device.ok()) return FromApi(device.status());
  sy::Device found = *device;
  return std::unique_ptr<BackendUnderTest>(
      std::make_unique<RuntimeBackend>(*std::move(context), nullptr, found));
}

Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackendOn(
    const sy::Context& context, const std::string& device_spec) {
  sy::Result<sy::Device> device = context.device(device_spec);
  if (!device.ok()) return FromApi(device.status());
  return std::unique_ptr<BackendUnderTest>(
      std::make_unique<RuntimeBackend>(sy::Context(), &context, *device));
}

}  // namespace sy::op_harness
