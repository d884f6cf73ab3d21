#include "autotune/cache_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/base/env.h"
#include "dispatcher/base/log.h"

namespace sy::autotune {
namespace {

namespace fs = std::filesystem;

constexpr char kSchema[] = R"sql(
PRAGMA application_id = 1398363185;
PRAGMA user_version = 1;
CREATE TABLE IF NOT EXISTS verdicts(
  key_hash TEXT PRIMARY KEY NOT NULL,
  fingerprint TEXT NOT NULL,
  op TEXT NOT NULL,
  dtypes TEXT NOT NULL,
  bucket TEXT NOT NULL,
  plugins TEXT NOT NULL,
  candidates TEXT NOT NULL,
  kernel TEXT NOT NULL,
  variant INTEGER NOT NULL,
  variant_name TEXT NOT NULL,
  time_ns REAL NOT NULL,
  detail TEXT NOT NULL,
  source TEXT NOT NULL,
  created INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS verdicts_by_fingerprint ON verdicts(fingerprint);
CREATE TABLE IF NOT EXISTS imports(
  id INTEGER PRIMARY KEY,
  created INTEGER NOT NULL,
  file TEXT NOT NULL,
  imported INTEGER NOT NULL,
  present INTEGER NOT NULL,
  ignored INTEGER NOT NULL,
  reasons TEXT NOT NULL
);
)sql";
static_assert(kCacheApplicationId == 1398363185, "kSchema repeats the id");

// An exclusive flock on a file beside the cache, for the open-check-set
// aside sequence. Without a lock file (a read-only folder) it runs unlocked:
// then nothing can be set aside or created there either.
class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return;
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

std::string Printable(const unsigned char* bytes, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += (bytes[i] >= 32 && bytes[i] < 127) ? static_cast<char>(bytes[i]) : '.';
  }
  return out;
}

// What is wrong with the open database `db` as a cache, or "". Only a
// verdict on the file: a failure that is not about its bytes (another
// process holding a lock past the busy timeout, an I/O error) is returned
// as an error, and the file is left alone.
absl::StatusOr<std::string> InspectDatabase(SqliteDb& db, bool& blank) {
  blank = false;
  auto corrupt = [](const absl::Status& status) -> absl::StatusOr<std::string> {
    if (!absl::IsDataLoss(status)) return status;
    return absl::StrCat("is corrupt (", status.message(), ")");
  };
  absl::StatusOr<int64_t> app = db.QueryInt("PRAGMA application_id");
  if (!app.ok()) return corrupt(app.status());
  absl::StatusOr<int64_t> version = db.QueryInt("PRAGMA user_version");
  if (!version.ok()) return corrupt(version.status());
  if (*app == 0) {
    absl::StatusOr<SqliteStatement> tables =
        db.Prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    if (!tables.ok()) return corrupt(tables.status());
    std::vector<std::string> names;
    for (;;) {
      absl::StatusOr<bool> row = tables->Step();
      if (!row.ok()) return corrupt(row.status());
      if (!*row) break;
      names.push_back(tables->Text(0));
    }
    if (names.empty() && *version == 0) {
      blank = true;  // a database nobody wrote to yet: ours to fill
      return "";
    }
    return absl::StrCat("is another program's SQLite database, not a Switchyard "
                        "autotune cache (tables: ",
                        names.empty() ? "none" : absl::StrJoin(names, ", "), ")");
  }
  if (*app != kCacheApplicationId) {
    return absl::StrCat("is another application's SQLite database "
                        "(application_id ", *app, "), not a Switchyard autotune cache");
  }
  if (*version > kCacheSchemaVersion) {
    return absl::StrCat("was written by a newer Switchyard (cache schema ", *version,
                        "; this one reads schema ", kCacheSchemaVersion, ")");
  }
  if (*version < kCacheSchemaVersion) {
    return absl::StrCat("has cache schema ", *version,
                        ", which this Switchyard does not read (it reads ",
                        kCacheSchemaVersion, ")");
  }
  for (const char* probe :
       {"SELECT key_hash, fingerprint, op, dtypes, bucket, plugins, candidates, "
        "kernel, variant, variant_name, time_ns, detail, source, created FROM "
        "verdicts LIMIT 1",
        "SELECT id, created, file, imported, present, ignored, reasons FROM imports "
        "LIMIT 1"}) {
    absl::StatusOr<SqliteStatement> stmt = db.Prepare(probe);
    absl::Status status = stmt.ok() ? stmt->Run() : stmt.status();
    if (absl::IsUnavailable(status)) return status;  // busy, not bad
    if (!status.ok()) {
      return absl::StrCat(absl::IsDataLoss(status) ? "is corrupt" : "lacks the cache's tables",
                          " (", status.message(), ")");
    }
  }
  return "";
}

std::string BadName(const std::string& path) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  return absl::StrCat(path, ".bad-", stamp, "-", ::getpid());
}

// Moves the file at `path` (and its -wal and -shm) aside; returns where.
absl::StatusOr<std::string> SetAside(const std::string& path) {
  const std::string bad = BadName(path);
  std::error_code error;
  fs::rename(path, bad, error);
  if (error) {
    return absl::PermissionDeniedError(absl::StrCat(
        "autotune cache ", path, ": cannot move the bad file aside to ", bad, ": ",
        error.message(), "; remove it yourself"));
  }
  // The old WAL must never meet a new database of the same name.
  for (const char* suffix : {"-wal", "-shm"}) {
    std::error_code ignored;
    if (fs::exists(path + suffix, ignored)) {
      fs::rename(path + suffix, bad + suffix, ignored);
      if (ignored) fs::remove(path + suffix, ignored);
    }
  }
  return bad;
}

absl::Status Configure(SqliteDb& db) {
  // Busy waits, not errors, while another process writes (WAL allows one
  // writer at a time); NORMAL sync is durable against a process crash,
  // which is what a cache needs.
  return db.Exec("PRAGMA busy_timeout = 10000; PRAGMA synchronous = NORMAL;");
}

absl::StatusOr<std::unique_ptr<SqliteDb>> CreateFresh(const std::string& path) {
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, /*create=*/true);
  if (!db.ok()) return db.status();
  absl::Status status = Configure(**db);  // waits on others' locks from here
  if (status.ok()) status = InitializeCacheSchema(**db);
  if (!status.ok()) return status;
  return db;
}

}  // namespace

std::string DefaultCacheDir() {
  if (std::optional<std::string> dir = core::GetEnv("SWITCHYARD_CACHE_DIR");
      dir.has_value() && !dir->empty()) {
    return *dir;
  }
  if (std::optional<std::string> xdg = core::GetEnv("XDG_CACHE_HOME");
      xdg.has_value() && !xdg->empty() && (*xdg)[0] == '/') {
    return absl::StrCat(*xdg, "/switchyard");
  }
  if (std::optional<std::string> home = core::GetEnv("HOME");
      home.has_value() && !home->empty()) {
    return absl::StrCat(*home, "/.cache/switchyard");
  }
  return "";
}

absl::Status InitializeCacheSchema(SqliteDb& db) {
  // WAL is a property of the file; ":memory:" keeps its own journal.
  absl::Status status = db.Exec("PRAGMA journal_mode = WAL");
  if (!status.ok()) return status;
  status = db.Exec("BEGIN IMMEDIATE");
  if (!status.ok()) return status;
  status = db.Exec(kSchema);
  if (!status.ok()) {
    (void)db.Exec("ROLLBACK");
    return status;
  }
  return db.Exec("COMMIT");
}

std::string InspectCacheHeader(const std::string& path) {
  std::error_code error;
  const uintmax_t size = fs::file_size(path, error);
  if (error) return absl::StrCat("cannot be read (", error.message(), ")");
  if (size == 0) return "is empty (zero bytes)";
  unsigned char header[100] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(header), sizeof header);
  const size_t got = static_cast<size_t>(in.gcount());
  static constexpr char kMagic[] = "SQLite format 3";  // and a NUL: 16 bytes
  const bool magic = got >= 16 && std::memcmp(header, kMagic, 16) == 0;
  if (!magic) {
    const bool prefix = std::memcmp(header, kMagic, std::min<size_t>(got, 16)) == 0;
    if (prefix) {
      return absl::StrCat("is truncated (", size, " bytes, less than a SQLite header)");
    }
    return absl::StrCat("is not a SQLite database (it begins \"",
                        Printable(header, std::min<size_t>(got, 16)), "\")");
  }
  if (got < sizeof header) {
    return absl::StrCat("is truncated (", size, " bytes, less than a SQLite header)");
  }
  uint32_t page_size = (uint32_t{header[16]} << 8) | header[17];
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    return absl::StrCat("is corrupt (page size ", page_size, " in its header)");
  }
  if (size % page_size != 0) {
    return absl::StrCat("is truncated (", size, " bytes, not a whole number of ",
                        page_size, "-byte pages)");
  }
  // The header's page count is valid when its "valid for" number matches
  // the change counter (SQLite's file format, section 1.3.7).
  const uint32_t change_counter = BigEndian32(header + 24);
  const uint32_t pages = BigEndian32(header + 28);
  const uint32_t valid_for = BigEndian32(header + 92);
  if (valid_for == change_counter && pages > 0 &&
      size < static_cast<uintmax_t>(pages) * page_size) {
    return absl::StrCat("is truncated (its header says ",
                        static_cast<uintmax_t>(pages) * page_size, " bytes, the file has ",
                        size, ")");
  }
  return "";
}

absl::StatusOr<OpenedCache> OpenCacheFile(const std::string& path, bool create) {
  OpenedCache opened;
  const fs::path folder = fs::path(path).parent_path();
  std::error_code error;
  if (create && !folder.empty()) {
    fs::create_directories(folder, error);
    if (error) {
      return absl::PermissionDeniedError(absl::StrCat(
          "autotune cache: cannot create the folder ", folder.string(), ": ",
          error.message(), "; set SWITCHYARD_CACHE_DIR to a folder you can write"));
    }
  }
  FileLock lock(path + ".lock");
  if (!fs::exists(path, error)) {
    if (!create) return opened;
    absl::StatusOr<std::unique_ptr<SqliteDb>> db = CreateFresh(path);
    if (!db.ok()) return db.status();
    opened.db = *std::move(db);
    return opened;
  }
  std::string problem = InspectCacheHeader(path);
  if (problem.empty()) {
    absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path, /*create=*/false);
    if (!db.ok()) {
      if (!absl::IsDataLoss(db.status())) return db.status();
      problem = absl::StrCat("is corrupt (", db.status().message(), ")");
    } else {
      // The busy timeout first: another process may be writing right now,
      // and a lock it holds is a wait, never a reason to set the file aside.
      if (absl::Status status = Configure(**db); !status.ok()) return status;
      bool blank = false;
      absl::StatusOr<std::string> inspected = InspectDatabase(**db, blank);
      if (!inspected.ok()) return inspected.status();
      problem = *std::move(inspected);
      if (problem.empty()) {
        absl::Status status = blank ? InitializeCacheSchema(**db) : absl::OkStatus();
        if (status.ok()) {
          opened.db = *std::move(db);
          return opened;
        }
        if (!absl::IsDataLoss(status)) return status;
        problem = absl::StrCat("is corrupt (", status.message(), ")");
      }
    }
  }
  absl::StatusOr<std::string> bad = SetAside(path);
  if (!bad.ok()) return bad.status();
  opened.problem = problem;
  opened.set_aside = *bad;
  core::Log(core::LogLevel::kWarning,
            absl::StrCat("autotune cache ", path, " ", problem, "; moved it to ", *bad,
                         create ? " and started a new cache" : "",
                         ". Its verdicts are not used: tune again, or import an "
                         "export (switchyard tune --import)"));
  if (!create) return opened;
  absl::StatusOr<std::unique_ptr<SqliteDb>> db = CreateFresh(path);
  if (!db.ok()) return db.status();
  opened.db = *std::move(db);
  return opened;
}

}  // namespace sy::autotune
