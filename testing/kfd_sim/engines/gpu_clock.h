// A simulated GPU's free-running clock counter: the counter amdgpu's get_gpu_clock_counter reads (the RLC's
// GPU_CLOCK_COUNT / REFCLK timestamp), which AMDKFD_IOC_GET_CLOCK_COUNTERS reports as gpu_clock_counter and an
// SDMA GET_GLOBAL_TIMESTAMP packet writes.
//
// The counter is a pure function of CLOCK_MONOTONIC_RAW (the kernel's ktime_get_raw_ns, what GET_CLOCK_COUNTERS
// reports as cpu_clock_counter): ticks = raw ns x frequency / 1e9, as if the GPU had started counting when the
// machine booted. So one value per GPU is all the state it needs, every engine and the ioctl read the same
// clock without sharing anything, and a counter read between two CPU readings lies between their conversions.
// Thread-safe (immutable).
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GPU_CLOCK_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GPU_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace hipmem::kfd_sim {

// Returns CLOCK_MONOTONIC_RAW in nanoseconds (ktime_get_raw_ns).
inline uint64_t MonotonicRawNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Returns CLOCK_BOOTTIME in nanoseconds (ktime_get_boottime_ns).
inline uint64_t BoottimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

class GpuClock {
 public:
  // The SOC15 reference clock of gfx94x, gfx10 and gfx11 parts.
  static constexpr uint64_t kDefaultFrequencyHz = 100'000'000;

  // `frequency_hz` must be non-zero (Simulator::Create refuses a topology with a zero one).
  explicit constexpr GpuClock(uint64_t frequency_hz) : frequency_hz_(frequency_hz) {}

  constexpr uint64_t frequency_hz() const { return frequency_hz_; }

  // Returns the counter at CLOCK_MONOTONIC_RAW time `raw_ns`.
  constexpr uint64_t At(uint64_t raw_ns) const {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(raw_ns) * frequency_hz_ / 1'000'000'000u);
  }

  // Returns the counter now.
  uint64_t Now() const { return At(MonotonicRawNs()); }

 private:
  uint64_t frequency_hz_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GPU_CLOCK_H_
