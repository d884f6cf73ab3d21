#include "absl/strings/string_view.h"
#include "dispatcher/runtime/runtime.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/dispatch/decompositions/core_decompositions.h"
#include "dispatcher/base/env.h"
#include "dispatcher/base/log.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/dispatch/view_ops.h"

namespace sy::core {
namespace {

// Copies the elements of a strided layout at `base` into `dst` densely.
void GatherStrided(const char* base, size_t element_size,
                   absl::Span<const int64_t> shape,
                   absl::Span<const int64_t> strides, char* dst) {
  const int ndim = static_cast<int>(shape.size());
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel == 0) return;
  int64_t index[SY_MAX_RANK] = {};
  for (int64_t n = 0; n < numel; ++n) {
    int64_t offset = 0;
    for (int d = 0; d < ndim; ++d) offset += index[d] * strides[d];
    std::memcpy(dst + n * element_size, base + offset * element_size,
                element_size);
    for (int d = ndim - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

Runtime::Runtime() : state_(std::make_unique<RuntimeState>()) {}

Runtime::~Runtime() {
  int64_t live = 0;
  {
    std::lock_guard<std::mutex> lock(state_->plugins_mu);
    for (const auto& plugin : state_->plugins) live += plugin->live_objects();
  }
  if (live > 0) {
    Log(LogLevel::kWarning,
        absl::StrCat("runtime destroyed while ", live,
                     " tensor storage block(s) are alive; leaking the runtime's "
                     "devices and plugins so those tensors stay valid. Release "
                     "tensors before destroying the runtime."));
    (void)state_.release();
  }
}

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::Create(RuntimeOptions options) {
  std::unique_ptr<Runtime> runtime(new Runtime());
  RuntimeState& state = *runtime->state_;
  state.cpu_fallback = options.cpu_fallback.has_value()
                           ? *options.cpu_fallback
                           : GetEnvFlag("SWITCHYARD_CPU_FALLBACK");
  absl::Status status = state.ops.AddCoreOps();
  if (!status.ok()) return status;
  InstallViewOps(state.ops);
  InstallCoreDecompositions(state.ops);
  status = LoadPlugins(state, options.loader);
  if (!status.ok()) return status;
  return runtime;
}

absl::StatusOr<OpHandle> Runtime::FindOp(absl::string_view name) const {
  if (OpDef* op = state_->ops.Find(name)) return OpHandle(op);
  std::vector<std::string> similar;
  for (OpDef* op : state_->ops.All()) {
    const std::string& full = op->full_name();
    if (absl::StrContains(full, name) ||
        (name.size() >= 3 && absl::StrContains(name, op->schema().name))) {
      similar.push_back(full);
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "no op named '", name, "'",
      similar.empty() ? std::string("")
                      : absl::StrCat("; did you mean ", absl::StrJoin(similar, ", "), "?"),
      " (`switchyard ops` lists every op)"));
}

absl::Status Runtime::PinKernel(absl::string_view op, absl::string_view device_type,
                                absl::string_view kernel) {
  absl::StatusOr<OpHandle> handle = FindOp(op);
  if (!handle.ok()) return handle.status();
  return state_->kernels.Pin(handle->def(), device_type, kernel);
}

absl::Status Runtime::UnpinKernel(absl::string_view op,
                                  absl::string_view device_type) {
  absl::StatusOr<OpHandle> handle = FindOp(op);
  if (!handle.ok()) return handle.status();
  state_->kernels.Unpin(handle->def(), device_type);
  return absl::OkStatus();
}

absl::StatusOr<Device*> Runtime::GetDevice(absl::string_view spec) const {
  if (Device* device = state_->devices.FindDevice(spec)) return device;
  std::vector<std::string> labels;
  for (Device* device : Devices()) labels.push_back(device->label());
  return absl::NotFoundError(absl::StrCat(
      "no device '", spec, "'; devices present: ",
      labels.empty() ? "none (no device plugin loaded; see `switchyard info`)"
                     : absl::StrJoin(labels, ", ")));
}

std::vector<Device*> Runtime::Devices() const {
  std::vector<Device*> devices;
  for (DeviceType* type : state_->devices.Types()) {
    for (const auto& device : type->devices()) devices.push_back(device.get());
  }
  return devices;
}

absl::StatusOr<Tensor> Runtime::Empty(Device& device, sy_dtype_t dtype,
                                      absl::Span<const int64_t> shape) {
  return Tensor::Empty(device, dtype, shape);
}

absl::StatusOr<Tensor> Runtime::FromHost(Device& device, sy_dtype_t dtype,
                                         absl::Span<const int64_t> shape,
                                         const void* data, size_t bytes) {
  absl::StatusOr<Tensor> tensor = Tensor::Empty(device, dtype, shape);
  if (!tensor.ok()) return tensor.status();
  if (bytes != tensor->nbytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FromHost: ", tensor->Describe(), " needs ", tensor->nbytes(),
        " bytes of host data but ", bytes, " were given"));
  }
  if (data == nullptr && bytes > 0) {
    return absl::InvalidArgumentError("FromHost: the host data pointer is null");
  }
  absl::Status status =
      device.CopyAsync(tensor->data(), data, bytes, SY_COPY_HOST_TO_DEVICE);
  if (status.ok()) status = device.Synchronize();  // `data` is the caller's
  if (!status.ok()) return status;
  return tensor;
}

absl::Status Runtime::ToHost(const Tensor& tensor, void* dst, size_t bytes) {
  if (!tensor.defined()) {
    return absl::InvalidArgumentError("ToHost: the tensor is undefined");
  }
  if (bytes != tensor.nbytes()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ToHost: ", tensor.Describe(), " has ", tensor.nbytes(),
        " bytes but the destination holds ", bytes));
  }
  if (dst == nullptr && bytes > 0) {
    return absl::InvalidArgumentError("ToHost: the destination pointer is null");
  }
  Device& device = tensor.device();
  if (bytes == 0) return device.Synchronize();
  if (tensor.is_contiguous()) {
    absl::Status status =
        device.CopyAsync(dst, tensor.data(), bytes, SY_COPY_DEVICE_TO_HOST);
    return status.ok() ? device.Synchronize() : status;
  }
  // Strided: bring over the span the layout covers, then gather on the host.
  const size_t esize = DTypeSize(tensor.dtype());
  int64_t last = 0;
  for (int d = 0; d < tensor.ndim(); ++d) {
    last += (tensor.shape()[d] - 1) * tensor.strides()[d];
  }
  std::vector<char> staging(static_cast<size_t>(last + 1) * esize);
  absl::Status status = device.CopyAsync(staging.data(), tensor.data(),
                                         staging.size(), SY_COPY_DEVICE_TO_HOST);
  if (status.ok()) status = device.Synchronize();
  if (!status.ok()) return status;
  GatherStrided(staging.data(), esize, tensor.shape(), tensor.strides(),
                static_cast<char*>(dst));
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Runtime::To(const Tensor& tensor, Device& device) {
  if (!tensor.defined()) {
    return absl::InvalidArgumentError("To: the tensor is undefined");
  }
  if (&tensor.device() == &device) return tensor;
  std::vector<char> staging(tensor.nbytes());
  absl::Status status = ToHost(tensor, staging.data(), staging.size());
  if (!status.ok()) return status;
  return FromHost(device, tensor.dtype(), tensor.shape(), staging.data(),
                  staging.size());
}

absl::Status Runtime::Synchronize(Device& device) { return device.Synchronize(); }

absl::Status Runtime::LoadPlugin(const std::string& manifest_path) {
  return LoadPluginFromManifest(*state_, manifest_path);
}

absl::Status Runtime::UnloadPlugin(absl::string_view name) {
  return sy::core::UnloadPlugin(*state_, name);
}

std::vector<LoadRecord> Runtime::LoadRecords() const {
  std::lock_guard<std::mutex> lock(state_->plugins_mu);
  return state_->records;
}

}  // namespace sy::core
