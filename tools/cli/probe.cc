#include "probe.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace sy::cli {
namespace {

// How a child ended; `timed_out` when it was killed for taking too long.
struct ChildEnd {
  int status = 0;
  bool timed_out = false;
  bool spawned = true;
  int spawn_error = 0;
};

// Runs `/proc/self/exe probe-plugin <manifest>` with output discarded.
ChildEnd RunChild(const std::string& manifest, double timeout_s) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string self = "/proc/self/exe";
  std::string command = kProbeCommand;
  std::string path = manifest;
  char* argv[] = {self.data(), command.data(), path.data(), nullptr};
  pid_t pid = 0;
  const int error = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ChildEnd end;
  if (error != 0) {
    end.spawned = false;
    end.spawn_error = error;
    return end;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_s);
  while (waitpid(pid, &end.status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &end.status, 0);
      end.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return end;
}

// Why the probe refuses a plugin, or "" when it survived.
std::string Verdict(const ChildEnd& end, double timeout_s) {
  if (!end.spawned) return "";  // no probe possible: load as if unprobed
  if (end.timed_out) {
    return absl::StrCat("it did not finish loading within ", timeout_s,
                        " s in a probe process (a hang in its init or load); "
                        "it was not loaded here — report it to its vendor or "
                        "remove it from the plugin path");
  }
  if (WIFSIGNALED(end.status)) {
    const int sig = WTERMSIG(end.status);
    return absl::StrCat("loading it killed a probe process with signal ", sig,
                        " (", strsignal(sig),
                        "), so its init or load code crashes; it was not "
                        "loaded here — report it to its vendor or remove it "
                        "from the plugin path");
  }
  if (WIFEXITED(end.status) && WEXITSTATUS(end.status) != 0) {
    return absl::StrCat("loading it ended a probe process with exit status ",
                        WEXITSTATUS(end.status),
                        " (its code called exit); it was not loaded here — "
                        "report it to its vendor or remove it from the plugin "
                        "path");
  }
  return "";
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

int RunProbeChild(const std::string& manifest_path) {
  sy::ContextOptions options;
  options.plugin_paths = {manifest_path};
  options.use_environment = false;
  options.use_default_path = false;
  // Success or a recorded failure: either way this process survived.
  (void)sy::Context::Create(options);
  return 0;
}

}  // namespace sy::cli
