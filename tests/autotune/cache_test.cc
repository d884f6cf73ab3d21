// The cache file survives what a file on disk can become — garbage,
// truncation, zero bytes, a newer schema, another program's database, a
// damaged page — each with a warning that says what and where it went, and
// is rebuilt; many threads write into one file and lose nothing.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_format.h"
#include "autotune/cache.h"
#include "autotune/cache_file.h"
#include "autotune_test_util.h"
#include "gmock/gmock.h"

namespace sy::autotune::testing {
namespace {

using ::testing::HasSubstr;

Verdict MakeVerdict(int i, const std::string& fingerprint = "cpu|test|vendor||cc -|4 units") {
  Verdict v;
  v.key.fingerprint = fingerprint;
  v.key.op = "add.Tensor";
  v.key.dtypes = "f32,f32";
  v.key.bucket = absl::StrCat("2|c:", 1 + i % 8, ",", 9 + i / 8 % 50, "|c:1");
  v.key.plugins = "cpu 0.1.0 abi 1.1 options -";
  v.key.candidates = absl::StrFormat("%016x", i);  // a key per i
  v.kernel = i % 2 ? "cpu::add.f32" : "onednn::add.f32";
  v.time_ns = 100 + i;
  v.detail = std::string(200, 'x');  // a few rows per page
  v.source = "measured";
  v.created = 1700000000 + i;
  return v;
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// The set-aside files in `dir`.
std::vector<std::string> SetAside(const TempDir& dir) {
  std::vector<std::string> bad;
  for (const std::string& name : dir.Names()) {
    if (name.find(".bad-") != std::string::npos &&
        name.find("-wal") == std::string::npos && name.find("-shm") == std::string::npos) {
      bad.push_back(name);
    }
  }
  return bad;
}

// Fills a cache at `path` with `n` verdicts and closes it (checkpointed).
void Fill(const std::string& path, int n) {
  TuningCache cache(path);
  for (int i = 0; i < n; ++i) ASSERT_TRUE(cache.Insert(MakeVerdict(i)).ok());
}

// After a bad file: the cache warns, sets it aside, and works.
void ExpectSurvives(const TempDir& dir, const std::string& problem) {
  const std::string path = dir.File(kCacheFileName);
  CapturedLog log;
  TuningCache cache(path);
  absl::StatusOr<std::vector<Verdict>> rows = cache.List("");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_TRUE(rows->empty()) << "nothing is read from a bad file";
  EXPECT_THAT(log.Text(), HasSubstr(absl::StrCat("autotune cache ", path, " ", problem)));
  EXPECT_THAT(log.Text(), HasSubstr("; moved it to " + path + ".bad-"));
  ASSERT_EQ(SetAside(dir).size(), 1u) << "the bad file is kept, renamed";
  ASSERT_TRUE(cache.Insert(MakeVerdict(1)).ok());
  EXPECT_EQ(cache.List("")->size(), 1u);
  EXPECT_EQ(*cache.Verify(), "ok");
}

TEST(CacheFile, GarbageIsSetAside) {
  TempDir dir;
  Write(dir.File(kCacheFileName), std::string(3000, '\x7f') + "garbage");
  ExpectSurvives(dir, "is not a SQLite database (it begins \"................\")");
}

TEST(CacheFile, ZeroLengthIsSetAside) {
  TempDir dir;
  Write(dir.File(kCacheFileName), "");
  ExpectSurvives(dir, "is empty (zero bytes)");
}

TEST(CacheFile, TruncatedIsSetAside) {
  TempDir dir;
  const std::string path = dir.File(kCacheFileName);
  Fill(path, 300);
  const uintmax_t size = std::filesystem::file_size(path);
  ASSERT_GT(size, 8 * 4096u);
  const uintmax_t half = size / 2 / 4096 * 4096;  // whole pages
  std::filesystem::resize_file(path, half);
  ExpectSurvives(dir, absl::StrCat("is truncated (its header says ", size,
                                   " bytes, the file has ", half, ")"));
}

TEST(CacheFile, TruncatedMidPageIsSetAside) {
  TempDir dir;
  const std::string path = dir.File(kCacheFileName);
  Fill(path, 300);
  std::filesystem::resize_file(path, 3 * 4096 + 100);
  ExpectSurvives(dir, absl::StrCat("is truncated (", 3 * 4096 + 100,
                                   " bytes, not a whole number of 4096-byte pages)"));
}

TEST(CacheFile, TruncatedInsideTheHeaderIsSetAside) {
  TempDir dir;
  const std::string path = dir.File(kCacheFileName);
  Fill(path, 3);
  std::filesystem::resize_file(path, 40);
  ExpectSurvives(dir, "is truncated (40 bytes, less than a SQLite header)");
}

TEST(CacheFile, NewerSchemaIsSetAside) {
  TempDir dir;
  const std::string path = dir.File(kCacheFileName);
  Fill(path, 3);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 7", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ExpectSurvives(dir, "was written by a newer Switchyard (cache schema 7; this one reads schema 1)");
}

TEST(CacheFile, ForeignDatabaseIsSetAside) {
  TempDir dir;
  const std::string path = dir.File(kCacheFileName);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE photos(id INTEGER)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  ExpectSurvives(dir, "is another program's SQLite database, not a Switchyard autotune "
                      "cache (tables: photos)");
}

TEST(CacheFile, DamagedPageIsFoundOnReadAndSetAside) {
  TempDir dir;
  const std::string path = dir.File(kCacheFileName);
  Fill(path, 300);
  // Overwrite every page but the first (the header and schema stay sound,
  // so the damage shows only when the rows are read).
  const uintmax_t size = std::filesystem::file_size(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    f << std::string(size - 4096, '\xa5');
  }
  ExpectSurvives(dir, "is corrupt");
}

TEST(CacheFile, MissingFileIsNotCreatedByReads) {
  TempDir dir;
  TuningCache cache(dir.File(kCacheFileName));
  EXPECT_TRUE(cache.List("")->empty());
  EXPECT_FALSE(cache.Lookup(MakeVerdict(0).key)->has_value());
  EXPECT_TRUE(dir.Names().empty() || dir.Names() == std::vector<std::string>{
                                                        std::string(kCacheFileName) + ".lock"});
  EXPECT_FALSE(std::filesystem::exists(dir.File(kCacheFileName)));
}

TEST(Cache, FirstWriterWins) {
  TempDir dir;
  TuningCache cache(dir.File(kCacheFileName));
  Verdict first = MakeVerdict(0);
  Verdict second = first;
  second.kernel = "cpu::other";
  absl::StatusOr<TuningCache::Stored> a = cache.Insert(first);
  absl::StatusOr<TuningCache::Stored> b = cache.Insert(second);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->inserted);
  EXPECT_FALSE(b->inserted);
  EXPECT_EQ(b->verdict, first);
  EXPECT_EQ(**cache.Lookup(second.key), first);
}

TEST(Cache, LookupComparesEveryKeyField) {
  TuningCache cache("");  // in memory
  ASSERT_TRUE(cache.Insert(MakeVerdict(0)).ok());
  Verdict other = MakeVerdict(0);
  other.key.plugins = "cpu 0.2.0 abi 1.1 options -";
  EXPECT_FALSE(cache.Lookup(other.key)->has_value());
  EXPECT_TRUE(cache.Lookup(MakeVerdict(0).key)->has_value());
}

TEST(Cache, ManyThreadsAndConnectionsLoseNothing) {
  TempDir dir;
  const std::string path = dir.File(kCacheFileName);
  constexpr int kThreads = 8, kEach = 40, kShared = 10;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      TuningCache cache(path);  // a connection per thread
      for (int i = 0; i < kEach; ++i) {
        if (!cache.Insert(MakeVerdict(1000 + t * kEach + i)).ok()) ++failures;
        if (i < kShared && !cache.Insert(MakeVerdict(i)).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  TuningCache cache(path);
  EXPECT_EQ(cache.List("")->size(), static_cast<size_t>(kThreads * kEach + kShared));
  EXPECT_EQ(*cache.Verify(), "ok");
}

}  // namespace
}  // namespace sy::autotune::testing
