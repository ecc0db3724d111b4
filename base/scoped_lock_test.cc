#include "base/scoped_lock.h"

#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace hipmem {
namespace {

struct Counter {
  absl::Mutex mu;
  int value ABSL_GUARDED_BY(mu) = 0;
};

// Under --config=tsan this is the check that matters: no race is reported on `value`.
TEST(ScopedLockTest, SerializesWritersAndReaders) {
  Counter counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < 1000; ++i) {
        {
          ScopedLock lock(&counter.mu);
          ++counter.value;
        }
        ScopedReaderLock lock(&counter.mu);
        EXPECT_GT(counter.value, 0);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ScopedLock lock(&counter.mu);
  EXPECT_EQ(counter.value, 4000);
}

}  // namespace
}  // namespace hipmem
