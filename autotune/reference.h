// The check a candidate passes before it may win: its outputs against a
// reference computed from the same inputs. The reference is the cpu
// plugin's kernel for the same op and dtypes (the project's reference
// kernels), run on cpu copies of the inputs when the call is on another
// device; failing that, whatever runs the op on cpu (another kernel or the
// decomposition); failing that (no cpu route at all), the device's static
// first choice, which is then trusted. The comparison is normwise, so sums
// in another order (a blocked GEMM) pass and a wrong kernel does not:
//   max |got - want| <= tolerance(dtype) * max(1, max |want|),
// over finite values, with NaN and ±Inf in the same places; integer and
// bool outputs must be equal.
#ifndef SWITCHYARD_AUTOTUNE_REFERENCE_H_
#define SWITCHYARD_AUTOTUNE_REFERENCE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "autotune/call_inputs.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/registry/kernel_table.h"

namespace sy::autotune {

// Outputs read back to the host, each converted to double.
struct HostValues {
  std::vector<sy_dtype_t> dtypes;
  std::vector<std::vector<double>> values;
};

absl::StatusOr<HostValues> ReadToHost(core::Dispatcher& dispatcher,
                                      absl::Span<const core::Tensor> tensors);

struct Reference {
  HostValues outputs;
  std::string source;  // "cpu::matmul.f32.f32 on cpu:0", for reports
};

// The reference outputs of the call `bound` (whose arguments `inputs` are),
// dispatched through `slot`.
absl::StatusOr<Reference> ComputeReference(core::Dispatcher& dispatcher,
                                           const core::BoundCall& bound,
                                           const CallInputs& inputs,
                                           const core::DispatchSlot& slot);

// The relative tolerance for outputs of `dtype`; 0 for exact dtypes.
double ToleranceFor(sy_dtype_t dtype);

struct Agreement {
  bool ok = false;
  double error = 0;    // the worst normwise relative error
  std::string detail;  // where it went wrong, when it did
};
Agreement Compare(const HostValues& got, const HostValues& want);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_REFERENCE_H_
