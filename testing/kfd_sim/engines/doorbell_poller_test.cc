#include "testing/kfd_sim/engines/doorbell_poller.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/doorbell.h"

namespace hipmem::kfd_sim {
namespace {

// Stores as a raw client does: no wake, just the store (a release store is the plain `mov` the hardware sees).
void BareStore(uint64_t* word, uint64_t value) { std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_release); }

// An engine-like thread: sleeps on the doorbell until it reads something other than `idle`.
class Sleeper {
 public:
  Sleeper(uint64_t* word, uint64_t idle) : waiter_(word), thread_([this, idle] {
    uint64_t v = waiter_.Load();
    while (v == idle) {
      waiter_.Wait(v);
      v = waiter_.Load();
    }
    done_.store(true, std::memory_order_release);
  }) {}
  ~Sleeper() {
    waiter_.WakeUntil(done_);  // only does anything when a test already failed: the store was not noticed
    thread_.join();
  }

  // Waits (bounded, so a missed store fails the test instead of hanging it) until the thread saw the store.
  bool NoticedWithin(std::chrono::milliseconds bound) const {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (!done_.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return true;
  }

 private:
  DoorbellWaiter waiter_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

TEST(DoorbellPollerTest, BareStoreWakesASleepingWaiter) {
  uint64_t word = 0;
  Sleeper sleeper(&word, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // asleep in FUTEX_WAIT by now
  BareStore(&word, 64);
  EXPECT_TRUE(sleeper.NoticedWithin(std::chrono::seconds(1)));
}

TEST(DoorbellPollerTest, StoreThatMovesOnlyTheHighDwordIsNoticed) {
  // The futex compares the low dword only; a write pointer crossing 4 GiB on a ring of 4 GiB multiples would
  // leave it unchanged. The poller compares all 64 bits.
  uint64_t word = 0x40;
  Sleeper sleeper(&word, 0x40);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  BareStore(&word, (uint64_t{1} << 32) | 0x40);
  EXPECT_TRUE(sleeper.NoticedWithin(std::chrono::seconds(1)));
}

TEST(DoorbellPollerTest, ManyDoorbellsEachWakeTheirOwnSleeper) {
  constexpr int kQueues = 8;
  uint64_t words[kQueues] = {};
  std::vector<std::unique_ptr<Sleeper>> sleepers;
  for (uint64_t& w : words) sleepers.push_back(std::make_unique<Sleeper>(&w, 0));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  BareStore(&words[3], 1);
  ASSERT_TRUE(sleepers[3]->NoticedWithin(std::chrono::seconds(1)));
  EXPECT_FALSE(sleepers[2]->NoticedWithin(std::chrono::milliseconds(5))) << "an unchanged doorbell stays asleep";
  for (uint64_t& w : words) BareStore(&w, 1);
  for (int i = 0; i < kQueues; ++i) EXPECT_TRUE(sleepers[i]->NoticedWithin(std::chrono::seconds(1))) << i;
}

TEST(DoorbellPollerTest, UnregisteredWordIsNeverReadAgain) {
  // The doorbell page goes away right after its waiter (a destroyed queue, a closed process): a poller look at
  // the word after unregistering returned would touch an unmapped page and kill the test with SIGSEGV.
  const long page = sysconf(_SC_PAGESIZE);
  for (int i = 0; i < 200; ++i) {
    void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    auto* word = static_cast<uint64_t*>(p);
    {
      DoorbellWatch watch(word);
      watch.Arm(0);  // armed and unchanged: the poller reads the word on every look
      std::this_thread::sleep_for(std::chrono::microseconds(i * 5 % 700));
    }
    ASSERT_EQ(munmap(p, page), 0);
  }
}

TEST(DoorbellPollerTest, StillDoorbellsSlowThePollerAndAStoreStillWakesAndWarmsIt) {
  uint64_t word = 0;
  Sleeper sleeper(&word, 0);
  EXPECT_EQ(GetDoorbellPollerStats().period, kDoorbellPollPeriod) << "a new queue is polled at the warm period";
  std::this_thread::sleep_for(kDoorbellPollWarmFor + std::chrono::milliseconds(100));
  EXPECT_EQ(GetDoorbellPollerStats().period, kDoorbellIdlePollPeriod) << "still doorbells: the idle period";
  BareStore(&word, 8);
  EXPECT_TRUE(sleeper.NoticedWithin(std::chrono::seconds(1)));
  EXPECT_EQ(GetDoorbellPollerStats().period, kDoorbellPollPeriod) << "a moved doorbell warms the poller";
}

TEST(DoorbellPollerTest, NewDoorbellWarmsAnIdlePoller) {
  uint64_t old_word = 0;
  DoorbellWatch old_watch(&old_word);
  std::this_thread::sleep_for(kDoorbellPollWarmFor + std::chrono::milliseconds(100));
  ASSERT_EQ(GetDoorbellPollerStats().period, kDoorbellIdlePollPeriod);
  uint64_t word = 0;
  Sleeper sleeper(&word, 0);  // a client creates a queue and rings it at once
  BareStore(&word, 8);
  EXPECT_TRUE(sleeper.NoticedWithin(std::chrono::seconds(1)));
  EXPECT_EQ(GetDoorbellPollerStats().period, kDoorbellPollPeriod);
}

TEST(DoorbellPollerTest, PollerLooksOnlyWhileADoorbellIsWatched) {
  // What keeps an idle process free: with no doorbell registered the poller has no timer.
  const auto settle = kDoorbellIdlePollPeriod * 2;
  {
    uint64_t word = 0;
    DoorbellWatch watch(&word);
    EXPECT_EQ(GetDoorbellPollerStats().watched, 1u);
    const uint64_t before = GetDoorbellPollerStats().looks;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_GT(GetDoorbellPollerStats().looks, before) << "a watched doorbell is looked at";
  }
  std::this_thread::sleep_for(settle);  // the look in flight when the last doorbell went
  const DoorbellPollerStats idle = GetDoorbellPollerStats();
  EXPECT_EQ(idle.watched, 0u);
  EXPECT_EQ(idle.period, std::chrono::microseconds(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(GetDoorbellPollerStats().looks, idle.looks) << "no doorbell, no timer";
}

}  // namespace
}  // namespace hipmem::kfd_sim
