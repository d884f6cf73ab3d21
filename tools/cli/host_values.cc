#include "host_values.h"

#include <algorithm>
#include <cmath>

namespace sy::cli {

sy::Result<sy::Tensor> Cast(const sy::Context& context, const sy::Tensor& tensor,
                            sy_dtype_t dtype) {
  if (tensor.dtype() == dtype) return tensor;
  sy::Result<sy::Op> cast = context.op("cast");
  if (!cast.ok()) return cast.status();
  return cast->call1({tensor}, {sy::Attr::DType(dtype)});
}

sy::Result<std::vector<double>> ReadAsDouble(const sy::Context& context,
                                             const sy::Device& cpu,
                                             const sy::Tensor& tensor) {
  sy::Result<sy::Tensor> on_cpu = tensor.To(cpu);
  if (!on_cpu.ok()) return on_cpu.status();
  sy::Result<sy::Tensor> wide = Cast(context, *on_cpu, SY_DTYPE_F64);
  if (!wide.ok()) return wide.status();
  return wide->ToVector<double>();
}

double MaxError(const std::vector<double>& got, const std::vector<double>& ref) {
  if (got.size() != ref.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // Ops such as log or sqrt of random inputs give NaN on both sides.
    if (std::isnan(got[i]) || std::isnan(ref[i])) {
      if (std::isnan(got[i]) != std::isnan(ref[i])) return INFINITY;
      continue;
    }
    if (std::isinf(ref[i]) || std::isinf(got[i])) {
      if (got[i] != ref[i]) return INFINITY;
      continue;
    }
    worst = std::max(worst, std::abs(got[i] - ref[i]) / std::max(1.0, std::abs(ref[i])));
  }
  return worst;
}

}  // namespace sy::cli
