/* Compiles <hsa/hsa.h> and <hsa/hsa_ext_amd.h> as C and pins the values and layouts that HSA
 * callers depend on (ROCR-Runtime, October 2024). Everything is checked at compile time. */
#include <hsa/hsa.h> /* again: the include guards must hold */
#include <hsa/hsa_ext_amd.h>
#include <stddef.h>
#include <stdint.h>

/* Status codes: the core range and AMD's additions. */
_Static_assert(HSA_STATUS_SUCCESS == 0 && HSA_STATUS_INFO_BREAK == 1, "non-errors");
_Static_assert(HSA_STATUS_ERROR == 0x1000, "generic error");
_Static_assert(HSA_STATUS_ERROR_INVALID_ARGUMENT == 0x1001, "");
_Static_assert(HSA_STATUS_ERROR_INVALID_ALLOCATION == 0x1003, "");
_Static_assert(HSA_STATUS_ERROR_INVALID_AGENT == 0x1004, "");
_Static_assert(HSA_STATUS_ERROR_OUT_OF_RESOURCES == 0x1008, "");
_Static_assert(HSA_STATUS_ERROR_NOT_INITIALIZED == 0x100B, "");
_Static_assert(HSA_STATUS_ERROR_INVALID_ISA_NAME == 0x1017, "out of order upstream");
_Static_assert(HSA_STATUS_ERROR_INVALID_FILE == 0x1020, "gap after 0x1019");
_Static_assert(HSA_STATUS_ERROR_FATAL == 0x1026, "last core code");
_Static_assert(HSA_STATUS_ERROR_INVALID_MEMORY_POOL == 40, "");
_Static_assert(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION == 41, "");
_Static_assert(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION == 42, "");
_Static_assert(HSA_STATUS_ERROR_MEMORY_FAULT == 43, "");
_Static_assert(HSA_STATUS_CU_MASK_REDUCED == 44, "");
_Static_assert(HSA_STATUS_ERROR_OUT_OF_REGISTERS == 45, "");
_Static_assert(HSA_STATUS_ERROR_RESOURCE_BUSY == 46, "");
_Static_assert(sizeof(hsa_status_t) == 4, "32-bit enum");

/* Handles are one 64-bit word. */
_Static_assert(sizeof(hsa_agent_t) == 8 && offsetof(hsa_agent_t, handle) == 0, "");
_Static_assert(sizeof(hsa_region_t) == 8 && offsetof(hsa_region_t, handle) == 0, "");
_Static_assert(sizeof(hsa_signal_t) == 8 && offsetof(hsa_signal_t, handle) == 0, "");
_Static_assert(sizeof(hsa_amd_memory_pool_t) == 8 && offsetof(hsa_amd_memory_pool_t, handle) == 0,
               "");
_Static_assert(sizeof(hsa_signal_value_t) == 8, "large model");

/* Agent and system attributes. */
_Static_assert(HSA_AGENT_INFO_NAME == 0 && HSA_AGENT_INFO_NODE == 16 && HSA_AGENT_INFO_DEVICE == 17,
               "");
_Static_assert(HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES == 23, "");
_Static_assert(HSA_AGENT_INFO_FAST_F16_OPERATION == 24, "");
_Static_assert(HSA_AMD_AGENT_INFO_CHIP_ID == 0xA000, "");
_Static_assert(HSA_AMD_AGENT_INFO_PRODUCT_NAME == 0xA009, "");
_Static_assert(HSA_AMD_AGENT_INFO_MEMORY_AVAIL == 0xA015, "");
_Static_assert(HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY == 0xA016, "");
_Static_assert(HSA_AMD_AGENT_INFO_ASIC_FAMILY_ID == 0xA107, "second block");
_Static_assert(HSA_AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG == 0xA10B, "");
_Static_assert(HSA_AMD_AGENT_INFO_IOMMU_SUPPORT == 0xA110, "third block");
_Static_assert(HSA_AMD_AGENT_INFO_AQL_EXTENSIONS == 0xA115, "");
_Static_assert(HSA_SYSTEM_INFO_EXTENSIONS == 7, "");
_Static_assert(HSA_AMD_SYSTEM_INFO_BUILD_VERSION == 0x200, "");
_Static_assert(HSA_AMD_SYSTEM_INFO_EXT_VERSION_MINOR == 0x208, "");
_Static_assert(HSA_DEVICE_TYPE_CPU == 0 && HSA_DEVICE_TYPE_GPU == 1 && HSA_DEVICE_TYPE_AIE == 3,
               "");
_Static_assert(HSA_AGENT_FEATURE_KERNEL_DISPATCH == 1 && HSA_AGENT_FEATURE_AGENT_DISPATCH == 2, "");
_Static_assert(HSA_PROFILE_FULL == 1 && HSA_MACHINE_MODEL_LARGE == 1 && HSA_ENDIANNESS_BIG == 1,
               "");
_Static_assert(HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR == 2, "");

/* Regions. */
_Static_assert(HSA_REGION_SEGMENT_KERNARG == 4, "");
_Static_assert(HSA_REGION_GLOBAL_FLAG_EXTENDED_SCOPE_FINE_GRAINED == 8, "");
_Static_assert(HSA_REGION_INFO_ALLOC_MAX_SIZE == 4, "3 is unused");
_Static_assert(HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE == 8, "");
_Static_assert(HSA_AMD_REGION_INFO_HOST_ACCESSIBLE == 0xA000, "");
_Static_assert(HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY == 0xA003, "");

/* Memory pools. */
_Static_assert(HSA_AMD_SEGMENT_GLOBAL == 0 && HSA_AMD_SEGMENT_GROUP == 3, "");
_Static_assert(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT == 1, "");
_Static_assert(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED == 2, "");
_Static_assert(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED == 4, "");
_Static_assert(HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_EXTENDED_SCOPE_FINE_GRAINED == 8, "");
_Static_assert(HSA_AMD_MEMORY_POOL_LOCATION_CPU == 0 && HSA_AMD_MEMORY_POOL_LOCATION_GPU == 1, "");
_Static_assert(HSA_AMD_MEMORY_POOL_INFO_SIZE == 2, "");
_Static_assert(HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED == 5, "");
_Static_assert(HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT == 7, "");
_Static_assert(HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL == 15, "");
_Static_assert(HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE == 16, "");
_Static_assert(HSA_AMD_MEMORY_POOL_INFO_LOCATION == 17, "");
_Static_assert(HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_REC_GRANULE == 18, "");
_Static_assert(HSA_AMD_MEMORY_POOL_STANDARD_FLAG == 0 && HSA_AMD_MEMORY_POOL_PCIE_FLAG == 1, "");
_Static_assert(HSA_AMD_MEMORY_POOL_CONTIGUOUS_FLAG == 2 && HSA_AMD_MEMORY_POOL_EXECUTABLE_FLAG == 4,
               "");
_Static_assert(HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED == 0, "");
_Static_assert(HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT == 2, "");
_Static_assert(HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS == 0, "");
_Static_assert(HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO == 2, "");

/* The declarations have upstream's types. _Generic does not evaluate its operand, so nothing here
 * needs the runtime at link time. */
#define HAS_TYPE(fn, type) _Generic(&(fn), type : 1, default : 0)
_Static_assert(HAS_TYPE(hsa_init, hsa_status_t (*)(void)), "hsa_init");
_Static_assert(HAS_TYPE(hsa_shut_down, hsa_status_t (*)(void)), "hsa_shut_down");
_Static_assert(HAS_TYPE(hsa_status_string, hsa_status_t (*)(hsa_status_t, const char**)),
               "hsa_status_string");
_Static_assert(HAS_TYPE(hsa_system_get_info, hsa_status_t (*)(hsa_system_info_t, void*)),
               "hsa_system_get_info");
_Static_assert(HAS_TYPE(hsa_iterate_agents,
                        hsa_status_t (*)(hsa_status_t (*)(hsa_agent_t, void*), void*)),
               "hsa_iterate_agents");
_Static_assert(HAS_TYPE(hsa_agent_get_info, hsa_status_t (*)(hsa_agent_t, hsa_agent_info_t, void*)),
               "hsa_agent_get_info");
_Static_assert(HAS_TYPE(hsa_memory_copy, hsa_status_t (*)(void*, const void*, size_t)),
               "hsa_memory_copy");
_Static_assert(HAS_TYPE(hsa_amd_agent_iterate_memory_pools,
                        hsa_status_t (*)(hsa_agent_t,
                                         hsa_status_t (*)(hsa_amd_memory_pool_t, void*), void*)),
               "hsa_amd_agent_iterate_memory_pools");
_Static_assert(HAS_TYPE(hsa_amd_memory_pool_get_info,
                        hsa_status_t (*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void*)),
               "hsa_amd_memory_pool_get_info");
_Static_assert(HAS_TYPE(hsa_amd_memory_pool_allocate,
                        hsa_status_t (*)(hsa_amd_memory_pool_t, size_t, uint32_t, void**)),
               "hsa_amd_memory_pool_allocate");
_Static_assert(HAS_TYPE(hsa_amd_memory_pool_free, hsa_status_t (*)(void*)),
               "hsa_amd_memory_pool_free");
_Static_assert(HAS_TYPE(hsa_amd_agent_memory_pool_get_info,
                        hsa_status_t (*)(hsa_agent_t, hsa_amd_memory_pool_t,
                                         hsa_amd_agent_memory_pool_info_t, void*)),
               "hsa_amd_agent_memory_pool_get_info");

int main(void) { return 0; }
