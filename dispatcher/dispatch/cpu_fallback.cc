#include "dispatcher/dispatch/cpu_fallback.h"

#include "absl/strings/str_cat.h"
#include "dispatcher/base/log.h"
#include "dispatcher/registry/op_registry.h"

namespace sy::core {

absl::StatusOr<std::vector<Tensor>> RunOnCpu(
    Runtime& runtime, OpHandle op, const BoundCall& bound,
    absl::Span<const Tensor> inputs, absl::Span<const Attr> attrs,
    absl::Span<const int32_t> list_sizes) {
  absl::StatusOr<Device*> cpu = runtime.GetDevice("cpu:0");
  if (!cpu.ok()) {
    return absl::UnimplementedError("no cpu device for the fallback");
  }
  std::vector<Tensor> host_inputs;
  host_inputs.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    if (!t.defined()) {
      host_inputs.emplace_back();
      continue;
    }
    absl::StatusOr<Tensor> copy = runtime.To(t, **cpu);
    if (!copy.ok()) return copy.status();
    host_inputs.push_back(*std::move(copy));
  }
  absl::StatusOr<std::vector<Tensor>> results =
      runtime.Call(op, host_inputs, attrs, list_sizes);
  if (!results.ok()) return results.status();
  Log(LogLevel::kInfo,
      absl::StrCat(op.def()->full_name(), " ran on cpu:0 through "
                   "SWITCHYARD_CPU_FALLBACK (no kernel on ",
                   bound.device->label(), ")"));
  std::vector<Tensor> back;
  for (const Tensor& out : *results) {
    absl::StatusOr<Tensor> copy = runtime.To(out, *bound.device);
    if (!copy.ok()) return copy.status();
    back.push_back(*std::move(copy));
  }
  return back;
}

}  // namespace sy::core
