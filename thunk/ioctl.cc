#include "thunk/ioctl.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/log_sink.h"

namespace hipmem::thunk {

using absl::Hex;
using absl::StrCat;

bool IoctlDebugEnabled() { return ProcessLogSettings().hsakmt_level >= LogSettings::kHsakmtDebug; }

std::string DescribeArgs(const kfd_uapi::GetVersionArgs& a) {
  return StrCat("major=", a.major_version, ", minor=", a.minor_version);
}
std::string DescribeArgs(const kfd_uapi::GetClockCountersArgs& a) {
  return StrCat("gpu_id=0x", Hex(a.gpu_id), ", gpu=", a.gpu_clock_counter, ", cpu=", a.cpu_clock_counter,
                ", system=", a.system_clock_counter, ", freq=", a.system_clock_freq);
}
std::string DescribeArgs(const kfd_uapi::CreateQueueArgs& a) {
  return StrCat("gpu_id=0x", Hex(a.gpu_id), ", type=", a.queue_type, ", ring=0x", Hex(a.ring_base_address),
                ", ring_size=", a.ring_size, ", rptr=0x", Hex(a.read_pointer_address), ", wptr=0x",
                Hex(a.write_pointer_address), ", percentage=", a.queue_percentage, ", priority=", a.queue_priority,
                ", sdma_engine_id=", a.sdma_engine_id, ", queue_id=", a.queue_id, ", doorbell_offset=0x",
                Hex(a.doorbell_offset));
}
std::string DescribeArgs(const kfd_uapi::DestroyQueueArgs& a) { return StrCat("queue_id=", a.queue_id); }
std::string DescribeArgs(const kfd_uapi::UpdateQueueArgs& a) {
  return StrCat("queue_id=", a.queue_id, ", ring=0x", Hex(a.ring_base_address), ", ring_size=", a.ring_size,
                ", percentage=", a.queue_percentage, ", priority=", a.queue_priority);
}
std::string DescribeArgs(const kfd_uapi::GetProcessAperturesNewArgs& a) {
  return StrCat("num_of_nodes=", a.num_of_nodes);
}
std::string DescribeArgs(const kfd_uapi::AcquireVmArgs& a) {
  return StrCat("drm_fd=", a.drm_fd, ", gpu_id=0x", Hex(a.gpu_id));
}
std::string DescribeArgs(const kfd_uapi::AllocMemoryOfGpuArgs& a) {
  return StrCat("va=0x", Hex(a.va_addr), ", size=", a.size, ", gpu_id=0x", Hex(a.gpu_id), ", flags=0x", Hex(a.flags),
                ", handle=0x", Hex(a.handle), ", mmap_offset=0x", Hex(a.mmap_offset));
}
std::string DescribeArgs(const kfd_uapi::FreeMemoryOfGpuArgs& a) { return StrCat("handle=0x", Hex(a.handle)); }
std::string DescribeArgs(const kfd_uapi::MapMemoryToGpuArgs& a) {
  return StrCat("handle=0x", Hex(a.handle), ", n_devices=", a.n_devices, ", n_success=", a.n_success);
}
std::string DescribeArgs(const kfd_uapi::UnmapMemoryFromGpuArgs& a) {
  return StrCat("handle=0x", Hex(a.handle), ", n_devices=", a.n_devices, ", n_success=", a.n_success);
}
std::string DescribeArgs(const kfd_uapi::GetAvailableMemoryArgs& a) {
  return StrCat("gpu_id=0x", Hex(a.gpu_id), ", available=", a.available);
}
std::string DescribeArgs(const kfd_uapi::CreateEventArgs& a) {
  return StrCat("type=", a.event_type, ", auto_reset=", a.auto_reset, ", node_id=", a.node_id,
                ", event_page_offset=0x", Hex(a.event_page_offset), ", event_id=0x", Hex(a.event_id),
                ", slot=", a.event_slot_index, ", trigger=0x", Hex(a.event_trigger_data));
}
std::string DescribeArgs(const kfd_uapi::DestroyEventArgs& a) { return StrCat("event_id=0x", Hex(a.event_id)); }
std::string DescribeArgs(const kfd_uapi::SetEventArgs& a) { return StrCat("event_id=0x", Hex(a.event_id)); }
std::string DescribeArgs(const kfd_uapi::ResetEventArgs& a) { return StrCat("event_id=0x", Hex(a.event_id)); }
std::string DescribeArgs(const kfd_uapi::WaitEventsArgs& a) {
  return StrCat("num_events=", a.num_events, ", wait_for_all=", a.wait_for_all, ", timeout=", a.timeout,
                ", wait_result=", a.wait_result);
}
std::string DescribeArgs(const kfd_uapi::SetMemoryPolicyArgs& a) {
  return StrCat("gpu_id=0x", Hex(a.gpu_id), ", default_policy=", a.default_policy, ", alternate_policy=",
                a.alternate_policy, ", alternate_aperture=0x", Hex(a.alternate_aperture_base), "+0x",
                Hex(a.alternate_aperture_size));
}
std::string DescribeArgs(const kfd_uapi::GetTileConfigArgs& a) {
  return StrCat("gpu_id=0x", Hex(a.gpu_id), ", num_tile_configs=", a.num_tile_configs,
                ", num_macro_tile_configs=", a.num_macro_tile_configs, ", gb_addr_config=0x", Hex(a.gb_addr_config));
}
std::string DescribeArgs(const kfd_uapi::SetScratchBackingVaArgs& a) {
  return StrCat("gpu_id=0x", Hex(a.gpu_id), ", va_addr=0x", Hex(a.va_addr));
}
std::string DescribeArgs(const kfd_uapi::SetTrapHandlerArgs& a) {
  return StrCat("gpu_id=0x", Hex(a.gpu_id), ", tba_addr=0x", Hex(a.tba_addr), ", tma_addr=0x", Hex(a.tma_addr));
}
std::string DescribeArgs(const kfd_uapi::SetCuMaskArgs& a) {
  return StrCat("queue_id=", a.queue_id, ", num_cu_mask=", a.num_cu_mask);
}
std::string DescribeArgs(const kfd_uapi::AllocQueueGwsArgs& a) {
  return StrCat("queue_id=", a.queue_id, ", num_gws=", a.num_gws, ", first_gws=", a.first_gws);
}
std::string DescribeArgs(const kfd_uapi::SetXnackModeArgs& a) { return StrCat("xnack_enabled=", a.xnack_enabled); }
std::string DescribeArgs(const kfd_uapi::RuntimeEnableArgs& a) {
  return StrCat("r_debug=0x", Hex(a.r_debug), ", mode_mask=0x", Hex(a.mode_mask), ", capabilities_mask=0x",
                Hex(a.capabilities_mask));
}
std::string DescribeArgs(const kfd_uapi::GetDmabufInfoArgs& a) {
  return StrCat("dmabuf_fd=", a.dmabuf_fd, ", metadata_size=", a.metadata_size);
}
std::string DescribeArgs(const kfd_uapi::ImportDmabufArgs& a) {
  return StrCat("va_addr=0x", Hex(a.va_addr), ", gpu_id=0x", Hex(a.gpu_id), ", dmabuf_fd=", a.dmabuf_fd);
}
std::string DescribeArgs(const kfd_uapi::ExportDmabufArgs& a) {
  return StrCat("handle=0x", Hex(a.handle), ", flags=0x", Hex(a.flags));
}
// The share handle is a secret: traces name only its last word (the exporter's pid in the simulator).
std::string DescribeArgs(const kfd_uapi::IpcExportHandleArgs& a) {
  return StrCat("handle=0x", Hex(a.handle), ", gpu_id=0x", Hex(a.gpu_id), ", flags=0x", Hex(a.flags),
                ", share_handle=...", Hex(a.share_handle[3]));
}
std::string DescribeArgs(const kfd_uapi::IpcImportHandleArgs& a) {
  return StrCat("share_handle=...", Hex(a.share_handle[3]), ", va_addr=0x", Hex(a.va_addr), ", gpu_id=0x",
                Hex(a.gpu_id), ", handle=0x", Hex(a.handle), ", mmap_offset=0x", Hex(a.mmap_offset), ", flags=0x",
                Hex(a.flags));
}

}  // namespace hipmem::thunk
