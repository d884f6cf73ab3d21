#include "sdk/conformance/harness/runtime_backend.h"

#include <map>
#include <utility>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/runtime/runtime.h"

namespace sy::op_harness {
using namespace ::sy::core;  // NOLINT: this backend drives the core directly
namespace {

Status FromAbsl(const absl::Status& status) {
  // sy_status_code_t is numerically absl::StatusCode (common.h).
  return Status::Error(static_cast<sy_status_code_t>(status.code()),
                       std::string(status.message()));
}

class RuntimeTensor : public BackendTensor {
 public:
  explicit RuntimeTensor(Tensor tensor) : tensor_(std::move(tensor)) {}
  const Tensor& tensor() const { return tensor_; }

 private:
  Tensor tensor_;
};

const Tensor& Unwrap(const DeviceTensor& t) {
  static const Tensor kUndefined;
  if (t == nullptr) return kUndefined;
  return static_cast<const RuntimeTensor&>(*t).tensor();
}

std::vector<Tensor> UnwrapAll(std::span<const DeviceTensor> inputs) {
  std::vector<Tensor> out;
  out.reserve(inputs.size());
  for (const DeviceTensor& t : inputs) out.push_back(Unwrap(t));
  return out;
}

// sy::core::Attr borrows lists and strings; `attrs` outlives the call.
std::vector<Attr> ToAttrs(std::span<const AttrValue> attrs) {
  std::vector<Attr> out;
  out.reserve(attrs.size());
  for (const AttrValue& a : attrs) {
    switch (a.kind) {
      case AttrValue::Kind::kNone: out.emplace_back(); break;
      case AttrValue::Kind::kInt: out.emplace_back(a.i); break;
      case AttrValue::Kind::kFloat: out.emplace_back(a.f); break;
      case AttrValue::Kind::kBool: out.emplace_back(a.b); break;
      case AttrValue::Kind::kInts:
        out.emplace_back(absl::Span<const int64_t>(a.ints.data(), a.ints.size()));
        break;
      case AttrValue::Kind::kString: out.emplace_back(a.str); break;
      case AttrValue::Kind::kDtype: out.push_back(Attr::DType(a.dtype)); break;
    }
  }
  return out;
}

class RuntimeBackend : public BackendUnderTest {
 public:
  // `owned` may be null when the caller keeps the runtime.
  RuntimeBackend(std::unique_ptr<Runtime> owned, Runtime* runtime, Device* device)
      : owned_(std::move(owned)), runtime_(runtime), device_(device) {}

  std::string DeviceLabel() const override { return device_->label(); }

  Result<DeviceTensor> Upload(const RefTensor& host) override {
    const std::vector<uint8_t> bytes = ToBytes(host);
    absl::StatusOr<Tensor> t = runtime_->FromHost(
        *device_, host.dtype, host.shape, bytes.data(), bytes.size());
    if (!t.ok()) return FromAbsl(t.status());
    return DeviceTensor(std::make_shared<RuntimeTensor>(*std::move(t)));
  }

  Result<RefTensor> Download(const DeviceTensor& tensor) override {
    const Tensor& t = Unwrap(tensor);
    if (!t.defined()) {
      return Status::Error(SY_STATUS_INVALID_ARGUMENT,
                           "Download: the tensor is undefined");
    }
    std::vector<uint8_t> bytes(t.nbytes());
    absl::Status status = runtime_->ToHost(t, bytes.data(), bytes.size());
    if (!status.ok()) return FromAbsl(status);
    return FromBytes(t.dtype(), Shape(t.shape().begin(), t.shape().end()),
                     bytes);
  }

  Result<std::vector<DeviceTensor>> Call(std::string_view op,
                                         std::span<const DeviceTensor> inputs,
                                         std::span<const AttrValue> attrs,
                                         std::span<const int32_t> list_sizes,
                                         CallMode mode) override {
    Result<OpHandle> handle = Find(op);
    if (!handle.ok()) return handle.status();
    const std::vector<Tensor> tensors = UnwrapAll(inputs);
    const std::vector<Attr> converted = ToAttrs(attrs);
    const absl::Span<const int32_t> sizes(list_sizes.data(), list_sizes.size());
    absl::StatusOr<std::vector<Tensor>> out =
        mode == CallMode::kDecomposed
            ? runtime_->CallDecomposed(*handle, tensors, converted, sizes)
            : runtime_->Call(*handle, tensors, converted, sizes);
    if (!out.ok()) return FromAbsl(out.status());
    std::vector<DeviceTensor> results;
    for (Tensor& t : *out) {
      results.push_back(std::make_shared<RuntimeTensor>(std::move(t)));
    }
    return results;
  }

  std::string Explain(std::string_view op, std::span<const DeviceTensor> inputs,
                      std::span<const AttrValue> attrs,
                      std::span<const int32_t> list_sizes) override {
    Result<OpHandle> handle = Find(op);
    if (!handle.ok()) return "";
    const std::vector<Tensor> tensors = UnwrapAll(inputs);
    const std::vector<Attr> converted = ToAttrs(attrs);
    absl::StatusOr<std::string> how = runtime_->Explain(
        *handle, tensors, converted,
        absl::Span<const int32_t>(list_sizes.data(), list_sizes.size()));
    return how.ok() ? *how : std::string(how.status().message());
  }

 private:
  Result<OpHandle> Find(std::string_view op) {
    const std::string name(op);
    auto it = ops_.find(name);
    if (it != ops_.end()) return it->second;
    absl::StatusOr<OpHandle> handle =
        runtime_->FindOp(absl::string_view(name.data(), name.size()));
    if (!handle.ok()) return FromAbsl(handle.status());
    ops_.emplace(name, *handle);
    return *handle;
  }

  std::unique_ptr<Runtime> owned_;
  Runtime* runtime_;
  Device* device_;
  std::map<std::string, OpHandle, std::less<>> ops_;
};

}  // namespace

Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackend(
    const RuntimeBackendOptions& options) {
  RuntimeOptions runtime_options;
  runtime_options.loader.use_environment = false;
  runtime_options.loader.use_default_path = false;
  runtime_options.loader.search_paths = options.plugin_paths;
  runtime_options.loader.plugin_options = options.plugin_options;
  runtime_options.cpu_fallback = options.cpu_fallback;
  absl::StatusOr<std::unique_ptr<Runtime>> runtime =
      Runtime::Create(runtime_options);
  if (!runtime.ok()) return FromAbsl(runtime.status());
  for (const LoadRecord& record : (*runtime)->LoadRecords()) {
    if (record.outcome == LoadOutcome::kFailed) {
      return Status::Error(SY_STATUS_FAILED_PRECONDITION,
                           "a plugin under test did not load: " +
                               DescribeLoadRecord(record));
    }
  }
  absl::StatusOr<Device*> device = (*runtime)->GetDevice(
      absl::string_view(options.device.data(), options.device.size()));
  if (!device.ok()) return FromAbsl(device.status());
  Runtime* borrowed = runtime->get();
  return std::unique_ptr<BackendUnderTest>(std::make_unique<RuntimeBackend>(
      *std::move(runtime), borrowed, *device));
}

Result<std::unique_ptr<BackendUnderTest>> CreateRuntimeBackendOn(
    Runtime& runtime, const std::string& device_spec) {
  absl::StatusOr<Device*> device = runtime.GetDevice(
      absl::string_view(device_spec.data(), device_spec.size()));
  if (!device.ok()) return FromAbsl(device.status());
  return std::unique_ptr<BackendUnderTest>(
      std::make_unique<RuntimeBackend>(nullptr, &runtime, *device));
}

}  // namespace sy::op_harness
