#include "testing/kfd_sim/engines/doorbell.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <climits>

#include "absl/base/config.h"

#ifdef ABSL_HAVE_THREAD_SANITIZER
#include <sanitizer/tsan_interface.h>
#endif

namespace hipmem::kfd_sim {
namespace {

// ThreadSanitizer cannot see a futex, nor that two virtual mappings of one page are the same memory, so
// the doorbell publishes its happens-before edge on one process-wide token: everything the producer
// wrote before ringing is visible to the engine that read the ring. (ABSL_HAVE_THREAD_SANITIZER, not
// __has_feature: GCC 12 has no __has_feature, and only Abseil's macro also reads GCC's __SANITIZE_THREAD__.)
// A raw client rings with a bare (release) store through its own mapping of the doorbell page, which TSan
// records on the client's address; the engine reads the engine view. So the engine also acquires on every
// client alias of its word: a release store by the client then orders what it wrote before (the packets) before
// the engine's reads, as the hardware's doorbell does.
#ifdef ABSL_HAVE_THREAD_SANITIZER
char tsan_token;
void TsanRelease() { __tsan_release(&tsan_token); }
void TsanAcquire(const uint64_t* word) {
  __tsan_acquire(&tsan_token);
  // No lock held here: TSan performs an atomic store under that address's sync object, so a client blocked on a
  // write-protect fault mid-store holds it until the fault handler, which takes the poller's lock, runs.
  for (const void* alias : ClientAliases(word)) __tsan_acquire(const_cast<void*>(alias));
}
#else
void TsanRelease() {}
void TsanAcquire(const uint64_t*) {}
#endif

// The futex word is the low dword of the little-endian 64-bit doorbell.
uint32_t* LowDword(uint64_t* word) { return reinterpret_cast<uint32_t*>(word); }

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void FutexWake(uint64_t* word) { syscall(SYS_futex, LowDword(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0); }

}  // namespace

void RingDoorbell(uint64_t* word, uint64_t value) {
  TsanRelease();
  std::atomic_ref<uint64_t>(*word).store(value, std::memory_order_release);
  FutexWake(word);
}

void NotifyDoorbellStores(uint64_t* first, size_t count) {
  // No fence here (GCC refuses atomic_thread_fence under ThreadSanitizer): the engines' word stores are release
  // stores themselves, which the woken engine's acquire load pairs with.
  TsanRelease();
  for (size_t i = 0; i < count; ++i) FutexWake(first + i);
}

uint64_t DoorbellWaiter::Load() const {
  const uint64_t value = std::atomic_ref<uint64_t>(*word_).load(std::memory_order_acquire);
  TsanAcquire(word_);
  return value;
}

bool DoorbellWaiter::Watch(uint64_t seen) const {
  // Pauses between looks (cheap, and kind to a sibling hyperthread) and yields now and then, so that on a busy
  // host the producer this engine waits for gets the core.
  const auto until = std::chrono::steady_clock::now() + kDoorbellWatchFor;
  std::atomic_ref<uint64_t> word(*word_);
  while (true) {
    for (int i = 0; i < 64; ++i) {
      if (word.load(std::memory_order_relaxed) != seen) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();
  }
}

void DoorbellWaiter::Wait(uint64_t seen) const {
  if (Watch(seen)) return;
  // Armed before the futex call: a bare store landing in between makes FUTEX_WAIT return at once (the word
  // moved) or, if the low dword happens to match, is caught by the poller's next look.
  watch_.Arm(seen);
  // EAGAIN (the word moved on), EINTR and a wake all just return: the caller re-reads the word.
  syscall(SYS_futex, LowDword(word_), FUTEX_WAIT, static_cast<uint32_t>(seen), nullptr, nullptr, 0);
  watch_.Disarm();
}

void DoorbellWaiter::Wake() const { FutexWake(word_); }

void DoorbellWaiter::WakeUntil(const std::atomic<bool>& exited) const {
  while (!exited.load(std::memory_order_acquire)) {
    Wake();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace hipmem::kfd_sim
