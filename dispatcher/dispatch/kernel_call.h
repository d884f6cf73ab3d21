// The sy_kernel_call_t the core hands a kernel, built on the stack from a
// bound call: views of the inputs — broadcast to the output's shape for ops
// of kind elementwise (stride 0 on stretched dims), so no backend
// re-implements NumPy broadcasting — and of the outputs. A query
// (SY_KERNEL_CALL_QUERY) gets output views with their metas and NULL data.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_KERNEL_CALL_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_KERNEL_CALL_H_

#include <cstdint>

#include "absl/types/span.h"
#include "dispatcher/base/small_vector.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/registry/kernel_table.h"
#include "switchyard/plugin.h"

namespace sy::core {

// For an op of kind elementwise, whether `input` must be broadcast to the
// output's shape `out`; if so, `strides` (SY_MAX_RANK entries) receives the
// strides that walk it there (NumPy's rules: aligned at the right, stretched
// dims get stride 0).
bool BroadcastInput(const Tensor& input, const sy_tensor_meta_t& out,
                    int64_t* strides);

// What a kernel call carries besides its tensors' views.
struct KernelCallParts {
  const OpDef* op = nullptr;
  const Device* device = nullptr;
  const KernelChoice* choice = nullptr;
  const int32_t* input_offsets = nullptr;
  const sy_attr_t* attrs = nullptr;
  int32_t num_attrs = 0;
  bool query = false;
};

// Fills `call` for `parts` over the given views (borrowed for the call).
void FillKernelCall(const KernelCallParts& parts, const sy_tensor_view_t* inputs,
                    int32_t num_inputs, const sy_tensor_view_t* outputs,
                    int32_t num_outputs, sy_kernel_call_t& call);

class KernelCallFrame {
 public:
  // `outputs` are the call's output tensors; empty for a query. Everything
  // the frame points at (bound, outputs, choice) must outlive it.
  KernelCallFrame(const BoundCall& bound, absl::Span<const Tensor* const> outputs,
                  const KernelChoice& choice);
  KernelCallFrame(const KernelCallFrame&) = delete;
  KernelCallFrame& operator=(const KernelCallFrame&) = delete;

  sy_kernel_call_t& call() { return call_; }

 private:
  sy_kernel_call_t call_;
  SmallVector<sy_tensor_view_t, kInlineTensors> views_;
  // Broadcast strides, one row per input that needs them.
  SmallVector<int64_t, kInlineTensors * SY_MAX_RANK> strides_;
  SmallVector<sy_tensor_view_t, 2> out_views_;
  SmallVector<int64_t, 2 * SY_MAX_RANK> out_strides_;  // query only
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_KERNEL_CALL_H_
