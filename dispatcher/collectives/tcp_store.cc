#include "dispatcher/collectives/tcp_store.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"

namespace sy::core {
namespace {

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

uint32_t GetU32(const unsigned char* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24);
}

// Keys and values are small (addresses, ids); the bound keeps a stray
// client from making the server allocate without limit.
constexpr uint32_t kMaxItem = 1u << 20;

// The server: one thread polling the listening socket and its clients.
class Server {
 public:
  explicit Server(int listen_fd) : listen_fd_(listen_fd) {
    if (::pipe(wake_) != 0) wake_[0] = wake_[1] = -1;
    thread_ = std::thread([this] { Loop(); });
  }
  ~Server() {
    const char c = 0;
    if (wake_[1] >= 0) (void)!::write(wake_[1], &c, 1);
    thread_.join();
    for (int fd : clients_) ::close(fd);
    ::close(listen_fd_);
    if (wake_[0] >= 0) ::close(wake_[0]);
    if (wake_[1] >= 0) ::close(wake_[1]);
  }

 private:
  void Loop() {
    while (true) {
      std::vector<pollfd> fds;
      fds.push_back({wake_[0], POLLIN, 0});
      fds.push_back({listen_fd_, POLLIN, 0});
      for (int fd : clients_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents != 0) return;
      if (fds[1].revents & POLLIN) {
        const int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd >= 0) clients_.push_back(fd);
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        if (!Serve(fds[i].fd)) {
          ::close(fds[i].fd);
          std::erase(clients_, fds[i].fd);
        }
      }
    }
  }

  // One request; false when the client is gone or broke the protocol.
  bool Serve(int fd) {
    unsigned char head[9];
    if (!ReadAll(fd, head, sizeof head)) return false;
    const uint32_t key_size = GetU32(head + 1), value_size = GetU32(head + 5);
    if (key_size > kMaxItem || value_size > kMaxItem) return false;
    std::string key(key_size, '\0'), value(value_size, '\0');
    if (!ReadAll(fd, key.data(), key_size) ||
        !ReadAll(fd, value.data(), value_size)) {
      return false;
    }
    std::string answer;
    switch (head[0]) {
      case 'S':
        keys_[key] = std::move(value);
        answer = "1";
        break;
      case 'A':
        answer = keys_.emplace(key, std::move(value)).second ? "1" : "0";
        break;
      case 'G':
        if (auto it = keys_.find(key); it != keys_.end()) {
          answer = "1";
          PutU32(answer, static_cast<uint32_t>(it->second.size()));
          answer += it->second;
        } else {
          answer = "0";
        }
        break;
      default:
        return false;
    }
    return WriteAll(fd, answer.data(), answer.size());
  }

  int listen_fd_;
  int wake_[2] = {-1, -1};
  std::vector<int> clients_;
  std::map<std::string, std::string> keys_;
  std::thread thread_;
};

absl::StatusOr<addrinfo*> Resolve(const std::string& url,
                                  const std::string& host, int port,
                                  bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
      rc != 0) {
    return absl::UnavailableError(absl::StrCat("rendezvous ", url,
                                               ": cannot resolve '", host,
                                               "': ", ::gai_strerror(rc)));
  }
  return found;
}

absl::StatusOr<int> Listen(const std::string& url, const std::string& host,
                           int port) {
  absl::StatusOr<addrinfo*> found = Resolve(url, host, port, true);
  if (!found.ok()) return found.status();
  int saved = 0;
  for (addrinfo* a = *found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                            a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      ::freeaddrinfo(*found);
      return fd;
    }
    saved = errno;
    ::close(fd);
  }
  ::freeaddrinfo(*found);
  return absl::UnavailableError(absl::StrCat(
      "rendezvous ", url, ": rank 0 cannot listen on ", host, ":", port, ": ",
      std::strerror(saved),
      "; pick a free port (MASTER_PORT) on an address of this host"));
}

// Connects, retrying until the deadline: the other ranks usually start
// before rank 0 listens.
absl::StatusOr<int> Connect(const std::string& url, const std::string& host,
                            int port, Deadline deadline) {
  int saved = 0;
  while (true) {
    absl::StatusOr<addrinfo*> found = Resolve(url, host, port, false);
    if (!found.ok()) return found.status();
    for (addrinfo* a = *found; a != nullptr; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
                              a->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::freeaddrinfo(*found);
        return fd;
      }
      saved = errno;
      ::close(fd);
    }
    ::freeaddrinfo(*found);
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "rendezvous ", url, ": rank 0's store at ", host, ":", port,
      " did not answer in time (", std::strerror(saved),
      "); start rank 0 with the same MASTER_ADDR and MASTER_PORT, or raise "
      "the timeout"));
}

class TcpStore final : public Store {
 public:
  TcpStore(std::string url, std::unique_ptr<Server> server, int fd)
      : url_(std::move(url)), server_(std::move(server)), fd_(fd) {}
  ~TcpStore() override {
    ::close(fd_);
    server_.reset();
  }

  absl::Status Set(absl::string_view key, absl::string_view value) override {
    absl::StatusOr<std::string> r = Request('S', key, value);
    return r.ok() ? absl::OkStatus() : r.status();
  }
  absl::StatusOr<bool> SetIfAbsent(absl::string_view key,
                                   absl::string_view value) override {
    absl::StatusOr<std::string> r = Request('A', key, value);
    if (!r.ok()) return r.status();
    return *r == "1";
  }
  absl::StatusOr<std::optional<std::string>> TryGet(
      absl::string_view key) override {
    absl::StatusOr<std::string> r = Request('G', key, "");
    if (!r.ok()) return r.status();
    if (r->empty() || (*r)[0] != '1') return std::optional<std::string>();
    return std::optional<std::string>(r->substr(1));
  }
  const std::string& url() const override { return url_; }

 private:
  // The status byte and, for 'G', the value ("1" + value).
  absl::StatusOr<std::string> Request(char op, absl::string_view key,
                                      absl::string_view value) {
    std::string message(1, op);
    PutU32(message, static_cast<uint32_t>(key.size()));
    PutU32(message, static_cast<uint32_t>(value.size()));
    absl::StrAppend(&message, key, value);
    std::lock_guard<std::mutex> lock(mu_);
    char status = 0;
    if (!WriteAll(fd_, message.data(), message.size()) ||
        !ReadAll(fd_, &status, 1)) {
      return Lost();
    }
    if (op != 'G' || status != '1') return std::string(1, status);
    unsigned char size[4];
    if (!ReadAll(fd_, size, 4)) return Lost();
    std::string out(1 + GetU32(size), '1');
    if (!ReadAll(fd_, out.data() + 1, out.size() - 1)) return Lost();
    return out;
  }

  absl::Status Lost() const {
    return absl::UnavailableError(absl::StrCat(
        "rendezvous ", url_, ": lost the connection to rank 0's store; "
        "rank 0 has exited or died"));
  }

  std::string url_;
  std::unique_ptr<Server> server_;
  int fd_;
  std::mutex mu_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<Store>> OpenTcpStore(const std::string& url,
                                                    const std::string& host,
                                                    int port, bool serve,
                                                    Deadline deadline) {
  std::unique_ptr<Server> server;
  if (serve) {
    absl::StatusOr<int> fd = Listen(url, host, port);
    if (!fd.ok()) return fd.status();
    server = std::make_unique<Server>(*fd);
  }
  absl::StatusOr<int> fd = Connect(url, host, port, deadline);
  if (!fd.ok()) return fd.status();
  return std::shared_ptr<Store>(
      std::make_shared<TcpStore>(url, std::move(server), *fd));
}

}  // namespace sy::core
