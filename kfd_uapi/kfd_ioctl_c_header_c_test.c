/* Compiles hsakmt/linux/kfd_ioctl.h as C and pins, from the kernel's published uapi at KFD 1.17, the
 * request numbers and layouts a C client relies on beyond those kfd_ioctl_c_header_test compares with the
 * C++ ABI: the debugger, SVM, SMI, CRIU, dma-buf and queue-extra ioctls. */
#include "hsakmt/linux/kfd_ioctl.h"

#include <stddef.h>

#include "hsakmt/linux/kfd_ioctl.h" /* again: the include guard must hold */

_Static_assert(KFD_IOCTL_MAJOR_VERSION == 1 && KFD_IOCTL_MINOR_VERSION == 17, "");
_Static_assert(AMDKFD_COMMAND_START == 0x01 && AMDKFD_COMMAND_END == 0x27, "");

/* _IOC: dir << 30 | size << 16 | 'K' << 8 | nr, dir W=1, R=2, WR=3. */
_Static_assert(AMDKFD_IOC_SET_MEMORY_POLICY == 0x40204B04, "");
_Static_assert(AMDKFD_IOC_GET_CLOCK_COUNTERS == 0xC0284B05, "");
_Static_assert(AMDKFD_IOC_GET_PROCESS_APERTURES == 0x81904B06, "");
_Static_assert(AMDKFD_IOC_SET_SCRATCH_BACKING_VA == 0xC0104B11, "");
_Static_assert(AMDKFD_IOC_GET_TILE_CONFIG == 0xC0284B12, "");
_Static_assert(AMDKFD_IOC_SET_TRAP_HANDLER == 0x40184B13, "");
_Static_assert(AMDKFD_IOC_SET_CU_MASK == 0x40104B1A, "");
_Static_assert(AMDKFD_IOC_GET_QUEUE_WAVE_STATE == 0xC0184B1B, "");
_Static_assert(AMDKFD_IOC_GET_DMABUF_INFO == 0xC0204B1C, "");
_Static_assert(AMDKFD_IOC_IMPORT_DMABUF == 0xC0184B1D, "");
_Static_assert(AMDKFD_IOC_ALLOC_QUEUE_GWS == 0xC0104B1E, "");
_Static_assert(AMDKFD_IOC_SMI_EVENTS == 0xC0084B1F, "");
_Static_assert(AMDKFD_IOC_SVM == 0xC0184B20, ""); /* the header only: attributes follow it */
_Static_assert(AMDKFD_IOC_SET_XNACK_MODE == 0xC0044B21, "");
_Static_assert(AMDKFD_IOC_CRIU_OP == 0xC0384B22, "");
_Static_assert(AMDKFD_IOC_EXPORT_DMABUF == 0xC0104B24, "");
_Static_assert(AMDKFD_IOC_RUNTIME_ENABLE == 0xC0104B25, "");
_Static_assert(AMDKFD_IOC_DBG_TRAP == 0xC0204B26 && sizeof(struct kfd_ioctl_dbg_trap_args) == 32, "");

/* The amdgpu-dkms IPC block. */
_Static_assert(AMDKFD_IOC_IPC_IMPORT_HANDLE == 0xC0304B80 && AMDKFD_IOC_IPC_EXPORT_HANDLE == 0xC0204B81, "");

_Static_assert(sizeof(struct kfd_ioctl_svm_attribute) == 8, "");
_Static_assert(offsetof(struct kfd_ioctl_svm_args, attrs) == 24, "");
_Static_assert(sizeof(struct kfd_dbg_device_info_entry) == 120, "");
_Static_assert(sizeof(struct kfd_queue_snapshot_entry) == 64, "");
_Static_assert(sizeof(struct kfd_context_save_area_header) == 40, "");
_Static_assert(sizeof(struct kfd_runtime_info) == 16, "");
_Static_assert(offsetof(struct kfd_ioctl_dbg_trap_args, enable) == 8, "");
_Static_assert(sizeof(struct kfd_criu_bo_bucket) == 48 && sizeof(struct kfd_criu_device_bucket) == 16, "");
_Static_assert(sizeof(struct kfd_process_device_apertures) == 56, "");

_Static_assert(KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID == 4, "");
_Static_assert(KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS == (1 << 23) && KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT == (1 << 24), "");
_Static_assert(KFD_SMI_EVENT_UNMAP_FROM_GPU == 11 && KFD_SMI_EVENT_ALL_PROCESS == 64, "");
_Static_assert(KFD_SMI_EVENT_MASK_FROM_INDEX(KFD_SMI_EVENT_VMFAULT) == 1, "");
_Static_assert(KFD_IOCTL_SVM_ATTR_GRANULARITY == 7 && KFD_IOCTL_SVM_FLAG_EXT_COHERENT == 0x80, "");
_Static_assert(EC_PROCESS_DEVICE_REMOVE == 49 && KFD_EC_MASK(EC_QUEUE_NEW) == (1ULL << 30), "");
_Static_assert(KFD_DBG_EC_TYPE_IS_DEVICE(EC_DEVICE_NEW) && !KFD_DBG_EC_TYPE_IS_QUEUE(EC_DEVICE_NEW), "");
_Static_assert(KFD_IOC_DBG_TRAP_GET_DEVICE_SNAPSHOT == 14, "");

int main(void) { return 0; }
