// Binding one op call to its schema: counting and checking tensors, filling
// attribute defaults, checking attribute kinds, finding the device and the
// dtype key. Everything lives on the stack for the common case (few inputs),
// so the call path allocates nothing here.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_CALL_BINDING_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_CALL_BINDING_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/base/small_vector.h"
#include "dispatcher/memory/tensor.h"

namespace sy::core {

inline constexpr int kInlineTensors = 8;

struct BoundCall {
  const OpDef* op = nullptr;
  // The defined input tensors, flattened (omitted optionals removed), and
  // their metas; offsets[k] is the first index of tensor argument k.
  SmallVector<const Tensor*, kInlineTensors> tensors;
  SmallVector<sy_tensor_meta_t, kInlineTensors> metas;
  SmallVector<int32_t, kInlineTensors> offsets;
  SmallVector<sy_attr_t, kInlineTensors> attrs;
  Device* device = nullptr;
  sy_dtype_t key_dtypes[kMaxKeyedTensorArgs] = {};  // for messages
  uint8_t key_indices[kMaxKeyedTensorArgs] = {};     // DTypeIndex of each

  SmallVector<sy_tensor_meta_t, 2> outputs;  // from the shape function

  DispatchKey key() const {
    return PackDispatchKey(device->type().id(), key_indices);
  }

  ShapeContext context() const {
    ShapeContext ctx(op->schema(), metas, offsets, attrs);
    ctx.set_inputs_trusted(true);
    return ctx;
  }
};

// Binds and runs the shape function. Errors name the op and argument.
absl::Status BindCall(const OpDef& op, absl::Span<const Tensor> inputs,
                      absl::Span<const Attr> attrs,
                      absl::Span<const int32_t> list_sizes, BoundCall& bound);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_CALL_BINDING_H_
