// Small things every `switchyard` subcommand uses.
#ifndef SWITCHYARD_TOOLS_CLI_CLI_UTIL_H_
#define SWITCHYARD_TOOLS_CLI_CLI_UTIL_H_

#include <string>

#include "switchyard/switchyard.hpp"

namespace sy::cli {

// A status's message without the C function it came through ("sy_op_call:
// add.Tensor: …" → "add.Tensor: …"): on a command line the function is
// noise, the op and argument are what matter.
inline std::string Message(const sy::Status& status) {
  const std::string& m = status.message();
  if (m.rfind("sy_", 0) == 0) {
    const size_t colon = m.find(": ");
    if (colon != std::string::npos && m.find(' ') > colon) return m.substr(colon + 2);
  }
  return m;
}

}  // namespace sy::cli

#endif  // SWITCHYARD_TOOLS_CLI_CLI_UTIL_H_
