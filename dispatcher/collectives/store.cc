#include "dispatcher/collectives/store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/collectives/tcp_store.h"

namespace sy::core {
namespace {

// Polling is enough: a rendezvous reads a handful of keys once per
// communicator. The interval grows so that a long wait costs little CPU.
template <typename Try>
auto Poll(Deadline deadline, Try attempt) -> decltype(attempt()) {
  auto interval = std::chrono::microseconds(200);
  while (true) {
    auto result = attempt();
    if (!result.ok() || result->has_value()) return result;
    if (std::chrono::steady_clock::now() >= deadline) return result;
    std::this_thread::sleep_for(interval);
    interval = std::min<std::chrono::microseconds>(interval * 2,
                                                   std::chrono::milliseconds(20));
  }
}

// File names for keys: [A-Za-z0-9_.-] as is, every other byte %XX, so no
// key can climb out of the directory or collide with another.
std::string FileNameOf(absl::string_view key) {
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '_' || c == '.' || c == '-') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "%", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

std::string Errno(const std::string& what) {
  return absl::StrCat(what, ": ", std::strerror(errno));
}

// One file per key. A value is written to a temporary file and renamed
// over the key's name, so a reader sees the whole value or nothing;
// SetIfAbsent links instead, which fails when the name exists.
class FileStore final : public Store {
 public:
  FileStore(std::string url, std::string dir)
      : url_(std::move(url)), dir_(std::move(dir)) {}

  absl::Status Set(absl::string_view key, absl::string_view value) override {
    absl::StatusOr<std::string> tmp = WriteTemp(value);
    if (!tmp.ok()) return tmp.status();
    const std::string path = PathOf(key);
    if (::rename(tmp->c_str(), path.c_str()) != 0) {
      ::unlink(tmp->c_str());
      return absl::UnavailableError(
          Errno(absl::StrCat("rendezvous ", url_, ": cannot write ", path)));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<bool> SetIfAbsent(absl::string_view key,
                                   absl::string_view value) override {
    absl::StatusOr<std::string> tmp = WriteTemp(value);
    if (!tmp.ok()) return tmp.status();
    const std::string path = PathOf(key);
    const int rc = ::link(tmp->c_str(), path.c_str());
    const int saved = errno;
    ::unlink(tmp->c_str());
    if (rc == 0) return true;
    if (saved == EEXIST) return false;
    errno = saved;
    return absl::UnavailableError(
        Errno(absl::StrCat("rendezvous ", url_, ": cannot write ", path)));
  }

  absl::StatusOr<std::optional<std::string>> TryGet(
      absl::string_view key) override {
    std::ifstream in(PathOf(key), std::ios::binary);
    if (!in) return std::optional<std::string>();
    std::ostringstream text;
    text << in.rdbuf();
    return std::optional<std::string>(text.str());
  }

  const std::string& url() const override { return url_; }

 private:
  std::string PathOf(absl::string_view key) const {
    return absl::StrCat(dir_, "/", FileNameOf(key));
  }

  absl::StatusOr<std::string> WriteTemp(absl::string_view value) {
    std::string tmp = absl::StrCat(dir_, "/.tmp.XXXXXX");
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) {
      return absl::UnavailableError(Errno(absl::StrCat(
          "rendezvous ", url_, ": cannot create a file in ", dir_,
          "; the directory must be writable by every rank")));
    }
    size_t done = 0;
    while (done < value.size()) {
      const ssize_t n = ::write(fd, value.data() + done, value.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return absl::UnavailableError(
            Errno(absl::StrCat("rendezvous ", url_, ": cannot write ", tmp)));
      }
      done += static_cast<size_t>(n);
    }
    ::close(fd);
    return tmp;
  }

  std::string url_;
  std::string dir_;
};

class Prefixed final : public Store {
 public:
  Prefixed(std::shared_ptr<Store> base, std::string prefix)
      : base_(std::move(base)), prefix_(std::move(prefix)) {}
  absl::Status Set(absl::string_view key, absl::string_view value) override {
    return base_->Set(absl::StrCat(prefix_, key), value);
  }
  absl::StatusOr<bool> SetIfAbsent(absl::string_view key,
                                   absl::string_view value) override {
    return base_->SetIfAbsent(absl::StrCat(prefix_, key), value);
  }
  absl::StatusOr<std::optional<std::string>> TryGet(
      absl::string_view key) override {
    return base_->TryGet(absl::StrCat(prefix_, key));
  }
  const std::string& url() const override { return base_->url(); }

 private:
  std::shared_ptr<Store> base_;
  std::string prefix_;
};

absl::Status MakeDirectory(const std::string& url, const std::string& dir) {
  // Each missing component in turn, as `mkdir -p`.
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i != dir.size() && dir[i] != '/') continue;
    const std::string part = dir.substr(0, i);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::UnavailableError(Errno(absl::StrCat(
          "rendezvous ", url, ": cannot create the directory ", part)));
    }
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rendezvous ", url, ": ", dir, " is not a directory; file:// names a "
        "directory every rank can write (one per job)"));
  }
  return absl::OkStatus();
}

constexpr char kForms[] =
    "use file:///path/to/dir (a directory shared by every rank) or "
    "tcp://host:port (rank 0 listens there)";

}  // namespace

absl::StatusOr<std::string> Store::Get(absl::string_view key,
                                       Deadline deadline) {
  absl::StatusOr<std::optional<std::string>> value =
      Poll(deadline, [&] { return TryGet(key); });
  if (!value.ok()) return value.status();
  if (!value->has_value()) {
    return absl::DeadlineExceededError(absl::StrCat(
        "rendezvous ", url(), ": key '", key, "' was not set in time"));
  }
  return std::move(**value);
}

absl::Status Store::Wait(const std::vector<std::string>& keys,
                         Deadline deadline) {
  std::vector<std::string> missing;
  absl::StatusOr<std::optional<bool>> done =
      Poll(deadline, [&]() -> absl::StatusOr<std::optional<bool>> {
        missing.clear();
        for (const std::string& key : keys) {
          absl::StatusOr<std::optional<std::string>> v = TryGet(key);
          if (!v.ok()) return v.status();
          if (!v->has_value()) missing.push_back(key);
        }
        if (missing.empty()) return std::optional<bool>(true);
        return std::optional<bool>();
      });
  if (!done.ok()) return done.status();
  if (!done->has_value()) {
    return absl::DeadlineExceededError(
        absl::StrCat("rendezvous ", url(), ": keys ",
                     absl::StrJoin(missing, ", "), " were not set in time"));
  }
  return absl::OkStatus();
}

std::shared_ptr<Store> PrefixStore(std::shared_ptr<Store> base,
                                   std::string prefix) {
  return std::make_shared<Prefixed>(std::move(base), std::move(prefix));
}

absl::StatusOr<std::shared_ptr<Store>> OpenStore(absl::string_view url,
                                                 int rank, Deadline deadline) {
  // One store per URL in the process, while anything uses it.
  static std::mutex mu;
  static auto* open = new std::map<std::string, std::weak_ptr<Store>>;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key(url);
  if (auto it = open->find(key); it != open->end()) {
    if (std::shared_ptr<Store> store = it->second.lock()) return store;
  }
  std::shared_ptr<Store> store;
  if (absl::ConsumePrefix(&url, "file://")) {
    if (url.empty() || url[0] != '/') {
      return absl::InvalidArgumentError(absl::StrCat(
          "rendezvous '", key, "': file:// takes an absolute path "
          "(file:///tmp/job1); ", kForms));
    }
    std::string dir(url);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (absl::Status s = MakeDirectory(key, dir); !s.ok()) return s;
    store = std::make_shared<FileStore>(key, dir);
  } else if (absl::ConsumePrefix(&url, "tcp://")) {
    const size_t colon = url.rfind(':');
    int port = 0;
    if (colon == absl::string_view::npos || colon == 0 ||
        !absl::SimpleAtoi(url.substr(colon + 1), &port) || port <= 0 ||
        port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rendezvous '", key, "': tcp:// takes host:port with a port in "
          "1..65535 (tcp://127.0.0.1:29500); ", kForms));
    }
    std::string host(url.substr(0, colon));
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);  // [::1]
    }
    absl::StatusOr<std::shared_ptr<Store>> tcp =
        OpenTcpStore(key, host, port, rank == 0, deadline);
    if (!tcp.ok()) return tcp.status();
    store = *std::move(tcp);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("rendezvous '", key, "' has an unknown scheme; ", kForms));
  }
  (*open)[key] = store;
  return store;
}

}  // namespace sy::core
