/* AMD extensions to the HSA runtime API, rewritten for hipmem.
 *
 * The memory-pool subset of ROCR-Runtime's hsa_ext_amd.h (October 2024): the extra status codes,
 * the AMD agent and region attributes, and the memory pool API that HIP's allocator sits on.
 * Enumerator values and signatures are upstream's. Plain C.
 */
#ifndef HIPMEM_HSA_HSA_EXT_AMD_H_
#define HIPMEM_HSA_HSA_EXT_AMD_H_

#include "hsa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- Status codes ----------------------------------------------------------------------------- */

/* Extra hsa_status_t values. Upstream declares them in an unnamed enum, so C++ callers cast them
 * to hsa_status_t. */
enum {
  HSA_STATUS_ERROR_INVALID_MEMORY_POOL = 40,
  HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION = 41, /* device access past the legal address range */
  HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION = 42,
  HSA_STATUS_ERROR_MEMORY_FAULT = 43, /* device access to an unmapped address */
  HSA_STATUS_CU_MASK_REDUCED = 44,    /* CU mask applied minus CUs the process may not use */
  HSA_STATUS_ERROR_OUT_OF_REGISTERS = 45,
  HSA_STATUS_ERROR_RESOURCE_BUSY = 46,
};

/* --- Agent and region attributes -------------------------------------------------------------- */

/* AMD attributes for hsa_agent_get_info (cast to hsa_agent_info_t). */
typedef enum hsa_amd_agent_info_s {
  HSA_AMD_AGENT_INFO_CHIP_ID = 0xA000,
  HSA_AMD_AGENT_INFO_CACHELINE_SIZE = 0xA001,
  HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT = 0xA002,
  HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY = 0xA003,
  HSA_AMD_AGENT_INFO_DRIVER_NODE_ID = 0xA004,
  HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS = 0xA005,
  HSA_AMD_AGENT_INFO_BDFID = 0xA006,
  HSA_AMD_AGENT_INFO_MEMORY_WIDTH = 0xA007,
  HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY = 0xA008,
  HSA_AMD_AGENT_INFO_PRODUCT_NAME = 0xA009, /* char[64] */
  HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU = 0xA00A,
  HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU = 0xA00B,
  HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES = 0xA00C,
  HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE = 0xA00D,
  HSA_AMD_AGENT_INFO_HDP_FLUSH = 0xA00E,
  HSA_AMD_AGENT_INFO_DOMAIN = 0xA00F,
  HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES = 0xA010,
  HSA_AMD_AGENT_INFO_UUID = 0xA011,
  HSA_AMD_AGENT_INFO_ASIC_REVISION = 0xA012,
  HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS = 0xA013,
  HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT = 0xA014,
  HSA_AMD_AGENT_INFO_MEMORY_AVAIL = 0xA015, /* uint64_t bytes; what hipMemGetInfo reports free */
  HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY = 0xA016,
  HSA_AMD_AGENT_INFO_ASIC_FAMILY_ID = 0xA107,
  HSA_AMD_AGENT_INFO_UCODE_VERSION = 0xA108,
  HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION = 0xA109,
  HSA_AMD_AGENT_INFO_NUM_SDMA_ENG = 0xA10A,
  HSA_AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG = 0xA10B,
  HSA_AMD_AGENT_INFO_IOMMU_SUPPORT = 0xA110,
  HSA_AMD_AGENT_INFO_NUM_XCC = 0xA111,
  HSA_AMD_AGENT_INFO_DRIVER_UID = 0xA112,
  HSA_AMD_AGENT_INFO_NEAREST_CPU = 0xA113,
  HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES = 0xA114,
  HSA_AMD_AGENT_INFO_AQL_EXTENSIONS = 0xA115
} hsa_amd_agent_info_t;

/* AMD attributes for region queries (cast to hsa_region_info_t). */
typedef enum hsa_amd_region_info_s {
  HSA_AMD_REGION_INFO_HOST_ACCESSIBLE = 0xA000,
  HSA_AMD_REGION_INFO_BASE = 0xA001,
  HSA_AMD_REGION_INFO_BUS_WIDTH = 0xA002,
  HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY = 0xA003
} hsa_amd_region_info_t;

/* --- Memory pools ----------------------------------------------------------------------------- */

/* Opaque handle to one memory pool: a physical partition of an agent's memory plus its
 * coherence model. */
typedef struct hsa_amd_memory_pool_s {
  uint64_t handle;
} hsa_amd_memory_pool_t;

typedef enum {
  HSA_AMD_SEGMENT_GLOBAL = 0,
  HSA_AMD_SEGMENT_READONLY = 1,
  HSA_AMD_SEGMENT_PRIVATE = 2,
  HSA_AMD_SEGMENT_GROUP = 3,
} hsa_amd_segment_t;

typedef enum hsa_amd_memory_pool_global_flag_s {
  HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT = 1,
  HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED = 2,
  HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED = 4,
  HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_EXTENDED_SCOPE_FINE_GRAINED = 8,
} hsa_amd_memory_pool_global_flag_t;

typedef enum hsa_amd_memory_pool_location_s {
  HSA_AMD_MEMORY_POOL_LOCATION_CPU = 0,
  HSA_AMD_MEMORY_POOL_LOCATION_GPU = 1
} hsa_amd_memory_pool_location_t;

/* Attributes for hsa_amd_memory_pool_get_info. */
typedef enum {
  HSA_AMD_MEMORY_POOL_INFO_SEGMENT = 0,      /* hsa_amd_segment_t */
  HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS = 1, /* uint32_t, hsa_amd_memory_pool_global_flag_t bits */
  HSA_AMD_MEMORY_POOL_INFO_SIZE = 2,         /* size_t */
  HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED = 5,      /* bool */
  HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE = 6,      /* size_t */
  HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT = 7,    /* size_t */
  HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL = 15,         /* bool */
  HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE = 16,            /* size_t */
  HSA_AMD_MEMORY_POOL_INFO_LOCATION = 17,                  /* hsa_amd_memory_pool_location_t */
  HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_REC_GRANULE = 18, /* size_t */
} hsa_amd_memory_pool_info_t;

/* Bits of hsa_amd_memory_pool_allocate's flags argument. */
typedef enum hsa_amd_memory_pool_flag_s {
  HSA_AMD_MEMORY_POOL_STANDARD_FLAG = 0,
  HSA_AMD_MEMORY_POOL_PCIE_FLAG = (1 << 0),
  HSA_AMD_MEMORY_POOL_CONTIGUOUS_FLAG = (1 << 1),
  HSA_AMD_MEMORY_POOL_EXECUTABLE_FLAG = (1 << 2),
} hsa_amd_memory_pool_flag_t;

/* Whether an agent may touch a pool's memory. */
typedef enum {
  HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED = 0,
  HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT = 1,
  HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT = 2
} hsa_amd_memory_pool_access_t;

/* Attributes for hsa_amd_agent_memory_pool_get_info. */
typedef enum {
  HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS = 0, /* hsa_amd_memory_pool_access_t */
  HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS = 1,
  HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO = 2
} hsa_amd_agent_memory_pool_info_t;

/* Writes the value of a pool attribute to *value, which must be large enough for it. */
hsa_status_t HSA_API hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t memory_pool,
                                                  hsa_amd_memory_pool_info_t attribute,
                                                  void* value);

/* Calls callback once per pool of agent until it returns anything but HSA_STATUS_SUCCESS; that
 * value is then returned. */
hsa_status_t HSA_API hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t agent, hsa_status_t (*callback)(hsa_amd_memory_pool_t memory_pool, void* data),
    void* data);

/* Allocates size bytes (rounded up to the pool's granule) from memory_pool and stores the address
 * in *ptr. flags is a mask of hsa_amd_memory_pool_flag_t. */
hsa_status_t HSA_API hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t memory_pool, size_t size,
                                                  uint32_t flags, void** ptr);

/* Frees memory returned by hsa_amd_memory_pool_allocate; NULL is accepted and ignored. */
hsa_status_t HSA_API hsa_amd_memory_pool_free(void* ptr);

/* Writes the value of an attribute of the (agent, pool) pair to *value. */
hsa_status_t HSA_API hsa_amd_agent_memory_pool_get_info(hsa_agent_t agent,
                                                        hsa_amd_memory_pool_t memory_pool,
                                                        hsa_amd_agent_memory_pool_info_t attribute,
                                                        void* value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HSA_HSA_EXT_AMD_H_ */
