// Op schemas: the parsed form of schema text such as
//   add.Tensor(Tensor a, Tensor b) -> Tensor
//   rms_norm(Tensor x, Tensor weight, float eps=1e-6) -> Tensor
//   cuda::flash_attention(Tensor q, Tensor k, Tensor v, bool causal=False) -> Tensor
//
// Grammar (whitespace is free between tokens):
//   schema    := [namespace "::"] name ["." overload] "(" [args] ")" "->" returns
//   args      := arg ("," arg)*
//   arg       := type identifier ["=" default]
//   type      := base ["?"]            -- "?" marks an optional argument
//   base      := "Tensor" | "Tensor[]" | "int" | "int[]" | "float" | "bool"
//              | "Scalar" | "str" | "ScalarType" | "Communicator"
//   returns   := "Tensor" | "(" "Tensor" ("," "Tensor")* ")"
//   default   := integer | float | "True" | "False" | "None"
//              | "[" [integer ("," integer)*] "]" | quoted string | dtype name
// Identifiers are [A-Za-z_][A-Za-z0-9_]*. Argument names are unique. Tensor
// arguments may not have defaults other than None (and then must be
// optional). Arguments with defaults come after those without.
#ifndef SWITCHYARD_DISPATCHER_OPS_SCHEMA_H_
#define SWITCHYARD_DISPATCHER_OPS_SCHEMA_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "switchyard/common.h"

namespace sy::core {

enum class ArgKind {
  kTensor,      // Tensor
  kTensorList,  // Tensor[]
  kInt,         // int
  kIntList,     // int[]
  kFloat,       // float
  kBool,        // bool
  kScalar,      // Scalar: an int or a float, kept as given
  kString,      // str
  kDType,       // ScalarType
  kCommunicator,  // Communicator: a communicator of ranks (collective ops;
                  // docs/distributed.md). No default; not optional.
};

// "Tensor", "int[]", … as written in schema text.
std::string_view ArgKindName(ArgKind kind);

// A parsed default value. monostate is None.
using DefaultValue = std::variant<std::monostate, int64_t, double, bool,
                                  std::vector<int64_t>, std::string,
                                  sy_dtype_t>;

struct SchemaArg {
  std::string name;
  ArgKind kind = ArgKind::kTensor;
  bool optional = false;     // written with "?"
  bool has_default = false;  // written with "= …"
  DefaultValue default_value;

  bool is_tensor() const {
    return kind == ArgKind::kTensor || kind == ArgKind::kTensorList;
  }

  bool operator==(const SchemaArg&) const = default;
};

struct Schema {
  std::string ns;        // "" for the core op set, else the plugin's namespace
  std::string name;      // "add"
  std::string overload;  // "Tensor", or "" when none was written
  std::vector<SchemaArg> args;  // in written order
  int num_returns = 1;          // every return is a Tensor in v1

  // Indices into `args`, split by kind, in written order. Tensor arguments
  // are what kernels see as inputs (and what dispatch keys are made of);
  // the rest are attributes.
  std::vector<int> tensor_args;
  std::vector<int> attr_args;

  // "ns::name.overload" with the parts that exist: "add.Tensor",
  // "cuda::flash_attention", "relu".
  std::string FullName() const;
  // "ns::name" without the overload: the name users look ops up by.
  std::string BaseName() const;
  // Canonical text, re-parseable, with normalized spacing: ParseSchema of
  // it gives an equal Schema. Floats print in their shortest round-trip
  // form with a '.' or an exponent (1e-05, 0.5, 1.0), lists as [1, 1],
  // strings double-quoted, bools as True/False. Core op set schemas are
  // written in this form, so their text is their ToString().
  std::string ToString() const;

  // Field by field, including defaults; two equal schemas print alike.
  bool operator==(const Schema&) const = default;
};

// Parses schema text. On failure the status is InvalidArgument and its
// message quotes the text, names the 1-based column and says what was
// expected there, e.g.
//   schema 'add(Tensor a,, Tensor b) -> Tensor': at column 14: expected an
//   argument type (Tensor, int, float, …), found ','
absl::StatusOr<Schema> ParseSchema(std::string_view text);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_OPS_SCHEMA_H_
