// Command-line text → op call arguments for `switchyard run`: shapes
// ("64x128", "scalar"), dtypes ("f32", "bfloat16"), and attributes
// ("dim=-1", "keepdim=true", "dims=0,1", "dtype=f16") typed by the op's
// schema (sy::Op::args). Errors name the text, the argument and what is
// accepted.
#ifndef SWITCHYARD_TOOLS_CLI_RUN_ARGS_H_
#define SWITCHYARD_TOOLS_CLI_RUN_ARGS_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/switchyard.hpp"

namespace sy::cli {

// "64x128", "64,128" or "2x3x4"; "scalar" (or "") is a 0-d tensor.
// InvalidArgument for a non-integer, a negative extent, or extents whose
// product int64 cannot hold.
sy::Result<std::vector<int64_t>> ParseShape(std::string_view text);

// An op's attributes (its non-tensor arguments) in schema order.
std::vector<sy::OpArg> AttributesOf(const std::vector<sy::OpArg>& args);

// The tensor-free arguments of a call, in schema order, parsed from
// "name=value" texts; arguments not given take their defaults. Owns the
// lists and strings its Attrs borrow, so keep it alive through the call.
class ParsedAttrs {
 public:
  // InvalidArgument for an unknown name, a repeated one, a value of the
  // wrong type, or a required argument left out. `op_name` is the op's
  // full name, for messages.
  static sy::Result<ParsedAttrs> Parse(const std::string& op_name,
                                       const std::vector<sy::OpArg>& args,
                                       const std::vector<std::string>& texts);

  const std::vector<sy::Attr>& attrs() const { return attrs_; }
  // "dim=-1, keepdim=True" for the ones given on the command line.
  const std::string& summary() const { return summary_; }

 private:
  std::vector<sy::Attr> attrs_;
  std::deque<std::vector<int64_t>> lists_;  // deque: stable addresses
  std::deque<std::string> strings_;
  std::string summary_;
};

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_RUN_ARGS_H_
