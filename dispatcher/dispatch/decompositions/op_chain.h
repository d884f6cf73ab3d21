// OpChain: straight-line op calls for decompositions, with the first error
// kept instead of checked after every line.
//
//   OpChain c(runtime, "log_softmax");
//   Tensor m = c.Call("max", {x}, {Attr(dims), Attr(true)});
//   Tensor shifted = c.Call("sub.Tensor", {x, m});
//   …
//   return c.Result(out);
//
// After a call fails, later calls do nothing and return an undefined
// Tensor; Result returns the first error, its message prefixed with
// "<op> (decomposed): " so the user sees which composite op it came from.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_OP_CHAIN_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_OP_CHAIN_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/memory/tensor.h"

namespace sy::core {

class OpChain {
 public:
  OpChain(Dispatcher& runtime, absl::string_view composite)
      : runtime_(runtime), composite_(composite) {}

  // Calls `op` (a full or bare op name) and returns its single output.
  Tensor Call(absl::string_view op, std::initializer_list<Tensor> inputs,
              std::initializer_list<Attr> attrs = {});

  // cast(x, dtype), or x itself when it already has that dtype.
  Tensor Cast(const Tensor& x, sy_dtype_t dtype);

  // A scalar op: "mul.Scalar" etc. with a float operand.
  Tensor Scalar(absl::string_view op, const Tensor& x, double value) {
    return Call(op, {x}, {Attr(value)});
  }

  // Records `status` as the chain's error unless one is already recorded.
  void Fail(absl::Status status);

  bool ok() const { return status_.ok(); }

  // The decomposition's outputs: {out}, or the first error.
  absl::StatusOr<std::vector<Tensor>> Result(const Tensor& out) const;

 private:
  Dispatcher& runtime_;
  std::string composite_;
  absl::Status status_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_OP_CHAIN_H_
