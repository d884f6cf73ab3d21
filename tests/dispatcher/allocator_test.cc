// The caching allocator over a fake device: reuse, size classes, stats,
// out-of-memory recovery by emptying the cache.
#include "dispatcher/memory/caching_allocator.h"

#include "gtest/gtest.h"
#include "tests/dispatcher/fake_device.h"

namespace sy::core {
namespace {

TEST(CachingAllocatorTest, RoundsSizes) {
  EXPECT_EQ(CachingAllocator::RoundSize(0), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(1), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::RoundSize((1 << 20) + 1), 2u << 20);
}

TEST(CachingAllocatorTest, ReusesFreedBlocks) {
  FakeDevice device;
  {
    CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
    MemoryBlock a = alloc.Allocate(1000).value();
    alloc.Free(a);
    MemoryBlock b = alloc.Allocate(900).value();
    EXPECT_EQ(a.ptr, b.ptr);  // same size class, reused
    AllocatorStats s = alloc.stats();
    EXPECT_EQ(s.cache_hits, 1u);
    EXPECT_EQ(s.device_allocations, 1u);
    EXPECT_EQ(s.allocated_bytes, 1024u);
    // A much smaller request does not take a block over twice its size.
    MemoryBlock c = alloc.Allocate(100).value();
    EXPECT_NE(c.ptr, b.ptr);
    alloc.Free(b);
    alloc.Free(c);
    EXPECT_EQ(alloc.stats().allocated_bytes, 0u);
    EXPECT_EQ(alloc.stats().reserved_bytes, 1536u);
    ASSERT_TRUE(alloc.EmptyCache().ok());
    EXPECT_EQ(alloc.stats().reserved_bytes, 0u);
    EXPECT_TRUE(device.live.empty());
  }
}

TEST(CachingAllocatorTest, EmptiesCacheAndRetriesWhenOutOfMemory) {
  FakeDevice device;
  device.capacity = 9 << 20;
  CachingAllocator alloc("fake:0", device.Allocate(), device.Free());
  MemoryBlock big = alloc.Allocate(7 << 20).value();  // an 8 MiB block
  alloc.Free(big);  // cached, still holding 8 MiB of the device
  // A 2 MiB block: the cached one is over twice as large, and the device
  // has no room beside it, so the cache is emptied and the request retried.
  MemoryBlock other = alloc.Allocate(3 << 19).value();
  EXPECT_EQ(alloc.stats().device_frees, 1u);
  EXPECT_EQ(alloc.stats().reserved_bytes, 2u << 20);
  alloc.Free(other);
  absl::StatusOr<MemoryBlock> too_big = alloc.Allocate(100 << 20);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(too_big.status().message(),
            "allocating 104857600 bytes on fake:0 failed: device full");
}

}  // namespace
}  // namespace sy::core
