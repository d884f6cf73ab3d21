#include "autotune/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/base/plugin_instance.h"
#include "switchyard/plugin/dtypes.hpp"

namespace sy::autotune {
namespace {

template <class T>
void Widen(const std::vector<unsigned char>& bytes, std::vector<double>& out) {
  const size_t n = bytes.size() / sizeof(T);
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    T value;
    std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, plugin::Half> || std::is_same_v<T, plugin::BFloat16>) {
      out[i] = static_cast<double>(static_cast<float>(value));
    } else {
      out[i] = static_cast<double>(value);
    }
  }
}

// The cpu plugin's kernel in `cpu_slot`, or null.
const core::KernelEntry* CpuPluginKernel(const core::DispatchSlot* cpu_slot) {
  if (cpu_slot == nullptr) return nullptr;
  for (const core::KernelChoice& c : cpu_slot->choices) {
    if (c.kernel->plugin != nullptr && c.kernel->plugin->name() == "cpu") {
      return c.kernel;
    }
  }
  return nullptr;
}

absl::StatusOr<std::vector<core::Tensor>> Run(core::Dispatcher& dispatcher,
                                              const core::OpDef& op,
                                              const CallInputs& inputs,
                                              core::RouteRequest route) {
  core::TensorList produced;
  core::CallArgs args = inputs.Args();
  args.produced = &produced;
  args.route = route;
  absl::Status status =
      dispatcher.Execute(core::OpHandle(const_cast<core::OpDef*>(&op)), args);
  if (!status.ok()) return status;
  return std::vector<core::Tensor>(produced.begin(), produced.end());
}

}  // namespace

absl::StatusOr<HostValues> ReadToHost(core::Dispatcher& dispatcher,
                                      absl::Span<const core::Tensor> tensors) {
  HostValues host;
  for (const core::Tensor& t : tensors) {
    std::vector<unsigned char> bytes(t.nbytes());
    absl::Status status = dispatcher.ToHost(t, bytes.data(), bytes.size());
    if (!status.ok()) return status;
    std::vector<double> values;
    switch (t.dtype()) {
      case SY_DTYPE_F32: Widen<float>(bytes, values); break;
      case SY_DTYPE_F64: Widen<double>(bytes, values); break;
      case SY_DTYPE_F16: Widen<plugin::Half>(bytes, values); break;
      case SY_DTYPE_BF16: Widen<plugin::BFloat16>(bytes, values); break;
      case SY_DTYPE_I32: Widen<int32_t>(bytes, values); break;
      case SY_DTYPE_I64: Widen<int64_t>(bytes, values); break;
      case SY_DTYPE_I8: Widen<int8_t>(bytes, values); break;
      case SY_DTYPE_U8:
      case SY_DTYPE_BOOL: Widen<uint8_t>(bytes, values); break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "the autotuner cannot compare outputs of dtype ",
            std::string(core::DTypeName(t.dtype()))));
    }
    if (t.dtype() == SY_DTYPE_BOOL) {
      for (double& v : values) v = v != 0 ? 1 : 0;
    }
    host.dtypes.push_back(t.dtype());
    host.values.push_back(std::move(values));
  }
  return host;
}

absl::StatusOr<Reference> ComputeReference(core::Dispatcher& dispatcher,
                                           const core::BoundCall& bound,
                                           const CallInputs& inputs,
                                           const core::DispatchSlot& slot) {
  const core::OpDef& op = *bound.op;
  absl::Status cpu_failure = absl::OkStatus();
  if (absl::StatusOr<core::Device*> cpu = dispatcher.GetDevice("cpu"); cpu.ok()) {
    const core::OpDispatch* table = op.dispatch();
    const core::DispatchSlot* cpu_slot =
        table == nullptr
            ? nullptr
            : table->Find(core::MakeDispatchKey((*cpu)->type().id(),
                                                slot.choices.front().kernel->dtypes));
    const core::KernelEntry* reference = CpuPluginKernel(cpu_slot);
    absl::StatusOr<CallInputs> on_cpu =
        bound.device == *cpu ? absl::StatusOr<CallInputs>(CallInputs())
                             : inputs.CopyTo(dispatcher, **cpu);
    if (on_cpu.ok()) {
      const CallInputs& use = bound.device == *cpu ? inputs : *on_cpu;
      const std::string name = reference != nullptr ? reference->QualifiedName() : "";
      absl::StatusOr<std::vector<core::Tensor>> out =
          Run(dispatcher, op, use,
              reference != nullptr ? core::RouteRequest::Kernel(name)
                                   : core::RouteRequest());
      if (out.ok()) {
        absl::StatusOr<HostValues> host = ReadToHost(dispatcher, *out);
        if (!host.ok()) return host.status();
        Reference r;
        r.outputs = *std::move(host);
        r.source = reference != nullptr
                       ? absl::StrCat(name, " on ", (*cpu)->label())
                       : absl::StrCat(op.full_name(), " as dispatched on ",
                                      (*cpu)->label());
        return r;
      }
      cpu_failure = out.status();
    } else {
      cpu_failure = on_cpu.status();
    }
  }
  // No cpu route: the device's static first choice is the reference.
  const core::KernelChoice& first = slot.choices.front();
  const std::string name = first.kernel->QualifiedName();
  absl::StatusOr<std::vector<core::Tensor>> out =
      Run(dispatcher, op, inputs, core::RouteRequest::Kernel(name));
  if (!out.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no reference for ", op.full_name(), ": on cpu ",
        cpu_failure.ok() ? "there is no device" : cpu_failure.message(),
        "; the static choice ", name, " failed too: ", out.status().message()));
  }
  absl::StatusOr<HostValues> host = ReadToHost(dispatcher, *out);
  if (!host.ok()) return host.status();
  Reference r;
  r.outputs = *std::move(host);
  r.source = absl::StrCat(name, " on ", bound.device->label(),
                          " (static choice; no cpu reference)");
  return r;
}

double ToleranceFor(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64: return 1e-10;
    case SY_DTYPE_F32: return 1e-4;
    case SY_DTYPE_F16: return 1e-2;
    case SY_DTYPE_BF16: return 2e-2;
    default: return 0;
  }
}

Agreement Compare(const HostValues& got, const HostValues& want) {
  Agreement a;
  if (got.values.size() != want.values.size()) {
    a.detail = absl::StrCat(got.values.size(), " outputs, the reference has ",
                            want.values.size());
    return a;
  }
  for (size_t o = 0; o < want.values.size(); ++o) {
    const std::vector<double>& g = got.values[o];
    const std::vector<double>& w = want.values[o];
    if (g.size() != w.size()) {
      a.detail = absl::StrCat("output ", o, " has ", g.size(),
                              " elements, the reference ", w.size());
      return a;
    }
    double scale = 1;
    for (double v : w) {
      if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
    }
    const double tolerance = ToleranceFor(want.dtypes[o]);
    for (size_t i = 0; i < w.size(); ++i) {
      const bool same_class =
          std::isnan(g[i]) == std::isnan(w[i]) &&
          (std::isfinite(w[i]) || std::isnan(w[i]) || g[i] == w[i]);
      const double error =
          same_class && std::isfinite(w[i]) ? std::fabs(g[i] - w[i]) / scale : 0;
      if (!same_class || error > tolerance) {
        a.error = same_class ? error : INFINITY;
        a.detail = absl::StrCat("output ", o, " element ", i, ": ", g[i],
                                " where the reference has ", w[i],
                                same_class ? absl::StrCat(" (relative error ", error,
                                                          " > ", tolerance, ")")
                                           : "");
        return a;
      }
      a.error = std::max(a.error, error);
    }
  }
  a.ok = true;
  return a;
}

}  // namespace sy::autotune
