// Many processes: fresh processes pick the same winner, and processes
// tuning into one cache at once lose nothing and leave a valid database in
// which every key has one verdict that all of them adopted.
#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_split.h"
#include "autotune/cache.h"
#include "autotune/cache_file.h"
#include "autotune_test_util.h"
#include "gmock/gmock.h"

namespace sy::autotune::testing {
namespace {

// Starts the worker; its stdout is read by Finish.
class Worker {
 public:
  Worker(const std::string& cache_dir, const std::vector<std::string>& shapes) {
    std::string command = absl::StrCat(SWITCHYARD_AUTOTUNE_WORKER, " ", cache_dir);
    for (const std::string& s : shapes) absl::StrAppend(&command, " ", s);
    pipe_ = popen(command.c_str(), "r");
  }
  // Lines of output, and the exit status.
  std::vector<std::string> Finish(int& status) {
    std::vector<std::string> lines;
    if (pipe_ == nullptr) {
      status = -1;
      return lines;
    }
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe_) != nullptr) {
      std::string line(buffer);
      if (!line.empty() && line.back() == '\n') line.pop_back();
      lines.push_back(line);
    }
    status = pclose(pipe_);
    pipe_ = nullptr;
    return lines;
  }

 private:
  FILE* pipe_ = nullptr;
};

TEST(Processes, TenFreshProcessesPickTheSameWinner) {
  std::set<std::string> winners;
  for (int i = 0; i < 10; ++i) {
    TempDir dir;  // each process tunes from an empty cache
    Worker worker(dir.path(), {"32x32"});
    int status = 0;
    std::vector<std::string> lines = worker.Finish(status);
    ASSERT_EQ(status, 0);
    ASSERT_EQ(lines.size(), 1u);
    winners.insert(lines[0]);
  }
  EXPECT_THAT(winners, ::testing::ElementsAre("32x32 planted::planted.fast_add -1 1"));
}

TEST(Processes, EightProcessesTuningIntoOneCacheLoseNothing) {
  TempDir dir;
  // Every worker tunes the shared buckets (in its own order) and three of
  // its own: 6 + 8 × 3 = 30 keys.
  const std::vector<std::string> shared = {"1", "2", "3", "4", "5", "6"};
  constexpr int kWorkers = 8;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int w = 0; w < kWorkers; ++w) {
    std::vector<std::string> shapes;
    for (size_t i = 0; i < shared.size(); ++i) shapes.push_back(shared[(i + w) % shared.size()]);
    for (int k = 0; k < 3; ++k) shapes.push_back(absl::StrCat(w + 1, "x", k + 1, "x2"));
    workers.push_back(std::make_unique<Worker>(dir.path(), shapes));
  }
  std::map<std::string, std::set<std::string>> verdicts;  // shape → what each saw
  std::map<std::string, int> written;
  for (auto& worker : workers) {
    int status = 0;
    std::vector<std::string> lines = worker->Finish(status);
    ASSERT_EQ(status, 0);
    ASSERT_EQ(lines.size(), shared.size() + 3);
    for (const std::string& line : lines) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      ASSERT_EQ(f.size(), 4u) << line;
      verdicts[f[0]].insert(f[1] + " " + f[2]);
      written[f[0]] += f[3] == "1";
    }
  }
  ASSERT_EQ(verdicts.size(), 30u);
  for (const auto& [shape, seen] : verdicts) {
    EXPECT_EQ(seen.size(), 1u) << shape << ": processes disagree";
    EXPECT_EQ(written[shape], 1) << shape << ": exactly one process wrote it";
  }
  TuningCache cache(dir.File(kCacheFileName));
  absl::StatusOr<std::vector<Verdict>> rows = cache.List("");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->size(), 30u);
  EXPECT_EQ(*cache.Verify(), "ok");
}

}  // namespace
}  // namespace sy::autotune::testing
