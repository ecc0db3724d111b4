#include "thunk/clock.h"

#include "base/status_macros.h"
#include "hsakmt/hsakmttypes.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"

namespace hipmem::thunk {

absl::StatusOr<ClockCounters> GetClockCounters(Kfd& kfd, NodeId node) {
  ASSIGN_OR_RETURN(const NodeProperties* properties, kfd.Node(node));
  kfd_uapi::GetClockCountersArgs args{};
  // validate_nodeid's gpu_id: 0 for a CPU node, which the kernel answers without a GPU counter.
  args.gpu_id = properties->gpu_id ? properties->gpu_id->raw() : 0;
  RETURN_IF_ERROR(WithHsakmtStatus(Ioctl(kfd.device(), kfd_uapi::kGetClockCounters, args), HSAKMT_STATUS_ERROR));
  return ClockCounters{
      .gpu_clock_counter = args.gpu_clock_counter,
      .cpu_clock_counter = args.cpu_clock_counter,
      .system_clock_counter = args.system_clock_counter,
      .system_clock_frequency_hz = args.system_clock_freq,
  };
}

}  // namespace hipmem::thunk
