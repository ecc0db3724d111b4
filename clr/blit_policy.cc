#include "clr/blit_policy.h"

namespace hipmem::clr {
namespace {

using Kind = CopySide::Kind;

// Between two objects CLR knows (KernelBlitManager::copyBuffer, then DmaBlitManager::copyBuffer).
CopyPath BufferToBuffer(const CopySide& dst, const CopySide& src, Bytes size, bool prefer_sdma,
                        const Settings& settings) {
  const bool peer = dst.kind == Kind::kDevice && src.kind == Kind::kDevice && dst.device != src.device;
  if (peer) {
    // Small peer copies read or write the peer's VRAM from a narrow kernel; larger ones go to SDMA.
    return size <= settings.sdma_p2p_threshold ? CopyPath::kShaderCopyLimitedWg : CopyPath::kSdma;
  }
  const bool host_direct = dst.kind == Kind::kHostDirect || src.kind == Kind::kHostDirect;
  if (!prefer_sdma && (size <= settings.sdma_copy_threshold || !host_direct)) return CopyPath::kShaderCopy;
  // DmaBlitManager: two host-direct sides are copied by the CPU; anything touching VRAM by SDMA.
  if (dst.kind == Kind::kHostDirect && src.kind == Kind::kHostDirect) return CopyPath::kHostMemcpy;
  return CopyPath::kSdma;
}

}  // namespace

const char* CopyPathName(CopyPath path) {
  switch (path) {
    case CopyPath::kHostMemcpy: return "host memcpy";
    case CopyPath::kShaderCopy: return "shader copy";
    case CopyPath::kShaderCopyLimitedWg: return "shader copy (limited workgroups)";
    case CopyPath::kSdma: return "SDMA";
    case CopyPath::kStagedShaderCopy: return "staging + shader copy";
    case CopyPath::kStagedOrPinnedSdma: return "staged or pinned chunks + SDMA";
  }
  return "?";
}

CopyPath ChooseCopyPath(const CopySide& dst, const CopySide& src, Bytes size, bool prefer_sdma,
                        const Settings& settings) {
  const bool dst_pageable = dst.kind == Kind::kPageable;
  const bool src_pageable = src.kind == Kind::kPageable;
  if (dst_pageable && src_pageable) return CopyPath::kHostMemcpy;
  if (!dst_pageable && !src_pageable) return BufferToBuffer(dst, src, size, prefer_sdma, settings);
  // One pageable side: writeBuffer (H2D) or readBuffer (D2H). The CPU serves host-direct memory itself.
  const CopySide& object = dst_pageable ? src : dst;
  if (object.kind == Kind::kHostDirect) return CopyPath::kHostMemcpy;
  return size <= settings.sdma_copy_threshold ? CopyPath::kStagedShaderCopy : CopyPath::kStagedOrPinnedSdma;
}

}  // namespace hipmem::clr
