#include "sdk/conformance/tool/child_process.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace sy::conformance {

ChildResult RunSelf(const std::vector<std::string>& args, double timeout_s) {
  ChildResult result;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    result.start_error = std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::string self = "/proc/self/exe";
  std::vector<std::string> copies = args;
  std::vector<char*> argv = {self.data()};
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (error != 0) {
    close(pipe_fds[0]);
    result.start_error = std::strerror(error);
    return result;
  }
  result.started = true;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    pollfd fd{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above ends it
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its stdout: it is ending
    result.output.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  waitpid(pid, &result.wait_status, 0);
  return result;
}

std::string DescribeEnd(const ChildResult& result, double timeout_s) {
  if (!result.started) return absl::StrCat("it could not start (", result.start_error, ")");
  if (result.timed_out) return absl::StrCat("no exit within ", timeout_s, " s");
  if (WIFSIGNALED(result.wait_status)) {
    const int sig = WTERMSIG(result.wait_status);
    return absl::StrCat("signal ", sig, " (", strsignal(sig), ")");
  }
  return absl::StrCat("exit status ", WEXITSTATUS(result.wait_status));
}

}  // namespace sy::conformance
