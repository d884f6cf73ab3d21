#include "kernels/reduce_util.h"

#include "kernels/kernel_util.h"

namespace sy::cpu {

using ::sy::plugin::DtypeName;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

namespace {

std::string_view KindName(int32_t kind) {
  switch (kind) {
    case SY_ATTR_NONE:
      return "None";
    case SY_ATTR_INT:
      return "an int";
    case SY_ATTR_FLOAT:
      return "a float";
    case SY_ATTR_BOOL:
      return "a bool";
    case SY_ATTR_INTS:
      return "an int list";
    case SY_ATTR_STRING:
      return "a string";
    case SY_ATTR_DTYPE:
      return "a dtype";
    default:
      return "an unknown kind";
  }
}

}  // namespace

sy_error_t* CheckTensor(const sy_tensor_view_t& view, std::string_view op,
                        std::string_view arg, sy_dtype_t dtype) {
  if (view.dtype != dtype) {
    return OpError(
        op, StrCat(arg, " has dtype ", DtypeName(view.dtype),
                   " but this kernel was registered for ", DtypeName(dtype),
                   "; the call does not match the kernel's key"));
  }
  return CheckView(view, op, arg, dtype);
}

sy_error_t* CheckAttr(const sy_kernel_call_t* call, std::string_view op,
                      int index, std::string_view name, sy_attr_kind_t kind) {
  const sy_attr_t& attr = call->attrs[index];
  if (attr.kind != kind) {
    return OpError(op, StrCat("attribute '", name, "' is ", KindName(attr.kind),
                              " (kind ", attr.kind, ") but ", op, " takes ",
                              KindName(kind), " (kind ", kind,
                              "); the call does not match ", op, "'s schema"));
  }
  if (kind == SY_ATTR_INTS) {
    const int64_t size = attr.value.ints.size;
    if (size < 0 || (size > 0 && attr.value.ints.data == nullptr)) {
      return OpError(
          op, StrCat("attribute '", name, "' has size ", size, " and data ",
                     static_cast<const void*>(attr.value.ints.data),
                     "; pass a size >= 0 and its values"));
    }
  }
  return nullptr;
}

std::span<const int64_t> Ints(const sy_attr_t& attr) {
  return {attr.value.ints.data, static_cast<size_t>(attr.value.ints.size)};
}

std::string IntsToString(const sy_attr_t& attr) {
  return ShapeToString(Ints(attr));
}

sy_error_t* WrapDim(std::string_view op, std::string_view what, int64_t dim,
                    int rank, std::string_view tensor, bool wrap_scalar,
                    int* out) {
  const int64_t bound = rank == 0 && wrap_scalar ? 1 : rank;
  if (dim < -bound || dim >= bound) {
    if (bound == 0) {
      return OpError(op, StrCat(what, " names dim ", dim, " but ", tensor,
                                " is a scalar (rank 0) and has no dims"));
    }
    return OpError(op, StrCat(what, " has dim ", dim, ", out of range for ",
                              tensor, " of rank ", rank, "; dims must be in [",
                              -bound, ", ", bound - 1, "]"));
  }
  *out = static_cast<int>(dim < 0 ? dim + bound : dim);
  return nullptr;
}

sy_error_t* TensorArg(const sy_kernel_call_t* call, std::string_view op,
                      int num_tensor_args, int k, int* first, int* count) {
  if (call->num_tensor_args != num_tensor_args ||
      call->input_offsets == nullptr) {
    return OpError(
        op, StrCat("expects ", num_tensor_args,
                   " tensor arguments with input_offsets but the "
                   "call has ",
                   call->num_tensor_args,
                   call->input_offsets == nullptr ? " and NULL offsets" : "",
                   "; the call does not match the op's schema"));
  }
  const int32_t* off = call->input_offsets;
  for (int j = 0; j < num_tensor_args; ++j) {
    if (off[j] < 0 || off[j] > off[j + 1]) {
      return OpError(
          op, StrCat("input_offsets[", j, "] = ", off[j], " and input_offsets[",
                     j + 1, "] = ", off[j + 1],
                     " are not in order; the host is damaged"));
    }
  }
  if (off[0] != 0 || off[num_tensor_args] != call->num_inputs) {
    return OpError(
        op, StrCat("input_offsets run from ", off[0], " to ",
                   off[num_tensor_args], " but the call has ", call->num_inputs,
                   " inputs; the host is damaged"));
  }
  *first = off[k];
  *count = off[k + 1] - off[k];
  return nullptr;
}

int64_t NumChunks(int64_t n, int64_t grain) {
  if (n <= 0) return 0;
  grain = std::max<int64_t>(grain, 1);
  return std::min<int64_t>((n + grain - 1) / grain, NumThreads());
}

}  // namespace sy::cpu
