/* libhsakmt ("the thunk") C API, rewritten for hipmem.
 *
 * The subset of upstream <hsakmt/hsakmt.h> that hipmem implements: opening the KFD, topology
 * queries and the memory calls. Signatures are upstream's, so ROCr-style callers and kfdtest-style
 * tests compile unchanged. Every function returns HSAKMT_STATUS_SUCCESS or an HSAKMT_STATUS error.
 */
#ifndef HIPMEM_HSAKMT_HSAKMT_H_
#define HIPMEM_HSAKMT_HSAKMT_H_

#include "hsakmttypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- Driver session --------------------------------------------------------------------------- */

/* Opens /dev/kfd and checks the interface version. A second call only counts a reference and
 * answers HSAKMT_STATUS_KERNEL_ALREADY_OPENED. */
HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void);

/* Drops one reference; the last one closes /dev/kfd. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void);

/* Reports the KFD ioctl interface version. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo* VersionInfo);

/* --- Topology --------------------------------------------------------------------------------- */

/* Takes the topology snapshot that the per-node queries below read. */
HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemProperties(HsaSystemProperties* SystemProperties);

/* Drops the topology snapshot. */
HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemProperties(void);

/* Fills the properties of node NodeId. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeProperties(HSAuint32 NodeId,
                                                HsaNodeProperties* NodeProperties);

/* Fills NumBanks entries of MemoryProperties with the memory banks of node NodeId. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryProperties(HSAuint32 NodeId, HSAuint32 NumBanks,
                                                      HsaMemoryProperties* MemoryProperties);

/* --- Memory ----------------------------------------------------------------------------------- */

/* Allocates SizeInBytes (a non-zero multiple of the page size) near PreferredNode and stores the
 * address in *MemoryAddress (an input as well when MemFlags.ui32.FixedAddress is set). */
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                                          HsaMemFlags MemFlags, void** MemoryAddress);

/* As hsaKmtAllocMemory, with the virtual address aligned to Alignment (0, or a power of two no
 * smaller than the page size). */
HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemoryAlign(HSAuint32 PreferredNode, HSAuint64 SizeInBytes,
                                               HSAuint64 Alignment, HsaMemFlags MemFlags,
                                               void** MemoryAddress);

/* Frees an allocation made by hsaKmtAllocMemory(Align). */
HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void* MemoryAddress, HSAuint64 SizeInBytes);

/* Maps an allocation into the GPU page tables of its default device set. */
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                             HSAuint64* AlternateVAGPU);

/* Maps an allocation into the GPU page tables of the NumberOfNodes nodes listed in NodeArray. */
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                                  HSAuint64* AlternateVAGPU,
                                                  HsaMemMapFlags MemMapFlags,
                                                  HSAuint64 NumberOfNodes, HSAuint32* NodeArray);

/* Removes an allocation from every GPU page table it is mapped in. */
HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void* MemoryAddress);

/* Reports how many bytes of VRAM node Node can still allocate (AMDKFD_IOC_AVAILABLE_MEMORY). */
HSAKMT_STATUS HSAKMTAPI hsaKmtAvailableMemory(HSAuint32 Node, HSAuint64* AvailableBytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HSAKMT_HSAKMT_H_ */
