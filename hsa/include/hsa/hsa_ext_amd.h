/* AMD extensions to the HSA runtime API, rewritten for hipmem.
 *
 * Declares what ROCr's public hsa_ext_amd.h declares (ROCm/rocm-systems
 * projects/rocr-runtime/runtime/hsa-runtime/inc/hsa_ext_amd.h, interface version 1.21): every
 * type, enumerator, macro, structure, inline helper and function, with upstream's names, values,
 * layouts, signatures and HSA_API markings (several functions carry none upstream). Which
 * functions hipmem implements and which answer an error is in hsa_c_api.cc and
 * hsa_unsupported.cc. Plain C; the layouts are pinned by hsa_layout_asserts.inc.
 */
#ifndef HSA_RUNTIME_EXT_AMD_H_
#define HSA_RUNTIME_EXT_AMD_H_

#include "hsa.h"
#include "hsa_ext_image.h"
#include "hsa_ven_amd_pc_sampling.h"

/* Version of this extension interface (1.21: hsa_amd_signal_get_event_id). */
#define HSA_AMD_INTERFACE_VERSION_MAJOR 1
#define HSA_AMD_INTERFACE_VERSION_MINOR 21

#ifdef __cplusplus
extern "C" {
#endif

/* --- Bit sets of 64 flags (uint8_t[8]) -------------------------------------------------------- */

/* Sets flag `bit` in the 8-byte set at value. */
static inline void hsa_flag_set64(uint8_t* value, uint32_t bit) {
  value[bit / 8] = (uint8_t)(value[bit / 8] | (1u << (bit % 8)));
}

/* Returns whether flag `bit` is set in the 8-byte set at value. */
static inline bool hsa_flag_isset64(uint8_t* value, uint32_t bit) {
  return ((value[bit / 8] >> (bit % 8)) & 1u) != 0;
}

/* --- AMD AQL packets -------------------------------------------------------------------------- */

/* hsa_signal_condition_t in a fixed 32-bit field. */
typedef uint32_t hsa_signal_condition32_t;

/* Vendor packet formats (HSA_PACKET_TYPE_VENDOR_SPECIFIC with this in AmdFormat). */
typedef enum {
  HSA_AMD_PACKET_TYPE_BARRIER_VALUE = 2,
  HSA_AMD_PACKET_TYPE_EXT_KERNEL_DISPATCH = 3,
  HSA_AMD_PACKET_TYPE_RESERVED200 = 200, /* reserved upstream for an unreleased packet */
} hsa_amd_packet_type_t;

typedef uint8_t hsa_amd_packet_type8_t;

typedef struct hsa_amd_packet_header_s {
  uint16_t header; /* hsa_packet_header_t fields */
  hsa_amd_packet_type8_t AmdFormat;
  uint8_t reserved; /* the setup field of HSA_AMD_PACKET_TYPE_EXT_KERNEL_DISPATCH */
} hsa_amd_vendor_packet_header_t;

/* Waits until (value of signal & mask) cond value holds. */
typedef struct hsa_amd_barrier_value_packet_s {
  hsa_amd_vendor_packet_header_t header;
  uint32_t reserved0;
  hsa_signal_t signal; /* handle 0: satisfied */
  hsa_signal_value_t value;
  hsa_signal_value_t mask;
  hsa_signal_condition32_t cond;
  uint32_t reserved1;
  uint64_t reserved2;
  uint64_t reserved3;
  hsa_signal_t completion_signal;
} hsa_amd_barrier_value_packet_t;

/* Bit offsets and widths of the fields of hsa_amd_ext_perf_hint_t. */
typedef enum {
  HSA_AMD_EXT_PERF_HINT_GROUP_MEM_CARVEOUT = 0,
  HSA_AMD_EXT_PERF_HINT_REVERSE_DISPATCH_ORDER = 7,
} hsa_amd_ext_perf_hint_subfield_t;

typedef enum {
  HSA_AMD_EXT_PERF_HINT_WIDTH_GROUP_MEM_CARVEOUT = 7,
  HSA_AMD_EXT_PERF_HINT_WIDTH_REVERSE_DISPATCH_ORDER = 1,
} hsa_amd_ext_perf_hint_subfield_width_t;

/* Performance hints of an extended dispatch; the agent may ignore them. */
typedef union {
  struct {
    uint8_t group_mem_carveout : 7;     /* 0: agent's choice; 1..127: 0%..100% group memory */
    uint8_t reverse_dispatch_order : 1; /* launch work-groups highest first */
  };
  uint8_t hint_val;
} hsa_amd_ext_perf_hint_t;

/* 64-byte kernel dispatch with work-group clusters and a dependency signal. */
typedef struct hsa_amd_ext_kernel_dispatch_packet_s {
  uint16_t header; /* type HSA_PACKET_TYPE_VENDOR_SPECIFIC */
  hsa_amd_packet_type8_t amd_format; /* HSA_AMD_PACKET_TYPE_EXT_KERNEL_DISPATCH */
  uint8_t setup;
  uint16_t workgroup_size_x;
  uint16_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t reserved0;
  uint32_t cluster_count_x;
  uint16_t cluster_count_y;
  uint16_t cluster_count_z;
  uint8_t cluster_size_x; /* work-groups */
  uint8_t cluster_size_y;
  uint8_t cluster_size_z;
  hsa_amd_ext_perf_hint_t perf_hint;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  void* kernarg_address;
  hsa_signal_t dep_signal; /* launch waits for 0; handle 0: satisfied */
  hsa_signal_t completion_signal;
} hsa_amd_ext_kernel_dispatch_packet_t;

/* States of an AIE embedded-runtime (ERT) command. */
typedef enum {
  HSA_AMD_AIE_ERT_STATE_NEW = 1,
  HSA_AMD_AIE_ERT_STATE_QUEUED = 2,
  HSA_AMD_AIE_ERT_STATE_RUNNING = 3,
  HSA_AMD_AIE_ERT_STATE_COMPLETED = 4,
  HSA_AMD_AIE_ERT_STATE_ERROR = 5,
  HSA_AMD_AIE_ERT_STATE_ABORT = 6,
  HSA_AMD_AIE_ERT_STATE_SUBMITTED = 7,
  HSA_AMD_AIE_ERT_STATE_TIMEOUT = 8,
  HSA_AMD_AIE_ERT_STATE_NORESPONSE = 9,
  HSA_AMD_AIE_ERT_STATE_SKERROR = 10,
  HSA_AMD_AIE_ERT_STATE_SKCRASHED = 11,
  HSA_AMD_AIE_ERT_STATE_MAX = 12
} hsa_amd_aie_ert_state;

typedef enum {
  HSA_AMD_AIE_ERT_START_CU = 0,
  HSA_AMD_AIE_ERT_START_KERNEL = 0,
  HSA_AMD_AIE_ERT_CONFIGURE = 2,
  HSA_AMD_AIE_ERT_EXIT = 3,
  HSA_AMD_AIE_ERT_ABORT = 4,
  HSA_AMD_AIE_ERT_EXEC_WRITE = 5,
  HSA_AMD_AIE_ERT_CU_STAT = 6,
  HSA_AMD_AIE_ERT_START_COPYBO = 7,
  HSA_AMD_AIE_ERT_SK_CONFIG = 8,
  HSA_AMD_AIE_ERT_SK_START = 9,
  HSA_AMD_AIE_ERT_SK_UNCONFIG = 10,
  HSA_AMD_AIE_ERT_INIT_CU = 11,
  HSA_AMD_AIE_ERT_START_FA = 12,
  HSA_AMD_AIE_ERT_CLK_CALIB = 13,
  HSA_AMD_AIE_ERT_MB_VALIDATE = 14,
  HSA_AMD_AIE_ERT_START_KEY_VAL = 15,
  HSA_AMD_AIE_ERT_ACCESS_TEST_C = 16,
  HSA_AMD_AIE_ERT_ACCESS_TEST = 17,
  HSA_AMD_AIE_ERT_START_DPU = 18,
  HSA_AMD_AIE_ERT_CMD_CHAIN = 19,
  HSA_AMD_AIE_ERT_START_NPU = 20,
  HSA_AMD_AIE_ERT_START_NPU_PREEMPT = 21
} hsa_amd_aie_ert_cmd_opcode_t;

/* Payload of HSA_AMD_AIE_ERT_START_KERNEL. */
typedef struct hsa_amd_aie_ert_start_kernel_data_s {
  void* pdi_addr;
  uint32_t data[]; /* opcode, instructions and kernel arguments */
} hsa_amd_aie_ert_start_kernel_data_t;

/* 64-byte command to an AIE agent's embedded runtime. */
typedef struct hsa_amd_aie_ert_packet_s {
  hsa_amd_vendor_packet_header_t header;
  struct {
    uint32_t state : 4; /* hsa_amd_aie_ert_state */
    uint32_t custom : 8;
    uint32_t count : 11; /* payload dwords */
    uint32_t opcode : 5; /* hsa_amd_aie_ert_cmd_opcode_t */
    uint32_t type : 4;
  };
  uint64_t reserved0;
  uint64_t reserved1;
  uint64_t reserved2;
  uint64_t reserved3;
  uint64_t reserved4;
  hsa_signal_t completion_signal; /* decremented when the command finishes; handle 0: none */
  uint64_t payload_data;
} hsa_amd_aie_ert_packet_t;

/* Bit offsets and widths of the 32-bit header of the metadata packets. */
typedef enum {
  HSA_AMD_METADATA_PACKET_HEADER_TYPE = 0,
  HSA_AMD_METADATA_PACKET_HEADER_RESERVED = 8,
  HSA_AMD_METADATA_PACKET_HEADER_VERSION_MAJOR = 24,
  HSA_AMD_METADATA_PACKET_HEADER_VERSION_MINOR = 27,
} hsa_amd_metadata_packet_header_t;

typedef enum hsa_amd_metadata_packet_header_width_s {
  HSA_AMD_METADATA_PACKET_HEADER_WIDTH_TYPE = 8,
  HSA_AMD_METADATA_PACKET_HEADER_WIDTH_RESERVED = 16,
  HSA_AMD_METADATA_PACKET_HEADER_WIDTH_VERSION_MAJOR = 3,
  HSA_AMD_METADATA_PACKET_HEADER_WIDTH_VERSION_MINOR = 5,
} hsa_amd_metadata_packet_header_width_t;

/* Kernel-argument dwords to preload into user SGPRs. */
typedef struct hsa_amd_metadata_preload_s {
  uint16_t length : 7; /* dwords */
  uint16_t offset : 9; /* dwords into the kernarg segment */
} hsa_amd_metadata_preload_t;

/* The kernel descriptor fields a metadata dispatch packet carries. */
typedef struct hsa_amd_metadata_kernel_descriptor_s {
  int64_t kernel_code_entry_byte_offset;
  uint8_t reserved1[20];
  uint32_t compute_pgm_rsrc3;
  uint32_t compute_pgm_rsrc1;
  uint32_t compute_pgm_rsrc2;
  uint16_t kernel_code_properties;
  hsa_amd_metadata_preload_t kernarg_preload;
  uint8_t reserved2[4];
} hsa_amd_metadata_kernel_descriptor_t;

/* 256-byte metadata dispatch packet: four 64-byte slots, each opening with the same header. */
typedef struct hsa_amd_metadata_kernel_dispatch_packet_s {
  uint32_t header0;
  uint32_t event_id; /* hardware event of the completion signal */
  hsa_amd_metadata_kernel_descriptor_t kernel_descriptor;
  uint8_t reserved0[8];
  uint32_t header1;
  uint32_t kernarg_preload_0_14[15];
  uint32_t header2;
  uint32_t kernarg_preload_15_29[15];
  uint32_t header3;
  uint32_t kernarg_preload_30_31[2];
  uint8_t reserved1[52];
} hsa_amd_metadata_kernel_dispatch_packet_t;

/* 256-byte metadata barrier packet. */
typedef struct hsa_amd_metadata_barrier_packet_s {
  uint32_t header0;
  uint32_t event_id;
  uint8_t reserved0[56];
  uint32_t header1;
  uint8_t reserved1[60];
  uint32_t header2;
  uint8_t reserved2[60];
  uint32_t header3;
  uint8_t reserved3[60];
} hsa_amd_metadata_barrier_packet_t;

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
  HSA_STATUS_ERROR_NOT_SUPPORTED = 47, /* the system does not support the request */
  HSA_STATUS_ERROR_XNACK_DISABLED = 48, /* the request needs XNACK, which is off */
};

/* --- Agent and region attributes -------------------------------------------------------------- */

/* Dispatch dimension limits. */
typedef struct hsa_amd_dim3_s {
  uint64_t x;
  uint64_t y;
  uint64_t z;
} hsa_amd_dim3_t;

typedef enum {
  HSA_IOMMU_SUPPORT_NONE = 0,
  HSA_IOMMU_SUPPORT_V2 = 1,
} hsa_amd_iommu_version_t;

/* HSA_AMD_AGENT_INFO_CLOCK_COUNTERS. */
typedef struct hsa_amd_clock_counters_s {
  uint64_t gpu_clock_counter;
  uint64_t cpu_clock_counter;
  uint64_t system_clock_counter;
  uint64_t system_clock_frequency;
} hsa_amd_clock_counters_t;

/* AMD attributes for hsa_agent_get_info (cast to hsa_agent_info_t). */
typedef enum hsa_amd_agent_info_s {
  HSA_AMD_AGENT_INFO_CHIP_ID = 0xA000,                  /* uint32_t */
  HSA_AMD_AGENT_INFO_CACHELINE_SIZE = 0xA001,           /* uint32_t, bytes */
  HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT = 0xA002,       /* uint32_t */
  HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY = 0xA003,      /* uint32_t, MHz */
  HSA_AMD_AGENT_INFO_DRIVER_NODE_ID = 0xA004,           /* uint32_t */
  HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS = 0xA005, /* uint32_t */
  HSA_AMD_AGENT_INFO_BDFID = 0xA006,                    /* uint32_t, the thunk's LocationID */
  HSA_AMD_AGENT_INFO_MEMORY_WIDTH = 0xA007,             /* uint32_t, deprecated */
  HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY = 0xA008,     /* uint32_t */
  HSA_AMD_AGENT_INFO_PRODUCT_NAME = 0xA009,             /* char[64] */
  HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU = 0xA00A,         /* uint32_t */
  HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU = 0xA00B,         /* uint32_t */
  HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES = 0xA00C,       /* uint32_t */
  HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE = 0xA00D, /* uint32_t */
  HSA_AMD_AGENT_INFO_HDP_FLUSH = 0xA00E,                /* hsa_amd_hdp_flush_t */
  HSA_AMD_AGENT_INFO_DOMAIN = 0xA00F,                   /* uint32_t, PCIe domain */
  HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES = 0xA010,       /* bool */
  HSA_AMD_AGENT_INFO_UUID = 0xA011,                     /* char[21], "GPU-<16 hex digits>" */
  HSA_AMD_AGENT_INFO_ASIC_REVISION = 0xA012,            /* uint32_t */
  HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS = 0xA013,   /* bool */
  HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT = 0xA014, /* uint32_t */
  HSA_AMD_AGENT_INFO_MEMORY_AVAIL = 0xA015, /* uint64_t bytes; what hipMemGetInfo reports free */
  HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY = 0xA016,  /* uint64_t, Hz */
  HSA_AMD_AGENT_INFO_ASIC_FAMILY_ID = 0xA107,       /* uint32_t */
  HSA_AMD_AGENT_INFO_UCODE_VERSION = 0xA108,        /* uint32_t, CP firmware */
  HSA_AMD_AGENT_INFO_SDMA_UCODE_VERSION = 0xA109,   /* uint32_t */
  HSA_AMD_AGENT_INFO_NUM_SDMA_ENG = 0xA10A,         /* uint32_t */
  HSA_AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG = 0xA10B,    /* uint32_t */
  HSA_AMD_AGENT_INFO_IOMMU_SUPPORT = 0xA110,        /* hsa_amd_iommu_version_t */
  HSA_AMD_AGENT_INFO_NUM_XCC = 0xA111,              /* uint32_t */
  HSA_AMD_AGENT_INFO_DRIVER_UID = 0xA112,           /* uint32_t */
  HSA_AMD_AGENT_INFO_NEAREST_CPU = 0xA113,          /* hsa_agent_t */
  HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES = 0xA114,    /* uint8_t[8] of hsa_amd_agent_memory_properties_t */
  HSA_AMD_AGENT_INFO_AQL_EXTENSIONS = 0xA115,       /* uint8_t[8] of hsa_amd_agent_aql_properties_t */
  HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX = 0xA116,    /* uint64_t, bytes */
  HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_CURRENT = 0xA117, /* uint64_t, bytes */
  HSA_AMD_AGENT_INFO_CLOCK_COUNTERS = 0xA118,       /* hsa_amd_clock_counters_t */
  HSA_AMD_AGENT_INFO_PM4_EMULATION = 0xA119,
  HSA_AMD_AGENT_INFO_LUID = 0xA11A,                 /* hsa_luid_t, Windows only */
  HSA_AMD_AGENT_INFO_HAS_EXPERT_SCHED_MODE = 0xA11B, /* bool */
  HSA_AMD_AGENT_INFO_CUID = 0xA11C,                 /* uint8_t[16] */
  HSA_AMD_AGENT_INFO_KERNEL_WG_MAX_SIZE = 0xA11D,   /* uint64_t */
  HSA_AMD_AGENT_INFO_KERNEL_CLUSTER_MAX_DIM = 0xA11E, /* hsa_amd_dim3_t */
  HSA_AMD_AGENT_INFO_KERNEL_CLUSTER_MAX_SIZE = 0xA11F, /* uint64_t */
  HSA_AMD_AGENT_INFO_CLUSTER_MAX_DIM = 0xA120,      /* hsa_amd_dim3_t */
  HSA_AMD_AGENT_INFO_CLUSTER_MAX_SIZE = 0xA121,     /* uint64_t */
  HSA_AMD_AGENT_INFO_KERNEL_WG_MAX_DIM = 0xA122,    /* hsa_amd_dim3_t */
} hsa_amd_agent_info_t;

/* Bit positions in HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES. */
typedef enum hsa_amd_agent_memory_properties_s {
  HSA_AMD_MEMORY_PROPERTY_AGENT_IS_APU = (1 << 0),
} hsa_amd_agent_memory_properties_t;

/* Bit positions in HSA_AMD_AGENT_INFO_AQL_EXTENSIONS. */
typedef enum hsa_amd_agent_aql_properties_s {
  HSA_AMD_AQL_PROPERTY_EXT_DISPATCH = (1 << 0),
} hsa_amd_agent_aql_properties_t;

/* SDMA engines, one bit each. */
typedef enum hsa_amd_sdma_engine_id {
  HSA_AMD_SDMA_ENGINE_0 = 0x1,
  HSA_AMD_SDMA_ENGINE_1 = 0x2,
  HSA_AMD_SDMA_ENGINE_2 = 0x4,
  HSA_AMD_SDMA_ENGINE_3 = 0x8,
  HSA_AMD_SDMA_ENGINE_4 = 0x10,
  HSA_AMD_SDMA_ENGINE_5 = 0x20,
  HSA_AMD_SDMA_ENGINE_6 = 0x40,
  HSA_AMD_SDMA_ENGINE_7 = 0x80,
  HSA_AMD_SDMA_ENGINE_8 = 0x100,
  HSA_AMD_SDMA_ENGINE_9 = 0x200,
  HSA_AMD_SDMA_ENGINE_10 = 0x400,
  HSA_AMD_SDMA_ENGINE_11 = 0x800,
  HSA_AMD_SDMA_ENGINE_12 = 0x1000,
  HSA_AMD_SDMA_ENGINE_13 = 0x2000,
  HSA_AMD_SDMA_ENGINE_14 = 0x4000,
  HSA_AMD_SDMA_ENGINE_15 = 0x8000
} hsa_amd_sdma_engine_id_t;

/* HSA_AMD_AGENT_INFO_HDP_FLUSH: the HDP flush registers (outside the HSA memory model). */
typedef struct hsa_amd_hdp_flush_s {
  uint32_t* HDP_MEM_FLUSH_CNTL;
  uint32_t* HDP_REG_FLUSH_CNTL;
} hsa_amd_hdp_flush_t;

/* AMD attributes for hsa_region_get_info (cast to hsa_region_info_t). */
#ifdef __cplusplus
typedef enum hsa_amd_region_info_s : int {
#else
typedef enum hsa_amd_region_info_s {
#endif
  HSA_AMD_REGION_INFO_HOST_ACCESSIBLE = 0xA000,     /* bool */
  HSA_AMD_REGION_INFO_BASE = 0xA001,                /* void*, flat address */
  HSA_AMD_REGION_INFO_BUS_WIDTH = 0xA002,           /* uint32_t, deprecated */
  HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY = 0xA003, /* uint32_t, deprecated */
} hsa_amd_region_info_t;

typedef enum hsa_amd_coherency_type_s {
  HSA_AMD_COHERENCY_TYPE_COHERENT = 0,
  HSA_AMD_COHERENCY_TYPE_NONCOHERENT = 1
} hsa_amd_coherency_type_t;

/* Flags of hsa_amd_portable_export_dmabuf_v2. */
#ifdef __cplusplus
typedef enum hsa_amd_dma_buf_mapping_type_s : int {
#else
typedef enum hsa_amd_dma_buf_mapping_type_s {
#endif
  HSA_AMD_DMABUF_MAPPING_TYPE_NONE = 0,
  HSA_AMD_DMABUF_MAPPING_TYPE_PCIE = 1
} hsa_amd_dma_buf_mapping_type_t;

hsa_status_t HSA_API hsa_amd_coherency_get_type(hsa_agent_t agent, hsa_amd_coherency_type_t* type);

hsa_status_t HSA_API hsa_amd_coherency_set_type(hsa_agent_t agent, hsa_amd_coherency_type_t type);

/* --- Profiling -------------------------------------------------------------------------------- */

/* Start and end of a dispatch or an async copy, in system timestamp ticks. */
typedef struct hsa_amd_profiling_dispatch_time_s {
  uint64_t start;
  uint64_t end;
} hsa_amd_profiling_dispatch_time_t;

typedef struct hsa_amd_profiling_async_copy_time_s {
  uint64_t start;
  uint64_t end;
} hsa_amd_profiling_async_copy_time_t;

hsa_status_t HSA_API hsa_amd_profiling_set_profiler_enabled(hsa_queue_t* queue, int enable);

/* Records start and end times in the completion signals of later hsa_amd_memory_async_copy. */
hsa_status_t HSA_API hsa_amd_profiling_async_copy_enable(bool enable);

typedef enum hsa_amd_agent_preload_flag_s {
  HSA_AMD_AGENT_PRELOAD_SKIP_CLOCK_SYNC = (1 << 0),
  HSA_AMD_AGENT_PRELOAD_SKIP_BLITS = (1 << 1)
} hsa_amd_agent_preload_flag_t;

/* Initialises a GPU agent's resources early; flags skip some (hsa_amd_agent_preload_flag_t). */
hsa_status_t HSA_API hsa_amd_agent_preload(hsa_agent_t agent, uint64_t flags);

hsa_status_t HSA_API hsa_amd_profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                                         hsa_amd_profiling_dispatch_time_t* time);

hsa_status_t HSA_API hsa_amd_profiling_get_async_copy_time(
    hsa_signal_t signal, hsa_amd_profiling_async_copy_time_t* time);

/* Converts a tick of agent's clock to the system timestamp domain. */
hsa_status_t HSA_API hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t agent,
                                                                     uint64_t agent_tick,
                                                                     uint64_t* system_tick);

/* --- Signals ---------------------------------------------------------------------------------- */

typedef enum {
  HSA_AMD_SIGNAL_AMD_GPU_ONLY = 1, /* only AMD GPUs consume it */
  HSA_AMD_SIGNAL_IPC = 2,          /* shareable with other processes */
} hsa_amd_signal_attribute_t;

/* hsa_signal_create with attributes (hsa_amd_signal_attribute_t bits). */
hsa_status_t HSA_API hsa_amd_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                           const hsa_agent_t* consumers, uint64_t attributes,
                                           hsa_signal_t* signal);

/* Stores in *value_ptr the address of the signal's value. */
hsa_status_t hsa_amd_signal_value_pointer(hsa_signal_t signal,
                                          volatile hsa_signal_value_t** value_ptr);

/* Asynchronous handler: receives the satisfying value; returns true to stay registered. */
typedef bool (*hsa_amd_signal_handler)(hsa_signal_value_t value, void* arg);

/* Calls handler(value, arg) on a runtime thread whenever `signal cond value` holds. */
hsa_status_t HSA_API hsa_amd_signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t cond,
                                                  hsa_signal_value_t value,
                                                  hsa_amd_signal_handler handler, void* arg);

/* Waits for every (signal, condition, value) triple; returns 0, or UINT32_MAX on timeout. */
uint32_t HSA_API hsa_amd_signal_wait_all(uint32_t signal_count, hsa_signal_t* signals,
                                         hsa_signal_condition_t* conds, hsa_signal_value_t* values,
                                         uint64_t timeout_hint, hsa_wait_state_t wait_hint,
                                         hsa_signal_value_t* satisfying_values);

/* Waits for any triple; returns its index, or UINT32_MAX when none is valid. */
uint32_t HSA_API hsa_amd_signal_wait_any(uint32_t signal_count, hsa_signal_t* signals,
                                         hsa_signal_condition_t* conds, hsa_signal_value_t* values,
                                         uint64_t timeout_hint, hsa_wait_state_t wait_hint,
                                         hsa_signal_value_t* satisfying_value);

/* Stores the hardware event id behind a signal (0 if none). */
hsa_status_t HSA_API hsa_amd_signal_get_event_id(hsa_signal_t signal, uint32_t* event_id);

/* Runs callback(arg) on the runtime's asynchronous event thread. */
hsa_status_t HSA_API hsa_amd_async_function(void (*callback)(void* arg), void* arg);

/* --- Images ----------------------------------------------------------------------------------- */

/* Opaque, vendor-specific image layout of variable length; never copy it. */
typedef struct hsa_amd_image_descriptor_s {
  uint32_t version;
  uint32_t deviceID; /* VENDOR_ID << 16 | DEVICE_ID */
  uint32_t data[1];
} hsa_amd_image_descriptor_t;

hsa_status_t HSA_API hsa_amd_image_create(hsa_agent_t agent,
                                          const hsa_ext_image_descriptor_t* image_descriptor,
                                          const hsa_amd_image_descriptor_t* image_layout,
                                          const void* image_data,
                                          hsa_access_permission_t access_permission,
                                          hsa_ext_image_t* image);

/* Answers one of the HSA_EXT_AGENT_INFO_IMAGE_* limits. */
hsa_status_t HSA_API hsa_amd_image_get_info_max_dim(hsa_agent_t agent, hsa_agent_info_t attribute,
                                                    void* value);

/* --- Queues ----------------------------------------------------------------------------------- */

/* Restricts a queue to the CUs set in cu_mask (num_cu_mask_count bits, a multiple of 32). */
hsa_status_t HSA_API hsa_amd_queue_cu_set_mask(const hsa_queue_t* queue,
                                               uint32_t num_cu_mask_count,
                                               const uint32_t* cu_mask);

hsa_status_t HSA_API hsa_amd_queue_cu_get_mask(const hsa_queue_t* queue,
                                               uint32_t num_cu_mask_count, uint32_t* cu_mask);

/* --- Memory pools ----------------------------------------------------------------------------- */

typedef enum {
  HSA_AMD_SEGMENT_GLOBAL = 0,
  HSA_AMD_SEGMENT_READONLY = 1,
  HSA_AMD_SEGMENT_PRIVATE = 2,
  HSA_AMD_SEGMENT_GROUP = 3,
} hsa_amd_segment_t;

/* Opaque handle to one memory pool: a physical partition of an agent's memory plus its
 * coherence model. */
typedef struct hsa_amd_memory_pool_s {
  uint64_t handle;
} hsa_amd_memory_pool_t;

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
  HSA_AMD_MEMORY_POOL_UNCACHED_FLAG = (1 << 3),
} hsa_amd_memory_pool_flag_t;

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

/* Copies size bytes from src (reachable by src_agent) to dst (reachable by dst_agent) once every
 * dependency signal reads 0, then decrements completion_signal (negative on failure). */
hsa_status_t HSA_API hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                                               hsa_agent_t src_agent, size_t size,
                                               uint32_t num_dep_signals,
                                               const hsa_signal_t* dep_signals,
                                               hsa_signal_t completion_signal);

/* hsa_amd_memory_async_copy on a chosen SDMA engine. */
hsa_status_t HSA_API hsa_amd_memory_async_copy_on_engine(
    void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
    uint32_t num_dep_signals, const hsa_signal_t* dep_signals, hsa_signal_t completion_signal,
    hsa_amd_sdma_engine_id_t engine_id, bool force_copy_on_sdma);

/* --- Batched copies --------------------------------------------------------------------------- */

typedef enum {
  HSA_AMD_MEMORY_COPY_OP_LINEAR = 0,
  HSA_AMD_MEMORY_COPY_OP_LINEAR_BROADCAST = 1,
  HSA_AMD_MEMORY_COPY_OP_LINEAR_SWAP = 2,
  HSA_AMD_MEMORY_COPY_OP_LINEAR_INDIRECT_SRC = 3,
  HSA_AMD_MEMORY_COPY_OP_LINEAR_INDIRECT_DST = 4,
  HSA_AMD_MEMORY_COPY_OP_LINEAR_INDIRECT_SRCDST = 5,
} hsa_amd_memory_copy_op_type_t;

/* Comparison the SDMA engine polls with before a copy (its WAIT_FUNCTION). */
typedef enum {
  HSA_AMD_MEMORY_COPY_WAIT_ALWAYS = 0,
  HSA_AMD_MEMORY_COPY_WAIT_LT = 1,
  HSA_AMD_MEMORY_COPY_WAIT_LE = 2,
  HSA_AMD_MEMORY_COPY_WAIT_EQ = 3,
  HSA_AMD_MEMORY_COPY_WAIT_NE = 4,
  HSA_AMD_MEMORY_COPY_WAIT_GE = 5,
  HSA_AMD_MEMORY_COPY_WAIT_GT = 6,
} hsa_amd_memory_copy_wait_function_t;

/* 64-bit atomic the SDMA engine performs after a copy (its SIGNAL_OPERATION). */
typedef enum {
  HSA_AMD_MEMORY_COPY_SIGNAL_NONE = 0,
  HSA_AMD_MEMORY_COPY_SIGNAL_WRITE = 1,
  HSA_AMD_MEMORY_COPY_SIGNAL_ADD = 2,
  HSA_AMD_MEMORY_COPY_SIGNAL_SUB = 3,
} hsa_amd_memory_copy_signal_op_t;

#define HSA_AMD_MEMORY_COPY_OP_VERSION 1

/* One operation of hsa_amd_memory_async_batch_copy; which union members apply depends on type
 * and num_entries (0: single copy; else the caller-owned lists hold num_entries items). */
typedef struct hsa_amd_memory_copy_op_s {
  uint16_t version; /* HSA_AMD_MEMORY_COPY_OP_VERSION */
  uint16_t type;    /* hsa_amd_memory_copy_op_type_t */
  uint16_t num_entries;
  uint16_t traffic_class; /* 0: default */
  hsa_signal_t completion_signal;
  union {
    void* src;
    void** src_list;
  };
  union {
    hsa_agent_t src_agent;
    hsa_agent_t* src_agent_list; /* reserved */
  };
  union {
    hsa_agent_t dst_agent;
    hsa_agent_t* dst_agent_list;
  };
  union {
    void* dst;
    void** dst_list;
  };
  union {
    struct {
      size_t size;
      size_t unused_size;
    };
    struct {
      size_t src_size; /* LINEAR_SWAP */
      size_t dst_size;
    };
    struct {
      size_t* size_list; /* LINEAR with num_entries > 0 */
      size_t reserved0;
    };
  };
  struct {
    uint16_t function; /* hsa_amd_memory_copy_wait_function_t */
    uint16_t scope;    /* hsa_fence_scope_t */
    uint32_t reserved;
    void* addr;
    uint64_t value;
    uint64_t mask;
  } wait;
  struct {
    uint16_t operation; /* hsa_amd_memory_copy_signal_op_t */
    uint16_t scope;     /* hsa_fence_scope_t */
    uint32_t reserved;
    void* addr;
    uint64_t data;
  } signal;
  uint64_t reserved1[1];
} hsa_amd_memory_copy_op_t;

/* Submits num_copy_ops copies sharing one completion signal, set to num_copy_ops beforehand. */
hsa_status_t HSA_API hsa_amd_memory_async_batch_copy(const hsa_amd_memory_copy_op_t* copy_ops,
                                                     uint32_t num_copy_ops,
                                                     uint32_t num_dep_signals,
                                                     const hsa_signal_t* dep_signals);

/* Stores the SDMA engines (hsa_amd_sdma_engine_id_t bits) free for src_agent -> dst_agent. */
hsa_status_t HSA_API hsa_amd_memory_copy_engine_status(hsa_agent_t dst_agent,
                                                       hsa_agent_t src_agent,
                                                       uint32_t* engine_ids_mask);

hsa_status_t HSA_API hsa_amd_memory_get_preferred_copy_engine(hsa_agent_t dst_agent,
                                                              hsa_agent_t src_agent,
                                                              uint32_t* recommended_ids_mask);

/* Pitched buffer for rectangle copies: 4-byte aligned, pitch and slice in bytes. */
typedef struct hsa_pitched_ptr_s {
  void* base;
  size_t pitch;
  size_t slice;
} hsa_pitched_ptr_t;

typedef enum {
  hsaHostToHost = 0,
  hsaHostToDevice = 1,
  hsaDeviceToHost = 2,
  hsaDeviceToDevice = 3
} hsa_amd_copy_direction_t;

/* SDMA copy of a 3-D rectangle (x in bytes, y in rows, z in slices). */
hsa_status_t HSA_API hsa_amd_memory_async_copy_rect(
    const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset, const hsa_pitched_ptr_t* src,
    const hsa_dim3_t* src_offset, const hsa_dim3_t* range, hsa_agent_t copy_agent,
    hsa_amd_copy_direction_t dir, uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
    hsa_signal_t completion_signal);

/* --- Agent and pool pairs --------------------------------------------------------------------- */

/* Whether an agent may touch a pool's memory. */
typedef enum {
  HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED = 0,
  HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT = 1,
  HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT = 2 /* after hsa_amd_agents_allow_access */
} hsa_amd_memory_pool_access_t;

typedef enum {
  HSA_AMD_LINK_INFO_TYPE_HYPERTRANSPORT = 0,
  HSA_AMD_LINK_INFO_TYPE_QPI = 1,
  HSA_AMD_LINK_INFO_TYPE_PCIE = 2,
  HSA_AMD_LINK_INFO_TYPE_INFINBAND = 3,
  HSA_AMD_LINK_INFO_TYPE_XGMI = 4
} hsa_amd_link_info_type_t;

/* One hop of the path from an agent to a pool. */
typedef struct hsa_amd_memory_pool_link_info_s {
  uint32_t min_latency; /* ns */
  uint32_t max_latency;
  uint32_t min_bandwidth; /* MB/s */
  uint32_t max_bandwidth;
  bool atomic_support_32bit;
  bool atomic_support_64bit;
  bool coherent_support;
  hsa_amd_link_info_type_t link_type;
  uint32_t numa_distance;
} hsa_amd_memory_pool_link_info_t;

/* Attributes for hsa_amd_agent_memory_pool_get_info. */
typedef enum {
  HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS = 0,        /* hsa_amd_memory_pool_access_t */
  HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS = 1, /* uint32_t */
  HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO = 2      /* hsa_amd_memory_pool_link_info_t[hops] */
} hsa_amd_agent_memory_pool_info_t;

/* Writes the value of an attribute of the (agent, pool) pair to *value. */
hsa_status_t HSA_API hsa_amd_agent_memory_pool_get_info(hsa_agent_t agent,
                                                        hsa_amd_memory_pool_t memory_pool,
                                                        hsa_amd_agent_memory_pool_info_t attribute,
                                                        void* value);

/* Grants the listed agents (and the pool's owner, only them) access to a pool allocation; flags
 * must be NULL. */
hsa_status_t HSA_API hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t* agents,
                                                 const uint32_t* flags, const void* ptr);

hsa_status_t HSA_API hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t src_memory_pool,
                                                     hsa_amd_memory_pool_t dst_memory_pool,
                                                     bool* result);

hsa_status_t HSA_API hsa_amd_memory_migrate(const void* ptr, hsa_amd_memory_pool_t memory_pool,
                                            uint32_t flags);

/* Pins size bytes of host memory for agents (all when NULL and 0) and stores the address they
 * use in *agent_ptr. */
hsa_status_t HSA_API hsa_amd_memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents,
                                         int num_agent, void** agent_ptr);

/* hsa_amd_memory_lock with the access properties of a CPU agent's pool; flags must be 0. */
hsa_status_t HSA_API hsa_amd_memory_lock_to_pool(void* host_ptr, size_t size, hsa_agent_t* agents,
                                                 int num_agent, hsa_amd_memory_pool_t pool,
                                                 uint32_t flags, void** agent_ptr);

hsa_status_t HSA_API hsa_amd_memory_unlock(void* host_ptr);

/* Sets count uint32_t elements at ptr (4-byte aligned) to value. */
hsa_status_t HSA_API hsa_amd_memory_fill(void* ptr, uint32_t value, size_t count);

/* Maps a graphics interop buffer into the flat address space for the listed agents. */
hsa_status_t HSA_API hsa_amd_interop_map_buffer(uint32_t num_agents, hsa_agent_t* agents,
                                                hsa_handle_t interop_handle, uint32_t flags,
                                                size_t* size, void** ptr, size_t* metadata_size,
                                                const void** metadata);

hsa_status_t HSA_API hsa_amd_interop_unmap_buffer(void* ptr);

/* --- Pointer information ---------------------------------------------------------------------- */

typedef enum {
  HSA_EXT_POINTER_TYPE_UNKNOWN = 0,
  HSA_EXT_POINTER_TYPE_HSA = 1,
  HSA_EXT_POINTER_TYPE_LOCKED = 2,
  HSA_EXT_POINTER_TYPE_GRAPHICS = 3,
  HSA_EXT_POINTER_TYPE_IPC = 4,
  HSA_EXT_POINTER_TYPE_RESERVED_ADDR = 5,
  HSA_EXT_POINTER_TYPE_HSA_VMEM = 6
} hsa_amd_pointer_type_t;

/* Bits of hsa_amd_pointer_info_t::alloc_flags, as the kernel driver reports them. */
typedef enum hsa_amd_pointer_info_alloc_flag_s {
  HSA_AMD_POINTER_INFO_ALLOC_FLAG_EXECUTABLE = (1 << 0),
  HSA_AMD_POINTER_INFO_ALLOC_FLAG_CONTIGUOUS = (1 << 1),
  HSA_AMD_POINTER_INFO_ALLOC_FLAG_NONPAGED = (1 << 2),
  HSA_AMD_POINTER_INFO_ALLOC_FLAG_READONLY = (1 << 3),
  HSA_AMD_POINTER_INFO_ALLOC_FLAG_HOST_ACCESS = (1 << 4),
  HSA_AMD_POINTER_INFO_ALLOC_FLAG_ATOMIC_FULL = (1 << 5),
  HSA_AMD_POINTER_INFO_ALLOC_FLAG_ATOMIC_PARTIAL = (1 << 6),
} hsa_amd_pointer_info_alloc_flag_t;

/* An allocation known to the runtime. The caller sets size to sizeof; the runtime lowers it when
 * it fills fewer members. Only grows within a major version. */
typedef struct hsa_amd_pointer_info_s {
  uint32_t size;
  hsa_amd_pointer_type_t type;
  void* agentBaseAddress;
  void* hostBaseAddress;
  size_t sizeInBytes;
  void* userData;
  hsa_agent_t agentOwner;
  uint32_t global_flags; /* hsa_amd_memory_pool_global_flag_t bits */
  bool registered;
  uint32_t alloc_flags; /* hsa_amd_pointer_info_alloc_flag_t bits (1.18) */
} hsa_amd_pointer_info_t;

/* Describes the allocation holding ptr; with alloc and num_agents_accessible, also the agents
 * that may access it, in an array allocated with alloc. */
hsa_status_t HSA_API hsa_amd_pointer_info(const void* ptr, hsa_amd_pointer_info_t* info,
                                          void* (*alloc)(size_t),
                                          uint32_t* num_agents_accessible,
                                          hsa_agent_t** accessible);

hsa_status_t HSA_API hsa_amd_pointer_info_set_userdata(const void* ptr, void* userdata);

/* --- Interprocess sharing --------------------------------------------------------------------- */

/* 256-bit process-independent name of a shared allocation. */
typedef struct hsa_amd_ipc_memory_s {
  uint32_t handle[8];
} hsa_amd_ipc_memory_t;

hsa_status_t HSA_API hsa_amd_ipc_memory_create(void* ptr, size_t len,
                                               hsa_amd_ipc_memory_t* handle);

hsa_status_t HSA_API hsa_amd_ipc_memory_attach(const hsa_amd_ipc_memory_t* handle, size_t len,
                                               uint32_t num_agents,
                                               const hsa_agent_t* mapping_agents,
                                               void** mapped_ptr);

hsa_status_t HSA_API hsa_amd_ipc_memory_detach(void* mapped_ptr);

typedef hsa_amd_ipc_memory_t hsa_amd_ipc_signal_t;

hsa_status_t HSA_API hsa_amd_ipc_signal_create(hsa_signal_t signal, hsa_amd_ipc_signal_t* handle);

hsa_status_t HSA_API hsa_amd_ipc_signal_attach(const hsa_amd_ipc_signal_t* handle,
                                               hsa_signal_t* signal);

/* --- System events ---------------------------------------------------------------------------- */

typedef enum hsa_amd_event_type_s {
  HSA_AMD_GPU_MEMORY_FAULT_EVENT = 0,
  HSA_AMD_GPU_HW_EXCEPTION_EVENT = 1,
  HSA_AMD_GPU_MEMORY_ERROR_EVENT = 2,
  HSA_AMD_SYSTEM_SHUTDOWN_EVENT = 3,
} hsa_amd_event_type_t;

typedef enum {
  HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT = 1 << 0,
  HSA_AMD_MEMORY_FAULT_READ_ONLY = 1 << 1,
  HSA_AMD_MEMORY_FAULT_NX = 1 << 2,
  HSA_AMD_MEMORY_FAULT_HOST_ONLY = 1 << 3,
  HSA_AMD_MEMORY_FAULT_DRAMECC = 1 << 4,
  HSA_AMD_MEMORY_FAULT_IMPRECISE = 1 << 5,
  HSA_AMD_MEMORY_FAULT_SRAMECC = 1 << 6,
  HSA_AMD_MEMORY_FAULT_HANG = 1U << 31 /* GPU reset after a hang */
} hsa_amd_memory_fault_reason_t;

typedef struct hsa_amd_gpu_memory_fault_info_s {
  hsa_agent_t agent;
  uint64_t virtual_address;
  uint32_t fault_reason_mask; /* hsa_amd_memory_fault_reason_t bits */
} hsa_amd_gpu_memory_fault_info_t;

typedef enum {
  HSA_AMD_MEMORY_ERROR_MEMORY_IN_USE = (1 << 0),
} hsa_amd_memory_error_reason_t;

typedef struct hsa_amd_gpu_memory_error_info_s {
  hsa_agent_t agent;
  uint64_t virtual_address;
  uint32_t error_reason_mask; /* hsa_amd_memory_error_reason_t bits */
} hsa_amd_gpu_memory_error_info_t;

typedef enum {
  HSA_AMD_HW_EXCEPTION_RESET_TYPE_OTHER = 1 << 0,
} hsa_amd_hw_exception_reset_type_t;

typedef enum {
  HSA_AMD_HW_EXCEPTION_CAUSE_GPU_HANG = 1 << 0,
  HSA_AMD_HW_EXCEPTION_CAUSE_ECC = 1 << 1,
} hsa_amd_hw_exception_reset_cause_t;

typedef struct hsa_amd_gpu_hw_exception_info_s {
  hsa_agent_t agent;
  hsa_amd_hw_exception_reset_type_t reset_type;
  hsa_amd_hw_exception_reset_cause_t reset_cause;
} hsa_amd_gpu_hw_exception_info_t;

/* An event; the union member is the one event_type names (none for SYSTEM_SHUTDOWN). */
typedef struct hsa_amd_event_s {
  hsa_amd_event_type_t event_type;
  union {
    hsa_amd_gpu_memory_fault_info_t memory_fault;
    hsa_amd_gpu_hw_exception_info_t hw_exception;
    hsa_amd_gpu_memory_error_info_t memory_error;
  };
} hsa_amd_event_t;

typedef hsa_status_t (*hsa_amd_system_event_callback_t)(const hsa_amd_event_t* event, void* data);

/* Registers the one system event handler. */
hsa_status_t HSA_API hsa_amd_register_system_event_handler(hsa_amd_system_event_callback_t callback,
                                                           void* data);

/* --- Queue priority and creation flags -------------------------------------------------------- */

typedef enum hsa_amd_queue_priority_s {
  HSA_AMD_QUEUE_PRIORITY_LOW = 0,
  HSA_AMD_QUEUE_PRIORITY_NORMAL = 1, /* the default */
  HSA_AMD_QUEUE_PRIORITY_HIGH = 2,
} hsa_amd_queue_priority_t;

hsa_status_t HSA_API hsa_amd_queue_set_priority(hsa_queue_t* queue,
                                                hsa_amd_queue_priority_t priority);

typedef enum {
  HSA_AMD_QUEUE_CREATE_SYSTEM_MEM = 0,
  HSA_AMD_QUEUE_CREATE_DEVICE_MEM_RING_BUF = (1 << 0),
  HSA_AMD_QUEUE_CREATE_DEVICE_MEM_QUEUE_DESCRIPTOR = (1 << 1),
} hsa_amd_queue_create_flag_t;

/* --- Deallocation notifiers ------------------------------------------------------------------- */

typedef void (*hsa_amd_deallocation_callback_t)(void* ptr, void* user_data);

/* Calls callback(ptr, user_data) once, when ptr stops being accessible to every agent. */
hsa_status_t HSA_API hsa_amd_register_deallocation_callback(
    void* ptr, hsa_amd_deallocation_callback_t callback, void* user_data);

hsa_status_t HSA_API hsa_amd_deregister_deallocation_callback(
    void* ptr, hsa_amd_deallocation_callback_t callback);

/* --- Shared virtual memory -------------------------------------------------------------------- */

typedef enum hsa_amd_svm_model_s {
  HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED = 0,
  HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED = 1,
  HSA_AMD_SVM_GLOBAL_FLAG_INDETERMINATE = 2 /* query only: the range mixes both */
} hsa_amd_svm_model_t;

typedef enum hsa_amd_svm_attribute_s {
  HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG = 0,              /* hsa_amd_svm_model_t */
  HSA_AMD_SVM_ATTRIB_READ_ONLY = 1,                /* bool */
  HSA_AMD_SVM_ATTRIB_HIVE_LOCAL = 2,               /* bool */
  HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY = 3,    /* uint64_t, log2(pages) */
  HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION = 4,       /* hsa_agent_t */
  HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION = 5,        /* hsa_agent_t, query only */
  HSA_AMD_SVM_ATTRIB_READ_MOSTLY = 6,              /* bool */
  HSA_AMD_SVM_ATTRIB_GPU_EXEC = 7,                 /* bool */
  HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE = 0x200,     /* hsa_agent_t, set only */
  HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE = 0x201, /* hsa_agent_t, set only */
  HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS = 0x202,      /* hsa_agent_t, set only */
  HSA_AMD_SVM_ATTRIB_ACCESS_QUERY = 0x203,         /* hsa_agent_t in, access out; query only */
} hsa_amd_svm_attribute_t;

typedef struct hsa_amd_svm_attribute_pair_s {
  uint64_t attribute; /* hsa_amd_svm_attribute_t */
  uint64_t value;
} hsa_amd_svm_attribute_pair_t;

hsa_status_t hsa_amd_svm_attributes_set(void* ptr, size_t size,
                                        hsa_amd_svm_attribute_pair_t* attribute_list,
                                        size_t attribute_count);

hsa_status_t hsa_amd_svm_attributes_get(void* ptr, size_t size,
                                        hsa_amd_svm_attribute_pair_t* attribute_list,
                                        size_t attribute_count);

/* Migrates a range to agent once the dependencies read 0; completion_signal may be handle 0. */
hsa_status_t hsa_amd_svm_prefetch_async(void* ptr, size_t size, hsa_agent_t agent,
                                        uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                                        hsa_signal_t completion_signal);

/* Lets the system reclaim the pages behind count reserved ranges. */
hsa_status_t HSA_API hsa_amd_svm_discard_batch_async(void** ptrs, size_t* sizes, uint32_t count,
                                                     uint32_t num_dep_signals,
                                                     const hsa_signal_t* dep_signals,
                                                     hsa_signal_t completion_signal);

/* --- Streaming performance monitor ------------------------------------------------------------ */

hsa_status_t hsa_amd_spm_acquire(hsa_agent_t preferred_agent);

hsa_status_t hsa_amd_spm_release(hsa_agent_t preferred_agent);

hsa_status_t hsa_amd_spm_set_dest_buffer(hsa_agent_t preferred_agent, size_t size_in_bytes,
                                         uint32_t* timeout, uint32_t* size_copied, void* dest,
                                         bool* is_data_loss);

/* --- dma-buf export --------------------------------------------------------------------------- */

/* hsa_amd_portable_export_dmabuf_v2 with flags HSA_AMD_DMABUF_MAPPING_TYPE_NONE. */
hsa_status_t hsa_amd_portable_export_dmabuf(const void* ptr, size_t size, int* dmabuf,
                                            uint64_t* offset);

/* Exports size bytes of one GPU pool allocation as a dma-buf fd; *offset is ptr's place in it. */
hsa_status_t hsa_amd_portable_export_dmabuf_v2(const void* ptr, size_t size, int* dmabuf,
                                               uint64_t* offset, uint64_t flags);

hsa_status_t hsa_amd_portable_close_dmabuf(int dmabuf);

/* --- Virtual memory --------------------------------------------------------------------------- */

typedef enum hsa_amd_vmem_address_reserve_flag_s {
  HSA_AMD_VMEM_ADDRESS_NO_REGISTER = (1UL << 0), /* reserve without telling the driver */
} hsa_amd_vmem_address_reserve_flag_t;

/* Reserves size bytes of address space, at address if possible. */
hsa_status_t hsa_amd_vmem_address_reserve(void** va, size_t size, uint64_t address,
                                          uint64_t flags);

hsa_status_t hsa_amd_vmem_address_reserve_align(void** va, size_t size, uint64_t address,
                                                uint64_t alignment, uint64_t flags);

hsa_status_t hsa_amd_vmem_address_free(void* va, size_t size);

/* Physical memory backing a virtual range. */
typedef struct hsa_amd_vmem_alloc_handle_s {
  uint64_t handle;
} hsa_amd_vmem_alloc_handle_t;

typedef enum {
  MEMORY_TYPE_NONE = 0,
  MEMORY_TYPE_PINNED = 1,
} hsa_amd_memory_type_t;

hsa_status_t hsa_amd_vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size,
                                        hsa_amd_memory_type_t type, uint64_t flags,
                                        hsa_amd_vmem_alloc_handle_t* memory_handle);

hsa_status_t hsa_amd_vmem_handle_release(hsa_amd_vmem_alloc_handle_t memory_handle);

hsa_status_t hsa_amd_vmem_map(void* va, size_t size, size_t in_offset,
                              hsa_amd_vmem_alloc_handle_t memory_handle, uint64_t flags);

hsa_status_t hsa_amd_vmem_unmap(void* va, size_t size);

typedef struct hsa_amd_memory_access_desc_s {
  hsa_access_permission_t permissions;
  hsa_agent_t agent_handle;
} hsa_amd_memory_access_desc_t;

hsa_status_t hsa_amd_vmem_set_access(void* va, size_t size,
                                     const hsa_amd_memory_access_desc_t* desc, size_t desc_cnt);

hsa_status_t hsa_amd_vmem_get_access(void* va, hsa_access_permission_t* perms,
                                     hsa_agent_t agent_handle);

/* Exports a memory handle as a dma-buf fd another process can import. */
hsa_status_t hsa_amd_vmem_export_shareable_handle(int* dmabuf_fd,
                                                  hsa_amd_vmem_alloc_handle_t handle,
                                                  uint64_t flags);

hsa_status_t hsa_amd_vmem_import_shareable_handle(int dmabuf_fd,
                                                  hsa_amd_vmem_alloc_handle_t* handle);

/* Stores the handle mapped at addr, with one more reference. */
hsa_status_t hsa_amd_vmem_retain_alloc_handle(hsa_amd_vmem_alloc_handle_t* memory_handle,
                                              void* addr);

hsa_status_t hsa_amd_vmem_get_alloc_properties_from_handle(
    hsa_amd_vmem_alloc_handle_t memory_handle, hsa_amd_memory_pool_t* pool,
    hsa_amd_memory_type_t* type);

/* --- Queue resources -------------------------------------------------------------------------- */

/* Dispatches needing at most threshold bytes of scratch keep it instead of using it once. */
hsa_status_t HSA_API hsa_amd_agent_set_async_scratch_limit(hsa_agent_t agent, size_t threshold);

typedef enum {
  HSA_AMD_QUEUE_INFO_AGENT = 0,                                        /* hsa_agent_t */
  HSA_AMD_QUEUE_INFO_DOORBELL_ID = 1,                                  /* uint64_t */
  HSA_QUEUE_INFO_USE_COUNT = 2,                                        /* uint32_t */
  HSA_QUEUE_INFO_HW_ID = 3,                                            /* uint32_t */
  HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_DISPATCH_PKT_VERSION_MAJOR = 4, /* uint8_t */
  HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_DISPATCH_PKT_VERSION_MINOR = 5, /* uint8_t */
  HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_BARRIER_PKT_VERSION_MAJOR = 6,  /* uint8_t */
  HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_BARRIER_PKT_VERSION_MINOR = 7,  /* uint8_t */
  HSA_AMD_QUEUE_INFO_PREFETCH_METADATA_RING_BUFFER = 8,                /* uint64_t */
  HSA_AMD_QUEUE_INFO_PROPERTIES = 9,                                   /* uint8_t[8] */
} hsa_queue_info_attribute_t;

hsa_status_t hsa_amd_queue_get_info(hsa_queue_t* queue, hsa_queue_info_attribute_t attribute,
                                    void* value);

/* --- Direct storage I/O (experimental upstream) ----------------------------------------------- */

/* A file for AIS reads and writes: an fd on Linux, 8 bytes everywhere. */
typedef struct hsa_amd_ais_file_handle_s {
  union {
    void* handle;
    int fd;
    uint8_t pad[8];
  };
} hsa_amd_ais_file_handle_t;

hsa_status_t HSA_API hsa_amd_ais_file_write(hsa_amd_ais_file_handle_t handle, void* devicePtr,
                                            uint64_t size, int64_t file_offset,
                                            uint64_t* size_copied, int32_t* status);

hsa_status_t HSA_API hsa_amd_ais_file_read(hsa_amd_ais_file_handle_t handle, void* devicePtr,
                                           uint64_t size, int64_t file_offset,
                                           uint64_t* size_copied, int32_t* status);

/* --- Counted queues --------------------------------------------------------------------------- */

/* A queue handle on a hardware queue shared up to GPU_MAX_HW_QUEUES per priority. */
hsa_status_t HSA_API hsa_amd_counted_queue_acquire(hsa_agent_t agent, hsa_queue_type_t type,
                                                   hsa_amd_queue_priority_t priority,
                                                   void (*callback)(hsa_status_t status,
                                                                    hsa_queue_t* source,
                                                                    void* data),
                                                   void* data, uint64_t flags,
                                                   hsa_queue_t** queue);

hsa_status_t HSA_API hsa_amd_counted_queue_release(hsa_queue_t* queue);

/* --- Logging ---------------------------------------------------------------------------------- */

typedef enum hsa_amd_log_flag_s {
  HSA_AMD_LOG_FLAG_BLIT_KERNEL_PKTS = 0,
  HSA_AMD_LOG_FLAG_AQL = 0,
  HSA_AMD_LOG_FLAG_SDMA = 1,
  HSA_AMD_LOG_FLAG_INFO = 2,
} hsa_amd_log_flag_t;

/* Logs the kinds set in flags (uint8_t[8] of hsa_amd_log_flag_t; all 0 stops) to file, a FILE*
 * (NULL: stderr). */
hsa_status_t hsa_amd_enable_logging(uint8_t* flags, void* file);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HSA_RUNTIME_EXT_AMD_H_ */
