// The hsaKmt* entry points hipmem declares (hsakmt/hsakmt.h) but does not implement. They exist so that
// programs written for libhsakmt -- ROCr, kfdtest -- link against //thunk:hsakmt unchanged, and they answer
// what a libhsakmt on a kernel without the feature answers: HSAKMT_STATUS_NOT_SUPPORTED. As every upstream
// entry point checks the KFD first, a call before hsaKmtOpenKFD answers KERNEL_IO_CHANNEL_NOT_OPENED, and a
// missing mandatory out-pointer answers INVALID_PARAMETER, so a caller's error paths behave as upstream's.
// Nothing here touches the KFD or the simulator: no state changes, so none of these can half-succeed.
//
// Definitions only, like hsakmt.cc: the declarations (and their C linkage) come from hsakmt.h.
#include <initializer_list>

#include "absl/status/statusor.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"

namespace hipmem::thunk {
namespace {

// Answers an unimplemented call: KERNEL_IO_CHANNEL_NOT_OPENED while the KFD is closed, INVALID_PARAMETER
// when one of `required_outputs` is null, else NOT_SUPPORTED.
HSAKMT_STATUS Unsupported(std::initializer_list<const void*> required_outputs = {}) {
  absl::StatusOr<Kfd*> kfd = SharedKfd();
  if (!kfd.ok()) return ToHsakmtStatus(kfd.status());
  for (const void* p : required_outputs) {
    if (p == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  return HSAKMT_STATUS_NOT_SUPPORTED;
}

}  // namespace
}  // namespace hipmem::thunk

using hipmem::thunk::Unsupported;

extern "C" {

// The debugger: the simulated CP runs no trap handler and no wave can be halted, so neither the
// pre-1.13 interface nor the 1.13 debug trap has anything to act on. Nodes advertise no debug support.
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgRegister(HSAuint32) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgUnregister(HSAuint32) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgWavefrontControl(HSAuint32, HSA_DBG_WAVEOP, HSA_DBG_WAVEMODE, HSAuint32,
                                                  HsaDbgWaveMessage*) {
  return Unsupported();
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgAddressWatch(HSAuint32, HSAuint32, HSA_DBG_WATCH_MODE[], void*[], HSAuint64[],
                                              HsaEvent*[]) {
  return Unsupported();
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgEnable(void** runtime_info, HSAuint32* data_size) {
  return Unsupported({runtime_info, data_size});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgDisable(void) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetDeviceData(void** data, HSAuint32* n_entries, HSAuint32* entry_size) {
  return Unsupported({data, n_entries, entry_size});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtDbgGetQueueData(void** data, HSAuint32* n_entries, HSAuint32* entry_size, bool) {
  return Unsupported({data, n_entries, entry_size});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtCheckRuntimeDebugSupport(void) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtDebugTrapIoctl(struct kfd_ioctl_dbg_trap_args* arg, HSA_QUEUEID*, HSAuint64*) {
  return Unsupported({arg});
}

// The streaming performance monitor: the simulated engines stream no counter samples. (The hsaKmtPmc* counter
// API is hsakmt_pmc.cc.)
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMAcquire(HSAuint32) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMRelease(HSAuint32) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtSPMSetDestBuffer(HSAuint32, HSAuint32, HSAuint32*, HSAuint32*, void*, bool*) {
  return Unsupported();
}

// PC sampling: no simulated wave has a program counter to sample.
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingSupport(void) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingQueryCapabilities(HSAuint32, void*, HSAuint32, HSAuint32* sz_needed) {
  return Unsupported({sz_needed});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingCreate(HSAuint32, HsaPcSamplingInfo* sample_info,
                                               HsaPcSamplingTraceId* traceId) {
  return Unsupported({sample_info, traceId});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingDestroy(HSAuint32, HsaPcSamplingTraceId) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingStart(HSAuint32, HsaPcSamplingTraceId) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtPcSamplingStop(HSAuint32, HsaPcSamplingTraceId) { return Unsupported(); }

// SMI events: the simulated KFD raises none (no thermal throttling, resets, migrations or evictions).
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenSMI(HSAuint32, int* fd) { return Unsupported({fd}); }

// Queue introspection: the simulator keeps no CWSR context save area and runs no Southern Islands.
HSAKMT_STATUS HSAKMTAPI hsaKmtReportQueue(HSA_QUEUEID, HsaQueueReport* QueueReport) {
  return Unsupported({QueueReport});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetQueueInfo(HSA_QUEUEID, HsaQueueInfo* QueueInfo) { return Unsupported({QueueInfo}); }

// Graphics interop: no render-side buffers exist to import (IPC handles are hsakmt_ipc.cc's, dma-buf
// hsakmt_dmabuf.cc's).
HSAKMT_STATUS HSAKMTAPI hsaKmtMapGraphicHandle(HSAuint32, HSAuint64, HSAuint64, HSAuint64, HSAuint64,
                                               HSAuint64* FlatMemoryAddress) {
  return Unsupported({FlatMemoryAddress});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapGraphicHandle(HSAuint32, HSAuint64, HSAuint64) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtGetAMDGPUDeviceHandle(HSAuint32, HsaAMDGPUDeviceHandle* DeviceHandle) {
  return Unsupported({DeviceHandle});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtGetMemoryHandle(void*, HSAuint64, uint64_t* SharedMemoryHandle) {
  return Unsupported({SharedMemoryHandle});
}

// Cross-process copies need another process's GPU address space; the simulator has one process.
HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMRead(HSAuint32, HsaMemoryRange*, HSAuint64, HsaMemoryRange*, HSAuint64,
                                            HSAuint64* SizeCopied) {
  return Unsupported({SizeCopied});
}
HSAKMT_STATUS HSAKMTAPI hsaKmtProcessVMWrite(HSAuint32, HsaMemoryRange*, HSAuint64, HsaMemoryRange*, HSAuint64,
                                             HSAuint64* SizeCopied) {
  return Unsupported({SizeCopied});
}

// Address-sanitizer header pages exist only in an ASan build of upstream libhsakmt, which hipmem is not.
HSAKMT_STATUS HSAKMTAPI hsaKmtReplaceAsanHeaderPage(void*) { return Unsupported(); }
HSAKMT_STATUS HSAKMTAPI hsaKmtReturnAsanHeaderPage(void*) { return Unsupported(); }

// Direct storage I/O into GPU memory (AIS) needs a peer-to-peer capable file system and driver.
HSAKMT_STATUS HSAKMTAPI hsaKmtAisReadWriteFile(void*, HSAuint64, HSAint32, HSAint64, HsaAisFlags,
                                               HSAuint64* SizeCopiedInBytes, HSAint32* status) {
  return Unsupported({SizeCopiedInBytes, status});
}

// Not a feature but a question with a true answer: hipmem never runs on libhsakmt's software GPU model
// (hsakmtmodel.h; the simulator sits behind the KFD instead), so "no" -- and, like upstream, whether or
// not the KFD is open.
HSAKMT_STATUS HSAKMTAPI hsaKmtModelEnabled(bool* enable) {
  if (enable == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  *enable = false;
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
