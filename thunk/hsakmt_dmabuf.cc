// hsaKmt* dma-buf entry points (libhsakmt memory.c): thin shells over Kfd::ExportDmaBuf / ImportDmaBuf.
//
// Definitions only, like hsakmt.cc: the declarations (and their C linkage) come from hsakmt.h.
#include <span>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_node_array.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"

namespace hipmem::thunk {
namespace {

// The kernel interface version that brought AMDKFD_IOC_EXPORT_DMABUF (CHECK_KFD_MINOR_VERSION(12)).
constexpr uint32_t kExportDmabufMinorVersion = 12;

}  // namespace
}  // namespace hipmem::thunk

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtExportDMABufHandle(void* MemoryAddress, HSAuint64 MemorySizeInBytes, int* DMABufFd,
                                                 HSAuint64* Offset) {
  absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
  if (!kfd.ok()) return hipmem::thunk::ToHsakmtStatus(kfd.status());
  if ((*kfd)->version().minor < hipmem::thunk::kExportDmabufMinorVersion) return HSAKMT_STATUS_NOT_SUPPORTED;
  if (DMABufFd == nullptr || Offset == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  absl::StatusOr<hipmem::thunk::Kfd::DmaBufExport> exported =
      (*kfd)->ExportDmaBuf(hipmem::DeviceAddress::FromPointer(MemoryAddress), hipmem::Bytes(MemorySizeInBytes));
  if (!exported.ok()) return hipmem::thunk::ToHsakmtStatus(exported.status());
  *Offset = exported->offset.raw();
  *DMABufFd = std::move(exported->fd).Release();  // the caller's to close
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodesExt(HSAuint64 GraphicsResourceHandle,
                                                               HsaGraphicsResourceInfo* GraphicsResourceInfo,
                                                               HSAuint64 NumberOfNodes, HSAuint32* NodeArray,
                                                               HSA_REGISTER_MEM_FLAGS RegisterFlags) {
  absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
  if (!kfd.ok()) return hipmem::thunk::ToHsakmtStatus(kfd.status());
  if (GraphicsResourceInfo == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  // hsakmt_validate_nodeid_array, when a node list is given at all: it needs both a count and an array.
  const std::optional<std::vector<hipmem::thunk::NodeId>> nodes =
      hipmem::thunk::OptionalNodeArray(NumberOfNodes, NodeArray);
  if (!nodes.has_value()) return HSAKMT_STATUS_INVALID_PARAMETER;
  absl::StatusOr<hipmem::thunk::Kfd::ImportedDmaBuf> imported = (*kfd)->ImportDmaBuf(
      static_cast<int>(GraphicsResourceHandle), *nodes, RegisterFlags.ui32.requiresVAddr != 0);
  if (!imported.ok()) return hipmem::thunk::ToHsakmtStatus(imported.status());
  GraphicsResourceInfo->MemoryAddress = imported->address.ToPointer();
  GraphicsResourceInfo->SizeInBytes = imported->size.raw();
  GraphicsResourceInfo->Metadata = imported->metadata.empty() ? nullptr : imported->metadata.data();
  GraphicsResourceInfo->MetadataSizeInBytes = static_cast<HSAuint32>(imported->metadata.size());
  GraphicsResourceInfo->NodeId = imported->node.raw();
  return HSAKMT_STATUS_SUCCESS;
}

// libhsakmt's hsaKmtRegisterGraphicsHandleToNodes: the Ext call with requiresVAddr set.
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterGraphicsHandleToNodes(HSAuint64 GraphicsResourceHandle,
                                                            HsaGraphicsResourceInfo* GraphicsResourceInfo,
                                                            HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  HSA_REGISTER_MEM_FLAGS flags{};
  flags.ui32.requiresVAddr = 1;
  return hsaKmtRegisterGraphicsHandleToNodesExt(GraphicsResourceHandle, GraphicsResourceInfo, NumberOfNodes,
                                                NodeArray, flags);
}

}  // extern "C"
