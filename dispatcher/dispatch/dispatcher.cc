#include "dispatcher/dispatch/dispatcher.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/base/log.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/call_plan.h"
#include "dispatcher/dispatch/run.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/base/plugin_instance.h"
#include "dispatcher/trace/trace.h"

namespace sy::core {
namespace {

// Pointers to a span of tensors, as CallArgs takes them: on the stack for
// the usual few, on the heap beyond.
class TensorPointers {
 public:
  explicit TensorPointers(absl::Span<const Tensor> tensors) : size_(tensors.size()) {
    const Tensor** to = inline_;
    if (size_ > kInlineTensors) {
      heap_.reset(new const Tensor*[size_]);
      to = heap_.get();
    }
    for (size_t i = 0; i < size_; ++i) to[i] = &tensors[i];
  }
  operator absl::Span<const Tensor* const>() const {
    return {heap_ ? heap_.get() : inline_, size_};
  }

 private:
  size_t size_;
  const Tensor* inline_[kInlineTensors];
  std::unique_ptr<const Tensor*[]> heap_;
};

absl::Span<const sy_attr_t> AsAbiAttrs(absl::Span<const Attr> attrs) {
  static_assert(sizeof(Attr) == sizeof(sy_attr_t));
  return {static_cast<const sy_attr_t*>(attrs.data()), attrs.size()};
}

absl::Status CheckOp(OpHandle op) {
  if (op.def() == nullptr) {
    return absl::InvalidArgumentError(
        "op handle is empty; get one from FindOp");
  }
  if (!op.def()->live()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "op '", op.def()->full_name(), "' was removed when plugin '",
        op.def()->owner(), "' was unloaded; load the plugin again and look "
        "the op up anew"));
  }
  return absl::OkStatus();
}

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

// A call as its trace event (trace/trace.h) names it.
trace::CallEvent DescribeCall(const BoundCall& bound, const Resolution* resolution,
                              const absl::Status& status) {
  trace::CallEvent e;
  e.op = bound.op->full_name();
  if (resolution != nullptr) {
    e.route = DescribeResolution(*resolution);
    if (resolution->route == Route::kKernel) {
      e.kernel = resolution->kernel.kernel->QualifiedName();
      const PluginInstance* plugin = resolution->kernel.kernel->plugin;
      e.plugin = plugin != nullptr ? plugin->name() : "";
    }
  }
  if (bound.device != nullptr) e.device = bound.device->label();
  std::vector<std::string> dtypes, shapes;
  for (const sy_tensor_meta_t& m : bound.metas) {
    dtypes.emplace_back(DTypeName(m.dtype));
    shapes.push_back(absl::StrCat(
        "[", absl::StrJoin(absl::MakeConstSpan(m.shape, m.ndim), ", "), "]"));
  }
  e.dtypes = absl::StrJoin(dtypes, ", ");
  e.shapes = absl::StrJoin(shapes, ", ");
  if (!status.ok()) e.error = std::string(status.message());
  return e;
}

}  // namespace

absl::StatusOr<OpHandle> Dispatcher::FindOp(absl::string_view name) const {
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

absl::Status Dispatcher::ExecuteObserved(OpHandle op, const CallArgs& args) {
  // Traced (one event per call, with the kernel's device time) or logged
  // at debug level (a line per call with its resolution).
  const int64_t start = trace::NowNs();
  trace::DeviceTime device_time;
  trace::DeviceTime* outer = std::exchange(TracedDeviceTime(), &device_time);
  TracedCall traced;
  absl::Status status = ExecuteUntraced(op, args, &traced);
  TracedDeviceTime() = outer;
  if (traced.described && DebugLogging()) {
    const trace::CallEvent& e = traced.event;
    Log(LogLevel::kDebug,
        absl::StrCat(e.op, " on ", e.device, " (", e.dtypes, "; ", e.shapes,
                     "): ", e.route.empty() ? "unresolved" : e.route,
                     e.error.empty() ? "" : absl::StrCat(" — failed: ", e.error)));
  }
  if (traced.described && trace::Enabled()) {
    traced.event.start_ns = start;
    traced.event.end_ns = trace::NowNs();
    traced.event.device_time = std::move(device_time);
    trace::RecordCall(std::move(traced.event));
  }
  return status;
}

absl::Status Dispatcher::ExecuteUntraced(OpHandle op, const CallArgs& args,
                                         TracedCall* traced) {
  if (op.def() == nullptr || !op.def()->live()) return CheckOp(op);
  const OpDef& def = *op.def();
  CallTracker::Scope in_flight(state_->calls);
  if (traced == nullptr) {  // a traced call needs the whole path's event
    if (std::optional<absl::Status> planned = RunPlanned(def, args)) {
      return *std::move(planned);
    }
  }
  BoundCall bound;
  absl::Status status =
      BindCall(def, args.inputs, args.attrs, args.list_sizes, bound);
  if (!status.ok()) return status;
  const Resolution* resolved = nullptr;
  // From here every return describes the call for a trace.
  auto done = [&](absl::Status result) {
    if (traced != nullptr) {
      traced->event = DescribeCall(bound, resolved, result);
      traced->described = true;
    }
    return result;
  };
  if (args.produced == nullptr && args.outputs.size() != bound.outputs.size()) {
    return done(absl::InvalidArgumentError(absl::StrCat(
        def.full_name(), ": produces ", bound.outputs.size(),
        " output(s) but ", args.outputs.size(), " were passed")));
  }
  absl::StatusOr<Resolution> resolution = Resolve(*state_, bound, args.route);
  if (!resolution.ok()) return done(resolution.status());
  resolved = &*resolution;
  if (CallInterceptor* interceptor = ActiveInterceptor()) {
    absl::StatusOr<TensorList> recorded =
        interceptor->Record(bound, *resolution, args.outputs);
    if (!recorded.ok()) return done(recorded.status());
    if (args.produced != nullptr) {
      for (Tensor& t : *recorded) args.produced->push_back(std::move(t));
    }
    return done(absl::OkStatus());
  }
  RememberPlan(args, bound, *resolution);  // Note [Call plans]
  return done(RunResolved(*this, bound, *resolution, args.outputs, args.produced));
}

absl::StatusOr<std::vector<Tensor>> Dispatcher::Call(
    OpHandle op, absl::Span<const Tensor> inputs, absl::Span<const Attr> attrs,
    absl::Span<const int32_t> list_sizes) {
  TensorPointers pointers(inputs);
  TensorList produced;
  CallArgs args;
  args.inputs = pointers;
  args.attrs = AsAbiAttrs(attrs);
  args.list_sizes = list_sizes;
  args.produced = &produced;
  absl::Status status = Execute(op, args);
  if (!status.ok()) return status;
  return std::vector<Tensor>(std::make_move_iterator(produced.begin()),
                             std::make_move_iterator(produced.end()));
}

absl::Status Dispatcher::CallOut(OpHandle op, absl::Span<const Tensor> inputs,
                                 absl::Span<const Attr> attrs,
                                 absl::Span<const Tensor> outputs,
                                 absl::Span<const int32_t> list_sizes) {
  TensorPointers in(inputs);
  TensorPointers out(outputs);
  CallArgs args;
  args.inputs = in;
  args.attrs = AsAbiAttrs(attrs);
  args.list_sizes = list_sizes;
  args.outputs = out;
  return Execute(op, args);
}

absl::StatusOr<std::vector<Tensor>> Dispatcher::CallDecomposed(
    OpHandle op, absl::Span<const Tensor> inputs, absl::Span<const Attr> attrs,
    absl::Span<const int32_t> list_sizes) {
  TensorPointers pointers(inputs);
  TensorList produced;
  CallArgs args;
  args.inputs = pointers;
  args.attrs = AsAbiAttrs(attrs);
  args.list_sizes = list_sizes;
  args.produced = &produced;
  args.route = RouteRequest::Decomposition();
  absl::Status status = Execute(op, args);
  if (!status.ok()) return status;
  return std::vector<Tensor>(std::make_move_iterator(produced.begin()),
                             std::make_move_iterator(produced.end()));
}

absl::StatusOr<Resolution> Dispatcher::ResolveCall(OpHandle op,
                                                   const CallArgs& args) {
  if (absl::Status status = CheckOp(op); !status.ok()) return status;
  CallTracker::Scope in_flight(state_->calls);
  BoundCall bound;
  absl::Status status =
      BindCall(*op.def(), args.inputs, args.attrs, args.list_sizes, bound);
  if (!status.ok()) return status;
  return Resolve(*state_, bound, args.route);
}

absl::StatusOr<std::string> Dispatcher::Explain(
    OpHandle op, absl::Span<const Tensor> inputs, absl::Span<const Attr> attrs,
    absl::Span<const int32_t> list_sizes, const RouteRequest& route) {
  TensorPointers pointers(inputs);
  CallArgs args;
  args.inputs = pointers;
  args.attrs = AsAbiAttrs(attrs);
  args.list_sizes = list_sizes;
  args.route = route;
  absl::StatusOr<Resolution> resolution = ResolveCall(op, args);
  if (!resolution.ok()) return resolution.status();
  return DescribeResolution(*resolution);
}

absl::StatusOr<Device*> Dispatcher::GetDevice(absl::string_view spec) const {
  if (Device* device = state_->devices.FindDevice(spec)) return device;
  std::vector<std::string> labels;
  for (Device* device : Devices()) labels.push_back(device->label());
  // A device type whose plugin loaded without devices says why.
  const absl::string_view type = spec.substr(0, spec.find(':'));
  std::string why;
  if (DeviceType* known = state_->devices.FindType(type);
      known != nullptr && known->devices().empty() && known->plugin() != nullptr) {
    std::lock_guard<std::mutex> lock(state_->plugins_mu);
    for (const LoadRecord& record : state_->records) {
      if (record.name != known->plugin()->name() ||
          record.outcome != LoadOutcome::kLoadedNoDevices) {
        continue;
      }
      why = absl::StrCat("; device type '", type, "' has no devices: plugin '",
                         record.name, "' loaded without any",
                         record.notes.empty()
                             ? std::string()
                             : absl::StrCat(" (", absl::StrJoin(record.notes, "; "), ")"));
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "no device '", spec, "'", why, "; devices present: ",
      labels.empty() ? "none (no device plugin loaded; see `switchyard info`)"
                     : absl::StrJoin(labels, ", ")));
}

std::vector<Device*> Dispatcher::Devices() const {
  std::vector<Device*> devices;
  for (DeviceType* type : state_->devices.Types()) {
    for (const auto& device : type->devices()) devices.push_back(device.get());
  }
  return devices;
}

absl::StatusOr<Tensor> Dispatcher::Empty(Device& device, sy_dtype_t dtype,
                                         absl::Span<const int64_t> shape) {
  return Tensor::Empty(device, dtype, shape);
}

absl::StatusOr<Tensor> Dispatcher::FromHost(Device& device, sy_dtype_t dtype,
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

absl::Status Dispatcher::ToHost(const Tensor& tensor, void* dst, size_t bytes) {
  if (!tensor.defined()) {
    return absl::InvalidArgumentError("ToHost: the tensor is undefined");
  }
  if (tensor.symbolic()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "ToHost: ", tensor.Describe(), " is a symbolic tensor of a graph "
        "capture and has no values; launch the captured graph and read its "
        "outputs"));
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

absl::StatusOr<Tensor> Dispatcher::To(const Tensor& tensor, Device& device) {
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

absl::Status Dispatcher::Synchronize(Device& device) {
  return device.Synchronize();
}

}  // namespace sy::core
