/* A libhsakmt client from outside the workspace: plain C, only <hsakmt/hsakmt.h> and <hsakmt/linux/kfd_ioctl.h>,
 * as kfdtest and ROCr are built. On every GPU node it allocates host memory, maps it, and copies 4 KiB with a
 * hand-built SDMA COPY_LINEAR + FENCE on an SDMA queue rung by a plain doorbell store, then frees everything.
 * Prints "hsakmt client: N GPU(s) OK" and exits 0, or names the failing step and exits 1. */
#define _POSIX_C_SOURCE 200809L

#include <hsakmt/hsakmt.h>
#include <hsakmt/linux/kfd_ioctl.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                      \
  do {                                                                   \
    HSAKMT_STATUS s_ = (call);                                           \
    if (s_ != HSAKMT_STATUS_SUCCESS) {                                   \
      fprintf(stderr, "hsakmt client: %s = %d\n", #call, (int)s_);        \
      return 1;                                                          \
    }                                                                    \
  } while (0)

enum { kRingBytes = 4096, kCopyBytes = 4096 };

static void* HostMemory(HSAuint32 node, HSAuint64 size, int exec) {
  HsaMemFlags flags;
  memset(&flags, 0, sizeof(flags));
  flags.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  flags.ui32.HostAccess = 1;
  flags.ui32.NoNUMABind = 1;
  flags.ui32.ExecuteAccess = exec;
  void* p = NULL;
  if (hsaKmtAllocMemory(0, size, flags, &p) != HSAKMT_STATUS_SUCCESS) return NULL;
  HsaMemMapFlags map_flags;
  memset(&map_flags, 0, sizeof(map_flags));
  if (hsaKmtMapMemoryToGPUNodes(p, size, NULL, map_flags, 1, &node) != HSAKMT_STATUS_SUCCESS) return NULL;
  memset(p, 0, size);
  return p;
}

static void Release(void* p, HSAuint64 size) {
  hsaKmtUnmapMemoryToGPU(p);
  hsaKmtFreeMemory(p, size);
}

static int CopyOnSdma(HSAuint32 node) {
  uint32_t* ring = HostMemory(node, kRingBytes, 1);
  uint8_t* src = HostMemory(node, kCopyBytes, 0);
  uint8_t* dst = HostMemory(node, kCopyBytes, 0);
  volatile uint32_t* fence = HostMemory(node, 4096, 0);
  if (!ring || !src || !dst || !fence) {
    fprintf(stderr, "hsakmt client: allocation on node %u failed\n", node);
    return 1;
  }
  for (int i = 0; i < kCopyBytes; ++i) src[i] = (uint8_t)(i * 7 + node);

  HsaQueueResource queue;
  memset(&queue, 0, sizeof(queue));
  CHECK(hsaKmtCreateQueue(node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, ring, kRingBytes, NULL, &queue));

  /* SDMA COPY_LINEAR (op 1): count-1 in bytes, parameter, src, dst; then FENCE (op 5): address, value. */
  const uint64_t s = (uint64_t)(uintptr_t)src, d = (uint64_t)(uintptr_t)dst, f = (uint64_t)(uintptr_t)fence;
  const uint32_t packets[] = {1, kCopyBytes - 1, 0, (uint32_t)s, (uint32_t)(s >> 32), (uint32_t)d, (uint32_t)(d >> 32),
                              5, (uint32_t)f, (uint32_t)(f >> 32), 0xC0FFEE};
  memcpy(ring, packets, sizeof(packets));
  const uint64_t wptr = sizeof(packets); /* SDMA write pointers count bytes */
  __atomic_store_n(queue.Queue_write_ptr_aql, wptr, __ATOMIC_RELEASE);
  __atomic_store_n(queue.Queue_DoorBell_aql, wptr, __ATOMIC_RELEASE); /* the doorbell: one plain store */

  const struct timespec tick = {0, 1000000};
  for (int ms = 0; ms < 5000 && __atomic_load_n(fence, __ATOMIC_ACQUIRE) != 0xC0FFEE; ++ms) nanosleep(&tick, NULL);
  if (*fence != 0xC0FFEE || memcmp(src, dst, kCopyBytes) != 0) {
    fprintf(stderr, "hsakmt client: SDMA copy on node %u did not complete\n", node);
    return 1;
  }
  CHECK(hsaKmtDestroyQueue(queue.QueueId));
  Release(ring, kRingBytes);
  Release(src, kCopyBytes);
  Release(dst, kCopyBytes);
  Release((void*)fence, 4096);
  return 0;
}

int main(void) {
  CHECK(hsaKmtOpenKFD());
  HsaVersionInfo version;
  CHECK(hsaKmtGetVersion(&version));
  if (version.KernelInterfaceMajorVersion != KFD_IOCTL_MAJOR_VERSION) {
    fprintf(stderr, "hsakmt client: KFD %u.%u\n", version.KernelInterfaceMajorVersion,
            version.KernelInterfaceMinorVersion);
    return 1;
  }
  HsaSystemProperties system;
  CHECK(hsaKmtAcquireSystemProperties(&system));
  unsigned gpus = 0;
  for (HSAuint32 node = 0; node < system.NumNodes; ++node) {
    HsaNodeProperties props;
    CHECK(hsaKmtGetNodeProperties(node, &props));
    if (props.NumFComputeCores == 0) continue;
    if (CopyOnSdma(node) != 0) return 1;
    ++gpus;
  }
  CHECK(hsaKmtReleaseSystemProperties());
  CHECK(hsaKmtCloseKFD());
  printf("hsakmt client: %u GPU(s) OK\n", gpus);
  return gpus > 0 ? 0 : 1;
}
