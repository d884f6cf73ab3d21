#include "autotune/cache.h"

#include <ctime>
#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autotune/cache_file.h"

namespace sy::autotune {
namespace {

constexpr char kColumns[] =
    "key_hash, fingerprint, op, dtypes, bucket, plugins, candidates, kernel, "
    "variant, variant_name, time_ns, detail, source, created";

Verdict ReadVerdict(const SqliteStatement& row) {
  Verdict v;
  v.key.fingerprint = row.Text(1);
  v.key.op = row.Text(2);
  v.key.dtypes = row.Text(3);
  v.key.bucket = row.Text(4);
  v.key.plugins = row.Text(5);
  v.key.candidates = row.Text(6);
  v.kernel = row.Text(7);
  v.variant = static_cast<int32_t>(row.Int(8));
  v.variant_name = row.Text(9);
  v.time_ns = row.Double(10);
  v.detail = row.Text(11);
  v.source = row.Text(12);
  v.created = row.Int(13);
  return v;
}

// Reads every row of `stmt`, or nothing: a failed step discards the rest.
absl::StatusOr<std::vector<Verdict>> ReadAll(SqliteStatement& stmt,
                                             const std::string* key_hash = nullptr) {
  std::vector<Verdict> out;
  for (;;) {
    absl::StatusOr<bool> row = stmt.Step();
    if (!row.ok()) return row.status();
    if (!*row) return out;
    // A row whose stored hash is not the hash of its fields was not written
    // by this code: skip it rather than trust it.
    Verdict v = ReadVerdict(stmt);
    if (v.key.Hash() != stmt.Text(0)) continue;
    if (key_hash != nullptr && *key_hash != stmt.Text(0)) continue;
    out.push_back(std::move(v));
  }
}

}  // namespace

TuningCache::TuningCache(std::string path) : path_(std::move(path)) {}
TuningCache::~TuningCache() = default;

absl::Status TuningCache::OpenLocked(bool create) {
  if (db_ != nullptr) return absl::OkStatus();
  if (path_.empty()) {
    absl::StatusOr<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(":memory:", true);
    if (!db.ok()) return db.status();
    absl::Status status = InitializeCacheSchema(**db);
    if (!status.ok()) return status;
    db_ = *std::move(db);
    return absl::OkStatus();
  }
  absl::StatusOr<OpenedCache> opened = OpenCacheFile(path_, create);
  if (!opened.ok()) return opened.status();
  db_ = std::move(opened->db);
  return absl::OkStatus();
}

absl::Status TuningCache::Run(bool create,
                              const std::function<absl::Status(SqliteDb*)>& op) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int attempt = 0;; ++attempt) {
    absl::Status status = OpenLocked(create);
    if (!status.ok()) return status;
    status = op(db_.get());
    if (!absl::IsDataLoss(status) || attempt == 1 || path_.empty()) return status;
    // The file went bad under us (or another process replaced it): close,
    // and let the next open check it and set it aside.
    db_.reset();
  }
}

absl::StatusOr<std::optional<Verdict>> TuningCache::Lookup(const TuningKey& key) {
  std::optional<Verdict> found;
  const std::string hash = key.Hash();
  absl::Status status = Run(false, [&](SqliteDb* db) -> absl::Status {
    found.reset();
    if (db == nullptr) return absl::OkStatus();
    absl::StatusOr<SqliteStatement> stmt = db->Prepare(
        absl::StrCat("SELECT ", kColumns, " FROM verdicts WHERE key_hash = ?1"));
    if (!stmt.ok()) return stmt.status();
    stmt->Bind(1, hash);
    absl::StatusOr<std::vector<Verdict>> rows = ReadAll(*stmt, &hash);
    if (!rows.ok()) return rows.status();
    for (Verdict& v : *rows) {
      if (v.key == key) found = std::move(v);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<std::vector<Verdict>> TuningCache::List(const std::string& fingerprint) {
  std::vector<Verdict> out;
  absl::Status status = Run(false, [&](SqliteDb* db) -> absl::Status {
    out.clear();
    if (db == nullptr) return absl::OkStatus();
    absl::StatusOr<SqliteStatement> stmt = db->Prepare(absl::StrCat(
        "SELECT ", kColumns, " FROM verdicts",
        fingerprint.empty() ? "" : " WHERE fingerprint = ?1",
        " ORDER BY fingerprint, op, dtypes, bucket"));
    if (!stmt.ok()) return stmt.status();
    if (!fingerprint.empty()) stmt->Bind(1, fingerprint);
    absl::StatusOr<std::vector<Verdict>> rows = ReadAll(*stmt);
    if (!rows.ok()) return rows.status();
    out = *std::move(rows);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<TuningCache::Stored> TuningCache::Insert(const Verdict& verdict) {
  Stored stored;
  const std::string hash = verdict.key.Hash();
  absl::Status status = Run(true, [&](SqliteDb* db) -> absl::Status {
    // IMMEDIATE: take the write lock now, so the insert and the read-back
    // see one state of the table.
    absl::Status s = db->Exec("BEGIN IMMEDIATE");
    if (!s.ok()) return s;
    auto body = [&]() -> absl::Status {
      absl::StatusOr<SqliteStatement> insert = db->Prepare(absl::StrCat(
          "INSERT INTO verdicts(", kColumns,
          ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
          "ON CONFLICT(key_hash) DO NOTHING"));
      if (!insert.ok()) return insert.status();
      insert->Bind(1, hash)
          .Bind(2, verdict.key.fingerprint)
          .Bind(3, verdict.key.op)
          .Bind(4, verdict.key.dtypes)
          .Bind(5, verdict.key.bucket)
          .Bind(6, verdict.key.plugins)
          .Bind(7, verdict.key.candidates)
          .Bind(8, verdict.kernel)
          .Bind(9, int64_t{verdict.variant})
          .Bind(10, verdict.variant_name)
          .Bind(11, verdict.time_ns)
          .Bind(12, verdict.detail)
          .Bind(13, verdict.source)
          .Bind(14, verdict.created != 0 ? verdict.created
                                          : static_cast<int64_t>(std::time(nullptr)));
      absl::Status run = insert->Run();
      if (!run.ok()) return run;
      stored.inserted = db->Changes() > 0;
      absl::StatusOr<SqliteStatement> read = db->Prepare(
          absl::StrCat("SELECT ", kColumns, " FROM verdicts WHERE key_hash = ?1"));
      if (!read.ok()) return read.status();
      read->Bind(1, hash);
      absl::StatusOr<std::vector<Verdict>> rows = ReadAll(*read, &hash);
      if (!rows.ok()) return rows.status();
      if (rows->empty()) {
        return absl::InternalError(absl::StrCat(
            "autotune cache ", db->path(), ": a verdict just written for ",
            verdict.key.op, " cannot be read back"));
      }
      stored.verdict = std::move(rows->front());
      return absl::OkStatus();
    };
    s = body();
    if (!s.ok()) {
      (void)db->Exec("ROLLBACK");
      return s;
    }
    return db->Exec("COMMIT");
  });
  if (!status.ok()) return status;
  return stored;
}

absl::Status TuningCache::RecordImport(const ImportRecord& record) {
  return Run(true, [&](SqliteDb* db) -> absl::Status {
    absl::StatusOr<SqliteStatement> stmt = db->Prepare(
        "INSERT INTO imports(created, file, imported, present, ignored, reasons) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    if (!stmt.ok()) return stmt.status();
    stmt->Bind(1, record.created != 0 ? record.created
                                      : static_cast<int64_t>(std::time(nullptr)))
        .Bind(2, record.file)
        .Bind(3, record.imported)
        .Bind(4, record.present)
        .Bind(5, record.ignored)
        .Bind(6, absl::StrJoin(record.reasons, "\n"));
    return stmt->Run();
  });
}

absl::StatusOr<CacheSummary> TuningCache::Summarize() {
  CacheSummary summary;
  summary.path = path_;
  std::error_code error;
  if (!path_.empty()) {
    summary.exists = std::filesystem::exists(path_, error);
    if (summary.exists) {
      summary.file_bytes = static_cast<int64_t>(std::filesystem::file_size(path_, error));
    }
  }
  absl::Status status = Run(false, [&](SqliteDb* db) -> absl::Status {
    summary.devices.clear();
    summary.imports.clear();
    summary.verdicts = 0;
    if (db == nullptr) return absl::OkStatus();
    summary.exists = true;
    absl::StatusOr<SqliteStatement> stmt = db->Prepare(
        "SELECT fingerprint, op, COUNT(*) FROM verdicts GROUP BY fingerprint, op "
        "ORDER BY fingerprint, op");
    if (!stmt.ok()) return stmt.status();
    for (;;) {
      absl::StatusOr<bool> row = stmt->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      const std::string fingerprint = stmt->Text(0);
      if (summary.devices.empty() || summary.devices.back().fingerprint != fingerprint) {
        summary.devices.push_back({fingerprint, 0, {}});
      }
      const int64_t count = stmt->Int(2);
      summary.devices.back().verdicts += count;
      summary.devices.back().ops.emplace_back(stmt->Text(1), count);
      summary.verdicts += count;
    }
    absl::StatusOr<SqliteStatement> imports = db->Prepare(
        "SELECT created, file, imported, present, ignored, reasons FROM imports "
        "ORDER BY id DESC LIMIT 20");
    if (!imports.ok()) return imports.status();
    for (;;) {
      absl::StatusOr<bool> row = imports->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      ImportRecord r;
      r.created = imports->Int(0);
      r.file = imports->Text(1);
      r.imported = imports->Int(2);
      r.present = imports->Int(3);
      r.ignored = imports->Int(4);
      const std::string reasons = imports->Text(5);
      if (!reasons.empty()) r.reasons = absl::StrSplit(reasons, '\n');
      summary.imports.push_back(std::move(r));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return summary;
}

absl::StatusOr<std::string> TuningCache::Verify() {
  std::string result = "ok";
  absl::Status status = Run(false, [&](SqliteDb* db) -> absl::Status {
    if (db == nullptr) return absl::OkStatus();
    absl::StatusOr<SqliteStatement> stmt = db->Prepare("PRAGMA integrity_check");
    if (!stmt.ok()) return stmt.status();
    std::vector<std::string> lines;
    for (;;) {
      absl::StatusOr<bool> row = stmt->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      lines.push_back(stmt->Text(0));
    }
    result = absl::StrJoin(lines, "; ");
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace sy::autotune
