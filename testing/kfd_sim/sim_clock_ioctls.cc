// The simulated kernel's clock ioctl (kfd_chardev.c kfd_ioctl_get_clock_counters): the GPU's clock counter read
// next to the CPU's raw monotonic and boot-time clocks, which is how user space relates GPU timestamps (an SDMA
// GET_GLOBAL_TIMESTAMP, a profiled dispatch) to CPU time.
#include <cstdint>
#include <optional>

#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/engines/gpu_clock.h"
#include "testing/kfd_sim/sim_internal.h"

namespace hipmem::kfd_sim::sim_internal {

int GetClockCounters(IoctlContext& c, uapi::GetClockCountersArgs& args) {
  // The kernel looks the gpu_id up among the process's devices and answers 0 for one it does not find ("Node
  // without GPU resource") rather than failing: libhsakmt passes gpu_id 0 for a CPU node.
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  args.gpu_clock_counter = gpu ? GpuClock(c.topology.gpus[*gpu].gpu_clock_counter_hz).Now() : 0;
  // Read after the GPU counter, as the kernel does: cpu_clock_counter's conversion bounds it from above.
  args.cpu_clock_counter = MonotonicRawNs();
  args.system_clock_counter = BoottimeNs();
  args.system_clock_freq = 1'000'000'000;  // both CPU counters are in nanoseconds
  return 0;
}

}  // namespace hipmem::kfd_sim::sim_internal
