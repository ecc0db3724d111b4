// hsaKmt* C entry point for the clock counters: a thin shell over thunk/clock.h on the shared thunk::Kfd.
#include "absl/status/statusor.h"
#include "hsakmt/hsakmt.h"
#include "thunk/clock.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCounters(HSAuint32 NodeId, HsaClockCounters* Counters) {
  absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
  if (!kfd.ok()) return hipmem::thunk::ToHsakmtStatus(kfd.status());
  if (Counters == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  absl::StatusOr<hipmem::thunk::ClockCounters> counters =
      hipmem::thunk::GetClockCounters(**kfd, hipmem::thunk::NodeId(NodeId));
  if (!counters.ok()) return hipmem::thunk::ToHsakmtStatus(counters.status());
  Counters->GPUClockCounter = counters->gpu_clock_counter;
  Counters->CPUClockCounter = counters->cpu_clock_counter;
  Counters->SystemClockCounter = counters->system_clock_counter;
  Counters->SystemClockFrequencyHz = counters->system_clock_frequency_hz;
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
