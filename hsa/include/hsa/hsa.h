/* HSA runtime core API, rewritten for hipmem.
 *
 * The subset of the HSA 1.x runtime interface (ROCR-Runtime runtime/hsa-runtime/inc/hsa.h, October
 * 2024) that hipmem's runtime implements: status codes, initialisation, system and agent queries
 * and the synchronous copy. Enumerator values, handle layouts and function signatures are
 * upstream's, so HSA host code compiles unchanged. Plain C.
 */
#ifndef HIPMEM_HSA_HSA_H_
#define HIPMEM_HSA_HSA_H_

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* Calling convention and export decoration, composed the way upstream composes them: HSA_API
 * exports only when the includer defines HSA_EXPORT (the runtime's own build). */
#ifndef HSA_CALL
#define HSA_CALL
#endif
#ifndef HSA_EXPORT_DECORATOR
#if defined(__GNUC__)
#define HSA_EXPORT_DECORATOR __attribute__((visibility("default")))
#else
#define HSA_EXPORT_DECORATOR
#endif
#endif
#define HSA_API_EXPORT HSA_EXPORT_DECORATOR HSA_CALL
#define HSA_API_IMPORT HSA_CALL
#ifndef HSA_API
#if defined(HSA_EXPORT)
#define HSA_API HSA_API_EXPORT
#else
#define HSA_API HSA_API_IMPORT
#endif
#endif

#ifndef HSA_DEPRECATED
#define HSA_DEPRECATED
#endif

#if defined(__LP64__) || defined(_M_X64)
#define HSA_LARGE_MODEL
#endif

#define HSA_VERSION_1_0 1

#ifdef __cplusplus
extern "C" {
#endif

/* --- Status codes ----------------------------------------------------------------------------- */

/* Result of every HSA call. hsa_ext_amd.h adds AMD codes 40..46 in an unnamed enum. */
typedef enum {
  HSA_STATUS_SUCCESS = 0x0,
  HSA_STATUS_INFO_BREAK = 0x1, /* a callback stopped an iteration early; not a failure */
  HSA_STATUS_ERROR = 0x1000,   /* failure with no more specific code */
  HSA_STATUS_ERROR_INVALID_ARGUMENT = 0x1001,
  HSA_STATUS_ERROR_INVALID_QUEUE_CREATION = 0x1002,
  HSA_STATUS_ERROR_INVALID_ALLOCATION = 0x1003,
  HSA_STATUS_ERROR_INVALID_AGENT = 0x1004,
  HSA_STATUS_ERROR_INVALID_REGION = 0x1005,
  HSA_STATUS_ERROR_INVALID_SIGNAL = 0x1006,
  HSA_STATUS_ERROR_INVALID_QUEUE = 0x1007,
  HSA_STATUS_ERROR_OUT_OF_RESOURCES = 0x1008,
  HSA_STATUS_ERROR_INVALID_PACKET_FORMAT = 0x1009,
  HSA_STATUS_ERROR_RESOURCE_FREE = 0x100A,
  HSA_STATUS_ERROR_NOT_INITIALIZED = 0x100B, /* before hsa_init or after the last shut down */
  HSA_STATUS_ERROR_REFCOUNT_OVERFLOW = 0x100C,
  HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS = 0x100D,
  HSA_STATUS_ERROR_INVALID_INDEX = 0x100E,
  HSA_STATUS_ERROR_INVALID_ISA = 0x100F,
  HSA_STATUS_ERROR_INVALID_CODE_OBJECT = 0x1010,
  HSA_STATUS_ERROR_INVALID_EXECUTABLE = 0x1011,
  HSA_STATUS_ERROR_FROZEN_EXECUTABLE = 0x1012,
  HSA_STATUS_ERROR_INVALID_SYMBOL_NAME = 0x1013,
  HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED = 0x1014,
  HSA_STATUS_ERROR_VARIABLE_UNDEFINED = 0x1015,
  HSA_STATUS_ERROR_EXCEPTION = 0x1016,
  HSA_STATUS_ERROR_INVALID_ISA_NAME = 0x1017,
  HSA_STATUS_ERROR_INVALID_CODE_SYMBOL = 0x1018,
  HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL = 0x1019,
  HSA_STATUS_ERROR_INVALID_FILE = 0x1020,
  HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER = 0x1021,
  HSA_STATUS_ERROR_INVALID_CACHE = 0x1022,
  HSA_STATUS_ERROR_INVALID_WAVEFRONT = 0x1023,
  HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP = 0x1024,
  HSA_STATUS_ERROR_INVALID_RUNTIME_STATE = 0x1025,
  HSA_STATUS_ERROR_FATAL = 0x1026
} hsa_status_t;

/* Stores in *status_string a NUL-terminated description of status, owned by the runtime. */
hsa_status_t HSA_API hsa_status_string(hsa_status_t status, const char** status_string);

/* --- Initialisation --------------------------------------------------------------------------- */

/* Initialises the runtime, or counts one more reference when it already is. */
hsa_status_t HSA_API hsa_init(void);

/* Drops one reference; the last one releases every runtime object. */
hsa_status_t HSA_API hsa_shut_down(void);

/* --- System ----------------------------------------------------------------------------------- */

typedef enum { HSA_ENDIANNESS_LITTLE = 0, HSA_ENDIANNESS_BIG = 1 } hsa_endianness_t;

typedef enum {
  HSA_MACHINE_MODEL_SMALL = 0, /* 32-bit addresses */
  HSA_MACHINE_MODEL_LARGE = 1  /* 64-bit addresses */
} hsa_machine_model_t;

typedef enum {
  HSA_PROFILE_BASE = 0, /* only runtime-allocated memory is shared (discrete GPUs) */
  HSA_PROFILE_FULL = 1  /* any host pointer is shared (APUs) */
} hsa_profile_t;

/* Attributes for hsa_system_get_info. The AMD attributes live in this enum upstream too. */
typedef enum {
  HSA_SYSTEM_INFO_VERSION_MAJOR = 0,       /* uint16_t */
  HSA_SYSTEM_INFO_VERSION_MINOR = 1,       /* uint16_t */
  HSA_SYSTEM_INFO_TIMESTAMP = 2,           /* uint64_t */
  HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY = 3, /* uint64_t, Hz */
  HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT = 4,     /* uint64_t, timestamp ticks */
  HSA_SYSTEM_INFO_ENDIANNESS = 5,          /* hsa_endianness_t */
  HSA_SYSTEM_INFO_MACHINE_MODEL = 6,       /* hsa_machine_model_t */
  HSA_SYSTEM_INFO_EXTENSIONS = 7,          /* uint8_t[128] bit mask */
  HSA_AMD_SYSTEM_INFO_BUILD_VERSION = 0x200,
  HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED = 0x201,
  HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT = 0x202,
  HSA_AMD_SYSTEM_INFO_MWAITX_ENABLED = 0x203,
  HSA_AMD_SYSTEM_INFO_DMABUF_SUPPORTED = 0x204,
  HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED = 0x205,
  HSA_AMD_SYSTEM_INFO_XNACK_ENABLED = 0x206,
  HSA_AMD_SYSTEM_INFO_EXT_VERSION_MAJOR = 0x207,
  HSA_AMD_SYSTEM_INFO_EXT_VERSION_MINOR = 0x208,
} hsa_system_info_t;

/* Writes the value of a system attribute to *value, which must be large enough for it. */
hsa_status_t HSA_API hsa_system_get_info(hsa_system_info_t attribute, void* value);

/* --- Agents ----------------------------------------------------------------------------------- */

/* Opaque agent (CPU or GPU) handle; equal handles name the same agent. */
typedef struct hsa_agent_s {
  uint64_t handle;
} hsa_agent_t;

typedef enum {
  HSA_AGENT_FEATURE_KERNEL_DISPATCH = 1,
  HSA_AGENT_FEATURE_AGENT_DISPATCH = 2
} hsa_agent_feature_t;

typedef enum {
  HSA_DEVICE_TYPE_CPU = 0,
  HSA_DEVICE_TYPE_GPU = 1,
  HSA_DEVICE_TYPE_DSP = 2,
  HSA_DEVICE_TYPE_AIE = 3
} hsa_device_type_t;

typedef enum {
  HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT = 0,
  HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO = 1,
  HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR = 2
} hsa_default_float_rounding_mode_t;

/* Attributes for hsa_agent_get_info. hsa_ext_amd.h's hsa_amd_agent_info_t holds the AMD ones
 * (0xA000...), passed here cast to this type; the last enumerator widens the enum's range to all
 * of int32_t so those casts are well defined in C++. */
typedef enum {
  HSA_AGENT_INFO_NAME = 0,        /* char[64] */
  HSA_AGENT_INFO_VENDOR_NAME = 1, /* char[64] */
  HSA_AGENT_INFO_FEATURE = 2,     /* hsa_agent_feature_t */
  HSA_AGENT_INFO_MACHINE_MODEL = 3,
  HSA_AGENT_INFO_PROFILE = 4,
  HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 5,
  HSA_AGENT_INFO_WAVEFRONT_SIZE = 6,
  HSA_AGENT_INFO_WORKGROUP_MAX_DIM = 7,
  HSA_AGENT_INFO_WORKGROUP_MAX_SIZE = 8,
  HSA_AGENT_INFO_GRID_MAX_DIM = 9,
  HSA_AGENT_INFO_GRID_MAX_SIZE = 10,
  HSA_AGENT_INFO_FBARRIER_MAX_SIZE = 11,
  HSA_AGENT_INFO_QUEUES_MAX = 12,
  HSA_AGENT_INFO_QUEUE_MIN_SIZE = 13,
  HSA_AGENT_INFO_QUEUE_MAX_SIZE = 14,
  HSA_AGENT_INFO_QUEUE_TYPE = 15,
  HSA_AGENT_INFO_NODE = 16,   /* uint32_t, the KFD topology node */
  HSA_AGENT_INFO_DEVICE = 17, /* hsa_device_type_t */
  HSA_AGENT_INFO_CACHE_SIZE = 18,
  HSA_AGENT_INFO_ISA = 19,
  HSA_AGENT_INFO_EXTENSIONS = 20,
  HSA_AGENT_INFO_VERSION_MAJOR = 21,
  HSA_AGENT_INFO_VERSION_MINOR = 22,
  HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES = 23,
  HSA_AGENT_INFO_FAST_F16_OPERATION = 24,
  HSA_AGENT_INFO_LAST = INT32_MAX
} hsa_agent_info_t;

/* Writes the value of an agent attribute to *value, which must be large enough for it. */
hsa_status_t HSA_API hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value);

/* Calls callback once per agent, in a stable order, until it returns anything but
 * HSA_STATUS_SUCCESS; that value is then returned (HSA_STATUS_INFO_BREAK by convention). */
hsa_status_t HSA_API hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t agent, void* data),
                                        void* data);

/* --- Signals ---------------------------------------------------------------------------------- */

/* Opaque signal handle; handle 0 is never a valid signal. */
typedef struct hsa_signal_s {
  uint64_t handle;
} hsa_signal_t;

#ifdef HSA_LARGE_MODEL
typedef int64_t hsa_signal_value_t;
#else
typedef int32_t hsa_signal_value_t;
#endif

/* --- Memory regions --------------------------------------------------------------------------- */

/* Opaque memory region handle (the pre-pool view of an agent's memory). */
typedef struct hsa_region_s {
  uint64_t handle;
} hsa_region_t;

typedef enum {
  HSA_REGION_SEGMENT_GLOBAL = 0,
  HSA_REGION_SEGMENT_READONLY = 1,
  HSA_REGION_SEGMENT_PRIVATE = 2,
  HSA_REGION_SEGMENT_GROUP = 3,
  HSA_REGION_SEGMENT_KERNARG = 4
} hsa_region_segment_t;

typedef enum {
  HSA_REGION_GLOBAL_FLAG_KERNARG = 1,
  HSA_REGION_GLOBAL_FLAG_FINE_GRAINED = 2,
  HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED = 4,
  HSA_REGION_GLOBAL_FLAG_EXTENDED_SCOPE_FINE_GRAINED = 8
} hsa_region_global_flag_t;

typedef enum {
  HSA_REGION_INFO_SEGMENT = 0,      /* hsa_region_segment_t */
  HSA_REGION_INFO_GLOBAL_FLAGS = 1, /* uint32_t mask of hsa_region_global_flag_t */
  HSA_REGION_INFO_SIZE = 2,         /* size_t */
  HSA_REGION_INFO_ALLOC_MAX_SIZE = 4,
  HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED = 5,
  HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE = 6,
  HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT = 7,
  HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE = 8
} hsa_region_info_t;

/* Copies size bytes from src to dst, either of which may be host or device memory, and returns
 * when the copy is complete. */
hsa_status_t HSA_API hsa_memory_copy(void* dst, const void* src, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPMEM_HSA_HSA_H_ */
