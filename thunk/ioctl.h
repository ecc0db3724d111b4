// The typed KFD ioctl call: the only way the thunk issues a request.
//
// The descriptor fixes the argument struct at compile time; the errno becomes a Status whose
// message starts with the request's name. With a trace sink installed, each call is a `kfd` slice named
// AMDKFD_IOC_* (decoded arguments, result and answer) and a line under Layer::kKfd.
#ifndef HIPMEM_THUNK_IOCTL_H_
#define HIPMEM_THUNK_IOCTL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/errno_status.h"
#include "thunk/kfd_device.h"

namespace hipmem::thunk {

// Decodes an argument struct for traces, e.g. "handle=0x1e6a00000001, n_devices=1".
std::string DescribeArgs(const kfd_uapi::GetVersionArgs& a);
std::string DescribeArgs(const kfd_uapi::GetClockCountersArgs& a);
std::string DescribeArgs(const kfd_uapi::CreateQueueArgs& a);
std::string DescribeArgs(const kfd_uapi::DestroyQueueArgs& a);
std::string DescribeArgs(const kfd_uapi::UpdateQueueArgs& a);
std::string DescribeArgs(const kfd_uapi::GetProcessAperturesNewArgs& a);
std::string DescribeArgs(const kfd_uapi::AcquireVmArgs& a);
std::string DescribeArgs(const kfd_uapi::AllocMemoryOfGpuArgs& a);
std::string DescribeArgs(const kfd_uapi::FreeMemoryOfGpuArgs& a);
std::string DescribeArgs(const kfd_uapi::MapMemoryToGpuArgs& a);
std::string DescribeArgs(const kfd_uapi::UnmapMemoryFromGpuArgs& a);
std::string DescribeArgs(const kfd_uapi::GetAvailableMemoryArgs& a);
std::string DescribeArgs(const kfd_uapi::CreateEventArgs& a);
std::string DescribeArgs(const kfd_uapi::DestroyEventArgs& a);
std::string DescribeArgs(const kfd_uapi::SetEventArgs& a);
std::string DescribeArgs(const kfd_uapi::ResetEventArgs& a);
std::string DescribeArgs(const kfd_uapi::WaitEventsArgs& a);
std::string DescribeArgs(const kfd_uapi::SetMemoryPolicyArgs& a);
std::string DescribeArgs(const kfd_uapi::SetScratchBackingVaArgs& a);
std::string DescribeArgs(const kfd_uapi::GetTileConfigArgs& a);
std::string DescribeArgs(const kfd_uapi::SetTrapHandlerArgs& a);
std::string DescribeArgs(const kfd_uapi::SetCuMaskArgs& a);
std::string DescribeArgs(const kfd_uapi::AllocQueueGwsArgs& a);
std::string DescribeArgs(const kfd_uapi::SetXnackModeArgs& a);
std::string DescribeArgs(const kfd_uapi::RuntimeEnableArgs& a);
std::string DescribeArgs(const kfd_uapi::GetDmabufInfoArgs& a);
std::string DescribeArgs(const kfd_uapi::ImportDmabufArgs& a);
std::string DescribeArgs(const kfd_uapi::ExportDmabufArgs& a);
std::string DescribeArgs(const kfd_uapi::IpcExportHandleArgs& a);
std::string DescribeArgs(const kfd_uapi::IpcImportHandleArgs& a);

// Issues `descriptor` with `args` (updated in place with the kernel's answer).
// Returns FromErrno(errno, "AMDKFD_IOC_<NAME>").
// True when HSAKMT_DEBUG_LEVEL >= 7 (libhsakmt's HSAKMT_DEBUG_LEVEL_DEBUG): every ioctl is printed to stderr,
// decoded, like strace for KFD ("[hsakmt] NAME(args) = result -> answer"). The line is the kfd trace record each
// ioctl makes; the log sink (base/log_sink.h), installed from the environment, prints it. Read once per process.
bool IoctlDebugEnabled();

template <typename Args>
absl::Status Ioctl(KfdDevice& device, const kfd_uapi::IoctlDescriptor<Args>& descriptor, Args& args) {
  // The kfd slice spans the system call: on the simulator, the simulated driver's work; on /dev/kfd, the kernel's.
  TraceSlice slice(TraceCategory::kKfd, descriptor.name);
  const bool trace = slice.active();
  std::string before;
  if (trace) before = DescribeArgs(args);
  const int err = device.Ioctl(descriptor.request(), &args);
  if (trace) {
    const std::string after = err == 0 ? DescribeArgs(args) : "";
    const std::string line = absl::StrCat(descriptor.name, "(", before, ") = ", err == 0 ? 0 : -err,
                                          err == 0 ? " -> " : "", after);
    slice.Arg("args", before);
    slice.Arg("result", err == 0 ? 0 : -err);
    if (err == 0) slice.Arg("answer", after);
    Trace(Layer::kKfd, line);
  }
  return FromErrno(err, descriptor.name);
}

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_IOCTL_H_
