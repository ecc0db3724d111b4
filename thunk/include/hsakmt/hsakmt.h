/* libhsakmt ("the thunk") C API, rewritten for hipmem.
 *
 * The subset of upstream <hsakmt/hsakmt.h> that hipmem implements: opening the KFD, topology
 * queries, the memory calls and events. Signatures are upstream's, so ROCr-style callers and kfdtest-style
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

/* Fills NumCaches entries of CacheProperties with the caches of node NodeId (NumCaches at most the
 * node's NumCaches). ProcessorId is accepted and ignored, as upstream does. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCacheProperties(HSAuint32 NodeId, HSAuint32 ProcessorId,
                                                     HSAuint32 NumCaches,
                                                     HsaCacheProperties* CacheProperties);

/* Fills NumIoLinks entries of IoLinkProperties with the io links of node NodeId (NumIoLinks at most
 * the node's NumIOLinks). */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkProperties(HSAuint32 NodeId, HSAuint32 NumIoLinks,
                                                      HsaIoLinkProperties* IoLinkProperties);

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

/* Maps an allocation or registered memory into the GPU page tables of its default device set; stores the
 * GPU address in *AlternateVAGPU when given. For a pointer registered with several sizes,
 * MemorySizeInBytes picks the registration. */
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

/* Registers host memory (pageable, already mapped and readable) for GPU access. The pages holding
 * [MemoryAddress, MemoryAddress + MemorySizeInBytes) get a GPU address of their own, which
 * hsaKmtMapMemoryToGPU reports in AlternateVAGPU. The same pointer and size again only counts a
 * registration; each needs an hsaKmtDeregisterMemory. HSAKMT_STATUS_ERROR for a null pointer, a zero size,
 * or pages the kernel cannot pin. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemory(void* MemoryAddress, HSAuint64 MemorySizeInBytes);

/* As hsaKmtRegisterMemory; the NumberOfNodes nodes in NodeArray become the nodes a later map defaults to.
 * INVALID_PARAMETER without nodes; MEMORY_ALREADY_REGISTERED when registered before with other nodes. */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryToNodes(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                                    HSAuint64 NumberOfNodes, HSAuint32* NodeArray);

/* As hsaKmtRegisterMemory with MemFlags: HostAccess must be set and NonPaged clear (else NOT_SUPPORTED);
 * CoarseGrain and ExtendedCoherent choose the coherence (both: INVALID_PARAMETER). */
HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlags(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                                      HsaMemFlags MemFlags);

/* Drops one registration of a registered pointer (or of its GPU address); the last one unmaps and releases
 * it. MEMORY_NOT_REGISTERED for memory that is not registered. */
HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void* MemoryAddress);

/* Describes the allocation or registration containing Pointer. For an unknown pointer, *PointerInfo is
 * zeroed (Type HSA_POINTER_UNKNOWN) and the result is HSAKMT_STATUS_ERROR, as upstream. */
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void* Pointer, HsaPointerInfo* PointerInfo);

/* Attaches UserData to the allocation or registration starting at Pointer (reported by
 * hsaKmtQueryPointerInfo). HSAKMT_STATUS_ERROR when nothing starts there. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserData(const void* Pointer, void* UserData);

/* --- Events ----------------------------------------------------------------------------------- */

/* Creates an event of EventDesc->EventType (HSA_EVENTTYPE_MAXID or above: INVALID_PARAMETER) and stores
 * it in *Event. ManualReset events stay signaled until reset; others are reset by the wait they release.
 * IsSignaled signals a SIGNAL or DEBUG_EVENT event at once. HSAKMT_STATUS_ERROR when the KFD refuses
 * (e.g. all 4095 signal slots in use). */
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor* EventDesc, bool ManualReset,
                                          bool IsSignaled, HsaEvent** Event);

/* Destroys an event from hsaKmtCreateEvent and frees *Event. HSAKMT_STATUS_ERROR when the KFD does not
 * know it (e.g. a second destroy); INVALID_HANDLE for NULL. */
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent* Event);

/* Signals / resets a SIGNAL or DEBUG_EVENT event; HSAKMT_STATUS_ERROR for the other (system) types. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent* Event);
HSAKMT_STATUS HSAKMTAPI hsaKmtResetEvent(HsaEvent* Event);

/* As upstream, only checks Event (INVALID_HANDLE for NULL): the state is learnt by waiting. */
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryEventState(HsaEvent* Event);

/* Waits up to Milliseconds (HSA_EVENTTIMEOUT_IMMEDIATE polls, HSA_EVENTTIMEOUT_INFINITE never gives up)
 * for Event. HSAKMT_STATUS_WAIT_TIMEOUT when the time passes first. */
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent* Event, HSAuint32 Milliseconds);

/* Waits for all (WaitOnAll) or any one of the NumEvents events. A MEMORY event that fired gets its
 * EventData.EventData.MemoryAccessFault filled in. */
HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents(HsaEvent* Events[], HSAuint32 NumEvents,
                                                   bool WaitOnAll, HSAuint32 Milliseconds);

/* Creates a user-mode queue on NodeId's GPU over the ring at QueueAddress (QueueSizeInBytes, a power of
 * two, GPU-mapped). For HSA_QUEUE_COMPUTE_AQL, QueueResource brings the read and write pointer addresses;
 * for SDMA types the library provides them. Returns the queue id and doorbell in QueueResource. Event is
 * accepted and unused (no simulated ASIC needs it). */
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueue(HSAuint32 NodeId, HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,
                                          HSA_QUEUE_PRIORITY Priority, void* QueueAddress,
                                          HSAuint64 QueueSizeInBytes, HsaEvent* Event,
                                          HsaQueueResource* QueueResource);

/* As hsaKmtCreateQueue; SdmaEngineId picks the engine of an HSA_QUEUE_SDMA_BY_ENG_ID queue. */
HSAKMT_STATUS HSAKMTAPI hsaKmtCreateQueueExt(HSAuint32 NodeId, HSA_QUEUE_TYPE Type, HSAuint32 QueuePercentage,
                                             HSA_QUEUE_PRIORITY Priority, HSAuint32 SdmaEngineId,
                                             void* QueueAddress, HSAuint64 QueueSizeInBytes, HsaEvent* Event,
                                             HsaQueueResource* QueueResource);

/* Changes a queue's ring, percentage (0 deactivates it) and priority. */
HSAKMT_STATUS HSAKMTAPI hsaKmtUpdateQueue(HSA_QUEUEID QueueId, HSAuint32 QueuePercentage,
                                          HSA_QUEUE_PRIORITY Priority, void* QueueAddress, HSAuint64 QueueSize,
                                          HsaEvent* Event);

/* Destroys a queue from hsaKmtCreateQueue(Ext). */
HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyQueue(HSA_QUEUEID QueueId);

/* ---- Added by the sdma branch; kept apart for an easy merge ---- */

/* Reads node NodeId's GPU clock counter and the CPU's raw-monotonic and boot-time clocks, together. */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCounters(HSAuint32 NodeId, HsaClockCounters* Counters);

/* ---- end of the sdma branch's block ---- */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HSAKMT_HSAKMT_H_ */
