// Runs this program again as a child with other arguments and collects its
// standard output: how switchyard-conformance keeps the checks that call a
// plugin's code directly (device_checks.h) out of its own process.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_CHILD_PROCESS_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_CHILD_PROCESS_H_

#include <string>
#include <vector>

namespace sy::conformance {

struct ChildResult {
  bool started = false;
  std::string start_error;  // why it did not start
  bool timed_out = false;   // killed after the timeout
  int wait_status = 0;      // as waitpid gives it
  std::string output;       // its stdout (stderr is passed through)
};

// Runs /proc/self/exe with `args` (argv[1…]) and waits at most
// `timeout_s` seconds for it to end.
ChildResult RunSelf(const std::vector<std::string>& args, double timeout_s);

// "exit status 3", "signal 11 (Segmentation fault)", "no exit within 120 s".
std::string DescribeEnd(const ChildResult& result, double timeout_s);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_CHILD_PROCESS_H_
