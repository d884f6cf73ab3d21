// Input layouts: each input is made on the device under test as a plain
// contiguous tensor, or as a view the core's own view ops make over one
// (permute, slice, expand), so kernels meet the strides real programs
// give them.
//
//   contiguous  FromHost, row-major.
//   transposed  the data uploaded with its dims reversed, then permute()d
//               back: every stride differs from row-major (rank >= 2).
//   strided     the last dim uploaded padded to 2n+1 with a poison filler
//               (NaN, or a large integer) between the values, then
//               slice(dim=-1, start=1, step=2): a byte offset and a step.
//   broadcast   one size-1 dim expand()ed: stride 0 (needs a dim > 1; the
//               values are generated constant along it, see BroadcastDim).
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_LAYOUTS_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_LAYOUTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "sdk/conformance/harness/backend.h"
#include "sdk/conformance/harness/reference_tensor.h"

namespace sy::op_harness {

enum class Layout { kContiguous, kTransposed, kStrided, kBroadcast };

std::string_view LayoutName(Layout layout);

// Whether `layout` can be made for a tensor of `shape` (otherwise the
// input is made contiguous).
bool LayoutApplies(Layout layout, const Shape& shape);

// The dim a broadcast layout stretches: the first of size > 1; -1 if none.
int BroadcastDim(const Shape& shape);

// One run of a case: the layout of each input.
struct LayoutRun {
  std::string name;             // "contiguous", "transposed", …, "mixed"
  std::vector<Layout> layouts;  // one per input
};

// Which runs a case gets.
enum class LayoutPlan {
  kAll,            // contiguous, transposed, strided, broadcast, mixed
  kDenseStrided,   // contiguous and strided (large tensors)
  kContiguousOnly, // fixed values (edge cases), error follow-ups
};

// The runs of `plan` for inputs of these shapes. Runs that would make every
// input contiguous again (a layout that applies to none) are dropped, so
// rank-0 inputs get one run. "mixed" alternates strided and transposed
// inputs and needs two or more inputs.
std::vector<LayoutRun> PlanLayouts(LayoutPlan plan,
                                   const std::vector<Shape>& shapes);

// Makes `value` on the backend in `layout`. For kBroadcast, `value` must
// be constant along BroadcastDim(value.shape). Views are made with the
// backend's own "permute", "slice" and "expand" calls.
Result<DeviceTensor> MakeDeviceTensor(BackendUnderTest& backend,
                                      const RefTensor& value, Layout layout);

}  // namespace sy::op_harness

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_LAYOUTS_H_
