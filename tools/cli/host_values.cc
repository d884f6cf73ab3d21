#include "host_values.h"

#include <algorithm>
#include <cmath>

namespace sy::cli {

absl::StatusOr<std::vector<double>> ReadAsDouble(Runtime& runtime, Device& cpu,
                                                 Tensor tensor) {
  absl::StatusOr<Tensor> on_cpu = runtime.To(tensor, cpu);
  if (!on_cpu.ok()) return on_cpu.status();
  tensor = *on_cpu;
  if (tensor.dtype() != SY_DTYPE_F64) {
    absl::StatusOr<OpHandle> cast = runtime.FindOp("cast");
    if (!cast.ok()) return cast.status();
    absl::StatusOr<std::vector<Tensor>> out =
        runtime.Call(*cast, {tensor}, {Attr::DType(SY_DTYPE_F64)});
    if (!out.ok()) return out.status();
    tensor = (*out)[0];
  }
  std::vector<double> values(static_cast<size_t>(tensor.numel()));
  absl::Status read = runtime.ToHost(tensor, values.data(), values.size() * 8);
  if (!read.ok()) return read;
  return values;
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
