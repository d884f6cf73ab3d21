#include "probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

extern char** environ;

namespace sy::cli {
namespace {

// The child's report pipe, as seen by the child.
constexpr int kReportFd = 3;
constexpr char kSurvived[] = "survived";

// How a child ended, and what it reported on its pipe.
struct ChildEnd {
  int status = 0;
  bool timed_out = false;
  int spawn_error = 0;   // errno of a failed spawn, else 0
  std::string report;    // every line the child wrote
};

// Runs `/proc/self/exe probe-plugin <manifest> --report-fd 3` with output
// discarded and a pipe on descriptor 3, reading the pipe while it runs.
ChildEnd RunChild(const std::string& manifest, double timeout_s) {
  ChildEnd end;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    end.spawn_error = errno;
    return end;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], kReportFd);
  std::string self = "/proc/self/exe";
  std::string command = kProbeCommand;
  std::string path = manifest;
  std::string fd_flag = "--report-fd";
  std::string fd_value = std::to_string(kReportFd);
  char* argv[] = {self.data(), command.data(), path.data(), fd_flag.data(),
                  fd_value.data(), nullptr};
  pid_t pid = 0;
  const int error = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (error != 0) {
    ::close(pipe_fds[0]);
    end.spawn_error = error;
    return end;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_s);
  bool exited = false, pipe_open = true;
  while (!exited || pipe_open) {
    if (pipe_open) {
      pollfd readable{pipe_fds[0], POLLIN, 0};
      if (::poll(&readable, 1, 5) > 0) {
        char buffer[512];
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0 && end.report.size() < 4096) end.report.append(buffer, n);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) pipe_open = false;
      }
    } else {
      ::usleep(5000);
    }
    if (!exited && ::waitpid(pid, &end.status, WNOHANG) == pid) exited = true;
    // A plugin may hand the pipe to a process that outlives the child: once
    // the child is gone, what is in the pipe is all there is to read.
    if (exited && pipe_open) {
      pollfd readable{pipe_fds[0], POLLIN, 0};
      if (::poll(&readable, 1, 0) <= 0) pipe_open = false;
    }
    if (!exited && std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &end.status, 0);
      end.timed_out = true;
      break;
    }
  }
  ::close(pipe_fds[0]);
  return end;
}

// "in sy_plugin_init" etc.: where the child was when it ended, from the
// last "stage" line of its report.
std::string Where(const std::string& report) {
  std::string stage;
  for (absl::string_view line : absl::StrSplit(report, '\n', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&line, "stage ")) stage = std::string(line);
  }
  if (stage.empty()) return "before it began loading the plugin";
  if (stage == "manifest") {
    return "while reading its manifest (no code of the plugin had run)";
  }
  if (stage == "open") {
    return "while the dynamic loader opened its library (in the library's "
           "constructors or its dependencies'; sy_plugin_init had not run)";
  }
  if (stage == "symbol") {
    return "while looking up sy_plugin_init (sy_plugin_init had not run)";
  }
  if (stage == "init") return "in its sy_plugin_init";
  if (stage == "register") return "in its load slot";
  return absl::StrCat("at its ", stage, " step");
}

bool Survived(const std::string& report) {
  for (absl::string_view line : absl::StrSplit(report, '\n', absl::SkipEmpty())) {
    if (line == kSurvived) return true;
  }
  return false;
}

constexpr char kNotLoaded[] =
    "; it was not loaded here — report it to its vendor or remove it from the "
    "plugin path";

// Why the probe refuses a plugin, or "" when it positively survived.
std::string Verdict(const ChildEnd& end, double timeout_s) {
  if (end.spawn_error != 0) {
    return absl::StrCat("the probe could not start a child process (",
                        std::strerror(end.spawn_error),
                        "), so nothing showed the plugin is safe to load; it "
                        "was not loaded here — run without --probe to load it "
                        "unprobed");
  }
  const std::string where = Where(end.report);
  if (end.timed_out) {
    return absl::StrCat("it did not finish loading within ", timeout_s,
                        " s in a probe process (it hung ", where, ")", kNotLoaded);
  }
  if (WIFSIGNALED(end.status)) {
    const int sig = WTERMSIG(end.status);
    return absl::StrCat("loading it killed a probe process with signal ", sig, " (",
                        strsignal(sig), ") ", where, kNotLoaded);
  }
  const int status = WIFEXITED(end.status) ? WEXITSTATUS(end.status) : -1;
  if (status == 0 && Survived(end.report)) return "";
  return absl::StrCat("loading it ended a probe process with exit status ", status,
                      " ", where, " before the probe confirmed it survived (the "
                      "plugin's code ended the process)", kNotLoaded);
}

}  // namespace

std::vector<sy::ContextOptions::Refusal> ProbePlugins(const sy::ContextOptions& options,
                                                      double timeout_s) {
  std::vector<sy::ContextOptions::Refusal> refused;
  sy::Result<std::vector<std::string>> manifests = sy::DiscoverPlugins(options);
  if (!manifests.ok()) return refused;  // the context's creation says why
  for (const std::string& manifest : *manifests) {
    std::string reason = Verdict(RunChild(manifest, timeout_s), timeout_s);
    if (!reason.empty()) refused.push_back({manifest, std::move(reason)});
  }
  return refused;
}

int RunProbeChild(const std::string& manifest_path, int report_fd) {
  auto report = [report_fd](const std::string& line) {
    if (report_fd < 0) return;
    const std::string text = line + "\n";
    // One write per line, unbuffered: the next step may kill the process.
    (void)!::write(report_fd, text.data(), text.size());
  };
  sy::ContextOptions options;
  options.plugin_paths = {manifest_path};
  options.use_environment = false;
  options.use_default_path = false;
  options.on_load_stage = [&](const char* stage) {
    report(absl::StrCat("stage ", stage));
  };
  // Success or a recorded failure: either way this process survived.
  (void)sy::Context::Create(options);
  report(kSurvived);
  return 0;
}

}  // namespace sy::cli
