// The simulated kernel's event ioctls (kfd_chardev.c's create/destroy/set/reset/wait_events over kfd_events.c,
// which events.cc plays).
#include <cerrno>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_internal.h"

namespace hipmem::kfd_sim::sim_internal {
namespace {

// kfd_kmap_event_page: adopts the buffer `event_page_offset` names (a BO handle) as the signal page.
int KmapEventPage(IoctlContext& c, uint64_t event_page_offset) {
  if (c.events.HasSignalPage()) return -EINVAL;  // "Event page is already set"
  const std::optional<size_t> gpu = FindGpu(c.topology, uapi::HandleGpuId(event_page_offset));
  if (!gpu) return -EINVAL;
  if (!c.process.devices[*gpu].vm_token) return -ENODEV;  // kfd_bind_process_to_device
  const auto it = c.process.bos.find(event_page_offset);
  if (it == c.process.bos.end()) return -EINVAL;  // "Can't find BO"
  const Bo& bo = it->second;
  // amdgpu_amdkfd_gpuvm_map_gtt_bo_to_kernel: user pages cannot be kmapped. (A VRAM buffer would be
  // pinned into GTT first; its backing store maps the same way here.)
  if (bo.domain == Domain::kUserptr) return -EINVAL;
  const absl::StatusOr<BoPages::FileRange> file = bo.pages->File();
  if (!file.ok()) return -ENOMEM;
  absl::StatusOr<SignalPage> page = SignalPage::MapBuffer(file->fd, *AlignUp(bo.size, kPageSize), file->offset);
  if (!page.ok()) return -ENOMEM;
  return c.events.SetSignalPage(*std::move(page), event_page_offset);
}

}  // namespace

int CreateEvent(IoctlContext& c, uapi::CreateEventArgs& args) {
  // dGPUs: user space allocated the event page and passes its handle with the first event.
  if (args.event_page_offset != 0) {
    if (const int err = KmapEventPage(c, args.event_page_offset); err != 0) return err;
  }
  return c.events.Create(args);
}

int DestroyEvent(IoctlContext& c, uapi::DestroyEventArgs& args) { return c.events.Destroy(args.event_id); }
int SetEvent(IoctlContext& c, uapi::SetEventArgs& args) { return c.events.Set(args.event_id); }
int ResetEvent(IoctlContext& c, uapi::ResetEventArgs& args) { return c.events.Reset(args.event_id); }

int WaitEvents(EventTable& events, uapi::WaitEventsArgs& args) { return events.Wait(args); }

}  // namespace hipmem::kfd_sim::sim_internal
