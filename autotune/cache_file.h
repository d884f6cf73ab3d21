// Finding and opening the autotune cache file (docs/autotune.md, "The
// cache"). The file is a SQLite database in WAL mode, so readers never wait
// for a writer and a writer's crash never leaves a half-written verdict
// (pytorch#172144 was a hand-made file read while it was being written).
//
// Note [Setting a bad cache aside]: a file at the cache's path that is not a
// good cache — empty, garbage, truncated, corrupt, another application's
// database, or a cache of another schema version — is renamed (with its -wal
// and -shm files) to "<path>.bad-<UTC time>-<pid>" with a warning that says
// what was wrong and where it went, and a new cache is made in its place.
// Nothing is read from such a file, so there is no partial read, and
// nothing in it is deleted: it is kept for whoever wants to look. All of
// this runs under an exclusive lock on "<path>.lock" (flock), so of many
// processes that meet the same bad file one sets it aside and the others
// open the new one.
#ifndef SWITCHYARD_AUTOTUNE_CACHE_FILE_H_
#define SWITCHYARD_AUTOTUNE_CACHE_FILE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "autotune/sqlite_db.h"

namespace sy::autotune {

// The schema version in the file (PRAGMA user_version), and the file name,
// which carries it: a Switchyard with another schema uses another file.
inline constexpr int kCacheSchemaVersion = 1;
// PRAGMA application_id of every cache: "SYT" and the schema's major.
inline constexpr int32_t kCacheApplicationId = 0x53595431;
inline constexpr char kCacheFileName[] = "autotune-1.sqlite3";

// SWITCHYARD_CACHE_DIR, else $XDG_CACHE_HOME/switchyard, else
// $HOME/.cache/switchyard; "" when none of them is set (no cache file then).
// Read with secure_getenv (core::GetEnv).
std::string DefaultCacheDir();

// Creates the cache's tables (and its id and version) in an empty database.
absl::Status InitializeCacheSchema(SqliteDb& db);

struct OpenedCache {
  std::unique_ptr<SqliteDb> db;  // null when the file is missing and !create
  std::string problem;    // what was wrong with a file set aside, or ""
  std::string set_aside;  // where it went, or ""
};

// Opens the cache at `path`. With `create`, makes the folder and the file
// when they are missing; without, a missing file gives a null db. A bad file
// is set aside first (Note [Setting a bad cache aside]) and logged as a
// warning. Errors: the folder or file cannot be made, or a bad file cannot
// be moved (permissions); the caller then works without a file.
absl::StatusOr<OpenedCache> OpenCacheFile(const std::string& path, bool create);

// What is wrong with the file at `path` judged by its bytes alone ("is
// empty (zero bytes)", "is truncated: …", "is not a SQLite database …"), or
// "" when its header is sound. Exposed for tests.
std::string InspectCacheHeader(const std::string& path);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_CACHE_FILE_H_
