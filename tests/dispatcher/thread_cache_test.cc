// The caching allocator's per-thread caches (Note [Thread block caches] in
// dispatcher/memory/caching_allocator.cc): reuse across threads, return at
// thread exit, flush and empty reaching other threads' caches, the bounds,
// exact stats, an allocator that dies before a thread that cached for it,
// and a concurrent mix (run under TSan in CI).
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "dispatcher/memory/caching_allocator.h"
#include "tests/dispatcher/fake_device.h"
#include "gtest/gtest.h"

namespace sy::core {
namespace {

// Runs `body` on a thread that then waits for `release` before exiting.
class Parked {
 public:
  template <typename Body>
  explicit Parked(Body body) {
    thread_ = std::thread([this, body] {
      body();
      ready_.set_value();
      release_.get_future().wait();
    });
    ready_.get_future().wait();
  }
  void Exit() {
    release_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> ready_, release_;
  std::thread thread_;
};

TEST(ThreadCacheTest, ABlockFreedOnAThreadServesItsNextRequest) {
  FakeDevice device;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  MemoryBlock a = alloc.Allocate(1000).value();  // 1024 bytes, from the device
  std::thread([&] {
    alloc.Free(a);  // freed on another thread than it was allocated on
    AllocatorStats s = alloc.stats();
    EXPECT_EQ(s.allocated_bytes, 0u);
    EXPECT_EQ(s.thread_cached_bytes, 1024u);
    EXPECT_EQ(s.reserved_bytes, 1024u);
    MemoryBlock b = alloc.Allocate(900).value();  // the same size class
    EXPECT_EQ(b.ptr, a.ptr);
    EXPECT_EQ(b.size, 1024u);
    s = alloc.stats();
    EXPECT_EQ(s.allocated_bytes, 1024u);
    EXPECT_EQ(s.thread_cached_bytes, 0u);
    EXPECT_EQ(s.cache_hits, 1u);
    EXPECT_EQ(s.num_allocations, 2u);
    EXPECT_EQ(s.device_allocations, 1u);
    alloc.Free(b);
  }).join();
  // The thread's exit put the block in the shared cache: any thread takes it.
  AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.thread_cached_bytes, 0u);
  EXPECT_EQ(s.num_allocations, 2u);  // the thread's counts stay
  EXPECT_EQ(s.cache_hits, 1u);
  MemoryBlock c = alloc.Allocate(1024).value();
  EXPECT_EQ(c.ptr, a.ptr);
  EXPECT_EQ(alloc.stats().device_allocations, 1u);
  EXPECT_EQ(alloc.stats().peak_allocated_bytes, 1024u);
  alloc.Free(c);
}

TEST(ThreadCacheTest, ThreadExitReturnsItsBlocks) {
  FakeDevice device;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  std::set<void*> freed;
  Parked parked([&] {
    MemoryBlock blocks[3];
    for (MemoryBlock& b : blocks) b = alloc.Allocate(512).value();
    for (MemoryBlock& b : blocks) {
      freed.insert(b.ptr);
      alloc.Free(b);
    }
  });
  EXPECT_EQ(alloc.stats().thread_cached_bytes, 1536u);
  // Another thread cannot reach them while they sit in the parked thread's
  // cache: its request goes to the device.
  MemoryBlock other = alloc.Allocate(512).value();
  EXPECT_EQ(freed.count(other.ptr), 0u);
  alloc.Free(other);
  parked.Exit();
  AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.thread_cached_bytes, 512u);  // this thread's `other`
  EXPECT_EQ(s.reserved_bytes, 2048u);
  EXPECT_EQ(s.allocated_bytes, 0u);
  // Now in the shared cache: served without the device.
  alloc.FlushThreadCaches();
  std::set<void*> reused;
  for (int i = 0; i < 4; ++i) reused.insert(alloc.Allocate(512).value().ptr);
  EXPECT_EQ(alloc.stats().device_allocations, 4u);
  for (void* p : freed) EXPECT_EQ(reused.count(p), 1u);
  for (void* p : reused) alloc.Free(MemoryBlock{p, 512});
}

TEST(ThreadCacheTest, FlushAndEmptyReachALiveThreadsCache) {
  FakeDevice device;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  void* cached = nullptr;
  Parked parked([&] {
    MemoryBlock b = alloc.Allocate(4096).value();
    cached = b.ptr;
    alloc.Free(b);
  });
  EXPECT_EQ(alloc.stats().thread_cached_bytes, 4096u);
  alloc.FlushThreadCaches();  // to the shared cache: this thread may take it
  EXPECT_EQ(alloc.stats().thread_cached_bytes, 0u);
  MemoryBlock mine = alloc.Allocate(4096).value();
  EXPECT_EQ(mine.ptr, cached);
  alloc.Free(mine);  // into this thread's cache
  ASSERT_TRUE(alloc.EmptyCache().ok());
  AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.thread_cached_bytes, 0u);
  EXPECT_EQ(s.device_frees, 1u);
  EXPECT_EQ(device.live_blocks(), 0u);
  parked.Exit();
  EXPECT_EQ(alloc.stats().reserved_bytes, 0u);
}

// As the shared cache, a thread's serves a request with a block at most
// twice its size, and no larger.
TEST(ThreadCacheTest, ServesABlockUpToTwiceTheRequest) {
  FakeDevice device;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  MemoryBlock a = alloc.Allocate(2048).value();
  alloc.Free(a);
  MemoryBlock small = alloc.Allocate(512).value();  // 2048 > 2 × 512: not taken
  EXPECT_NE(small.ptr, a.ptr);
  MemoryBlock b = alloc.Allocate(1024).value();  // 2048 = 2 × 1024: taken
  EXPECT_EQ(b.ptr, a.ptr);
  EXPECT_EQ(b.size, 2048u);
  AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes, 2048u + 512u);
  EXPECT_EQ(s.cache_hits, 1u);
  EXPECT_EQ(s.device_allocations, 2u);
  alloc.Free(b);
  alloc.Free(small);
}

TEST(ThreadCacheTest, KeepsOnlySmallBlocksWithinItsBounds) {
  FakeDevice device;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  // Depth: one size class keeps kThreadCacheDepth blocks; the next goes to
  // the shared cache.
  std::vector<MemoryBlock> same;
  for (int i = 0; i <= CachingAllocator::kThreadCacheDepth; ++i) {
    same.push_back(alloc.Allocate(512).value());
  }
  for (MemoryBlock& b : same) alloc.Free(b);
  EXPECT_EQ(alloc.stats().thread_cached_bytes,
            512u * CachingAllocator::kThreadCacheDepth);
  // A block above kThreadCacheMaxBlock is never kept by a thread.
  MemoryBlock big = alloc.Allocate(CachingAllocator::kThreadCacheMaxBlock + 1).value();
  alloc.Free(big);
  EXPECT_EQ(alloc.stats().thread_cached_bytes,
            512u * CachingAllocator::kThreadCacheDepth);
  // Bytes: many largest-class blocks fill the cache to its byte bound.
  std::vector<MemoryBlock> large;
  for (size_t size = CachingAllocator::kThreadCacheMaxBlock; size >= (size_t{32} << 10);
       size -= 512) {
    for (int i = 0; i < CachingAllocator::kThreadCacheDepth; ++i) {
      large.push_back(alloc.Allocate(size).value());
    }
  }
  for (MemoryBlock& b : large) alloc.Free(b);
  AllocatorStats s = alloc.stats();
  EXPECT_LE(s.thread_cached_bytes, CachingAllocator::kThreadCacheMaxBytes);
  EXPECT_GT(s.thread_cached_bytes, CachingAllocator::kThreadCacheMaxBytes -
                                       CachingAllocator::kThreadCacheMaxBlock);
  EXPECT_EQ(s.allocated_bytes, 0u);
  ASSERT_TRUE(alloc.EmptyCache().ok());
  EXPECT_EQ(alloc.stats().reserved_bytes, 0u);
  EXPECT_EQ(device.live_blocks(), 0u);
}

TEST(ThreadCacheTest, OutOfMemoryDrainsTheThreadCachesAndRetries) {
  FakeDevice device;
  device.capacity = 2048;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  Parked parked([&] {  // another thread's cache holds half the device
    MemoryBlock a = alloc.Allocate(512).value();
    MemoryBlock b = alloc.Allocate(512).value();
    alloc.Free(a);
    alloc.Free(b);
  });
  MemoryBlock mine[2] = {alloc.Allocate(512).value(), alloc.Allocate(512).value()};
  for (MemoryBlock& b : mine) alloc.Free(b);  // this thread's: the other half
  EXPECT_EQ(alloc.stats().thread_cached_bytes, 2048u);
  MemoryBlock whole = alloc.Allocate(2048).value();  // fits only if all go back
  AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.device_frees, 4u);
  EXPECT_EQ(s.reserved_bytes, 2048u);
  EXPECT_EQ(s.thread_cached_bytes, 0u);
  alloc.Free(whole);
  parked.Exit();
}

TEST(ThreadCacheTest, AnAllocatorMayDieBeforeAThreadThatCachedForIt) {
  FakeDevice device;
  std::promise<void> cached, destroyed;
  std::promise<void*> reused;
  auto first = std::make_unique<CachingAllocator>("fake:0", device.Allocate(), device.Free());
  std::thread thread([&] {
    first->Free(first->Allocate(512).value());
    cached.set_value();
    destroyed.get_future().wait();
    // A new allocator (perhaps at the dead one's address) starts afresh.
    CachingAllocator second("fake:1", device.Allocate(), device.Free());
    MemoryBlock b = second.Allocate(512).value();
    reused.set_value(b.ptr);
    EXPECT_EQ(second.stats().device_allocations, 1u);
    EXPECT_EQ(second.stats().cache_hits, 0u);
    second.Free(b);
  });
  cached.get_future().wait();
  EXPECT_EQ(first->stats().thread_cached_bytes, 512u);
  first.reset();  // takes the block back from the thread's cache
  EXPECT_EQ(device.live_blocks(), 0u);
  destroyed.set_value();
  reused.get_future().wait();
  thread.join();  // the thread's exit finds both allocators gone
  EXPECT_EQ(device.live_blocks(), 0u);
}

// Threads allocate, hand blocks to each other and free them, while another
// empties, flushes and reads stats; afterwards every byte is accounted.
TEST(ThreadCacheTest, ConcurrentUseKeepsTheStatsExact) {
  FakeDevice device;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  constexpr int kThreads = 4, kSteps = 2000;
  std::mutex mu;
  std::vector<MemoryBlock> handed;  // blocks passed between threads
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 gen(t);
      std::vector<MemoryBlock> mine;
      for (int i = 0; i < kSteps; ++i) {
        const size_t size = 512 * (1 + gen() % 8);
        mine.push_back(alloc.Allocate(size).value());
        if (gen() % 2 == 0) {
          std::lock_guard<std::mutex> lock(mu);
          handed.push_back(mine.back());
          mine.pop_back();
        }
        if (gen() % 3 == 0 && !mine.empty()) {
          alloc.Free(mine.back());
          mine.pop_back();
        }
        std::lock_guard<std::mutex> lock(mu);
        if (!handed.empty() && gen() % 2 == 0) {
          alloc.Free(handed.back());
          handed.pop_back();
        }
      }
      for (MemoryBlock& b : mine) alloc.Free(b);
    });
  }
  std::thread janitor([&] {
    while (!done.load()) {
      AllocatorStats s = alloc.stats();
      EXPECT_LE(s.allocated_bytes, s.reserved_bytes);
      alloc.FlushThreadCaches();
      ASSERT_TRUE(alloc.EmptyCache().ok());
      std::this_thread::yield();
    }
  });
  for (std::thread& t : threads) t.join();
  done.store(true);
  janitor.join();
  for (MemoryBlock& b : handed) alloc.Free(b);
  AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.num_allocations, uint64_t{kThreads} * kSteps);
  EXPECT_EQ(s.num_allocations, s.cache_hits + s.device_allocations);
  ASSERT_TRUE(alloc.EmptyCache().ok());
  s = alloc.stats();
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.device_allocations, s.device_frees);
  EXPECT_EQ(device.live_blocks(), 0u);
}

}  // namespace
}  // namespace sy::core
