#include "kfd_uapi/kfd_ioctl.h"


namespace hipmem::kfd_uapi {

const char* IoctlName(unsigned long request) {
  if (IoctlType(request) != kIoctlType) return "AMDKFD_IOC_<unknown>";
  // Names by nr, so a caller's short or long struct still decodes (the kernel dispatches on nr).
  switch (IoctlNr(request)) {
    case 0x01: return kGetVersion.name;
    case 0x02: return "AMDKFD_IOC_CREATE_QUEUE";
    case 0x03: return "AMDKFD_IOC_DESTROY_QUEUE";
    case 0x04: return kSetMemoryPolicy.name;
    case 0x05: return kGetClockCounters.name;
    case 0x06: return "AMDKFD_IOC_GET_PROCESS_APERTURES";
    case 0x07: return "AMDKFD_IOC_UPDATE_QUEUE";
    case 0x08: return kCreateEvent.name;
    case 0x09: return kDestroyEvent.name;
    case 0x0A: return kSetEvent.name;
    case 0x0B: return kResetEvent.name;
    case 0x0C: return kWaitEvents.name;
    case 0x11: return kSetScratchBackingVa.name;
    case 0x12: return kGetTileConfig.name;
    case 0x13: return kSetTrapHandler.name;
    case 0x14: return kGetProcessAperturesNew.name;
    case 0x15: return kAcquireVm.name;
    case 0x16: return kAllocMemoryOfGpu.name;
    case 0x17: return kFreeMemoryOfGpu.name;
    case 0x18: return kMapMemoryToGpu.name;
    case 0x19: return kUnmapMemoryFromGpu.name;
    case 0x1A: return kSetCuMask.name;
    case 0x1C: return kGetDmabufInfo.name;
    case 0x1D: return kImportDmabuf.name;
    case 0x1E: return kAllocQueueGws.name;
    case 0x20: return "AMDKFD_IOC_SVM";
    case 0x21: return kSetXnackMode.name;
    case 0x23: return kAvailableMemory.name;
    case 0x24: return kExportDmabuf.name;
    case 0x25: return kRuntimeEnable.name;
    case 0x80: return kIpcImportHandle.name;  // the DKMS extension
    case 0x81: return kIpcExportHandle.name;
    default: return "AMDKFD_IOC_<unknown>";
  }
}

}  // namespace hipmem::kfd_uapi
