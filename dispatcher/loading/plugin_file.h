// A plugin's manifest or library, opened once and then checked, read,
// hashed and (for a library) dlopen'ed through that one descriptor, so
// that nothing can swap the file between a check and its use
// (Note [Checked by descriptor] in plugin_file.cc).
//
// Opening resolves the path one component at a time from "/" (symlinks are
// followed by hand, each with O_NOFOLLOW), so every folder the path passes
// through — the link's and the target's alike — is examined, and a FIFO,
// device, folder or socket is refused by fstat without ever being read.
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_FILE_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_FILE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sy::core {

enum class PluginFileKind {
  kManifest,  // a JSON file of at most kMaxManifestBytes
  kLibrary,   // a shared library of at most kMaxLibraryBytes
};

inline constexpr uint64_t kMaxManifestBytes = uint64_t{1} << 20;   // 1 MiB
inline constexpr uint64_t kMaxLibraryBytes = uint64_t{16} << 30;  // 16 GiB

// An open, checked, read-only regular file. Movable, not copyable; closes
// its descriptor when destroyed unless ReleaseFd() took it.
class PluginFile {
 public:
  // Opens `path` (relative paths against the current directory) as a file
  // of `kind`. Errors, each naming the path and what to do:
  //   NotFound          a component is missing;
  //   FailedPrecondition not a regular file (a folder, FIFO, device,
  //                     socket), a symlink loop, a file that changed while
  //                     it was being opened, or a size out of bounds;
  //   PermissionDenied  the file or a folder cannot be read.
  // Folders and files others could write to are *not* an error here: see
  // exposure().
  static absl::StatusOr<PluginFile> Open(const std::string& path,
                                         PluginFileKind kind);

  PluginFile(PluginFile&& other) noexcept;
  PluginFile& operator=(PluginFile&& other) noexcept;
  PluginFile(const PluginFile&) = delete;
  PluginFile& operator=(const PluginFile&) = delete;
  ~PluginFile();

  int fd() const { return fd_; }
  // The path as given (what messages and records show).
  const std::string& path() const { return path_; }
  // The same file with every symlink followed: the real folder and name.
  const std::string& resolved_path() const { return resolved_path_; }
  uint64_t size() const { return size_; }
  dev_t device() const { return device_; }
  ino_t inode() const { return inode_; }

  // Why someone other than the user and root could replace this file — a
  // folder on its path (or the file) writable by every user, or the file
  // (or a link to it) planted by another user in a sticky world-writable
  // folder such as /tmp — as a complete sentence; "" when nobody could.
  const std::string& exposure() const { return exposure_; }

  // Reads `size` bytes at `offset` into `out`. FailedPrecondition when the
  // file is shorter (it changed since Open) or the read fails.
  absl::Status ReadAt(uint64_t offset, void* out, size_t size) const;
  // The whole file (at most size(), which Open bounded by its kind).
  absl::StatusOr<std::string> ReadAll() const;

  // Hands the descriptor to the caller, who must close it.
  int ReleaseFd();

 private:
  PluginFile() = default;

  int fd_ = -1;
  std::string path_;
  std::string resolved_path_;
  uint64_t size_ = 0;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  std::string exposure_;
};

// Lowercase hex SHA-256 of the file's contents, read through its descriptor.
absl::StatusOr<std::string> FileSha256(const PluginFile& file);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_FILE_H_
