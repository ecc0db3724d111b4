// hsaKmt* IPC entry points (libhsakmt memory.c: hsaKmtShareMemory, hsaKmtRegisterSharedHandle(ToNodes)): thin
// shells over Kfd::ShareMemory / RegisterSharedHandle. HsaSharedMemoryHandle carries Kfd::SharedMemoryHandle
// (libhsakmt's HsaSharedMemoryStruct) byte for byte.
//
// Definitions only, like hsakmt.cc: the declarations (and their C linkage) come from hsakmt.h.
#include <cstring>
#include <vector>

#include "absl/status/statusor.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_node_array.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"

static_assert(sizeof(HsaSharedMemoryHandle) == sizeof(hipmem::thunk::Kfd::SharedMemoryHandle));

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtShareMemory(void* MemoryAddress, HSAuint64 SizeInBytes,
                                          HsaSharedMemoryHandle* SharedMemoryHandle) {
  absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
  if (!kfd.ok()) return hipmem::thunk::ToHsakmtStatus(kfd.status());
  if (SharedMemoryHandle == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  absl::StatusOr<hipmem::thunk::Kfd::SharedMemoryHandle> shared =
      (*kfd)->ShareMemory(hipmem::DeviceAddress::FromPointer(MemoryAddress), hipmem::Bytes(SizeInBytes));
  if (!shared.ok()) return hipmem::thunk::ToHsakmtStatus(shared.status());
  std::memcpy(*SharedMemoryHandle, &*shared, sizeof(*SharedMemoryHandle));
  return HSAKMT_STATUS_SUCCESS;
}

// Deliberate: null MemoryAddress or SizeInBytes is INVALID_PARAMETER (libhsakmt writes through them unchecked).
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandleToNodes(const HsaSharedMemoryHandle* SharedMemoryHandle,
                                                          void** MemoryAddress, HSAuint64* SizeInBytes,
                                                          HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  absl::StatusOr<hipmem::thunk::Kfd*> kfd = hipmem::thunk::SharedKfd();
  if (!kfd.ok()) return hipmem::thunk::ToHsakmtStatus(kfd.status());
  if (SharedMemoryHandle == nullptr || MemoryAddress == nullptr || SizeInBytes == nullptr) {
    return HSAKMT_STATUS_INVALID_PARAMETER;
  }
  // hsakmt_validate_nodeid_array for a given array (it needs a count), fmm_register_shared_memory's check for a
  // count without one.
  const std::optional<std::vector<hipmem::thunk::NodeId>> nodes =
      hipmem::thunk::OptionalNodeArray(NumberOfNodes, NodeArray);
  if (!nodes.has_value()) return HSAKMT_STATUS_INVALID_PARAMETER;
  hipmem::thunk::Kfd::SharedMemoryHandle handle;
  std::memcpy(&handle, *SharedMemoryHandle, sizeof(handle));
  absl::StatusOr<hipmem::thunk::Kfd::ImportedShared> imported = (*kfd)->RegisterSharedHandle(handle, *nodes);
  if (!imported.ok()) return hipmem::thunk::ToHsakmtStatus(imported.status());
  *MemoryAddress = imported->address.ToPointer();
  *SizeInBytes = imported->size.raw();
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterSharedHandle(const HsaSharedMemoryHandle* SharedMemoryHandle,
                                                   void** MemoryAddress, HSAuint64* SizeInBytes) {
  return hsaKmtRegisterSharedHandleToNodes(SharedMemoryHandle, MemoryAddress, SizeInBytes, 0, nullptr);
}

}  // extern "C"
