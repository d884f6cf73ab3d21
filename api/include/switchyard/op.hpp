// Switchyard C++ — sy::Op and sy::Attr: calls, explain, routes, kernels,
// pins and tuning (over switchyard/op.h and switchyard/autotune.h).
//
// Part of the C++ layer: switchyard/switchyard.hpp includes it, and what
// that header says at its top (C++20, nothing throws, Result::value(),
// ownership, thread-safety) holds here too. Compiles on its own, but
// programs include the umbrella, switchyard/switchyard.hpp.
#ifndef SWITCHYARD_OP_HPP_
#define SWITCHYARD_OP_HPP_

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "switchyard/autotune.h"
#include "switchyard/base.hpp"
#include "switchyard/device.hpp"
#include "switchyard/op.h"
#include "switchyard/tensor.hpp"

namespace sy {

// ===== Attributes ==========================================================

// An op attribute: *is* a sy_attr_t (same layout), with constructors. Lists
// and strings are borrowed: what they point at must outlive the call.
struct Attr : sy_attr_t {
  Attr() : sy_attr_t{} { kind = SY_ATTR_NONE; }  // None
  Attr(int value) : Attr(static_cast<int64_t>(value)) {}  // NOLINT
  Attr(int64_t value) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_INT;
    this->value.i = value;
  }
  Attr(double value) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_FLOAT;
    this->value.f = value;
  }
  Attr(bool value) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_BOOL;
    this->value.b = value ? 1 : 0;
  }
  Attr(std::span<const int64_t> list) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_INTS;
    value.ints.data = list.data();
    value.ints.size = static_cast<int64_t>(list.size());
  }
  // Borrows the list's array, which lives until the end of the full
  // expression: fine for an argument of call(), not for a stored Attr.
  Attr(std::initializer_list<int64_t> list)
      : Attr(std::span<const int64_t>(list.begin(), list.size())) {}
  Attr(const std::vector<int64_t>& list)  // NOLINT
      : Attr(std::span<const int64_t>(list.data(), list.size())) {}
  Attr(const char* text) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_STRING;
    value.str.data = text;
    value.str.size = static_cast<int64_t>(std::char_traits<char>::length(text));
  }
  Attr(const std::string& text) : sy_attr_t{} {  // NOLINT
    kind = SY_ATTR_STRING;
    value.str.data = text.c_str();
    value.str.size = static_cast<int64_t>(text.size());
  }

  static Attr None() { return Attr(); }
  // The schema's default (SY_ATTR_DEFAULT), to give a later attribute.
  static Attr Default() {
    Attr attr;
    attr.kind = SY_ATTR_DEFAULT;
    return attr;
  }
  static Attr DType(sy_dtype_t dtype) {
    Attr attr;
    attr.kind = SY_ATTR_DTYPE;
    attr.value.dtype = dtype;
    return attr;
  }
};
static_assert(sizeof(Attr) == sizeof(sy_attr_t));

// ===== Ops =================================================================

struct OpInfo {
  std::string full_name, ns, name, overload, schema, owner;
  int32_t num_args = 0, num_tensor_args = 0, num_attrs = 0, num_outputs = 0;
  int32_t list_arg = -1;
  bool live = true;
};

struct OpArg {
  std::string name;
  sy_arg_kind_t kind = SY_ARG_TENSOR;
  std::string kind_name;      // "Tensor", "int[]", …
  bool optional = false;
  bool has_default = false;
  int32_t tensor_index = -1;  // among tensor arguments, or -1
  int32_t attr_index = -1;    // among attributes, or -1
  std::string default_text;   // "1e-06", "None", ""
  // The default as an attribute; its list or string points into the
  // context (valid as long as it lives).
  Attr default_value;
};

struct KernelInfo {
  std::string name, plugin, device_type;  // "cpu::add.Tensor.f32.f32", …
  std::vector<sy_dtype_t> dtypes;
  int32_t priority = 0;
  std::vector<std::string> variants;
  bool may_decline = false;
  bool chosen = false;
  std::string chosen_because;  // "pinned", "tuned", "priority" or ""
};

// How a call runs (sy_route_t): the resolution order, one named kernel and
// variant, or the decomposition.
struct Route {
  sy_route_t kind = SY_ROUTE_DEFAULT;
  std::string kernel;
  int32_t variant = -1;

  static Route Default() { return {}; }
  static Route Kernel(std::string name, int32_t variant = -1) {
    return {SY_ROUTE_KERNEL, std::move(name), variant};
  }
  static Route Decomposition() { return {SY_ROUTE_DECOMPOSITION, {}, -1}; }
};

class Op {
 public:
  Op() = default;
  explicit Op(sy_op_t handle) : handle_(handle) {}
  sy_op_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  bool operator==(const Op& other) const { return handle_ == other.handle_; }

  Result<OpInfo> info() const {
    sy_op_info_t c{};
    c.struct_size = sizeof c;
    if (sy_status_code_t code = sy_op_get_info(handle_, &c); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return OpInfo{c.full_name,       c.ns,        c.name,        c.overload,
                  c.schema,          c.owner,     c.num_args,    c.num_tensor_args,
                  c.num_attrs,       c.num_outputs, c.list_arg,  c.live != 0};
  }
  // How many tensors a call returns; -1 when the handle is bad.
  int32_t num_outputs() const {
    sy_op_info_t c{};
    c.struct_size = sizeof c;
    return sy_op_get_info(handle_, &c) == SY_STATUS_OK ? c.num_outputs : -1;
  }
  // "add.Tensor"; "" when the handle is bad.
  std::string name() const {
    Result<OpInfo> i = info();
    return i.ok() ? i->full_name : std::string();
  }

  // Every argument, in schema order.
  Result<std::vector<OpArg>> args() const {
    Result<OpInfo> i = info();
    if (!i.ok()) return i.status();
    std::vector<OpArg> out;
    for (int32_t k = 0; k < i->num_args; ++k) {
      sy_op_arg_t c{};
      c.struct_size = sizeof c;
      if (sy_status_code_t code = sy_op_get_arg(handle_, k, &c); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      OpArg arg;
      arg.name = c.name;
      arg.kind = static_cast<sy_arg_kind_t>(c.kind);
      arg.kind_name = c.kind_name;
      arg.optional = c.optional != 0;
      arg.has_default = c.has_default != 0;
      arg.tensor_index = c.tensor_index;
      arg.attr_index = c.attr_index;
      arg.default_text = c.default_text;
      static_cast<sy_attr_t&>(arg.default_value) = c.default_value;
      out.push_back(std::move(arg));
    }
    return out;
  }

  // Every kernel registered for the op, in registration order.
  Result<std::vector<KernelInfo>> kernels() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_op_kernel_count(handle_, &count); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<KernelInfo> out;
    for (int32_t k = 0; k < count; ++k) {
      sy_kernel_info_t c{};
      c.struct_size = sizeof c;
      if (sy_status_code_t code = sy_op_kernel_get(handle_, k, &c); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      KernelInfo info;
      info.name = c.name;
      info.plugin = c.plugin;
      info.device_type = c.device_type;
      info.dtypes.assign(c.dtypes, c.dtypes + c.num_dtypes);
      info.priority = c.priority;
      for (int32_t v = 0; v < c.num_variants; ++v) info.variants.emplace_back(c.variant_names[v]);
      info.may_decline = c.may_decline != 0;
      info.chosen = c.chosen != 0;
      info.chosen_because = c.chosen_because;
      out.push_back(std::move(info));
    }
    return out;
  }

  // ---- Calls ----
  // `inputs`: one per tensor argument (a NULL Tensor for an omitted
  // optional one; a Tensor[] argument takes the remaining ones); `attrs`:
  // the leading attributes. New outputs on the inputs' device.
  Result<std::vector<Tensor>> call(std::span<const Tensor> inputs,
                                   std::span<const Attr> attrs = {},
                                   const Route& route = {}) const {
    sy_op_info_t i{};
    i.struct_size = sizeof i;
    if (sy_status_code_t code = sy_op_get_info(handle_, &i); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<sy_tensor_t> made(static_cast<size_t>(i.num_outputs), nullptr);
    sy_op_call_args_t args = Args(inputs, attrs, route);
    args.out_outputs = made.data();
    args.num_outputs = static_cast<int32_t>(made.size());
    if (sy_status_code_t code = sy_op_call_ex(&args); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<Tensor> out;
    out.reserve(made.size());
    for (sy_tensor_t t : made) out.push_back(Tensor::Adopt(t));
    return out;
  }
  Result<std::vector<Tensor>> call(std::initializer_list<Tensor> inputs,
                                   std::initializer_list<Attr> attrs = {},
                                   const Route& route = {}) const {
    return call(std::span<const Tensor>(inputs.begin(), inputs.size()),
                std::span<const Attr>(attrs.begin(), attrs.size()), route);
  }
  // The first output of a call, for ops with one.
  Result<Tensor> call1(std::span<const Tensor> inputs, std::span<const Attr> attrs = {},
                       const Route& route = {}) const {
    Result<std::vector<Tensor>> out = call(inputs, attrs, route);
    if (!out.ok()) return out.status();
    return std::move((*out)[0]);
  }
  Result<Tensor> call1(std::initializer_list<Tensor> inputs,
                       std::initializer_list<Attr> attrs = {},
                       const Route& route = {}) const {
    return call1(std::span<const Tensor>(inputs.begin(), inputs.size()),
                 std::span<const Attr>(attrs.begin(), attrs.size()), route);
  }

  // Into `outputs`, which must have exactly the op's dtypes, shapes and
  // device. With the default route: sy_op_call_out, which takes no lock and
  // allocates nothing.
  Status call_out(std::span<const Tensor> inputs, std::span<const Attr> attrs,
                  std::span<const Tensor> outputs, const Route& route = {}) const {
    if (route.kind == SY_ROUTE_DEFAULT) {
      return Status::FromCode(sy_op_call_out(
          handle_, Handles(inputs), static_cast<int32_t>(inputs.size()), attrs.data(),
          static_cast<int32_t>(attrs.size()), Handles(outputs),
          static_cast<int32_t>(outputs.size())));
    }
    sy_op_call_args_t args = Args(inputs, attrs, route);
    args.outputs = Handles(outputs);
    args.num_outputs = static_cast<int32_t>(outputs.size());
    return Status::FromCode(sy_op_call_ex(&args));
  }

  // How such a call would run: "kernel cpu::add.Tensor.f32.f32 (priority)",
  // "view", "decomposition", … — or the error the call would return.
  Result<std::string> explain(std::span<const Tensor> inputs,
                              std::span<const Attr> attrs = {},
                              const Route& route = {}) const {
    sy_op_call_args_t args = Args(inputs, attrs, route);
    const char* text = nullptr;
    if (sy_status_code_t code = sy_op_explain_ex(&args, &text); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(text);
  }
  Result<std::string> explain(std::initializer_list<Tensor> inputs,
                              std::initializer_list<Attr> attrs = {},
                              const Route& route = {}) const {
    return explain(std::span<const Tensor>(inputs.begin(), inputs.size()),
                   std::span<const Attr>(attrs.begin(), attrs.size()), route);
  }

  // ---- Autotuning (docs/autotune.md) ----
  // Tunes this call's shape bucket now (sy_op_tune): the cache's verdict,
  // or every candidate checked and timed and the winner stored. The report
  // is JSON (switchyard.h). `force`: measure even where the cache has one.
  Result<std::string> tune(std::span<const Tensor> inputs, std::span<const Attr> attrs = {},
                           bool force = false) const {
    sy_op_call_args_t args = Args(inputs, attrs, {});
    const char* json = nullptr;
    if (sy_status_code_t code = sy_op_tune(&args, force ? SY_TUNE_FORCE : 0, &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  Result<std::string> tune(std::initializer_list<Tensor> inputs,
                           std::initializer_list<Attr> attrs = {}, bool force = false) const {
    return tune(std::span<const Tensor>(inputs.begin(), inputs.size()),
                std::span<const Attr>(attrs.begin(), attrs.size()), force);
  }

  // ---- Pins (per context) ----
  Status pin(const std::string& device_type, const std::string& kernel) const {
    return Status::FromCode(sy_op_pin_kernel(handle_, device_type.c_str(), kernel.c_str()));
  }
  Status unpin(const std::string& device_type) const {
    return Status::FromCode(sy_op_unpin_kernel(handle_, device_type.c_str()));
  }

 private:
  static const sy_tensor_t* Handles(std::span<const Tensor> tensors) {
    return reinterpret_cast<const sy_tensor_t*>(tensors.data());
  }
  sy_op_call_args_t Args(std::span<const Tensor> inputs, std::span<const Attr> attrs,
                         const Route& route) const {
    sy_op_call_args_t args;
    sy_op_call_args_init(&args);
    args.op = handle_;
    args.inputs = Handles(inputs);
    args.num_inputs = static_cast<int32_t>(inputs.size());
    args.attrs = attrs.data();
    args.num_attrs = static_cast<int32_t>(attrs.size());
    args.route = route.kind;
    args.kernel = route.kind == SY_ROUTE_KERNEL ? route.kernel.c_str() : nullptr;
    args.variant = route.variant;
    return args;
  }

  sy_op_t handle_ = nullptr;
};

}  // namespace sy

#endif  // SWITCHYARD_OP_HPP_
