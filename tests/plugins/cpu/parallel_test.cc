// The cpu plugin's thread pool (kernels/parallel.h) and strided range walker
// (kernels/strided.h), compiled into the test from the plugin's sources:
// chunks cover [0, n) exactly once, nested and concurrent regions run, and
// StridedLayout::ForEachRun from any [begin, end) visits the elements a
// naive row-major index walk visits, in the same order.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "kernels/parallel.h"
#include "kernels/strided.h"

namespace sy::cpu {
namespace {

TEST(ParallelForTest, CoversEveryIndexExactlyOnce) {
  for (const int64_t n : {0, 1, 7, 4096, 32768, 32769, 100003}) {
    for (const int64_t grain : {int64_t{1}, int64_t{1000}, kParallelGrain}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::mutex mu;
      std::vector<std::pair<int64_t, int64_t>> chunks;
      ParallelFor(n, grain, [&](int64_t begin, int64_t end) {
        {
          std::lock_guard lock(mu);
          chunks.emplace_back(begin, end);
        }
        for (int64_t i = begin; i < end; ++i) ++hits[i];
      });
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " grain=" << grain
                                     << " index " << i;
      }
      // Chunks are non-empty, no more than the threads, and not much
      // smaller than `grain`: n is split evenly over ceil(n / grain)
      // chunks at most, so each but the last has at least grain / 2.
      std::sort(chunks.begin(), chunks.end());
      EXPECT_LE(static_cast<int>(chunks.size()), std::max(NumThreads(), 1));
      for (size_t c = 0; c < chunks.size(); ++c) {
        EXPECT_LT(chunks[c].first, chunks[c].second);
        if (c + 1 < chunks.size()) {
          EXPECT_GE(2 * (chunks[c].second - chunks[c].first), grain);
        }
      }
      if (n == 0) {
        EXPECT_TRUE(chunks.empty());
      }
    }
  }
}

TEST(ParallelForTest, NestedCallsRunInlineOnTheCallingThread) {
  std::atomic<int64_t> inner_total{0};
  std::atomic<int> inner_calls{0};
  ParallelFor(4 * kParallelGrain, 1, [&](int64_t begin, int64_t end) {
    const std::thread::id outer = std::this_thread::get_id();
    ParallelFor(end - begin, 1, [&](int64_t b, int64_t e) {
      EXPECT_EQ(std::this_thread::get_id(), outer);
      ++inner_calls;
      inner_total += e - b;
    });
  });
  EXPECT_EQ(inner_total.load(), 4 * kParallelGrain);
  // Inline means one call per outer chunk, covering the chunk whole.
  EXPECT_LE(inner_calls.load(), NumThreads());
}

TEST(ParallelForTest, ConcurrentCallersEachGetAllTheirWork) {
  constexpr int kCallers = 6;
  constexpr int kRounds = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r) {
        const int64_t n = 20000 + 997 * c + r;
        std::atomic<int64_t> sum{0};
        ParallelFor(n, 1000, [&](int64_t begin, int64_t end) {
          int64_t local = 0;
          for (int64_t i = begin; i < end; ++i) local += i;
          sum += local;
        });
        if (sum.load() != n * (n - 1) / 2) ++failures;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// Element offsets of N operands for the row-major indices [begin, end) of
// `shape`, the slow way.
template <size_t N>
std::vector<std::array<int64_t, N>> NaiveWalk(
    const std::vector<int64_t>& shape,
    const std::array<std::vector<int64_t>, N>& strides, int64_t begin,
    int64_t end) {
  std::vector<std::array<int64_t, N>> out;
  for (int64_t linear = begin; linear < end; ++linear) {
    std::array<int64_t, N> offsets{};
    int64_t rest = linear;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int64_t i = rest % shape[d];
      rest /= shape[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += i * strides[k][d];
    }
    out.push_back(offsets);
  }
  return out;
}

template <size_t N>
std::vector<std::array<int64_t, N>> RunWalk(
    const StridedLayout<N>& layout, int64_t begin, int64_t end) {
  std::vector<std::array<int64_t, N>> out;
  layout.ForEachRun(begin, end, [&](const auto& offsets, int64_t count,
                                    const auto& steps) {
    EXPECT_GT(count, 0);
    for (int64_t i = 0; i < count; ++i) {
      std::array<int64_t, N> at{};
      for (size_t k = 0; k < N; ++k) at[k] = offsets[k] + i * steps[k];
      out.push_back(at);
    }
  });
  return out;
}

TEST(StridedLayoutTest, ForEachRunFromAnyRangeMatchesANaiveWalk) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 400; ++trial) {
    const int rank = static_cast<int>(rng() % 6);
    std::vector<int64_t> shape(rank);
    for (int64_t& d : shape) d = rng() % 5;  // 0 and 1 included
    if (trial % 4 == 0) {
      for (int64_t& d : shape) d = std::max<int64_t>(d, 1);
    }
    // Operand 0 dense row-major (so dims merge); operand 1 random strides
    // (0 for broadcast, or a permuted dense layout); operand 2 dense too.
    std::array<std::vector<int64_t>, 3> strides;
    for (auto& s : strides) s.assign(rank, 0);
    int64_t dense = 1;
    for (int d = rank - 1; d >= 0; --d) {
      strides[0][d] = dense;
      strides[2][d] = dense;
      dense *= std::max<int64_t>(shape[d], 1);
    }
    for (int d = 0; d < rank; ++d) {
      strides[1][d] = trial % 3 == 0 ? strides[0][d] : rng() % 4 * 3;
    }
    const std::array<const int64_t*, 3> ptrs = {
        strides[0].data(), strides[1].data(), strides[2].data()};
    const StridedLayout<3> layout(shape, ptrs);
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    ASSERT_EQ(layout.numel(), numel);
    for (int range = 0; range < 6; ++range) {
      int64_t begin = numel == 0 ? 0 : rng() % (numel + 1);
      int64_t end = numel == 0 ? 0 : rng() % (numel + 1);
      if (range == 0) begin = 0, end = numel;
      if (begin > end) std::swap(begin, end);
      EXPECT_EQ(RunWalk(layout, begin, end),
                NaiveWalk(shape, strides, begin, end))
          << "trial " << trial << " rank " << rank << " range [" << begin
          << ", " << end << ")";
    }
  }
}

TEST(StridedLayoutTest, ParallelForEachRunVisitsEveryElementOnce) {
  const std::vector<int64_t> shape = {3, 1, 40000, 2};
  const std::vector<int64_t> transposed = {2, 0, 6, 1};  // dims 2, 3 swapped
  const std::vector<int64_t> dense = {80000, 80000, 2, 1};
  const StridedLayout<2> layout(shape, {dense.data(), transposed.data()});
  std::vector<std::atomic<int>> hits(240000);
  ParallelForEachRun(layout, 1000, [&](const auto& offsets, int64_t count,
                                       const auto& steps) {
    for (int64_t i = 0; i < count; ++i) ++hits[offsets[0] + i * steps[0]];
  });
  for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << i;
}

}  // namespace
}  // namespace sy::cpu
