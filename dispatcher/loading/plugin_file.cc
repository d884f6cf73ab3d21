#include "dispatcher/loading/plugin_file.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sy::core {
namespace {

// Note [Checked by descriptor]: the loader used to check a path, then hash
// the path, then dlopen the path — three resolutions, each of which could
// find a different file if someone swapped it in between, and none of
// which noticed a FIFO (open blocks forever) or a symlink whose target sat
// in a folder anyone may write. Now the path is resolved once, by hand:
// each component is opened with O_PATH | O_NOFOLLOW relative to the folder
// before it, symlinks are read and spliced into the remaining path (at most
// kMaxLinks), and every folder passed through is fstat'ed on the descriptor
// actually used for the next step. The last component is opened
// O_RDONLY | O_NOFOLLOW | O_NONBLOCK only after fstat said it is a regular
// file, and checked to be the same inode. Everything later — reading the
// manifest, hashing, the ELF checks, dlopen("/proc/self/fd/N") — goes
// through that descriptor.
constexpr int kMaxLinks = 40;  // as the kernel's own limit

struct ScopedFd {
  int fd = -1;
  explicit ScopedFd(int f = -1) : fd(f) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { Reset(-1); }
  void Reset(int f) {
    if (fd >= 0) ::close(fd);
    fd = f;
  }
  int Release() { return std::exchange(fd, -1); }
};

const char* KindWord(PluginFileKind kind) {
  return kind == PluginFileKind::kManifest ? "manifest" : "library";
}

std::string ModeText(mode_t mode) {
  return absl::StrFormat("%04o", static_cast<unsigned>(mode & 07777));
}

// "a FIFO (named pipe)" etc., for a file that is not regular.
std::string TypeText(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

bool WorldWritable(const struct stat& info) {
  const bool sticky_dir = S_ISDIR(info.st_mode) && (info.st_mode & S_ISVTX) != 0;
  return (info.st_mode & S_IWOTH) != 0 && !sticky_dir;
}

bool StickyWorldWritable(const struct stat& info) {
  return S_ISDIR(info.st_mode) && (info.st_mode & S_ISVTX) != 0 &&
         (info.st_mode & S_IWOTH) != 0;
}

std::string WritableSentence(const std::string& path, const struct stat& info) {
  return absl::StrCat(
      path, " is writable by every user (mode ", ModeText(info.st_mode),
      "), so anyone on this machine could replace the plugin's code; make it "
      "writable by its owner only (chmod o-w '", path, "'), or set "
      "SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 to load it anyway");
}

std::string PlantedSentence(const std::string& entry, const std::string& folder,
                            const struct stat& entry_info,
                            const struct stat& folder_info) {
  return absl::StrCat(
      entry, " belongs to user ", entry_info.st_uid, ", not to you (user ",
      ::geteuid(), ") or root, and lies in ", folder, ", where every user may "
      "add files (mode ", ModeText(folder_info.st_mode),
      "), so anyone on this machine could have planted it; keep plugins in a "
      "folder only you can write, or set SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 "
      "to load it anyway");
}

std::string Join(const std::vector<std::string>& parts) {
  return parts.empty() ? "/" : absl::StrCat("/", absl::StrJoin(parts, "/"));
}

// Pushes the components of `path` to the front of `pending`, in order.
void PushFront(std::deque<std::string>& pending, const std::string& path) {
  std::vector<std::string> parts = absl::StrSplit(path, '/');
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) pending.push_front(*it);
}

// True when nothing but "" and "." is left: the component just taken is
// the last one.
bool OnlyEmpty(const std::deque<std::string>& pending) {
  for (const std::string& part : pending) {
    if (!part.empty() && part != ".") return false;
  }
  return true;
}

absl::Status OpenError(PluginFileKind kind, const std::string& path,
                       const std::string& component, int error) {
  const std::string where =
      component == path ? "" : absl::StrCat(" (at ", component, ")");
  if (error == ENOENT) {
    return absl::NotFoundError(absl::StrCat(
        KindWord(kind), " ", path, " does not exist", where, "; check the path"));
  }
  if (error == EACCES) {
    return absl::PermissionDeniedError(absl::StrCat(
        KindWord(kind), " ", path, " cannot be read", where,
        ": permission denied; check its and its folders' permissions"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      KindWord(kind), " ", path, " cannot be opened", where, ": ",
      std::strerror(error)));
}

}  // namespace

PluginFile::PluginFile(PluginFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      resolved_path_(std::move(other.resolved_path_)),
      size_(other.size_),
      device_(other.device_),
      inode_(other.inode_),
      exposure_(std::move(other.exposure_)) {}

PluginFile& PluginFile::operator=(PluginFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    resolved_path_ = std::move(other.resolved_path_);
    size_ = other.size_;
    device_ = other.device_;
    inode_ = other.inode_;
    exposure_ = std::move(other.exposure_);
  }
  return *this;
}

PluginFile::~PluginFile() {
  if (fd_ >= 0) ::close(fd_);
}

int PluginFile::ReleaseFd() { return std::exchange(fd_, -1); }

absl::StatusOr<PluginFile> PluginFile::Open(const std::string& path,
                                            PluginFileKind kind) {
  if (path.empty()) {
    return absl::NotFoundError(absl::StrCat(KindWord(kind), " path is empty"));
  }
  std::string absolute = path;
  if (path[0] != '/') {
    std::error_code ec;
    absolute = std::filesystem::absolute(path, ec).string();
    if (ec) {
      return absl::FailedPreconditionError(absl::StrCat(
          KindWord(kind), " ", path, ": the current folder cannot be read (",
          ec.message(), "); give an absolute path"));
    }
  }
  PluginFile file;
  file.path_ = path;
  std::deque<std::string> pending;
  PushFront(pending, absolute);

  ScopedFd dir(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  struct stat dir_info;
  if (dir.fd < 0 || ::fstat(dir.fd, &dir_info) != 0) {
    return OpenError(kind, path, "/", errno);
  }
  auto note = [&](std::string sentence) {
    if (file.exposure_.empty()) file.exposure_ = std::move(sentence);
  };
  if (WorldWritable(dir_info)) note(WritableSentence("/", dir_info));
  std::vector<std::string> resolved;  // the folder `dir` is, as components
  int links = 0;
  while (!pending.empty()) {
    const std::string name = pending.front();
    pending.pop_front();
    if (name.empty() || name == ".") continue;
    if (name == "..") {
      // The physical parent, as the kernel resolves "..": it is on the path
      // already walked, so it has been examined.
      ScopedFd parent(::openat(dir.fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (parent.fd < 0 || ::fstat(parent.fd, &dir_info) != 0) {
        return OpenError(kind, path, Join(resolved), errno);
      }
      dir.Reset(parent.Release());
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(name);
    const std::string here = Join(resolved);
    ScopedFd entry(::openat(dir.fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat info;
    if (entry.fd < 0 || ::fstat(entry.fd, &info) != 0) {
      return OpenError(kind, path, here, errno);
    }
    resolved.pop_back();
    if (StickyWorldWritable(dir_info) && info.st_uid != 0 &&
        info.st_uid != ::geteuid()) {
      note(PlantedSentence(here, Join(resolved), info, dir_info));
    }
    if (S_ISLNK(info.st_mode)) {
      if (++links > kMaxLinks) {
        return absl::FailedPreconditionError(absl::StrCat(
            KindWord(kind), " ", path, " cannot be opened: more than ", kMaxLinks,
            " symbolic links on its path (a loop?)"));
      }
      std::string target(PATH_MAX, '\0');
      const ssize_t n = ::readlinkat(entry.fd, "", target.data(), target.size());
      if (n < 0 || static_cast<size_t>(n) >= target.size()) {
        return OpenError(kind, path, here, n < 0 ? errno : ENAMETOOLONG);
      }
      target.resize(static_cast<size_t>(n));
      PushFront(pending, target);
      if (!target.empty() && target[0] == '/') {
        dir.Reset(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (dir.fd < 0 || ::fstat(dir.fd, &dir_info) != 0) {
          return OpenError(kind, path, "/", errno);
        }
        resolved.clear();
      }
      continue;
    }
    resolved.push_back(name);
    const bool last = OnlyEmpty(pending);
    if (!last) {
      if (!S_ISDIR(info.st_mode)) return OpenError(kind, path, here, ENOTDIR);
      if (WorldWritable(info)) note(WritableSentence(here, info));
      dir.Reset(entry.Release());
      dir_info = info;
      continue;
    }
    // The file itself: only a regular file is ever opened for reading.
    if (!S_ISREG(info.st_mode)) {
      return absl::FailedPreconditionError(absl::StrCat(
          KindWord(kind), " ", path,
          here == path ? "" : absl::StrCat(" (", here, ")"), " is ",
          TypeText(info.st_mode), ", not a regular file; it was not ",
          S_ISFIFO(info.st_mode) ? "read (reading a FIFO can block forever)"
                                 : "read",
          kind == PluginFileKind::kManifest
              ? "; remove it from the plugin folder"
              : "; fix \"library\" in the manifest or reinstall the plugin"));
    }
    ScopedFd opened(::openat(dir.fd, name.c_str(),
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    struct stat opened_info;
    if (opened.fd < 0 || ::fstat(opened.fd, &opened_info) != 0) {
      return OpenError(kind, path, here, errno);
    }
    if (!S_ISREG(opened_info.st_mode) || opened_info.st_dev != info.st_dev ||
        opened_info.st_ino != info.st_ino) {
      return absl::FailedPreconditionError(absl::StrCat(
          KindWord(kind), " ", path, " changed while it was being opened (",
          here, " was replaced); try again, and find out who else writes there"));
    }
    if (WorldWritable(opened_info)) note(WritableSentence(here, opened_info));
    const uint64_t size = static_cast<uint64_t>(opened_info.st_size);
    const uint64_t limit =
        kind == PluginFileKind::kManifest ? kMaxManifestBytes : kMaxLibraryBytes;
    if (size > limit) {
      return absl::FailedPreconditionError(
          kind == PluginFileKind::kManifest
              ? absl::StrCat("manifest ", path, " is larger than 1 MiB; a manifest "
                             "is a small JSON file — check the path")
              : absl::StrCat("library ", path, " is ", size, " bytes, larger than "
                             "any plugin library could be (16 GiB); check the path"));
    }
    file.fd_ = opened.Release();
    file.resolved_path_ = here;
    file.size_ = size;
    file.device_ = opened_info.st_dev;
    file.inode_ = opened_info.st_ino;
    return file;
  }
  // Only folders on the way ("/", "a/.."): the path names no file.
  return absl::FailedPreconditionError(absl::StrCat(
      KindWord(kind), " ", path, " is a folder, not a regular file"));
}

absl::Status PluginFile::ReadAt(uint64_t offset, void* out, size_t size) const {
  char* bytes = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t n = ::pread(fd_, bytes, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          path_, " could not be read at byte ", offset, ": ",
          n == 0 ? "the file is shorter than when it was opened (it changed)"
                 : std::strerror(errno)));
    }
    bytes += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> PluginFile::ReadAll() const {
  std::string text(static_cast<size_t>(size_), '\0');
  if (absl::Status s = ReadAt(0, text.data(), text.size()); !s.ok()) return s;
  return text;
}

absl::StatusOr<std::string> FileSha256(const PluginFile& file) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                              EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return absl::InternalError("OpenSSL could not start a SHA-256 digest");
  }
  // Up to the end of the file as it is now, which must be the size Open
  // saw: a file still being written is not the file that was checked.
  std::vector<char> buffer(1 << 16);
  uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::pread(file.fd(), buffer.data(), buffer.size(),
                              static_cast<off_t>(total));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot read ", file.path(), " to hash it: ", std::strerror(errno)));
    }
    if (n == 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  if (total != file.size()) {
    return absl::FailedPreconditionError(absl::StrCat(
        file.path(), " changed while it was being hashed (", file.size(),
        " bytes when opened, ", total, " now); reinstall the plugin"));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    absl::StrAppend(&hex, absl::Hex(digest[i], absl::kZeroPad2));
  }
  return hex;
}

}  // namespace sy::core
