#include "tools/bench/baselines.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
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
