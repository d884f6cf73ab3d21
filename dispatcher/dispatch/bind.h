// Bind, the first step of a call (bind → resolve → run): counting and
// checking the tensors against the schema, filling attribute defaults,
// checking attribute kinds, finding the device and the dispatch key, and
// running the shape function. Everything lives on the stack for the common
// case (few inputs), so binding allocates nothing.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_BIND_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_BIND_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "dispatcher/base/small_vector.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/memory/tensor.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/registry/shape_bucket.h"

namespace sy::core {

inline constexpr int kInlineTensors = 8;

struct BoundCall {
  const OpDef* op = nullptr;
  // The defined input tensors, flattened (omitted optionals removed), and
  // their metas; offsets[k] is the first index of tensor argument k.
  // Borrowed: the caller keeps the tensors alive for the whole call.
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

  // The call's shape bucket (Note [Shape buckets]).
  ShapeBucket bucket() const;

  ShapeContext context() const {
    ShapeContext ctx(op->schema(), metas, offsets, attrs);
    ctx.set_inputs_trusted(true);
    return ctx;
  }
};

// Binds a call of `op` and runs its shape function. `inputs` has one entry
// per tensor argument (nullptr or an undefined tensor for an omitted
// optional one), except that a Tensor[] argument takes list_sizes[0]
// consecutive entries; `attrs` the leading attributes (kind
// kAttrDefault takes the schema default). Errors are
// InvalidArgument and name the op and the argument.
absl::Status BindCall(const OpDef& op, absl::Span<const Tensor* const> inputs,
                      absl::Span<const sy_attr_t> attrs,
                      absl::Span<const int32_t> list_sizes, BoundCall& bound);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_BIND_H_
