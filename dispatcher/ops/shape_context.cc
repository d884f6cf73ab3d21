#include "dispatcher/ops/shape_context.h"

#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/ops/absl_compat.h"

namespace sy::core {

double ShapeContext::float_attr(int j) const {
  // Binding lets an int stand for a float or Scalar; convert it here so no
  // shape function has to remember that.
  const sy_attr_t& attr = attrs_[j];
  return attr.kind == SY_ATTR_INT ? static_cast<double>(attr.value.i)
                                  : attr.value.f;
}

absl::Status ShapeContext::TensorError(int k, std::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrCat(schema_.FullName(), ": argument '", AsAbsl(tensor_name(k)),
                   "' ", AsAbsl(what)));
}

absl::Status ShapeContext::AttrError(int j, std::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrCat(schema_.FullName(), ": argument '", AsAbsl(attr_name(j)),
                   "' ", AsAbsl(what)));
}

absl::Status ShapeContext::OpError(std::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrCat(schema_.FullName(), ": ", AsAbsl(what)));
}

std::string_view ShapeContext::tensor_name(int k) const {
  return schema_.args[schema_.tensor_args[k]].name;
}

std::string_view ShapeContext::attr_name(int j) const {
  return schema_.args[schema_.attr_args[j]].name;
}

}  // namespace sy::core
