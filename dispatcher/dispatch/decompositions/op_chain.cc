#include "dispatcher/dispatch/decompositions/op_chain.h"

#include "absl/strings/str_cat.h"

namespace sy::core {

Tensor OpChain::Call(absl::string_view op, std::initializer_list<Tensor> inputs,
                     std::initializer_list<Attr> attrs) {
  if (!status_.ok()) return Tensor();
  absl::StatusOr<OpHandle> handle = runtime_.FindOp(op);
  if (!handle.ok()) {
    Fail(handle.status());
    return Tensor();
  }
  absl::StatusOr<std::vector<Tensor>> out = runtime_.Call(
      *handle, absl::MakeConstSpan(inputs.begin(), inputs.size()),
      absl::MakeConstSpan(attrs.begin(), attrs.size()));
  if (!out.ok()) {
    Fail(out.status());
    return Tensor();
  }
  return (*out)[0];
}

Tensor OpChain::Cast(const Tensor& x, sy_dtype_t dtype) {
  if (!status_.ok()) return Tensor();
  if (x.dtype() == dtype) return x;
  return Call("cast", {x}, {Attr::DType(dtype)});
}

void OpChain::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
}

absl::StatusOr<std::vector<Tensor>> OpChain::Result(const Tensor& out) const {
  if (!status_.ok()) {
    return absl::Status(status_.code(), absl::StrCat(composite_, " (decomposed): ",
                                                     status_.message()));
  }
  return std::vector<Tensor>{out};
}

}  // namespace sy::core
