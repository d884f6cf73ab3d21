#include "autotune/call_inputs.h"

#include "absl/strings/str_cat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/registry/op_registry.h"

namespace sy::autotune {
namespace {

// Elements from a layout's first element to its last, plus one: what a copy
// must hold to keep the strides. 0 without elements.
int64_t ExtentOf(const core::Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t extent = 1;
  for (int d = 0; d < t.ndim(); ++d) extent += (t.shape()[d] - 1) * t.strides()[d];
  return extent;
}

bool HasNegativeStride(const core::Tensor& t) {
  for (int64_t s : t.strides()) {
    if (s < 0) return true;
  }
  return false;
}

}  // namespace

CallInputs CallInputs::Of(const core::BoundCall& bound) {
  CallInputs in;
  in.op_ = bound.op;
  for (const core::Tensor* t : bound.tensors) in.tensors_.push_back(*t);
  in.offsets_.assign(bound.offsets.begin(), bound.offsets.end());
  in.attrs_.assign(bound.attrs.begin(), bound.attrs.end());
  in.Rebuild();
  return in;
}

void CallInputs::Rebuild() {
  per_arg_.clear();
  list_sizes_.clear();
  const int num_args = op_->num_tensor_args();
  for (int k = 0; k < num_args; ++k) {
    const int32_t begin = offsets_[k];
    const int32_t end = offsets_[k + 1];
    if (k == op_->list_arg()) {
      list_sizes_.push_back(end - begin);
      for (int32_t i = begin; i < end; ++i) per_arg_.push_back(&tensors_[i]);
    } else {
      per_arg_.push_back(begin == end ? nullptr : &tensors_[begin]);
    }
  }
}

core::CallArgs CallInputs::Args() const {
  core::CallArgs args;
  args.inputs = per_arg_;
  args.attrs = attrs_;
  args.list_sizes = list_sizes_;
  return args;
}

size_t CallInputs::bytes() const {
  size_t total = 0;
  for (const core::Tensor& t : tensors_) {
    total += static_cast<size_t>(ExtentOf(t)) * core::DTypeSize(t.dtype());
  }
  return total;
}

absl::StatusOr<CallInputs> CallInputs::CopyOnDevice() const {
  CallInputs copy;
  copy.op_ = op_;
  copy.offsets_ = offsets_;
  copy.attrs_ = attrs_;
  for (const core::Tensor& t : tensors_) {
    if (HasNegativeStride(t)) {
      // No layout the core makes has one; share rather than guess.
      copy.tensors_.push_back(t);
      continue;
    }
    const size_t bytes = static_cast<size_t>(ExtentOf(t)) * core::DTypeSize(t.dtype());
    absl::StatusOr<boost::intrusive_ptr<core::Storage>> storage =
        core::Storage::Allocate(t.device(), bytes == 0 ? 1 : bytes);
    if (!storage.ok()) return storage.status();
    if (bytes > 0) {
      absl::Status status = t.device().CopyAsync((*storage)->data(), t.data(), bytes,
                                                 SY_COPY_DEVICE_TO_DEVICE);
      if (!status.ok()) return status;
    }
    boost::intrusive_ptr<core::TensorImpl> impl = core::TensorImpl::Make();
    impl->storage = *std::move(storage);
    impl->meta = t.meta();
    for (int d = 0; d < t.ndim(); ++d) impl->strides[d] = t.strides()[d];
    impl->byte_offset = 0;
    copy.tensors_.emplace_back(std::move(impl));
  }
  copy.Rebuild();
  return copy;
}

absl::StatusOr<CallInputs> CallInputs::CopyTo(core::Dispatcher& dispatcher,
                                              core::Device& device) const {
  CallInputs copy;
  copy.op_ = op_;
  copy.offsets_ = offsets_;
  copy.attrs_ = attrs_;
  for (const core::Tensor& t : tensors_) {
    absl::StatusOr<core::Tensor> moved = dispatcher.To(t, device);
    if (!moved.ok()) return moved.status();
    copy.tensors_.push_back(*std::move(moved));
  }
  copy.Rebuild();
  return copy;
}

}  // namespace sy::autotune
