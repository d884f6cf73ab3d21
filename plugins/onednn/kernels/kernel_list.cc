#include "kernels/kernel_list.h"

namespace sy::onednn {

void KernelList::Add(std::string_view op,
                     std::initializer_list<sy_dtype_t> dtypes, sy_kernel_fn fn,
                     void* kernel_data) {
  // Kernel names carry no namespace: "linear_relu.f32.f32.f32" for
  // onednn::linear_relu (pins name kernels as "onednn::<name>").
  std::string_view base = op;
  if (const size_t colon = base.rfind("::"); colon != std::string_view::npos) {
    base.remove_prefix(colon + 2);
  }
  std::string name(base);
  for (sy_dtype_t d : dtypes) {
    name.push_back('.');
    name.append(plugin::DtypeName(d));
  }
  names_.push_back(std::move(name));
  dtypes_.emplace_back(dtypes);
  specs_.push_back(plugin::KernelSpec{
      .op = op,
      .name = names_.back(),
      .dtypes = dtypes_.back(),
      .priority = kPriority,
      .fn = fn,
      .kernel_data = kernel_data,
  });
}

std::vector<sy_dtype_t> FloatDtypes(bool bf16) {
  if (bf16) return {SY_DTYPE_F32, SY_DTYPE_BF16};
  return {SY_DTYPE_F32};
}

}  // namespace sy::onednn
