#include "autotune/sqlite_db.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"

namespace sy::autotune {

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path,
                                                         bool create,
                                                         bool read_only) {
  sqlite3* db = nullptr;
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (create && !read_only) flags |= SQLITE_OPEN_CREATE;
  // Each connection is used under the cache's mutex: no SQLite mutexes.
  flags |= SQLITE_OPEN_NOMUTEX;
  const int code = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  std::unique_ptr<SqliteDb> opened(new SqliteDb(db, path));
  if (code != SQLITE_OK) return opened->Error(code, "opening it");
  sqlite3_extended_result_codes(db, 1);
  return opened;
}

SqliteDb::~SqliteDb() {
  // Statements are all finalized by now (they never outlive the cache's
  // calls), so close_v2 frees everything at once.
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

absl::Status SqliteDb::Error(int code, absl::string_view what) const {
  const char* detail = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  const std::string message =
      absl::StrCat("autotune cache ", path_, ": ", what, " failed: ", detail,
                   " (SQLite code ", code, ")");
  switch (code & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return absl::DataLossError(message);
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return absl::UnavailableError(message);
    case SQLITE_FULL: return absl::ResourceExhaustedError(message);
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
    case SQLITE_AUTH: return absl::PermissionDeniedError(message);
    default: return absl::InternalError(message);
  }
}

int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

absl::Status SqliteDb::Exec(absl::string_view sql) {
  const std::string text(sql);
  const int code = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (code != SQLITE_OK) return Error(code, absl::StrCat("'", sql.substr(0, 60), "'"));
  return absl::OkStatus();
}

absl::StatusOr<SqliteStatement> SqliteDb::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int code = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()),
                                      &stmt, nullptr);
  if (code != SQLITE_OK) {
    return Error(code, absl::StrCat("preparing '", sql.substr(0, 60), "'"));
  }
  return SqliteStatement(*this, stmt);
}

absl::StatusOr<int64_t> SqliteDb::QueryInt(absl::string_view sql) {
  absl::StatusOr<SqliteStatement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  return *row ? stmt->Int(0) : 0;
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), bind_error_(other.bind_error_) {
  other.stmt_ = nullptr;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::Bind(int index, absl::string_view text) {
  const int code = sqlite3_bind_text64(stmt_, index, text.data(), text.size(),
                                       SQLITE_TRANSIENT, SQLITE_UTF8);
  if (code != SQLITE_OK && bind_error_ == 0) bind_error_ = code;
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, int64_t value) {
  const int code = sqlite3_bind_int64(stmt_, index, value);
  if (code != SQLITE_OK && bind_error_ == 0) bind_error_ = code;
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, double value) {
  const int code = sqlite3_bind_double(stmt_, index, value);
  if (code != SQLITE_OK && bind_error_ == 0) bind_error_ = code;
  return *this;
}

absl::StatusOr<bool> SqliteStatement::Step() {
  if (bind_error_ != 0) return db_->Error(bind_error_, "binding a value");
  const int code = sqlite3_step(stmt_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) return false;
  return db_->Error(code, absl::StrCat("running '",
                                       absl::string_view(sqlite3_sql(stmt_)).substr(0, 60),
                                       "'"));
}

absl::Status SqliteStatement::Run() {
  for (;;) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

absl::Status SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = 0;
  return absl::OkStatus();
}

std::string SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  return text == nullptr ? std::string()
                         : std::string(reinterpret_cast<const char*>(text), size);
}

int64_t SqliteStatement::Int(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::Double(int column) const {
  return sqlite3_column_double(stmt_, column);
}

int SqliteStatement::Type(int column) const {
  return sqlite3_column_type(stmt_, column);
}

}  // namespace sy::autotune
