// Which path a copy takes: current CLR's routing (clr/UPSTREAM_BLIT.md), as a pure decision so the blit
// manager that runs it and the tests that pin it share one source.
//
// CLR classifies each side of a copy through its object map (MemObjMap): memory it does not know is pageable;
// host memory it allocated or registered is host-direct (the CPU and every GPU reach it); device memory
// belongs to one GPU. The decision then follows KernelBlitManager::copyBuffer / writeBuffer / readBuffer and
// DmaBlitManager with the Settings thresholds (GPU_FORCE_BLIT_COPY_SIZE, ROC_P2P_SDMA_SIZE).
#ifndef HIPMEM_CLR_BLIT_POLICY_H_
#define HIPMEM_CLR_BLIT_POLICY_H_

#include <cstdint>

#include "base/units.h"
#include "clr/cpu_device_id.h"
#include "clr/settings.h"

namespace hipmem::clr {

struct CopySide {
  enum class Kind {
    kPageable,    // not in the object map
    kHostDirect,  // hipHostMalloc'd or hipHostRegister'd: reachable by the CPU and every GPU
    kDevice,      // VRAM of `device`
  };
  Kind kind;
  int device = kCpuDeviceId;  // an ordinal for kDevice
};

enum class CopyPath {
  kHostMemcpy,          // the CPU copies, after the queue's earlier work is done
  kShaderCopy,          // the blit kernel on the stream's queue
  kShaderCopyLimitedWg, // the blit kernel with Settings::limit_blit_wg workgroups (a small peer copy)
  kSdma,                // an SDMA engine (hsa_amd_memory_async_copy_on_engine)
  kStagedShaderCopy,    // pageable memory through the staging ring, the blit kernel on the device side
  kStagedOrPinnedSdma,  // pageable memory in chunks: pinned above pinned_min_xfer_size, else staged; SDMA
};

const char* CopyPathName(CopyPath path);

// `prefer_sdma` is hipMemcpyDeviceToDeviceNoCU's request. A copy between two pageable sides is kHostMemcpy.
CopyPath ChooseCopyPath(const CopySide& dst, const CopySide& src, Bytes size, bool prefer_sdma,
                        const Settings& settings);

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_BLIT_POLICY_H_
