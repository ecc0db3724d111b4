#include "base/light_mutex.h"

#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "gtest/gtest.h"

namespace hipmem {
namespace {

struct Counter {
  LightMutex mu;
  long value ABSL_GUARDED_BY(mu) = 0;
};

// Increments from several threads are not lost: the lock excludes.
TEST(LightMutexTest, SerialisesWriters) {
  Counter counter;
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < kRounds; ++i) {
        LightLock lock(&counter.mu);
        ++counter.value;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  LightLock lock(&counter.mu);
  EXPECT_EQ(counter.value, long{kThreads} * kRounds);
}

// The guard lets go when it leaves scope: the same thread can take the lock again.
TEST(LightMutexTest, GuardReleasesOnScopeExit) {
  Counter counter;
  {
    LightLock lock(&counter.mu);
    counter.value = 1;
  }
  LightLock again(&counter.mu);
  EXPECT_EQ(counter.value, 1);
}

}  // namespace
}  // namespace hipmem
