// The KFD side of system_events.h: how the kernel's fault report becomes ROCr's reason mask. For the
// runtime's own files only; clients see GpuMemoryFault, which names no thunk type.
#ifndef HIPMEM_HSA_SYSTEM_EVENTS_KFD_H_
#define HIPMEM_HSA_SYSTEM_EVENTS_KFD_H_

#include <cstdint>

#include "hsa/system_events.h"
#include "thunk/events.h"

namespace hipmem::hsa {

// Returns ROCr's fault reason mask for what the kernel reported (VMFaultHandler's mapping; error type 1 is an
// SRAM ECC error, 2 a consumed poison (DRAM ECC), 3 a GPU hang).
uint32_t FaultReasonMask(const thunk::MemoryAccessFault& fault);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SYSTEM_EVENTS_KFD_H_
