// A small RAII layer over SQLite's C API (one connection, prepared
// statements), with SQLite's result codes turned into absl::Status:
//   SQLITE_CORRUPT, SQLITE_NOTADB     → DataLoss (the file is damaged)
//   SQLITE_BUSY, SQLITE_LOCKED        → Unavailable (after the busy timeout)
//   SQLITE_FULL                       → ResourceExhausted
//   SQLITE_READONLY, SQLITE_PERM,
//   SQLITE_CANTOPEN, SQLITE_AUTH      → PermissionDenied
//   anything else                     → Internal
// each with the file's path and SQLite's own message.
//
// Thread-safety: a Db and its statements belong to one thread at a time
// (the cache serializes them with its mutex).
#ifndef SWITCHYARD_AUTOTUNE_SQLITE_DB_H_
#define SWITCHYARD_AUTOTUNE_SQLITE_DB_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace sy::autotune {

class SqliteStatement;

class SqliteDb {
 public:
  // Opens `path` (":memory:" for a private in-memory database).
  // `create`: make the file if it is missing. `read_only`: never write.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(const std::string& path,
                                                        bool create,
                                                        bool read_only = false);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows needed.
  absl::Status Exec(absl::string_view sql);
  absl::StatusOr<SqliteStatement> Prepare(absl::string_view sql);
  // The first column of the first row of `sql` as an integer.
  absl::StatusOr<int64_t> QueryInt(absl::string_view sql);

  // Rows the last INSERT/UPDATE/DELETE changed.
  int64_t Changes() const;

  // A Status for result code `code` of an operation described by `what`.
  absl::Status Error(int code, absl::string_view what) const;

  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  ~SqliteStatement();

  // Parameters are 1-based, as in SQL. Text is copied.
  SqliteStatement& Bind(int index, absl::string_view text);
  SqliteStatement& Bind(int index, int64_t value);
  SqliteStatement& Bind(int index, double value);

  // One step: true with a row to read, false when done.
  absl::StatusOr<bool> Step();
  // Runs to completion, ignoring rows.
  absl::Status Run();
  absl::Status Reset();

  // Columns are 0-based; NULL reads as "" / 0.
  std::string Text(int column) const;
  int64_t Int(int column) const;
  double Double(int column) const;
  // SQLite's type of a column of the current row (SQLITE_INTEGER, …).
  int Type(int column) const;

 private:
  friend class SqliteDb;
  SqliteStatement(const SqliteDb& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  const SqliteDb* db_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;  // the first failed bind, reported by Step
};

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_SQLITE_DB_H_
