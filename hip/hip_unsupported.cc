// hipErrorNotSupported for every hip* entry point that <hip/hip_runtime_api.h> declares and hipmem
// does not implement yet, so HIP host code links against //hip:hipmem and fails cleanly at run
// time. Each stub records its result as the thread's last error, as every hip_c_api.cc shell does.
// Written once by a generator from the header (a one-shot script, since deleted: nothing builds from it); to
// implement a function, delete its stub here and define it in its own source (the surface test catches a function
// left in neither). Each section says why its functions are stubs today.
#define HIP_ABI_IMPL 1  // define the deprecated entry points without deprecation warnings

#include <cstddef>
#include <cstdint>

#include "hip/hip_runtime_api.h"
#include "hip/last_error.h"

#define HIPMEM_UNSUPPORTED return hipmem::hip::RecordLastError(hipErrorNotSupported)

extern "C" {

// --- Initialisation and version: LUIDs name Windows (WDDM) adapters; hipmem runs on Linux

hipError_t hipDeviceGetLuid(char* /*luid*/, unsigned int* /*deviceNodeMask*/,
                            hipDevice_t /*device*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Devices: GPUDirect RDMA flush: the simulator has no RDMA peer (NIC) to flush writes for; textures: no image
// support

hipError_t hipDeviceFlushGPUDirectRDMAWrites(enum hipFlushGPUDirectRDMAWritesTarget /*target*/,
                                             enum hipFlushGPUDirectRDMAWritesScope /*scope*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDeviceGetTexture1DLinearMaxWidth(size_t* /*max_width*/,
                                               const hipChannelFormatDesc* /*desc*/,
                                               int /*device*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Inter-process sharing: IPC: the thunk and the simulated KFD share buffers between processes (dma-buf, the IPC
// ioctls), but the HSA runtime and HIP do not hand out or open IPC handles yet

hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t* /*handle*/, void* /*devPtr*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipIpcOpenMemHandle(void** /*devPtr*/, hipIpcMemHandle_t /*handle*/,
                               unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipIpcCloseMemHandle(void* /*devPtr*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t* /*handle*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipIpcOpenEventHandle(hipEvent_t* /*event*/, hipIpcEventHandle_t /*handle*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Execution control: the CUDA 12 library handles (hipKernel_t, hipLibrary_t) are not implemented; modules,
// functions and launches are (hip_kernel_c_api.cc)

hipError_t hipKernelSetAttribute(hipFunction_attribute /*attrib*/, int /*value*/,
                                 hipKernel_t /*kernel*/, hipDevice_t /*dev*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipKernelGetFunction(hipFunction_t* /*pFunc*/, hipKernel_t /*kernel*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Streams (implemented: hip_stream_c_api.cc): stream ids, CU masks and stream attributes are not implemented

hipError_t hipStreamGetId(hipStream_t /*stream*/, unsigned long long* /*streamId*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExtStreamCreateWithCUMask(hipStream_t* /*stream*/, uint32_t /*cuMaskSize*/,
                                        const uint32_t* /*cuMask*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExtStreamGetCUMask(hipStream_t /*stream*/, uint32_t /*cuMaskSize*/,
                                 uint32_t* /*cuMask*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamSetAttribute(hipStream_t /*stream*/, hipStreamAttrID /*attr*/,
                                 const hipStreamAttrValue* /*value*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamGetAttribute(hipStream_t /*stream*/, hipStreamAttrID /*attr*/,
                                 hipStreamAttrValue* /*value_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamCopyAttributes(hipStream_t /*dst*/, hipStream_t /*src*/) { HIPMEM_UNSUPPORTED; }

// --- Stream memory operations: wait/write-value on a stream is not implemented; graph nodes: graphs are not
// supported

hipError_t hipStreamWaitValue32(hipStream_t /*stream*/, void* /*ptr*/, uint32_t /*value*/,
                                unsigned int /*flags*/, uint32_t /*mask*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamWaitValue64(hipStream_t /*stream*/, void* /*ptr*/, uint64_t /*value*/,
                                unsigned int /*flags*/, uint64_t /*mask*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamWriteValue32(hipStream_t /*stream*/, void* /*ptr*/, uint32_t /*value*/,
                                 unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamWriteValue64(hipStream_t /*stream*/, void* /*ptr*/, uint64_t /*value*/,
                                 unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamBatchMemOp(hipStream_t /*stream*/, unsigned int /*count*/,
                               hipStreamBatchMemOpParams* /*paramArray*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddBatchMemOpNode(hipGraphNode_t* /*phGraphNode*/, hipGraph_t /*hGraph*/,
                                     const hipGraphNode_t* /*dependencies*/,
                                     size_t /*numDependencies*/,
                                     const hipBatchMemOpNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphBatchMemOpNodeGetParams(hipGraphNode_t /*hNode*/,
                                           hipBatchMemOpNodeParams* /*nodeParams_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphBatchMemOpNodeSetParams(hipGraphNode_t /*hNode*/,
                                           hipBatchMemOpNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecBatchMemOpNodeSetParams(hipGraphExec_t /*hGraphExec*/,
                                               hipGraphNode_t /*hNode*/,
                                               const hipBatchMemOpNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Events (implemented: hip_stream_c_api.cc): recording with flags is not implemented

hipError_t hipEventRecordWithFlags(hipEvent_t /*event*/, hipStream_t /*stream*/,
                                   unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}

// --- External resources: interop: no external memory or semaphores without a graphics driver

hipError_t hipImportExternalSemaphore(hipExternalSemaphore_t* /*extSem_out*/,
                                      const hipExternalSemaphoreHandleDesc* /*semHandleDesc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipSignalExternalSemaphoresAsync(const hipExternalSemaphore_t* /*extSemArray*/,
                                            const hipExternalSemaphoreSignalParams* /*paramsArray*/,
                                            unsigned int /*numExtSems*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipWaitExternalSemaphoresAsync(const hipExternalSemaphore_t* /*extSemArray*/,
                                          const hipExternalSemaphoreWaitParams* /*paramsArray*/,
                                          unsigned int /*numExtSems*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDestroyExternalSemaphore(hipExternalSemaphore_t /*extSem*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipImportExternalMemory(hipExternalMemory_t* /*extMem_out*/,
                                   const hipExternalMemoryHandleDesc* /*memHandleDesc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExternalMemoryGetMappedBuffer(void** /*devPtr*/, hipExternalMemory_t /*extMem*/,
                                            const hipExternalMemoryBufferDesc* /*bufferDesc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDestroyExternalMemory(hipExternalMemory_t /*extMem*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipExternalMemoryGetMappedMipmappedArray(
    hipMipmappedArray_t* /*mipmap*/, hipExternalMemory_t /*extMem*/,
    const hipExternalMemoryMipmappedArrayDesc* /*mipmapDesc*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Managed memory (implemented over the simulated KFD's SVM: hip_managed_c_api.cc): the batch prefetch and
// discard calls are not implemented

hipError_t hipMemPrefetchBatchAsync(void** /*dev_ptrs*/, size_t* /*sizes*/, size_t /*count*/,
                                    hipMemLocation* /*prefetch_locs*/,
                                    size_t* /*prefetch_loc_idxs*/, size_t /*num_prefetch_locs*/,
                                    unsigned long long /*flags*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemDiscardBatchAsync(void** /*dev_ptrs*/, size_t* /*sizes*/, size_t /*count*/,
                                   unsigned long long /*flags*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvMemDiscardBatchAsync(hipDeviceptr_t* /*dptrs*/, size_t* /*sizes*/,
                                      size_t /*count*/, unsigned long long /*flags*/,
                                      hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemDiscardAndPrefetchBatchAsync(void** /*dptrs*/, size_t* /*sizes*/, size_t /*count*/,
                                              hipMemLocation* /*prefetchLocs*/,
                                              size_t* /*prefetchLocIdxs*/,
                                              size_t /*numPrefetchLocs*/,
                                              unsigned long long /*flags*/,
                                              hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvMemDiscardAndPrefetchBatchAsync(hipDeviceptr_t* /*dptrs*/, size_t* /*sizes*/,
                                                 size_t /*count*/, hipMemLocation* /*prefetchLocs*/,
                                                 size_t* /*prefetchLocIdxs*/,
                                                 size_t /*numPrefetchLocs*/,
                                                 unsigned long long /*flags*/,
                                                 hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Stream-ordered allocator and memory pools (implemented: hip_mempool_c_api.cc): the per-location
// pool calls (hipMemSetMemPool, hipMemGetMemPool, hipMemGetDefaultMemPool) are not implemented

hipError_t hipMemSetMemPool(hipMemLocation* /*location*/, hipMemAllocationType /*type*/,
                            hipMemPool_t /*pool*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemGetMemPool(hipMemPool_t* /*pool*/, hipMemLocation* /*location*/,
                            hipMemAllocationType /*type*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemGetDefaultMemPool(hipMemPool_t* /*memPool*/, hipMemLocation* /*location*/,
                                   hipMemAllocationType /*type*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Memory: copies to and from arrays: no image support; hipGetProcAddress: no driver entry point table

hipError_t hipMemcpyAtoD(hipDeviceptr_t /*dstDevice*/, hipArray_t /*srcArray*/,
                         size_t /*srcOffset*/, size_t /*ByteCount*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyDtoA(hipArray_t /*dstArray*/, size_t /*dstOffset*/,
                         hipDeviceptr_t /*srcDevice*/, size_t /*ByteCount*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyAtoA(hipArray_t /*dstArray*/, size_t /*dstOffset*/, hipArray_t /*srcArray*/,
                         size_t /*srcOffset*/, size_t /*ByteCount*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyAtoHAsync(void* /*dstHost*/, hipArray_t /*srcArray*/, size_t /*srcOffset*/,
                              size_t /*ByteCount*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyHtoAAsync(hipArray_t /*dstArray*/, size_t /*dstOffset*/,
                              const void* /*srcHost*/, size_t /*ByteCount*/,
                              hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetProcAddress(const char* /*symbol*/, void** /*pfn*/, int /*hipVersion*/,
                             uint64_t /*flags*/,
                             hipDriverProcAddressQueryResult* /*symbolStatus*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Memory: 2D fills in the driver API's element sizes: not implemented (hipMemset2D fills bytes)

hipError_t hipMemsetD2D8(hipDeviceptr_t /*dst*/, size_t /*dstPitch*/, unsigned char /*value*/,
                         size_t /*width*/, size_t /*height*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemsetD2D8Async(hipDeviceptr_t /*dst*/, size_t /*dstPitch*/, unsigned char /*value*/,
                              size_t /*width*/, size_t /*height*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemsetD2D16(hipDeviceptr_t /*dst*/, size_t /*dstPitch*/, unsigned short /*value*/,
                          size_t /*width*/, size_t /*height*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemsetD2D16Async(hipDeviceptr_t /*dst*/, size_t /*dstPitch*/,
                               unsigned short /*value*/, size_t /*width*/, size_t /*height*/,
                               hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemsetD2D32(hipDeviceptr_t /*dst*/, size_t /*dstPitch*/, unsigned int /*value*/,
                          size_t /*width*/, size_t /*height*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemsetD2D32Async(hipDeviceptr_t /*dst*/, size_t /*dstPitch*/, unsigned int /*value*/,
                               size_t /*width*/, size_t /*height*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Arrays: textures/arrays: no image support in hipmem

hipError_t hipMallocArray(hipArray_t* /*array*/, const hipChannelFormatDesc* /*desc*/,
                          size_t /*width*/, size_t /*height*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipArrayCreate(hipArray_t* /*pHandle*/, const HIP_ARRAY_DESCRIPTOR* /*pAllocateArray*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipArrayDestroy(hipArray_t /*array*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipArray3DCreate(hipArray_t* /*array*/,
                            const HIP_ARRAY3D_DESCRIPTOR* /*pAllocateArray*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipFreeArray(hipArray_t /*array*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipMalloc3DArray(hipArray_t* /*array*/, const struct hipChannelFormatDesc* /*desc*/,
                            struct hipExtent /*extent*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipArrayGetInfo(hipChannelFormatDesc* /*desc*/, hipExtent* /*extent*/,
                           unsigned int* /*flags*/, hipArray_t /*array*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR* /*pArrayDescriptor*/, hipArray_t /*array*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR* /*pArrayDescriptor*/,
                                   hipArray_t /*array*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Memory: array copies: no image support; batched copies and 3D peer copies: not implemented (2D and 3D copies
// within and between this process's memory are: hip_pitched_c_api.cc)

hipError_t hipMemcpy2DToArray(hipArray_t /*dst*/, size_t /*wOffset*/, size_t /*hOffset*/,
                              const void* /*src*/, size_t /*spitch*/, size_t /*width*/,
                              size_t /*height*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DToArrayAsync(hipArray_t /*dst*/, size_t /*wOffset*/, size_t /*hOffset*/,
                                   const void* /*src*/, size_t /*spitch*/, size_t /*width*/,
                                   size_t /*height*/, hipMemcpyKind /*kind*/,
                                   hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DArrayToArray(hipArray_t /*dst*/, size_t /*wOffsetDst*/, size_t /*hOffsetDst*/,
                                   hipArray_const_t /*src*/, size_t /*wOffsetSrc*/,
                                   size_t /*hOffsetSrc*/, size_t /*width*/, size_t /*height*/,
                                   hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyToArray(hipArray_t /*dst*/, size_t /*wOffset*/, size_t /*hOffset*/,
                            const void* /*src*/, size_t /*count*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyFromArray(void* /*dst*/, hipArray_const_t /*srcArray*/, size_t /*wOffset*/,
                              size_t /*hOffset*/, size_t /*count*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DFromArray(void* /*dst*/, size_t /*dpitch*/, hipArray_const_t /*src*/,
                                size_t /*wOffset*/, size_t /*hOffset*/, size_t /*width*/,
                                size_t /*height*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DFromArrayAsync(void* /*dst*/, size_t /*dpitch*/, hipArray_const_t /*src*/,
                                     size_t /*wOffset*/, size_t /*hOffset*/, size_t /*width*/,
                                     size_t /*height*/, hipMemcpyKind /*kind*/,
                                     hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyAtoH(void* /*dst*/, hipArray_t /*srcArray*/, size_t /*srcOffset*/,
                         size_t /*count*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyHtoA(hipArray_t /*dstArray*/, size_t /*dstOffset*/, const void* /*srcHost*/,
                         size_t /*count*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyBatchAsync(void** /*dsts*/, void** /*srcs*/, size_t* /*sizes*/,
                               size_t /*count*/, hipMemcpyAttributes* /*attrs*/,
                               size_t* /*attrsIdxs*/, size_t /*numAttrs*/, size_t* /*failIdx*/,
                               hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy3DBatchAsync(size_t /*numOps*/, struct hipMemcpy3DBatchOp* /*opList*/,
                                 size_t* /*failIdx*/, unsigned long long /*flags*/,
                                 hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy3DPeer(hipMemcpy3DPeerParms* /*p*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipMemcpy3DPeerAsync(hipMemcpy3DPeerParms* /*p*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMipmappedArrayGetMemoryRequirements(
    hipArrayMemoryRequirements* /*memoryRequirements*/, hipMipmappedArray_t /*mipmap*/,
    hipDevice_t /*device*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Execution contexts (green contexts): contexts: CU partitioning is not modelled

hipError_t hipDeviceGetDevResource(hipDevice_t /*device*/, hipDevResource* /*resource*/,
                                   hipDevResourceType /*type*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDevSmResourceSplitByCount(hipDevResource* /*result*/, unsigned int* /*nbGroups*/,
                                        const hipDevResource* /*input*/,
                                        hipDevResource* /*remainder*/, unsigned int /*flags*/,
                                        unsigned int /*minCount*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDevSmResourceSplit(hipDevResource* /*result*/, unsigned int /*nbGroups*/,
                                 const hipDevResource* /*input*/, hipDevResource* /*remainder*/,
                                 unsigned int /*flags*/,
                                 hipDevSmResourceGroupParams* /*groupParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDevResourceGenerateDesc(hipDevResourceDesc_t* /*phDesc*/,
                                      hipDevResource* /*resources*/, unsigned int /*nbResources*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGreenCtxCreate(hipExecutionCtx_t* /*ctx*/, hipDevResourceDesc_t /*desc*/,
                             int /*device*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExecutionCtxDestroy(hipExecutionCtx_t /*ctx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipDeviceGetExecutionCtx(hipExecutionCtx_t* /*ctx*/, int /*device*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExecutionCtxStreamCreate(hipStream_t* /*stream*/, hipExecutionCtx_t /*greenctx*/,
                                       unsigned int /*flags*/, int /*priority*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExecutionCtxGetDevResource(hipExecutionCtx_t /*ctx*/, hipDevResource* /*resource*/,
                                         hipDevResourceType /*type*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExecutionCtxGetDevice(int* /*device*/, hipExecutionCtx_t /*ctx*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExecutionCtxGetId(hipExecutionCtx_t /*ctx*/, unsigned long long* /*ctxId*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamGetDevResource(hipStream_t /*hStream*/, hipDevResource* /*resource*/,
                                   hipDevResourceType /*type*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExecutionCtxRecordEvent(hipExecutionCtx_t /*ctx*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipExecutionCtxSynchronize(hipExecutionCtx_t /*ctx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipExecutionCtxWaitEvent(hipExecutionCtx_t /*ctx*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Contexts (deprecated on AMD): contexts: deprecated on AMD; not implemented

hipError_t hipCtxCreate(hipCtx_t* /*ctx*/, unsigned int /*flags*/, hipDevice_t /*device*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipCtxDestroy(hipCtx_t /*ctx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxPopCurrent(hipCtx_t* /*ctx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxPushCurrent(hipCtx_t /*ctx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxSetCurrent(hipCtx_t /*ctx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxGetCurrent(hipCtx_t* /*ctx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxGetDevice(hipDevice_t* /*device*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxGetApiVersion(hipCtx_t /*ctx*/, unsigned int* /*apiVersion*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipCtxGetCacheConfig(hipFuncCache_t* /*cacheConfig*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxSetCacheConfig(hipFuncCache_t /*cacheConfig*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig /*config*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig* /*pConfig*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxSynchronize(void) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxGetFlags(unsigned int* /*flags*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipCtxEnablePeerAccess(hipCtx_t /*peerCtx*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipCtxDisablePeerAccess(hipCtx_t /*peerCtx*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipDevicePrimaryCtxGetState(hipDevice_t /*dev*/, unsigned int* /*flags*/,
                                       int* /*active*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDevicePrimaryCtxRelease(hipDevice_t /*dev*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipDevicePrimaryCtxRetain(hipCtx_t* /*pctx*/, hipDevice_t /*dev*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDevicePrimaryCtxReset(hipDevice_t /*dev*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t /*dev*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Modules, libraries and kernels: fat-binary loading, function enumeration, the library API, the JIT linker
// and texture references are not implemented; code objects load and run (hip_kernel_c_api.cc)

hipError_t hipModuleLoadFatBinary(hipModule_t* /*module*/, const void* /*fatbin*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipModuleGetFunctionCount(unsigned int* /*count*/, hipModule_t /*mod*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipModuleEnumerateFunctions(hipFunction_t* /*functions*/, unsigned int /*numFunctions*/,
                                       hipModule_t /*mod*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipKernelGetAttribute(int* /*pi*/, hipFunction_attribute /*attrib*/,
                                 hipKernel_t /*kernel*/, hipDevice_t /*dev*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLibraryLoadData(hipLibrary_t* /*library*/, const void* /*code*/,
                              hipJitOption* /*jitOptions*/, void** /*jitOptionsValues*/,
                              unsigned int /*numJitOptions*/, hipLibraryOption* /*libraryOptions*/,
                              void** /*libraryOptionValues*/, unsigned int /*numLibraryOptions*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLibraryLoadFromFile(hipLibrary_t* /*library*/, const char* /*fileName*/,
                                  hipJitOption* /*jitOptions*/, void** /*jitOptionsValues*/,
                                  unsigned int /*numJitOptions*/,
                                  hipLibraryOption* /*libraryOptions*/,
                                  void** /*libraryOptionValues*/,
                                  unsigned int /*numLibraryOptions*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLibraryUnload(hipLibrary_t /*library*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipLibraryGetKernel(hipKernel_t* /*pKernel*/, hipLibrary_t /*library*/,
                               const char* /*name*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLibraryGetKernelCount(unsigned int* /*count*/, hipLibrary_t /*library*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLibraryGetGlobal(void** /*dptr*/, size_t* /*bytes*/, hipLibrary_t /*library*/,
                               const char* /*name*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLibraryGetManaged(void** /*dptr*/, size_t* /*bytes*/, hipLibrary_t /*library*/,
                                const char* /*name*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLibraryEnumerateKernels(hipKernel_t* /*kernels*/, unsigned int /*numKernels*/,
                                      hipLibrary_t /*library*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipKernelGetLibrary(hipLibrary_t* /*library*/, hipKernel_t /*kernel*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipKernelGetName(const char** /*name*/, hipKernel_t /*kernel*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipKernelGetParamInfo(hipKernel_t /*kernel*/, size_t /*paramIndex*/,
                                 size_t* /*paramOffset*/, size_t* /*paramSize*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetFuncBySymbol(hipFunction_t* /*functionPtr*/, const void* /*symbolPtr*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetDriverEntryPoint(const char* /*symbol*/, void** /*funcPtr*/,
                                  unsigned long long /*flags*/,
                                  hipDriverEntryPointQueryResult* /*driverStatus*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipModuleGetTexRef(textureReference** /*texRef*/, hipModule_t /*hmod*/,
                              const char* /*name*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLinkAddData(hipLinkState_t /*state*/, hipJitInputType /*type*/, void* /*data*/,
                          size_t /*size*/, const char* /*name*/, unsigned int /*numOptions*/,
                          hipJitOption* /*options*/, void** /*optionValues*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLinkAddFile(hipLinkState_t /*state*/, hipJitInputType /*type*/, const char* /*path*/,
                          unsigned int /*numOptions*/, hipJitOption* /*options*/,
                          void** /*optionValues*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLinkComplete(hipLinkState_t /*state*/, void** /*hipBinOut*/, size_t* /*sizeOut*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLinkCreate(unsigned int /*numOptions*/, hipJitOption* /*options*/,
                         void** /*optionValues*/, hipLinkState_t* /*stateOut*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLinkDestroy(hipLinkState_t /*state*/) { HIPMEM_UNSUPPORTED; }

// --- Kernel launch: launches with a launch-attribute list (clusters, hipLaunchConfig_t) are not implemented;
// hipLaunchKernel and hipModuleLaunchKernel are

hipError_t hipLaunchKernelExC(const hipLaunchConfig_t* /*config*/, const void* /*fPtr*/,
                              void** /*args*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvLaunchKernelEx(const HIP_LAUNCH_CONFIG* /*config*/, hipFunction_t /*f*/,
                                void** /*params*/, void** /*extra*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Occupancy: cluster occupancy and available dynamic LDS are not implemented; the block occupancy queries are

hipError_t hipOccupancyAvailableDynamicSMemPerBlock(size_t* /*dynamicSmemSize*/, const void* /*f*/,
                                                    int /*numBlocks*/, int /*blockSize*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipOccupancyMaxActiveClusters(int* /*numClusters*/, const void* /*f*/,
                                         const hipLaunchConfig_t* /*config*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipOccupancyMaxPotentialClusterSize(int* /*clusterSize*/, const void* /*f*/,
                                               const hipLaunchConfig_t* /*config*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Profiler (deprecated): profiler: deprecated upstream, which also returns hipErrorNotSupported

hipError_t hipProfilerStart(void) { HIPMEM_UNSUPPORTED; }
hipError_t hipProfilerStop(void) { HIPMEM_UNSUPPORTED; }

// --- The pre-CUDA-10 launch ABI (hipConfigureCall, hipSetupArgument, hipLaunchByPtr; clang emits
// __hipPushCallConfiguration instead) and hipDrvMemcpy2DUnaligned: not implemented

hipError_t hipConfigureCall(dim3 /*gridDim*/, dim3 /*blockDim*/, size_t /*sharedMem*/,
                            hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipSetupArgument(const void* /*arg*/, size_t /*size*/, size_t /*offset*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLaunchByPtr(const void* /*func*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipDrvMemcpy2DUnaligned(const hip_Memcpy2D* /*pCopy*/) { HIPMEM_UNSUPPORTED; }

// --- Textures: textures/arrays: no image support in hipmem

hipError_t hipCreateTextureObject(hipTextureObject_t* /*pTexObject*/,
                                  const hipResourceDesc* /*pResDesc*/,
                                  const hipTextureDesc* /*pTexDesc*/,
                                  const struct hipResourceViewDesc* /*pResViewDesc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDestroyTextureObject(hipTextureObject_t /*textureObject*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipGetChannelDesc(hipChannelFormatDesc* /*desc*/, hipArray_const_t /*array*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* /*pResDesc*/,
                                           hipTextureObject_t /*textureObject*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetTextureObjectResourceViewDesc(struct hipResourceViewDesc* /*pResViewDesc*/,
                                               hipTextureObject_t /*textureObject*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* /*pTexDesc*/,
                                          hipTextureObject_t /*textureObject*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexObjectCreate(hipTextureObject_t* /*pTexObject*/,
                              const HIP_RESOURCE_DESC* /*pResDesc*/,
                              const HIP_TEXTURE_DESC* /*pTexDesc*/,
                              const HIP_RESOURCE_VIEW_DESC* /*pResViewDesc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexObjectDestroy(hipTextureObject_t /*texObject*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC* /*pResDesc*/,
                                       hipTextureObject_t /*texObject*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC* /*pResViewDesc*/,
                                           hipTextureObject_t /*texObject*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC* /*pTexDesc*/,
                                      hipTextureObject_t /*texObject*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMallocMipmappedArray(hipMipmappedArray_t* /*mipmappedArray*/,
                                   const struct hipChannelFormatDesc* /*desc*/,
                                   struct hipExtent /*extent*/, unsigned int /*numLevels*/,
                                   unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipFreeMipmappedArray(hipMipmappedArray_t /*mipmappedArray*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipGetMipmappedArrayLevel(hipArray_t* /*levelArray*/,
                                     hipMipmappedArray_const_t /*mipmappedArray*/,
                                     unsigned int /*level*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t* /*pHandle*/,
                                   HIP_ARRAY3D_DESCRIPTOR* /*pMipmappedArrayDesc*/,
                                   unsigned int /*numMipmapLevels*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t /*hMipmappedArray*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipMipmappedArrayGetLevel(hipArray_t* /*pLevelArray*/,
                                     hipMipmappedArray_t /*hMipMappedArray*/,
                                     unsigned int /*level*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Texture references (deprecated): textures/arrays: no image support in hipmem

hipError_t hipBindTextureToMipmappedArray(const textureReference* /*tex*/,
                                          hipMipmappedArray_const_t /*mipmappedArray*/,
                                          const hipChannelFormatDesc* /*desc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetTextureReference(const textureReference** /*texref*/, const void* /*symbol*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetBorderColor(float* /*pBorderColor*/, const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetArray(hipArray_t* /*pArray*/, const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetAddressMode(textureReference* /*texRef*/, int /*dim*/,
                                   enum hipTextureAddressMode /*am*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetArray(textureReference* /*tex*/, hipArray_const_t /*array*/,
                             unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetFilterMode(textureReference* /*texRef*/, enum hipTextureFilterMode /*fm*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetFlags(textureReference* /*texRef*/, unsigned int /*Flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetFormat(textureReference* /*texRef*/, hipArray_Format /*fmt*/,
                              int /*NumPackedComponents*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipBindTexture(size_t* /*offset*/, const textureReference* /*tex*/,
                          const void* /*devPtr*/, const hipChannelFormatDesc* /*desc*/,
                          size_t /*size*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipBindTexture2D(size_t* /*offset*/, const textureReference* /*tex*/,
                            const void* /*devPtr*/, const hipChannelFormatDesc* /*desc*/,
                            size_t /*width*/, size_t /*height*/, size_t /*pitch*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipBindTextureToArray(const textureReference* /*tex*/, hipArray_const_t /*array*/,
                                 const hipChannelFormatDesc* /*desc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetTextureAlignmentOffset(size_t* /*offset*/, const textureReference* /*texref*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipUnbindTexture(const textureReference* /*tex*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipTexRefGetAddress(hipDeviceptr_t* /*dev_ptr*/, const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetAddressMode(enum hipTextureAddressMode* /*pam*/,
                                   const textureReference* /*texRef*/, int /*dim*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetFilterMode(enum hipTextureFilterMode* /*pfm*/,
                                  const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetFlags(unsigned int* /*pFlags*/, const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetFormat(hipArray_Format* /*pFormat*/, int* /*pNumChannels*/,
                              const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetMaxAnisotropy(int* /*pmaxAnsio*/, const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetMipmapFilterMode(enum hipTextureFilterMode* /*pfm*/,
                                        const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetMipmapLevelBias(float* /*pbias*/, const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetMipmapLevelClamp(float* /*pminMipmapLevelClamp*/,
                                        float* /*pmaxMipmapLevelClamp*/,
                                        const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefGetMipMappedArray(hipMipmappedArray_t* /*pArray*/,
                                      const textureReference* /*texRef*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetAddress(size_t* /*ByteOffset*/, textureReference* /*texRef*/,
                               hipDeviceptr_t /*dptr*/, size_t /*bytes*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetAddress2D(textureReference* /*texRef*/, const HIP_ARRAY_DESCRIPTOR* /*desc*/,
                                 hipDeviceptr_t /*dptr*/, size_t /*Pitch*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetMaxAnisotropy(textureReference* /*texRef*/, unsigned int /*maxAniso*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetBorderColor(textureReference* /*texRef*/, float* /*pBorderColor*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetMipmapFilterMode(textureReference* /*texRef*/,
                                        enum hipTextureFilterMode /*fm*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetMipmapLevelBias(textureReference* /*texRef*/, float /*bias*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetMipmapLevelClamp(textureReference* /*texRef*/, float /*minMipMapLevelClamp*/,
                                        float /*maxMipMapLevelClamp*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipTexRefSetMipmappedArray(textureReference* /*texRef*/,
                                      struct hipMipmappedArray* /*mipmappedArray*/,
                                      unsigned int /*Flags*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Graphs: graphs: not supported

hipError_t hipStreamBeginCapture(hipStream_t /*stream*/, hipStreamCaptureMode /*mode*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamBeginCaptureToGraph(hipStream_t /*stream*/, hipGraph_t /*graph*/,
                                        const hipGraphNode_t* /*dependencies*/,
                                        const hipGraphEdgeData* /*dependencyData*/,
                                        size_t /*numDependencies*/, hipStreamCaptureMode /*mode*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamEndCapture(hipStream_t /*stream*/, hipGraph_t* /*pGraph*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamGetCaptureInfo(hipStream_t /*stream*/,
                                   hipStreamCaptureStatus* /*pCaptureStatus*/,
                                   unsigned long long* /*pId*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamGetCaptureInfo_v2(hipStream_t /*stream*/,
                                      hipStreamCaptureStatus* /*captureStatus_out*/,
                                      unsigned long long* /*id_out*/, hipGraph_t* /*graph_out*/,
                                      const hipGraphNode_t** /*dependencies_out*/,
                                      size_t* /*numDependencies_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamIsCapturing(hipStream_t /*stream*/,
                                hipStreamCaptureStatus* /*pCaptureStatus*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamUpdateCaptureDependencies(hipStream_t /*stream*/,
                                              hipGraphNode_t* /*dependencies*/,
                                              size_t /*numDependencies*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode* /*mode*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphCreate(hipGraph_t* /*pGraph*/, unsigned int /*flags*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipGraphDestroy(hipGraph_t /*graph*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipGraphAddDependencies(hipGraph_t /*graph*/, const hipGraphNode_t* /*from*/,
                                   const hipGraphNode_t* /*to*/, size_t /*numDependencies*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphRemoveDependencies(hipGraph_t /*graph*/, const hipGraphNode_t* /*from*/,
                                      const hipGraphNode_t* /*to*/, size_t /*numDependencies*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphGetEdges(hipGraph_t /*graph*/, hipGraphNode_t* /*from*/, hipGraphNode_t* /*to*/,
                            size_t* /*numEdges*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphGetNodes(hipGraph_t /*graph*/, hipGraphNode_t* /*nodes*/, size_t* /*numNodes*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphGetRootNodes(hipGraph_t /*graph*/, hipGraphNode_t* /*pRootNodes*/,
                                size_t* /*pNumRootNodes*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphNodeGetDependencies(hipGraphNode_t /*node*/, hipGraphNode_t* /*pDependencies*/,
                                       size_t* /*pNumDependencies*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t /*node*/,
                                         hipGraphNode_t* /*pDependentNodes*/,
                                         size_t* /*pNumDependentNodes*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphNodeGetType(hipGraphNode_t /*node*/, hipGraphNodeType* /*pType*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphDestroyNode(hipGraphNode_t /*node*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipGraphClone(hipGraph_t* /*pGraphClone*/, hipGraph_t /*originalGraph*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphNodeFindInClone(hipGraphNode_t* /*pNode*/, hipGraphNode_t /*originalNode*/,
                                   hipGraph_t /*clonedGraph*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphInstantiate(hipGraphExec_t* /*pGraphExec*/, hipGraph_t /*graph*/,
                               hipGraphNode_t* /*pErrorNode*/, char* /*pLogBuffer*/,
                               size_t /*bufferSize*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* /*pGraphExec*/, hipGraph_t /*graph*/,
                                        unsigned long long /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphInstantiateWithParams(hipGraphExec_t* /*pGraphExec*/, hipGraph_t /*graph*/,
                                         hipGraphInstantiateParams* /*instantiateParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphLaunch(hipGraphExec_t /*graphExec*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphUpload(hipGraphExec_t /*graphExec*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                           const hipGraphNode_t* /*pDependencies*/, size_t /*numDependencies*/,
                           hipGraphNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecGetFlags(hipGraphExec_t /*graphExec*/, unsigned long long* /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphNodeSetParams(hipGraphNode_t /*node*/, hipGraphNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecNodeSetParams(hipGraphExec_t /*graphExec*/, hipGraphNode_t /*node*/,
                                     hipGraphNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecDestroy(hipGraphExec_t /*graphExec*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipGraphExecUpdate(hipGraphExec_t /*hGraphExec*/, hipGraph_t /*hGraph*/,
                              hipGraphNode_t* /*hErrorNode_out*/,
                              hipGraphExecUpdateResult* /*updateResult_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddKernelNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                 const hipGraphNode_t* /*pDependencies*/,
                                 size_t /*numDependencies*/,
                                 const hipKernelNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t /*node*/,
                                       hipKernelNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t /*node*/,
                                       const hipKernelNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*node*/,
                                           const hipKernelNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvGraphAddMemcpyNode(hipGraphNode_t* /*phGraphNode*/, hipGraph_t /*hGraph*/,
                                    const hipGraphNode_t* /*dependencies*/,
                                    size_t /*numDependencies*/, const HIP_MEMCPY3D* /*copyParams*/,
                                    hipCtx_t /*ctx*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddMemcpyNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                 const hipGraphNode_t* /*pDependencies*/,
                                 size_t /*numDependencies*/,
                                 const hipMemcpy3DParms* /*pCopyParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemcpyNodeGetParams(hipGraphNode_t /*node*/, hipMemcpy3DParms* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t /*node*/,
                                       const hipMemcpy3DParms* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphKernelNodeSetAttribute(hipGraphNode_t /*hNode*/, hipKernelNodeAttrID /*attr*/,
                                          const hipKernelNodeAttrValue* /*value*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphKernelNodeGetAttribute(hipGraphNode_t /*hNode*/, hipKernelNodeAttrID /*attr*/,
                                          hipKernelNodeAttrValue* /*value*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*node*/,
                                           hipMemcpy3DParms* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                   const hipGraphNode_t* /*pDependencies*/,
                                   size_t /*numDependencies*/, void* /*dst*/, const void* /*src*/,
                                   size_t /*count*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemcpyNodeSetParams1D(hipGraphNode_t /*node*/, void* /*dst*/,
                                         const void* /*src*/, size_t /*count*/,
                                         hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*node*/,
                                             void* /*dst*/, const void* /*src*/, size_t /*count*/,
                                             hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddMemcpyNodeFromSymbol(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                           const hipGraphNode_t* /*pDependencies*/,
                                           size_t /*numDependencies*/, void* /*dst*/,
                                           const void* /*symbol*/, size_t /*count*/,
                                           size_t /*offset*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemcpyNodeSetParamsFromSymbol(hipGraphNode_t /*node*/, void* /*dst*/,
                                                 const void* /*symbol*/, size_t /*count*/,
                                                 size_t /*offset*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecMemcpyNodeSetParamsFromSymbol(hipGraphExec_t /*hGraphExec*/,
                                                     hipGraphNode_t /*node*/, void* /*dst*/,
                                                     const void* /*symbol*/, size_t /*count*/,
                                                     size_t /*offset*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddMemcpyNodeToSymbol(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                         const hipGraphNode_t* /*pDependencies*/,
                                         size_t /*numDependencies*/, const void* /*symbol*/,
                                         const void* /*src*/, size_t /*count*/, size_t /*offset*/,
                                         hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemcpyNodeSetParamsToSymbol(hipGraphNode_t /*node*/, const void* /*symbol*/,
                                               const void* /*src*/, size_t /*count*/,
                                               size_t /*offset*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecMemcpyNodeSetParamsToSymbol(hipGraphExec_t /*hGraphExec*/,
                                                   hipGraphNode_t /*node*/, const void* /*symbol*/,
                                                   const void* /*src*/, size_t /*count*/,
                                                   size_t /*offset*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddMemsetNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                 const hipGraphNode_t* /*pDependencies*/,
                                 size_t /*numDependencies*/,
                                 const hipMemsetParams* /*pMemsetParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t /*node*/, hipMemsetParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t /*node*/,
                                       const hipMemsetParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*node*/,
                                           const hipMemsetParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddHostNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                               const hipGraphNode_t* /*pDependencies*/, size_t /*numDependencies*/,
                               const hipHostNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphHostNodeGetParams(hipGraphNode_t /*node*/, hipHostNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphHostNodeSetParams(hipGraphNode_t /*node*/,
                                     const hipHostNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecHostNodeSetParams(hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*node*/,
                                         const hipHostNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddChildGraphNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                     const hipGraphNode_t* /*pDependencies*/,
                                     size_t /*numDependencies*/, hipGraph_t /*childGraph*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphChildGraphNodeGetGraph(hipGraphNode_t /*node*/, hipGraph_t* /*pGraph*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecChildGraphNodeSetParams(hipGraphExec_t /*hGraphExec*/,
                                               hipGraphNode_t /*node*/, hipGraph_t /*childGraph*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddEmptyNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                const hipGraphNode_t* /*pDependencies*/,
                                size_t /*numDependencies*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddEventRecordNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                      const hipGraphNode_t* /*pDependencies*/,
                                      size_t /*numDependencies*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphEventRecordNodeGetEvent(hipGraphNode_t /*node*/, hipEvent_t* /*event_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphEventRecordNodeSetEvent(hipGraphNode_t /*node*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecEventRecordNodeSetEvent(hipGraphExec_t /*hGraphExec*/,
                                               hipGraphNode_t /*hNode*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddEventWaitNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                    const hipGraphNode_t* /*pDependencies*/,
                                    size_t /*numDependencies*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphEventWaitNodeGetEvent(hipGraphNode_t /*node*/, hipEvent_t* /*event_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphEventWaitNodeSetEvent(hipGraphNode_t /*node*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecEventWaitNodeSetEvent(hipGraphExec_t /*hGraphExec*/,
                                             hipGraphNode_t /*hNode*/, hipEvent_t /*event*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddMemAllocNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                   const hipGraphNode_t* /*pDependencies*/,
                                   size_t /*numDependencies*/,
                                   hipMemAllocNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemAllocNodeGetParams(hipGraphNode_t /*node*/,
                                         hipMemAllocNodeParams* /*pNodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddMemFreeNode(hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/,
                                  const hipGraphNode_t* /*pDependencies*/,
                                  size_t /*numDependencies*/, void* /*dev_ptr*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphMemFreeNodeGetParams(hipGraphNode_t /*node*/, void* /*dev_ptr*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDeviceGetGraphMemAttribute(int /*device*/, hipGraphMemAttributeType /*attr*/,
                                         void* /*value*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDeviceSetGraphMemAttribute(int /*device*/, hipGraphMemAttributeType /*attr*/,
                                         void* /*value*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDeviceGraphMemTrim(int /*device*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipUserObjectCreate(hipUserObject_t* /*object_out*/, void* /*ptr*/,
                               hipHostFn_t /*destroy*/, unsigned int /*initialRefcount*/,
                               unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipUserObjectRelease(hipUserObject_t /*object*/, unsigned int /*count*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipUserObjectRetain(hipUserObject_t /*object*/, unsigned int /*count*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphRetainUserObject(hipGraph_t /*graph*/, hipUserObject_t /*object*/,
                                    unsigned int /*count*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphReleaseUserObject(hipGraph_t /*graph*/, hipUserObject_t /*object*/,
                                     unsigned int /*count*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphDebugDotPrint(hipGraph_t /*graph*/, const char* /*path*/,
                                 unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphKernelNodeCopyAttributes(hipGraphNode_t /*hSrc*/, hipGraphNode_t /*hDst*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphNodeSetEnabled(hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*hNode*/,
                                  unsigned int /*isEnabled*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphNodeGetEnabled(hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*hNode*/,
                                  unsigned int* /*isEnabled*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddExternalSemaphoresWaitNode(
    hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/, const hipGraphNode_t* /*pDependencies*/,
    size_t /*numDependencies*/, const hipExternalSemaphoreWaitNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphAddExternalSemaphoresSignalNode(
    hipGraphNode_t* /*pGraphNode*/, hipGraph_t /*graph*/, const hipGraphNode_t* /*pDependencies*/,
    size_t /*numDependencies*/, const hipExternalSemaphoreSignalNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExternalSemaphoresSignalNodeSetParams(
    hipGraphNode_t /*hNode*/, const hipExternalSemaphoreSignalNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExternalSemaphoresWaitNodeSetParams(
    hipGraphNode_t /*hNode*/, const hipExternalSemaphoreWaitNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExternalSemaphoresSignalNodeGetParams(
    hipGraphNode_t /*hNode*/, hipExternalSemaphoreSignalNodeParams* /*params_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExternalSemaphoresWaitNodeGetParams(
    hipGraphNode_t /*hNode*/, hipExternalSemaphoreWaitNodeParams* /*params_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecExternalSemaphoresSignalNodeSetParams(
    hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*hNode*/,
    const hipExternalSemaphoreSignalNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphExecExternalSemaphoresWaitNodeSetParams(
    hipGraphExec_t /*hGraphExec*/, hipGraphNode_t /*hNode*/,
    const hipExternalSemaphoreWaitNodeParams* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvGraphMemcpyNodeGetParams(hipGraphNode_t /*hNode*/, HIP_MEMCPY3D* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvGraphMemcpyNodeSetParams(hipGraphNode_t /*hNode*/,
                                          const HIP_MEMCPY3D* /*nodeParams*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvGraphAddMemsetNode(hipGraphNode_t* /*phGraphNode*/, hipGraph_t /*hGraph*/,
                                    const hipGraphNode_t* /*dependencies*/,
                                    size_t /*numDependencies*/,
                                    const hipMemsetParams* /*memsetParams*/, hipCtx_t /*ctx*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvGraphAddMemFreeNode(hipGraphNode_t* /*phGraphNode*/, hipGraph_t /*hGraph*/,
                                     const hipGraphNode_t* /*dependencies*/,
                                     size_t /*numDependencies*/, hipDeviceptr_t /*dptr*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvGraphExecMemcpyNodeSetParams(hipGraphExec_t /*hGraphExec*/,
                                              hipGraphNode_t /*hNode*/,
                                              const HIP_MEMCPY3D* /*copyParams*/,
                                              hipCtx_t /*ctx*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDrvGraphExecMemsetNodeSetParams(hipGraphExec_t /*hGraphExec*/,
                                              hipGraphNode_t /*hNode*/,
                                              const hipMemsetParams* /*memsetParams*/,
                                              hipCtx_t /*ctx*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Virtual memory management: VMM: not implemented

hipError_t hipMemAddressFree(void* /*devPtr*/, size_t /*size*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipMemAddressReserve(void** /*ptr*/, size_t /*size*/, size_t /*alignment*/,
                                void* /*addr*/, unsigned long long /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemCreate(hipMemGenericAllocationHandle_t* /*handle*/, size_t /*size*/,
                        const hipMemAllocationProp* /*prop*/, unsigned long long /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemExportToShareableHandle(void* /*shareableHandle*/,
                                         hipMemGenericAllocationHandle_t /*handle*/,
                                         hipMemAllocationHandleType /*handleType*/,
                                         unsigned long long /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemGetAccess(unsigned long long* /*flags*/, const hipMemLocation* /*location*/,
                           void* /*ptr*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemGetAllocationGranularity(size_t* /*granularity*/,
                                          const hipMemAllocationProp* /*prop*/,
                                          hipMemAllocationGranularity_flags /*option*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemGetAllocationPropertiesFromHandle(hipMemAllocationProp* /*prop*/,
                                                   hipMemGenericAllocationHandle_t /*handle*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t* /*handle*/,
                                           void* /*osHandle*/,
                                           hipMemAllocationHandleType /*shHandleType*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemMap(void* /*ptr*/, size_t /*size*/, size_t /*offset*/,
                     hipMemGenericAllocationHandle_t /*handle*/, unsigned long long /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemMapArrayAsync(hipArrayMapInfo* /*mapInfoList*/, unsigned int /*count*/,
                               hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemRelease(hipMemGenericAllocationHandle_t /*handle*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t* /*handle*/,
                                        void* /*addr*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemSetAccess(void* /*ptr*/, size_t /*size*/, const hipMemAccessDesc* /*desc*/,
                           size_t /*count*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemUnmap(void* /*ptr*/, size_t /*size*/) { HIPMEM_UNSUPPORTED; }

// --- Graphics interoperability: interop: no graphics driver

hipError_t hipGraphicsMapResources(int /*count*/, hipGraphicsResource_t* /*resources*/,
                                   hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphicsSubResourceGetMappedArray(hipArray_t* /*array*/,
                                                hipGraphicsResource_t /*resource*/,
                                                unsigned int /*arrayIndex*/,
                                                unsigned int /*mipLevel*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphicsResourceGetMappedPointer(void** /*devPtr*/, size_t* /*size*/,
                                               hipGraphicsResource_t /*resource*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphicsUnmapResources(int /*count*/, hipGraphicsResource_t* /*resources*/,
                                     hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphicsUnregisterResource(hipGraphicsResource_t /*resource*/) { HIPMEM_UNSUPPORTED; }

// --- Runtime logging: not implemented (hipmem logs through base/trace and HIPMEM_TRACE)

hipError_t hipExtEnableLogging(void) { HIPMEM_UNSUPPORTED; }
hipError_t hipExtDisableLogging(void) { HIPMEM_UNSUPPORTED; }
hipError_t hipExtSetLoggingParams(size_t /*log_level*/, size_t /*log_size*/, size_t /*log_mask*/) {
  HIPMEM_UNSUPPORTED;
}

// --- Per-thread default stream: the _spt entry points (code compiled with -fgpu-default-stream=per-thread) are not
// implemented; hipStreamPerThread is

hipError_t hipMemcpyToSymbol_spt(const void* /*symbol*/, const void* /*src*/, size_t /*sizeBytes*/,
                                 size_t /*offset*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyFromSymbol_spt(void* /*dst*/, const void* /*symbol*/, size_t /*sizeBytes*/,
                                   size_t /*offset*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2D_spt(void* /*dst*/, size_t /*dpitch*/, const void* /*src*/, size_t /*spitch*/,
                           size_t /*width*/, size_t /*height*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DFromArray_spt(void* /*dst*/, size_t /*dpitch*/, hipArray_const_t /*src*/,
                                    size_t /*wOffset*/, size_t /*hOffset*/, size_t /*width*/,
                                    size_t /*height*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy3D_spt(const struct hipMemcpy3DParms* /*p*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipMemset_spt(void* /*dst*/, int /*value*/, size_t /*sizeBytes*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipMemsetAsync_spt(void* /*dst*/, int /*value*/, size_t /*sizeBytes*/,
                              hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemset2D_spt(void* /*dst*/, size_t /*pitch*/, int /*value*/, size_t /*width*/,
                           size_t /*height*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemset2DAsync_spt(void* /*dst*/, size_t /*pitch*/, int /*value*/, size_t /*width*/,
                                size_t /*height*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemset3DAsync_spt(hipPitchedPtr /*pitchedDevPtr*/, int /*value*/,
                                hipExtent /*extent*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemset3D_spt(hipPitchedPtr /*pitchedDevPtr*/, int /*value*/, hipExtent /*extent*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyAsync_spt(void* /*dst*/, const void* /*src*/, size_t /*sizeBytes*/,
                              hipMemcpyKind /*kind*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy3DAsync_spt(const hipMemcpy3DParms* /*p*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DAsync_spt(void* /*dst*/, size_t /*dpitch*/, const void* /*src*/,
                                size_t /*spitch*/, size_t /*width*/, size_t /*height*/,
                                hipMemcpyKind /*kind*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyFromSymbolAsync_spt(void* /*dst*/, const void* /*symbol*/, size_t /*sizeBytes*/,
                                        size_t /*offset*/, hipMemcpyKind /*kind*/,
                                        hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyToSymbolAsync_spt(const void* /*symbol*/, const void* /*src*/,
                                      size_t /*sizeBytes*/, size_t /*offset*/,
                                      hipMemcpyKind /*kind*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpyFromArray_spt(void* /*dst*/, hipArray_const_t /*src*/, size_t /*wOffsetSrc*/,
                                  size_t /*hOffset*/, size_t /*count*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DToArray_spt(hipArray_t /*dst*/, size_t /*wOffset*/, size_t /*hOffset*/,
                                  const void* /*src*/, size_t /*spitch*/, size_t /*width*/,
                                  size_t /*height*/, hipMemcpyKind /*kind*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DFromArrayAsync_spt(void* /*dst*/, size_t /*dpitch*/, hipArray_const_t /*src*/,
                                         size_t /*wOffsetSrc*/, size_t /*hOffsetSrc*/,
                                         size_t /*width*/, size_t /*height*/,
                                         hipMemcpyKind /*kind*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipMemcpy2DToArrayAsync_spt(hipArray_t /*dst*/, size_t /*wOffset*/, size_t /*hOffset*/,
                                       const void* /*src*/, size_t /*spitch*/, size_t /*width*/,
                                       size_t /*height*/, hipMemcpyKind /*kind*/,
                                       hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamQuery_spt(hipStream_t /*stream*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipStreamSynchronize_spt(hipStream_t /*stream*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipStreamGetPriority_spt(hipStream_t /*stream*/, int* /*priority*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamWaitEvent_spt(hipStream_t /*stream*/, hipEvent_t /*event*/,
                                  unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamGetFlags_spt(hipStream_t /*stream*/, unsigned int* /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamAddCallback_spt(hipStream_t /*stream*/, hipStreamCallback_t /*callback*/,
                                    void* /*userData*/, unsigned int /*flags*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipEventRecord_spt(hipEvent_t /*event*/, hipStream_t /*stream*/) { HIPMEM_UNSUPPORTED; }
hipError_t hipLaunchKernel_spt(const void* /*function_address*/, dim3 /*numBlocks*/,
                               dim3 /*dimBlocks*/, void** /*args*/, size_t /*sharedMemBytes*/,
                               hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGraphLaunch_spt(hipGraphExec_t /*graphExec*/, hipStream_t /*stream*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamBeginCapture_spt(hipStream_t /*stream*/, hipStreamCaptureMode /*mode*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamEndCapture_spt(hipStream_t /*stream*/, hipGraph_t* /*pGraph*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamIsCapturing_spt(hipStream_t /*stream*/,
                                    hipStreamCaptureStatus* /*pCaptureStatus*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamGetCaptureInfo_spt(hipStream_t /*stream*/,
                                       hipStreamCaptureStatus* /*pCaptureStatus*/,
                                       unsigned long long* /*pId*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipStreamGetCaptureInfo_v2_spt(hipStream_t /*stream*/,
                                          hipStreamCaptureStatus* /*captureStatus_out*/,
                                          unsigned long long* /*id_out*/, hipGraph_t* /*graph_out*/,
                                          const hipGraphNode_t** /*dependencies_out*/,
                                          size_t* /*numDependencies_out*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipLaunchHostFunc_spt(hipStream_t /*stream*/, hipHostFn_t /*fn*/, void* /*userData*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetDriverEntryPoint_spt(const char* /*symbol*/, void** /*funcPtr*/,
                                      unsigned long long /*flags*/,
                                      hipDriverEntryPointQueryResult* /*status*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipGetProcAddress_spt(const char* /*symbol*/, void** /*pfn*/, int /*hipVersion*/,
                                 uint64_t /*flags*/,
                                 hipDriverProcAddressQueryResult* /*symbolStatus*/) {
  HIPMEM_UNSUPPORTED;
}

}  // extern "C"

// --- Surfaces: no image support in hipmem. C++ linkage, as upstream's header declares them (outside its
// extern "C" block).

hipError_t hipCreateSurfaceObject(hipSurfaceObject_t* /*pSurfObject*/,
                                  const hipResourceDesc* /*pResDesc*/) {
  HIPMEM_UNSUPPORTED;
}
hipError_t hipDestroySurfaceObject(hipSurfaceObject_t /*surfaceObject*/) { HIPMEM_UNSUPPORTED; }
