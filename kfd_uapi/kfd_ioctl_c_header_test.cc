// Proves the plain-C uapi header clients include as "hsakmt/linux/kfd_ioctl.h" (kfd_uapi/include/) agrees
// with hipmem's typed C++ ABI (kfd_uapi/kfd_ioctl.h): both claim KFD 1.17, so every request number, struct
// size, field offset and flag the C++ side has must match exactly. Debian's <linux/kfd_ioctl.h> (1.11) is
// checked in kfd_ioctl_test.cc; it cannot share this translation unit (same include guard).
#include "kfd_uapi/kfd_ioctl.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "hsakmt/linux/kfd_ioctl.h"

namespace hipmem::kfd_uapi {
namespace {

// Same size, and each named field at the same offset with the same width, in both structs.
#define EXPECT_FIELD(ours, theirs, field)                                          \
  do {                                                                             \
    EXPECT_EQ(offsetof(ours, field), offsetof(theirs, field)) << #ours "." #field; \
    EXPECT_EQ(sizeof(ours::field), sizeof(theirs::field)) << #ours "." #field;     \
  } while (false)

TEST(KfdCHeaderTest, VersionAndCommandRangeMatch) {
  EXPECT_EQ(kIoctlMajorVersion, uint32_t{KFD_IOCTL_MAJOR_VERSION});
  EXPECT_EQ(kIoctlMinorVersion, uint32_t{KFD_IOCTL_MINOR_VERSION});
  EXPECT_EQ(kIoctlType, static_cast<uint32_t>(AMDKFD_IOCTL_BASE));
  EXPECT_EQ(kCommandStart, static_cast<uint32_t>(AMDKFD_COMMAND_START));
  EXPECT_EQ(kCommandEnd, static_cast<uint32_t>(AMDKFD_COMMAND_END));
}

TEST(KfdCHeaderTest, RequestNumbersMatch) {
  struct Row {
    unsigned long ours;
    unsigned long theirs;
    const char* name;
  };
  const Row kRows[] = {
      {kGetVersion.request(), AMDKFD_IOC_GET_VERSION, "GET_VERSION"},
      {kCreateQueue.request(), AMDKFD_IOC_CREATE_QUEUE, "CREATE_QUEUE"},
      {kDestroyQueue.request(), AMDKFD_IOC_DESTROY_QUEUE, "DESTROY_QUEUE"},
      {kUpdateQueue.request(), AMDKFD_IOC_UPDATE_QUEUE, "UPDATE_QUEUE"},
      {kCreateEvent.request(), AMDKFD_IOC_CREATE_EVENT, "CREATE_EVENT"},
      {kDestroyEvent.request(), AMDKFD_IOC_DESTROY_EVENT, "DESTROY_EVENT"},
      {kSetEvent.request(), AMDKFD_IOC_SET_EVENT, "SET_EVENT"},
      {kResetEvent.request(), AMDKFD_IOC_RESET_EVENT, "RESET_EVENT"},
      {kWaitEvents.request(), AMDKFD_IOC_WAIT_EVENTS, "WAIT_EVENTS"},
      {kGetProcessAperturesNew.request(), AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, "GET_PROCESS_APERTURES_NEW"},
      {kAcquireVm.request(), AMDKFD_IOC_ACQUIRE_VM, "ACQUIRE_VM"},
      {kAllocMemoryOfGpu.request(), AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, "ALLOC_MEMORY_OF_GPU"},
      {kFreeMemoryOfGpu.request(), AMDKFD_IOC_FREE_MEMORY_OF_GPU, "FREE_MEMORY_OF_GPU"},
      {kMapMemoryToGpu.request(), AMDKFD_IOC_MAP_MEMORY_TO_GPU, "MAP_MEMORY_TO_GPU"},
      {kUnmapMemoryFromGpu.request(), AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, "UNMAP_MEMORY_FROM_GPU"},
      {kAvailableMemory.request(), AMDKFD_IOC_AVAILABLE_MEMORY, "AVAILABLE_MEMORY"},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(row.ours, row.theirs);
    // The decoder names the C header's requests as the C header spells them.
    EXPECT_EQ(std::string(IoctlName(row.theirs)), std::string("AMDKFD_IOC_") + row.name);
  }
}

TEST(KfdCHeaderTest, StructLayoutsMatchCHeader) {
  EXPECT_EQ(sizeof(GetVersionArgs), sizeof(kfd_ioctl_get_version_args));
  EXPECT_FIELD(GetVersionArgs, kfd_ioctl_get_version_args, major_version);
  EXPECT_FIELD(GetVersionArgs, kfd_ioctl_get_version_args, minor_version);

  EXPECT_EQ(sizeof(ProcessDeviceApertures), sizeof(kfd_process_device_apertures));
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, lds_base);
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, lds_limit);
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, scratch_base);
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, scratch_limit);
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, gpuvm_base);
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, gpuvm_limit);
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, gpu_id);
  EXPECT_FIELD(ProcessDeviceApertures, kfd_process_device_apertures, pad);

  EXPECT_EQ(sizeof(GetProcessAperturesNewArgs), sizeof(kfd_ioctl_get_process_apertures_new_args));
  EXPECT_FIELD(GetProcessAperturesNewArgs, kfd_ioctl_get_process_apertures_new_args, kfd_process_device_apertures_ptr);
  EXPECT_FIELD(GetProcessAperturesNewArgs, kfd_ioctl_get_process_apertures_new_args, num_of_nodes);
  EXPECT_FIELD(GetProcessAperturesNewArgs, kfd_ioctl_get_process_apertures_new_args, pad);

  EXPECT_EQ(sizeof(AcquireVmArgs), sizeof(kfd_ioctl_acquire_vm_args));
  EXPECT_FIELD(AcquireVmArgs, kfd_ioctl_acquire_vm_args, drm_fd);
  EXPECT_FIELD(AcquireVmArgs, kfd_ioctl_acquire_vm_args, gpu_id);

  EXPECT_EQ(sizeof(AllocMemoryOfGpuArgs), sizeof(kfd_ioctl_alloc_memory_of_gpu_args));
  EXPECT_FIELD(AllocMemoryOfGpuArgs, kfd_ioctl_alloc_memory_of_gpu_args, va_addr);
  EXPECT_FIELD(AllocMemoryOfGpuArgs, kfd_ioctl_alloc_memory_of_gpu_args, size);
  EXPECT_FIELD(AllocMemoryOfGpuArgs, kfd_ioctl_alloc_memory_of_gpu_args, handle);
  EXPECT_FIELD(AllocMemoryOfGpuArgs, kfd_ioctl_alloc_memory_of_gpu_args, mmap_offset);
  EXPECT_FIELD(AllocMemoryOfGpuArgs, kfd_ioctl_alloc_memory_of_gpu_args, gpu_id);
  EXPECT_FIELD(AllocMemoryOfGpuArgs, kfd_ioctl_alloc_memory_of_gpu_args, flags);

  EXPECT_EQ(sizeof(FreeMemoryOfGpuArgs), sizeof(kfd_ioctl_free_memory_of_gpu_args));
  EXPECT_FIELD(FreeMemoryOfGpuArgs, kfd_ioctl_free_memory_of_gpu_args, handle);

  EXPECT_EQ(sizeof(MapMemoryToGpuArgs), sizeof(kfd_ioctl_map_memory_to_gpu_args));
  EXPECT_FIELD(MapMemoryToGpuArgs, kfd_ioctl_map_memory_to_gpu_args, handle);
  EXPECT_FIELD(MapMemoryToGpuArgs, kfd_ioctl_map_memory_to_gpu_args, device_ids_array_ptr);
  EXPECT_FIELD(MapMemoryToGpuArgs, kfd_ioctl_map_memory_to_gpu_args, n_devices);
  EXPECT_FIELD(MapMemoryToGpuArgs, kfd_ioctl_map_memory_to_gpu_args, n_success);

  EXPECT_EQ(sizeof(UnmapMemoryFromGpuArgs), sizeof(kfd_ioctl_unmap_memory_from_gpu_args));
  EXPECT_FIELD(UnmapMemoryFromGpuArgs, kfd_ioctl_unmap_memory_from_gpu_args, handle);
  EXPECT_FIELD(UnmapMemoryFromGpuArgs, kfd_ioctl_unmap_memory_from_gpu_args, device_ids_array_ptr);
  EXPECT_FIELD(UnmapMemoryFromGpuArgs, kfd_ioctl_unmap_memory_from_gpu_args, n_devices);
  EXPECT_FIELD(UnmapMemoryFromGpuArgs, kfd_ioctl_unmap_memory_from_gpu_args, n_success);

  EXPECT_EQ(sizeof(GetAvailableMemoryArgs), sizeof(kfd_ioctl_get_available_memory_args));
  EXPECT_FIELD(GetAvailableMemoryArgs, kfd_ioctl_get_available_memory_args, available);
  EXPECT_FIELD(GetAvailableMemoryArgs, kfd_ioctl_get_available_memory_args, gpu_id);
  EXPECT_FIELD(GetAvailableMemoryArgs, kfd_ioctl_get_available_memory_args, pad);
}

// The amdgpu-dkms IPC block at the end of the C header, against the typed descriptors.
TEST(KfdCHeaderTest, DkmsIpcRequestsMatchCHeader) {
  EXPECT_EQ(kIpcImportHandle.request(), AMDKFD_IOC_IPC_IMPORT_HANDLE);
  EXPECT_EQ(kIpcExportHandle.request(), AMDKFD_IOC_IPC_EXPORT_HANDLE);
  EXPECT_STREQ(IoctlName(AMDKFD_IOC_IPC_IMPORT_HANDLE), "AMDKFD_IOC_IPC_IMPORT_HANDLE");
  EXPECT_STREQ(IoctlName(AMDKFD_IOC_IPC_EXPORT_HANDLE), "AMDKFD_IOC_IPC_EXPORT_HANDLE");

  EXPECT_EQ(sizeof(IpcExportHandleArgs), sizeof(kfd_ioctl_ipc_export_handle_args));
  EXPECT_FIELD(IpcExportHandleArgs, kfd_ioctl_ipc_export_handle_args, handle);
  EXPECT_FIELD(IpcExportHandleArgs, kfd_ioctl_ipc_export_handle_args, share_handle);
  EXPECT_FIELD(IpcExportHandleArgs, kfd_ioctl_ipc_export_handle_args, gpu_id);
  EXPECT_FIELD(IpcExportHandleArgs, kfd_ioctl_ipc_export_handle_args, flags);

  EXPECT_EQ(sizeof(IpcImportHandleArgs), sizeof(kfd_ioctl_ipc_import_handle_args));
  EXPECT_FIELD(IpcImportHandleArgs, kfd_ioctl_ipc_import_handle_args, handle);
  EXPECT_FIELD(IpcImportHandleArgs, kfd_ioctl_ipc_import_handle_args, va_addr);
  EXPECT_FIELD(IpcImportHandleArgs, kfd_ioctl_ipc_import_handle_args, mmap_offset);
  EXPECT_FIELD(IpcImportHandleArgs, kfd_ioctl_ipc_import_handle_args, share_handle);
  EXPECT_FIELD(IpcImportHandleArgs, kfd_ioctl_ipc_import_handle_args, gpu_id);
  EXPECT_FIELD(IpcImportHandleArgs, kfd_ioctl_ipc_import_handle_args, flags);
}

TEST(KfdCHeaderTest, QueueStructLayoutsMatchCHeader) {
  EXPECT_EQ(sizeof(CreateQueueArgs), sizeof(kfd_ioctl_create_queue_args));
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, ring_base_address);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, write_pointer_address);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, read_pointer_address);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, doorbell_offset);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, ring_size);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, gpu_id);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, queue_type);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, queue_percentage);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, queue_priority);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, queue_id);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, eop_buffer_address);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, eop_buffer_size);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, ctx_save_restore_address);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, ctx_save_restore_size);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, ctl_stack_size);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, sdma_engine_id);
  EXPECT_FIELD(CreateQueueArgs, kfd_ioctl_create_queue_args, pad);
  EXPECT_EQ(sizeof(DestroyQueueArgs), sizeof(kfd_ioctl_destroy_queue_args));
  EXPECT_FIELD(DestroyQueueArgs, kfd_ioctl_destroy_queue_args, queue_id);
  EXPECT_EQ(sizeof(UpdateQueueArgs), sizeof(kfd_ioctl_update_queue_args));
  EXPECT_FIELD(UpdateQueueArgs, kfd_ioctl_update_queue_args, ring_base_address);
  EXPECT_FIELD(UpdateQueueArgs, kfd_ioctl_update_queue_args, queue_id);
  EXPECT_FIELD(UpdateQueueArgs, kfd_ioctl_update_queue_args, ring_size);
  EXPECT_FIELD(UpdateQueueArgs, kfd_ioctl_update_queue_args, queue_percentage);
  EXPECT_FIELD(UpdateQueueArgs, kfd_ioctl_update_queue_args, queue_priority);
  EXPECT_EQ(static_cast<uint32_t>(QueueType::kCompute), uint32_t{KFD_IOC_QUEUE_TYPE_COMPUTE});
  EXPECT_EQ(static_cast<uint32_t>(QueueType::kSdma), uint32_t{KFD_IOC_QUEUE_TYPE_SDMA});
  EXPECT_EQ(static_cast<uint32_t>(QueueType::kComputeAql), uint32_t{KFD_IOC_QUEUE_TYPE_COMPUTE_AQL});
  EXPECT_EQ(static_cast<uint32_t>(QueueType::kSdmaXgmi), uint32_t{KFD_IOC_QUEUE_TYPE_SDMA_XGMI});
  EXPECT_EQ(static_cast<uint32_t>(QueueType::kSdmaByEngineId), uint32_t{KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID});
  EXPECT_EQ(kMaxQueuePercentage, uint32_t{KFD_MAX_QUEUE_PERCENTAGE});
  EXPECT_EQ(kMaxQueuePriority, uint32_t{KFD_MAX_QUEUE_PRIORITY});
}

TEST(KfdCHeaderTest, EventStructLayoutsMatchCHeader) {
  EXPECT_EQ(sizeof(CreateEventArgs), sizeof(kfd_ioctl_create_event_args));
  EXPECT_FIELD(CreateEventArgs, kfd_ioctl_create_event_args, event_page_offset);
  EXPECT_FIELD(CreateEventArgs, kfd_ioctl_create_event_args, event_trigger_data);
  EXPECT_FIELD(CreateEventArgs, kfd_ioctl_create_event_args, event_type);
  EXPECT_FIELD(CreateEventArgs, kfd_ioctl_create_event_args, auto_reset);
  EXPECT_FIELD(CreateEventArgs, kfd_ioctl_create_event_args, node_id);
  EXPECT_FIELD(CreateEventArgs, kfd_ioctl_create_event_args, event_id);
  EXPECT_FIELD(CreateEventArgs, kfd_ioctl_create_event_args, event_slot_index);

  EXPECT_EQ(sizeof(DestroyEventArgs), sizeof(kfd_ioctl_destroy_event_args));
  EXPECT_FIELD(DestroyEventArgs, kfd_ioctl_destroy_event_args, event_id);
  EXPECT_FIELD(DestroyEventArgs, kfd_ioctl_destroy_event_args, pad);
  EXPECT_EQ(sizeof(SetEventArgs), sizeof(kfd_ioctl_set_event_args));
  EXPECT_FIELD(SetEventArgs, kfd_ioctl_set_event_args, event_id);
  EXPECT_FIELD(SetEventArgs, kfd_ioctl_set_event_args, pad);
  EXPECT_EQ(sizeof(ResetEventArgs), sizeof(kfd_ioctl_reset_event_args));
  EXPECT_FIELD(ResetEventArgs, kfd_ioctl_reset_event_args, event_id);
  EXPECT_FIELD(ResetEventArgs, kfd_ioctl_reset_event_args, pad);

  EXPECT_EQ(sizeof(MemoryExceptionFailure), sizeof(kfd_memory_exception_failure));
  EXPECT_FIELD(MemoryExceptionFailure, kfd_memory_exception_failure, NotPresent);
  EXPECT_FIELD(MemoryExceptionFailure, kfd_memory_exception_failure, ReadOnly);
  EXPECT_FIELD(MemoryExceptionFailure, kfd_memory_exception_failure, NoExecute);
  EXPECT_FIELD(MemoryExceptionFailure, kfd_memory_exception_failure, imprecise);

  EXPECT_EQ(sizeof(MemoryExceptionData), sizeof(kfd_hsa_memory_exception_data));
  EXPECT_FIELD(MemoryExceptionData, kfd_hsa_memory_exception_data, failure);
  EXPECT_FIELD(MemoryExceptionData, kfd_hsa_memory_exception_data, va);
  EXPECT_FIELD(MemoryExceptionData, kfd_hsa_memory_exception_data, gpu_id);
  EXPECT_FIELD(MemoryExceptionData, kfd_hsa_memory_exception_data, ErrorType);

  EXPECT_EQ(sizeof(HwExceptionData), sizeof(kfd_hsa_hw_exception_data));
  EXPECT_FIELD(HwExceptionData, kfd_hsa_hw_exception_data, reset_type);
  EXPECT_FIELD(HwExceptionData, kfd_hsa_hw_exception_data, reset_cause);
  EXPECT_FIELD(HwExceptionData, kfd_hsa_hw_exception_data, memory_lost);
  EXPECT_FIELD(HwExceptionData, kfd_hsa_hw_exception_data, gpu_id);

  EXPECT_EQ(sizeof(EventData), sizeof(kfd_event_data));
  EXPECT_FIELD(EventData, kfd_event_data, memory_exception_data);
  EXPECT_FIELD(EventData, kfd_event_data, hw_exception_data);
  EXPECT_FIELD(EventData, kfd_event_data, signal_event_data);
  EXPECT_FIELD(EventData, kfd_event_data, kfd_event_data_ext);
  EXPECT_FIELD(EventData, kfd_event_data, event_id);
  EXPECT_FIELD(EventData, kfd_event_data, pad);

  EXPECT_EQ(sizeof(WaitEventsArgs), sizeof(kfd_ioctl_wait_events_args));
  EXPECT_FIELD(WaitEventsArgs, kfd_ioctl_wait_events_args, events_ptr);
  EXPECT_FIELD(WaitEventsArgs, kfd_ioctl_wait_events_args, num_events);
  EXPECT_FIELD(WaitEventsArgs, kfd_ioctl_wait_events_args, wait_for_all);
  EXPECT_FIELD(WaitEventsArgs, kfd_ioctl_wait_events_args, timeout);
  EXPECT_FIELD(WaitEventsArgs, kfd_ioctl_wait_events_args, wait_result);
}

TEST(KfdCHeaderTest, EventConstantsMatchCHeader) {
  struct Row {
    uint32_t ours;
    uint32_t theirs;
  };
  const Row kRows[] = {
      {ToRaw(EventType::kSignal), KFD_IOC_EVENT_SIGNAL},
      {ToRaw(EventType::kNodeChange), KFD_IOC_EVENT_NODECHANGE},
      {ToRaw(EventType::kDeviceStateChange), KFD_IOC_EVENT_DEVICESTATECHANGE},
      {ToRaw(EventType::kHwException), KFD_IOC_EVENT_HW_EXCEPTION},
      {ToRaw(EventType::kSystemEvent), KFD_IOC_EVENT_SYSTEM_EVENT},
      {ToRaw(EventType::kDebugEvent), KFD_IOC_EVENT_DEBUG_EVENT},
      {ToRaw(EventType::kProfileEvent), KFD_IOC_EVENT_PROFILE_EVENT},
      {ToRaw(EventType::kQueueEvent), KFD_IOC_EVENT_QUEUE_EVENT},
      {ToRaw(EventType::kMemory), KFD_IOC_EVENT_MEMORY},
      {ToRaw(WaitResult::kComplete), KFD_IOC_WAIT_RESULT_COMPLETE},
      {ToRaw(WaitResult::kTimeout), KFD_IOC_WAIT_RESULT_TIMEOUT},
      {ToRaw(WaitResult::kFail), KFD_IOC_WAIT_RESULT_FAIL},
      {kSignalEventLimit, KFD_SIGNAL_EVENT_LIMIT},
      {kHwExceptionWholeGpuReset, KFD_HW_EXCEPTION_WHOLE_GPU_RESET},
      {kHwExceptionPerEngineReset, KFD_HW_EXCEPTION_PER_ENGINE_RESET},
      {kHwExceptionGpuHang, KFD_HW_EXCEPTION_GPU_HANG},
      {kHwExceptionEcc, KFD_HW_EXCEPTION_ECC},
      {kMemErrNoRas, KFD_MEM_ERR_NO_RAS},
      {kMemErrSramEcc, KFD_MEM_ERR_SRAM_ECC},
      {kMemErrPoisonConsumed, KFD_MEM_ERR_POISON_CONSUMED},
      {kMemErrGpuHang, KFD_MEM_ERR_GPU_HANG},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.theirs);
    EXPECT_EQ(row.ours, row.theirs);
  }
}

TEST(KfdCHeaderTest, AllocFlagBitsMatchCHeader) {
  struct Row {
    AllocMemFlags ours;
    uint32_t theirs;
  };
  const Row kRows[] = {
      {AllocMemFlags::kVram, KFD_IOC_ALLOC_MEM_FLAGS_VRAM},
      {AllocMemFlags::kGtt, KFD_IOC_ALLOC_MEM_FLAGS_GTT},
      {AllocMemFlags::kUserptr, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR},
      {AllocMemFlags::kDoorbell, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL},
      {AllocMemFlags::kMmioRemap, KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP},
      {AllocMemFlags::kWritable, static_cast<uint32_t>(KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE)},
      {AllocMemFlags::kExecutable, KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE},
      {AllocMemFlags::kPublic, KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC},
      {AllocMemFlags::kNoSubstitute, KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE},
      {AllocMemFlags::kAqlQueueMem, KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM},
      {AllocMemFlags::kCoherent, KFD_IOC_ALLOC_MEM_FLAGS_COHERENT},
      {AllocMemFlags::kUncached, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED},
      {AllocMemFlags::kExtCoherent, KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT},
      {AllocMemFlags::kContiguousBestEffort, KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.theirs);
    EXPECT_EQ(ToRaw(row.ours), row.theirs);
  }
}

TEST(KfdCHeaderTest, MmioRemapOffsetsMatchCHeader) {
  EXPECT_EQ(kMmioRemapHdpMemFlushCntl, static_cast<uint32_t>(KFD_MMIO_REMAP_HDP_MEM_FLUSH_CNTL));
  EXPECT_EQ(kMmioRemapHdpRegFlushCntl, static_cast<uint32_t>(KFD_MMIO_REMAP_HDP_REG_FLUSH_CNTL));
}

}  // namespace
}  // namespace hipmem::kfd_uapi
