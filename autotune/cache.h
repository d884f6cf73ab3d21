// The autotune cache: verdicts by key, in the SQLite file of cache_file.h
// (or in memory, for a runtime without a cache folder).
//
// Every verdict is written as soon as it is found, in its own transaction.
// The first writer of a key wins: Insert never replaces a verdict, and
// returns the one the cache holds afterwards, so processes that tune the
// same key at once all adopt one winner (the rank disagreement of
// Megatron-LM#6966 and flashinfer#4433 cannot happen between processes
// sharing a cache). Reads are whole or nothing: a read that meets a damaged
// file returns nothing of it; the file is set aside (Note [Setting a bad
// cache aside]) and the operation retried once on a new one.
//
// Thread-safety: thread-safe (one connection behind a mutex); safe with
// other processes on the same file (SQLite's locks, WAL).
#ifndef SWITCHYARD_AUTOTUNE_CACHE_H_
#define SWITCHYARD_AUTOTUNE_CACHE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "autotune/sqlite_db.h"
#include "autotune/tuning_key.h"

namespace sy::autotune {

struct Verdict {
  TuningKey key;
  std::string kernel;        // "onednn::matmul.f32.f32"
  int32_t variant = -1;
  std::string variant_name;  // "" for -1
  double time_ns = 0;        // the winner's median per call; 0 if not timed
  std::string detail;        // every candidate's result (JSON), for explain
  std::string source;        // "measured", "imported from <file>"
  int64_t created = 0;       // Unix seconds

  friend bool operator==(const Verdict&, const Verdict&) = default;
};

// What an import did, as `switchyard tune --import` prints it and the
// cache's `imports` table keeps it.
struct ImportRecord {
  std::string file;
  int64_t imported = 0;  // new verdicts
  int64_t present = 0;   // keys the cache held already (kept as they were)
  int64_t ignored = 0;   // entries that do not apply here, or are malformed
  std::vector<std::string> reasons;  // one line per ignored entry (the first 100)
  int64_t created = 0;
};

struct CacheSummary {
  std::string path;           // "" for an in-memory cache
  bool exists = false;
  int64_t file_bytes = 0;
  int64_t verdicts = 0;
  struct Device {
    std::string fingerprint;
    int64_t verdicts = 0;
    std::vector<std::pair<std::string, int64_t>> ops;  // op → verdicts
  };
  std::vector<Device> devices;
  std::vector<ImportRecord> imports;  // the latest 20, newest first
};

class TuningCache {
 public:
  // A cache in the file at `path`, opened on first use; nothing is created
  // on disk before the first write. An empty path keeps it in memory.
  explicit TuningCache(std::string path);
  ~TuningCache();
  TuningCache(const TuningCache&) = delete;
  TuningCache& operator=(const TuningCache&) = delete;

  const std::string& path() const { return path_; }
  bool persistent() const { return !path_.empty(); }

  // The verdict for `key`, or nullopt.
  absl::StatusOr<std::optional<Verdict>> Lookup(const TuningKey& key);
  // Every verdict measured on device `fingerprint` (DeviceFingerprint::Text);
  // all of them when it is empty.
  absl::StatusOr<std::vector<Verdict>> List(const std::string& fingerprint);

  struct Stored {
    Verdict verdict;       // what the cache holds for the key now
    bool inserted = false; // it is the one given (else an earlier writer's)
  };
  absl::StatusOr<Stored> Insert(const Verdict& verdict);

  absl::Status RecordImport(const ImportRecord& record);
  absl::StatusOr<CacheSummary> Summarize();
  // PRAGMA integrity_check: "ok", or SQLite's list of problems.
  absl::StatusOr<std::string> Verify();

 private:
  // Runs `op` on the open database (opening it first, creating the file when
  // `create`); on DataLoss, reopens — which sets the bad file aside — and
  // runs it once more. Without a file and !create, `op` gets null.
  absl::Status Run(bool create, const std::function<absl::Status(SqliteDb*)>& op);
  absl::Status OpenLocked(bool create);

  const std::string path_;
  std::mutex mu_;
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_CACHE_H_
