#include "base/bench/baselines.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace hipmem::bench {
namespace {

void FutexWait(std::atomic<int32_t>& word, int32_t unwanted) {
  while (word.load(std::memory_order_acquire) == unwanted) {
    syscall(SYS_futex, reinterpret_cast<int32_t*>(&word), FUTEX_WAIT_PRIVATE, unwanted, nullptr, nullptr, 0);
  }
}

void FutexStore(std::atomic<int32_t>& word, int32_t value) {
  word.store(value, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<int32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace

void BM_Memcpy(benchmark::State& state) {
  const auto size = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> src(size, 1), dst(size, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), size);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_MemcpyAllCores(benchmark::State& state) {
  const auto size = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> src(size, 1), dst(size, 0);
  const size_t threads = std::max(1u, std::thread::hardware_concurrency());
  // Slices of whole cache lines, so no two threads write one line.
  const size_t slice = (size / threads + 63) & ~size_t{63};
  auto copy_slice = [&](size_t t) {
    const size_t begin = std::min(size, t * slice);
    const size_t end = t + 1 == threads ? size : std::min(size, begin + slice);
    std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
  };
  std::mutex mu;
  std::condition_variable start_cv, done_cv;
  uint64_t round = 0;  // guarded by mu; -1 stops the helpers
  size_t running = 0;  // guarded by mu: helpers still copying this round
  std::vector<std::thread> helpers;
  for (size_t t = 0; t + 1 < threads; ++t) {
    helpers.emplace_back([&, t] {
      uint64_t seen = 0;
      std::unique_lock<std::mutex> lock(mu);
      while (true) {
        start_cv.wait(lock, [&] { return round != seen; });
        if (round == ~uint64_t{0}) return;
        seen = round;
        lock.unlock();
        copy_slice(t);
        lock.lock();
        if (--running == 0) done_cv.notify_one();
      }
    });
  }
  for (auto _ : state) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ++round;
      running = threads - 1;
    }
    start_cv.notify_all();
    copy_slice(threads - 1);
    std::unique_lock<std::mutex> lock(mu);
    done_cv.wait(lock, [&] { return running == 0; });
    benchmark::ClobberMemory();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    round = ~uint64_t{0};
  }
  start_cv.notify_all();
  for (std::thread& t : helpers) t.join();
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_FutexRoundTrip(benchmark::State& state) {
  std::atomic<int32_t> ping{0}, pong{0};
  std::thread partner([&] {
    int32_t seen = 0;
    while (true) {
      FutexWait(ping, seen);
      seen = ping.load(std::memory_order_acquire);
      if (seen < 0) return;
      FutexStore(pong, seen);
    }
  });
  int32_t round = 0;
  for (auto _ : state) {
    ++round;
    FutexStore(ping, round);
    FutexWait(pong, round - 1);
  }
  FutexStore(ping, -1);
  partner.join();
}

}  // namespace hipmem::bench
