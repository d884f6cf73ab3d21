// The on-disk half of the fused-kernel cache: one file per compiled kernel,
// `<dir>/<key>.syk`, holding the kernel's serialized IR (ir/serialize.h)
// and the bytes the plugin's compile_fused gave (a CUBIN, …).
//
// Note [Cache files]: an entry is written to a temporary file in the same
// folder and renamed over its name, so a reader sees a whole entry or none,
// and concurrent writers of one key (two processes compiling the same
// kernel) each replace the file with a whole, equal entry. A reader trusts
// nothing: the magic, the key, the sizes, a SHA-256 of the contents, and
// the IR (deserialized, validated and compared with the one asked for) must
// all match, else the entry is a miss — with a warning, once per file and
// process — and the next write replaces it. A file cut short by a crash is
// just such a miss. PyTorch's caches have raced and corrupted (pytorch#172144,
// triton#2688); this one never reads a half-written entry and never crashes
// on a bad one (tests/fusion/disk_cache_test.cc).
//
// Thread-safety: every method may be called from any thread and process.
#ifndef SWITCHYARD_FUSION_BACKEND_DISK_CACHE_H_
#define SWITCHYARD_FUSION_BACKEND_DISK_CACHE_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace sy::fusion {

class DiskCache {
 public:
  // `dir` "" disables the cache (every Read misses, Write does nothing).
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}

  // The folder a process uses by default: $SWITCHYARD_CACHE_DIR/fusion, else
  // $XDG_CACHE_HOME/switchyard/fusion, else ~/.cache/switchyard/fusion; ""
  // when none can be found or SWITCHYARD_FUSION_CACHE=off.
  static std::string DefaultDir();

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  // The binary stored for `key` (64 hex digits) whose IR is `ir` (its
  // serialized bytes); nullopt on a miss or a bad entry.
  std::optional<std::string> Read(const std::string& key, absl::string_view ir) const;

  // Stores an entry atomically (Note above). An error (a read-only folder,
  // a full disk) costs only the cache; callers log it and go on.
  absl::Status Write(const std::string& key, absl::string_view ir,
                     absl::string_view binary) const;

  // Where an entry lives.
  std::string PathOf(const std::string& key) const;

 private:
  std::string dir_;
};

// SHA-256 of `bytes` as 64 lowercase hex digits.
std::string Sha256Hex(absl::string_view bytes);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_BACKEND_DISK_CACHE_H_
