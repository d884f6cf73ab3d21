#include "dispatcher/dispatch/cpu_fallback.h"

#include "absl/strings/str_cat.h"
#include "dispatcher/base/log.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/registry/op_registry.h"

namespace sy::core {

absl::StatusOr<std::vector<Tensor>> RunOnCpu(Dispatcher& dispatcher,
                                             const BoundCall& bound) {
  absl::StatusOr<Device*> cpu = dispatcher.GetDevice("cpu:0");
  if (!cpu.ok()) {
    return absl::UnimplementedError("no cpu device for the fallback");
  }
  const OpDef& op = *bound.op;
  // Rebuild the call's inputs as the schema lays them out: one entry per
  // tensor argument (undefined for an omitted optional), the Tensor[]
  // argument's elements in place.
  std::vector<Tensor> host_inputs;
  std::vector<int32_t> list_sizes;
  for (int k = 0; k < op.num_tensor_args(); ++k) {
    const int32_t begin = bound.offsets[k];
    const int32_t end = bound.offsets[k + 1];
    if (k == op.list_arg()) list_sizes.push_back(end - begin);
    if (begin == end && k != op.list_arg()) host_inputs.emplace_back();
    for (int32_t i = begin; i < end; ++i) {
      absl::StatusOr<Tensor> copy = dispatcher.To(*bound.tensors[i], **cpu);
      if (!copy.ok()) return copy.status();
      host_inputs.push_back(*std::move(copy));
    }
  }
  std::vector<Attr> attrs;
  for (const sy_attr_t& raw : bound.attrs) {
    Attr attr;
    static_cast<sy_attr_t&>(attr) = raw;
    attrs.push_back(attr);
  }
  absl::StatusOr<std::vector<Tensor>> results =
      dispatcher.Call(OpHandle(const_cast<OpDef*>(&op)), host_inputs, attrs,
                      list_sizes);
  if (!results.ok()) return results.status();
  Log(LogLevel::kInfo,
      absl::StrCat(op.full_name(), " ran on cpu:0 through "
                   "SWITCHYARD_CPU_FALLBACK (no kernel on ",
                   bound.device->label(), ")"));
  std::vector<Tensor> back;
  for (const Tensor& out : *results) {
    absl::StatusOr<Tensor> copy = dispatcher.To(out, *bound.device);
    if (!copy.ok()) return copy.status();
    back.push_back(*std::move(copy));
  }
  return back;
}

}  // namespace sy::core
