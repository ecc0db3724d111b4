// The GPU and CPU clock counters read together: plays libhsakmt's time.c (hsaKmtGetClockCounters) over
// AMDKFD_IOC_GET_CLOCK_COUNTERS. ROCr relates GPU timestamps (SDMA and dispatch profiling) to CPU time with
// it; kfdtest reads it around SDMA timestamp packets.
#ifndef HIPMEM_THUNK_CLOCK_H_
#define HIPMEM_THUNK_CLOCK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "thunk/kfd.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// One reading, as the kernel took it: the GPU counter first, then the two CPU clocks.
struct ClockCounters {
  uint64_t gpu_clock_counter;          // the GPU's clock counter, in its own ticks; 0 on a CPU node
  uint64_t cpu_clock_counter;          // CLOCK_MONOTONIC_RAW, in ticks of system_clock_frequency_hz
  uint64_t system_clock_counter;       // CLOCK_BOOTTIME, same unit
  uint64_t system_clock_frequency_hz;  // the kernel's 1e9: both CPU counters are nanoseconds
};

// Reads `node`'s clock counters. As upstream, the CPU counters are the kernel's (not re-read here), and a CPU
// node is asked with gpu_id 0, for which the kernel reports a GPU counter of 0.
// Errors: kInvalidArgument (INVALID_NODE_UNIT) for an unknown node; HSAKMT_STATUS_ERROR with the kernel's
// errno when the ioctl fails.
absl::StatusOr<ClockCounters> GetClockCounters(Kfd& kfd, NodeId node);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_CLOCK_H_
