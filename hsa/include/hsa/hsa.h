/* HSA runtime core API, rewritten for hipmem.
 *
 * Declares what ROCr's public hsa.h declares (ROCm/rocm-systems
 * projects/rocr-runtime/runtime/hsa-runtime/inc/hsa.h, the 2025 version with hsa_file_t,
 * hsa_handle_t and hsa_luid_t): every type, enumerator, macro, structure and function, with
 * upstream's names, values, layouts and signatures, so that ROCr host code compiles unchanged.
 * Which functions hipmem implements and which answer an error is in hsa_c_api.cc and
 * hsa_unsupported.cc. Plain C; the layouts are pinned by hsa_layout_asserts.inc.
 */
#ifndef HSA_RUNTIME_INC_HSA_H_
#define HSA_RUNTIME_INC_HSA_H_

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* Calling convention and export decoration, composed as upstream composes them: HSA_API exports
 * only when the includer defines HSA_EXPORT (a runtime's own build). */
#ifndef HSA_CALL
#define HSA_CALL
#endif
#ifndef HSA_EXPORT_DECORATOR
#ifdef __GNUC__
#define HSA_EXPORT_DECORATOR __attribute__((visibility("default")))
#else
#define HSA_EXPORT_DECORATOR
#endif
#endif
#define HSA_API_EXPORT HSA_EXPORT_DECORATOR HSA_CALL
#define HSA_API_IMPORT HSA_CALL

#if !defined(HSA_API) && defined(HSA_EXPORT)
#define HSA_API HSA_API_EXPORT
#else
#define HSA_API HSA_API_IMPORT
#endif

/* 64-bit builds use the large machine model (64-bit signal values and addresses). */
#undef HSA_LARGE_MODEL
#if defined(__LP64__) || defined(_M_X64)
#define HSA_LARGE_MODEL
#endif

/* Byte order, which decides where the reserved halves of 32-bit pointers go. */
#if !defined(LITTLEENDIAN_CPU) && !defined(BIGENDIAN_CPU)
#if defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define LITTLEENDIAN_CPU
#elif defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define BIGENDIAN_CPU
#elif defined(__i386__) || defined(__x86_64__) || defined(_M_IX86) || defined(_M_X64) || \
    defined(__loongarch_lp64) || defined(__riscv) || defined(__aarch64__) || defined(__arm__)
#define LITTLEENDIAN_CPU
#endif
#endif

#undef HSA_LITTLE_ENDIAN
#if defined(LITTLEENDIAN_CPU)
#define HSA_LITTLE_ENDIAN
#elif defined(BIGENDIAN_CPU)
#else
#error "BIGENDIAN_CPU or LITTLEENDIAN_CPU must be defined"
#endif

/* Upstream marks deprecated functions with this and defines it empty. */
#ifndef HSA_DEPRECATED
#define HSA_DEPRECATED
#endif

#define HSA_VERSION_1_0 1

#ifdef __cplusplus
extern "C" {
#endif

/* --- Status codes ----------------------------------------------------------------------------- */

/* Result of every HSA call. hsa_ext_amd.h and hsa_ext_image.h add codes in unnamed enums. */
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
  HSA_STATUS_ERROR_NOT_INITIALIZED = 0x100B, /* any call but hsa_init while the count is 0 */
  HSA_STATUS_ERROR_REFCOUNT_OVERFLOW = 0x100C,
  HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS = 0x100D,
  HSA_STATUS_ERROR_INVALID_INDEX = 0x100E,
  HSA_STATUS_ERROR_INVALID_ISA = 0x100F,
  HSA_STATUS_ERROR_INVALID_ISA_NAME = 0x1017, /* listed here, out of order, upstream too */
  HSA_STATUS_ERROR_INVALID_CODE_OBJECT = 0x1010,
  HSA_STATUS_ERROR_INVALID_EXECUTABLE = 0x1011,
  HSA_STATUS_ERROR_FROZEN_EXECUTABLE = 0x1012,
  HSA_STATUS_ERROR_INVALID_SYMBOL_NAME = 0x1013,
  HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED = 0x1014,
  HSA_STATUS_ERROR_VARIABLE_UNDEFINED = 0x1015,
  HSA_STATUS_ERROR_EXCEPTION = 0x1016,
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

/* --- Common definitions ----------------------------------------------------------------------- */

typedef struct hsa_dim3_s {
  uint32_t x;
  uint32_t y;
  uint32_t z;
} hsa_dim3_t;

typedef enum {
  HSA_ACCESS_PERMISSION_NONE = 0, /* removes existing access */
  HSA_ACCESS_PERMISSION_RO = 1,
  HSA_ACCESS_PERMISSION_WO = 2,
  HSA_ACCESS_PERMISSION_RW = 3
} hsa_access_permission_t;

/* An OS file: a POSIX descriptor, or a Win32 HANDLE on Windows. */
#if defined(_WIN32) || defined(_WIN64)
typedef void* hsa_file_t;
#else
typedef int hsa_file_t;
#endif

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
  HSA_SYSTEM_INFO_EXTENSIONS = 7,          /* uint8_t[128] bit mask of hsa_extension_t */
  HSA_AMD_SYSTEM_INFO_BUILD_VERSION = 0x200,                /* const char* */
  HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED = 0x201,                /* bool */
  HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT = 0x202,    /* bool */
  HSA_AMD_SYSTEM_INFO_MWAITX_ENABLED = 0x203,               /* bool */
  HSA_AMD_SYSTEM_INFO_DMABUF_SUPPORTED = 0x204,             /* bool */
  HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED = 0x205,    /* bool */
  HSA_AMD_SYSTEM_INFO_XNACK_ENABLED = 0x206,                /* bool */
  HSA_AMD_SYSTEM_INFO_EXT_VERSION_MAJOR = 0x207,            /* uint16_t */
  HSA_AMD_SYSTEM_INFO_EXT_VERSION_MINOR = 0x208,            /* uint16_t */
  HSA_AMD_SYSTEM_INFO_FABRIC_HANDLES_SUPPORTED = 0x209,     /* bool */
  HSA_AMD_SYSTEM_INFO_HOST_ALLOC_DMA_BUF_SUPPORTED = 0x20A, /* bool */
} hsa_system_info_t;

/* Writes the value of a system attribute to *value, which must be large enough for it. */
hsa_status_t HSA_API hsa_system_get_info(hsa_system_info_t attribute, void* value);

/* Extension identifiers: bit positions in HSA_SYSTEM_INFO_EXTENSIONS and the `extension`
 * argument of the queries below. */
typedef enum {
  HSA_EXTENSION_FINALIZER = 0,
  HSA_EXTENSION_IMAGES = 1,
  HSA_EXTENSION_PERFORMANCE_COUNTERS = 2,
  HSA_EXTENSION_PROFILING_EVENTS = 3,
  HSA_EXTENSION_STD_LAST = 3,
  HSA_AMD_FIRST_EXTENSION = 0x200,
  HSA_EXTENSION_AMD_PROFILER = 0x200,
  HSA_EXTENSION_AMD_LOADER = 0x201,
  HSA_EXTENSION_AMD_AQLPROFILE = 0x202,
  HSA_EXTENSION_AMD_PC_SAMPLING = 0x203,
  HSA_AMD_LAST_EXTENSION = 0x203
} hsa_extension_t;

/* Stores the NUL-terminated name of an extension in *name. */
hsa_status_t HSA_API hsa_extension_get_name(uint16_t extension, const char** name);

/* Superseded by hsa_system_major_extension_supported. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_system_extension_supported(uint16_t extension,
                                                                   uint16_t version_major,
                                                                   uint16_t version_minor,
                                                                   bool* result);

/* Stores in *result whether major version version_major of an extension is supported, and in
 * *version_minor the highest supported minor version. */
hsa_status_t HSA_API hsa_system_major_extension_supported(uint16_t extension,
                                                          uint16_t version_major,
                                                          uint16_t* version_minor, bool* result);

/* Superseded by hsa_system_get_major_extension_table. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_system_get_extension_table(uint16_t extension,
                                                                   uint16_t version_major,
                                                                   uint16_t version_minor,
                                                                   void* table);

/* Fills at most table_length bytes of an extension's function pointer table. */
hsa_status_t HSA_API hsa_system_get_major_extension_table(uint16_t extension,
                                                          uint16_t version_major,
                                                          size_t table_length, void* table);

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

/* Attributes for hsa_agent_get_info. hsa_ext_amd.h's hsa_amd_agent_info_t (0xA000...) and
 * hsa_ext_image.h's image limits (0x3000...) are passed cast to this type; the last enumerator
 * widens the enum's range to all of int32_t so those casts are defined in C++ (upstream's too). */
typedef enum {
  HSA_AGENT_INFO_NAME = 0,                                      /* char[64] */
  HSA_AGENT_INFO_VENDOR_NAME = 1,                               /* char[64] */
  HSA_AGENT_INFO_FEATURE = 2,                                   /* hsa_agent_feature_t */
  HSA_AGENT_INFO_MACHINE_MODEL = 3,                             /* deprecated: ISA info */
  HSA_AGENT_INFO_PROFILE = 4,                                   /* deprecated: ISA info */
  HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 5,               /* deprecated: ISA info */
  HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES = 23, /* deprecated: ISA info */
  HSA_AGENT_INFO_FAST_F16_OPERATION = 24,                       /* deprecated: ISA info */
  HSA_AGENT_INFO_WAVEFRONT_SIZE = 6,                            /* deprecated: wavefront info */
  HSA_AGENT_INFO_WORKGROUP_MAX_DIM = 7,                         /* uint16_t[3] */
  HSA_AGENT_INFO_WORKGROUP_MAX_SIZE = 8,                        /* uint32_t */
  HSA_AGENT_INFO_GRID_MAX_DIM = 9,                              /* hsa_dim3_t */
  HSA_AGENT_INFO_GRID_MAX_SIZE = 10,                            /* uint32_t */
  HSA_AGENT_INFO_FBARRIER_MAX_SIZE = 11,                        /* uint32_t */
  HSA_AGENT_INFO_QUEUES_MAX = 12,                               /* uint32_t, deprecated */
  HSA_AGENT_INFO_QUEUE_MIN_SIZE = 13,                           /* uint32_t, packets */
  HSA_AGENT_INFO_QUEUE_MAX_SIZE = 14,                           /* uint32_t, packets */
  HSA_AGENT_INFO_QUEUE_TYPE = 15,                               /* hsa_queue_type32_t */
  HSA_AGENT_INFO_NODE = 16,                                     /* uint32_t, deprecated */
  HSA_AGENT_INFO_DEVICE = 17,                                   /* hsa_device_type_t */
  HSA_AGENT_INFO_CACHE_SIZE = 18,                               /* uint32_t[4], deprecated */
  HSA_AGENT_INFO_ISA = 19,                                      /* hsa_isa_t, deprecated */
  HSA_AGENT_INFO_EXTENSIONS = 20,                               /* uint8_t[128] */
  HSA_AGENT_INFO_VERSION_MAJOR = 21,                            /* uint16_t */
  HSA_AGENT_INFO_VERSION_MINOR = 22,                            /* uint16_t */
  HSA_AGENT_INFO_LAST = INT32_MAX
} hsa_agent_info_t;

/* Writes the value of an agent attribute to *value, which must be large enough for it. */
hsa_status_t HSA_API hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value);

/* Calls callback once per agent, in a stable order, until it returns anything but
 * HSA_STATUS_SUCCESS; that value is then returned (HSA_STATUS_INFO_BREAK by convention). */
hsa_status_t HSA_API hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t agent, void* data),
                                        void* data);

typedef enum {
  HSA_EXCEPTION_POLICY_BREAK = 1,
  HSA_EXCEPTION_POLICY_DETECT = 2
} hsa_exception_policy_t;

/* Superseded by hsa_isa_get_exception_policies. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_agent_get_exception_policies(hsa_agent_t agent,
                                                                     hsa_profile_t profile,
                                                                     uint16_t* mask);

/* Opaque handle to one cache of an agent. */
typedef struct hsa_cache_s {
  uint64_t handle;
} hsa_cache_t;

typedef enum {
  HSA_CACHE_INFO_NAME_LENGTH = 0, /* uint32_t, without the NUL */
  HSA_CACHE_INFO_NAME = 1,        /* char[NAME_LENGTH + 1] */
  HSA_CACHE_INFO_LEVEL = 2,       /* uint8_t, 1 for L1 */
  HSA_CACHE_INFO_SIZE = 3         /* uint32_t, bytes */
} hsa_cache_info_t;

hsa_status_t HSA_API hsa_cache_get_info(hsa_cache_t cache, hsa_cache_info_t attribute,
                                        void* value);

/* Calls callback once per cache of agent, in ascending level. */
hsa_status_t HSA_API hsa_agent_iterate_caches(hsa_agent_t agent,
                                              hsa_status_t (*callback)(hsa_cache_t cache,
                                                                       void* data),
                                              void* data);

/* Superseded by hsa_agent_major_extension_supported. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_agent_extension_supported(uint16_t extension,
                                                                  hsa_agent_t agent,
                                                                  uint16_t version_major,
                                                                  uint16_t version_minor,
                                                                  bool* result);

hsa_status_t HSA_API hsa_agent_major_extension_supported(uint16_t extension, hsa_agent_t agent,
                                                         uint16_t version_major,
                                                         uint16_t* version_minor, bool* result);

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

/* Creates a signal holding initial_value. consumers (num_consumers of them) lists the agents that
 * may wait on it; 0 means any agent. */
hsa_status_t HSA_API hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                       const hsa_agent_t* consumers, hsa_signal_t* signal);

hsa_status_t HSA_API hsa_signal_destroy(hsa_signal_t signal);

/* Atomic operations on a signal's value. The suffix names the memory order; the _acquire,
 * _release and _acq_rel spellings are upstream's deprecated names of the sc* ones. */
hsa_signal_value_t HSA_API hsa_signal_load_scacquire(hsa_signal_t signal);
hsa_signal_value_t HSA_API hsa_signal_load_relaxed(hsa_signal_t signal);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_load_acquire(hsa_signal_t signal);

void HSA_API hsa_signal_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_store_release(hsa_signal_t signal, hsa_signal_value_t value);

/* Stores without waking waiters. */
void HSA_API hsa_signal_silent_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_silent_store_screlease(hsa_signal_t signal, hsa_signal_value_t value);

/* Exchange: returns the previous value. */
hsa_signal_value_t HSA_API hsa_signal_exchange_scacq_screl(hsa_signal_t signal,
                                                           hsa_signal_value_t value);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_exchange_acq_rel(hsa_signal_t signal,
                                                                      hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_exchange_scacquire(hsa_signal_t signal,
                                                         hsa_signal_value_t value);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_exchange_acquire(hsa_signal_t signal,
                                                                      hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_exchange_relaxed(hsa_signal_t signal,
                                                       hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_exchange_screlease(hsa_signal_t signal,
                                                         hsa_signal_value_t value);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_exchange_release(hsa_signal_t signal,
                                                                      hsa_signal_value_t value);

/* Compare and swap: returns the observed value, whether or not it was replaced. */
hsa_signal_value_t HSA_API hsa_signal_cas_scacq_screl(hsa_signal_t signal,
                                                      hsa_signal_value_t expected,
                                                      hsa_signal_value_t value);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_acq_rel(hsa_signal_t signal,
                                                                 hsa_signal_value_t expected,
                                                                 hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_cas_scacquire(hsa_signal_t signal,
                                                    hsa_signal_value_t expected,
                                                    hsa_signal_value_t value);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_acquire(hsa_signal_t signal,
                                                                 hsa_signal_value_t expected,
                                                                 hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_cas_relaxed(hsa_signal_t signal,
                                                  hsa_signal_value_t expected,
                                                  hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_cas_screlease(hsa_signal_t signal,
                                                    hsa_signal_value_t expected,
                                                    hsa_signal_value_t value);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_release(hsa_signal_t signal,
                                                                 hsa_signal_value_t expected,
                                                                 hsa_signal_value_t value);

/* Read-modify-write without a result: add, subtract, and, or, xor. */
void HSA_API hsa_signal_add_scacq_screl(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_add_acq_rel(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_add_scacquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_add_acquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_add_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_add_screlease(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_add_release(hsa_signal_t signal, hsa_signal_value_t value);

void HSA_API hsa_signal_subtract_scacq_screl(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_subtract_acq_rel(hsa_signal_t signal,
                                                        hsa_signal_value_t value);
void HSA_API hsa_signal_subtract_scacquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_subtract_acquire(hsa_signal_t signal,
                                                        hsa_signal_value_t value);
void HSA_API hsa_signal_subtract_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_subtract_screlease(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_subtract_release(hsa_signal_t signal,
                                                        hsa_signal_value_t value);

void HSA_API hsa_signal_and_scacq_screl(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_and_acq_rel(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_and_scacquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_and_acquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_and_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_and_screlease(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_and_release(hsa_signal_t signal, hsa_signal_value_t value);

void HSA_API hsa_signal_or_scacq_screl(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_or_acq_rel(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_or_scacquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_or_acquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_or_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_or_screlease(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_or_release(hsa_signal_t signal, hsa_signal_value_t value);

void HSA_API hsa_signal_xor_scacq_screl(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_xor_acq_rel(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_xor_scacquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_xor_acquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_xor_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_xor_screlease(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API HSA_DEPRECATED hsa_signal_xor_release(hsa_signal_t signal, hsa_signal_value_t value);

typedef enum {
  HSA_SIGNAL_CONDITION_EQ = 0,
  HSA_SIGNAL_CONDITION_NE = 1,
  HSA_SIGNAL_CONDITION_LT = 2,
  HSA_SIGNAL_CONDITION_GTE = 3
} hsa_signal_condition_t;

typedef enum {
  HSA_WAIT_STATE_BLOCKED = 0, /* the thread may sleep */
  HSA_WAIT_STATE_ACTIVE = 1   /* the thread spins */
} hsa_wait_state_t;

/* Waits until `signal condition compare_value` holds or about timeout_hint timestamp ticks have
 * passed (UINT64_MAX: no limit); may return early. Returns the value last observed. */
hsa_signal_value_t HSA_API hsa_signal_wait_scacquire(hsa_signal_t signal,
                                                     hsa_signal_condition_t condition,
                                                     hsa_signal_value_t compare_value,
                                                     uint64_t timeout_hint,
                                                     hsa_wait_state_t wait_state_hint);
hsa_signal_value_t HSA_API hsa_signal_wait_relaxed(hsa_signal_t signal,
                                                   hsa_signal_condition_t condition,
                                                   hsa_signal_value_t compare_value,
                                                   uint64_t timeout_hint,
                                                   hsa_wait_state_t wait_state_hint);
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_wait_acquire(hsa_signal_t signal,
                                                                  hsa_signal_condition_t condition,
                                                                  hsa_signal_value_t compare_value,
                                                                  uint64_t timeout_hint,
                                                                  hsa_wait_state_t wait_state_hint);

/* Opaque handle to a group of signals waited on together. */
typedef struct hsa_signal_group_s {
  uint64_t handle;
} hsa_signal_group_t;

hsa_status_t HSA_API hsa_signal_group_create(uint32_t num_signals, const hsa_signal_t* signals,
                                             uint32_t num_consumers, const hsa_agent_t* consumers,
                                             hsa_signal_group_t* signal_group);

hsa_status_t HSA_API hsa_signal_group_destroy(hsa_signal_group_t signal_group);

/* Waits until one signal of the group satisfies its condition; stores it and its value. */
hsa_status_t HSA_API hsa_signal_group_wait_any_scacquire(hsa_signal_group_t signal_group,
                                                         const hsa_signal_condition_t* conditions,
                                                         const hsa_signal_value_t* compare_values,
                                                         hsa_wait_state_t wait_state_hint,
                                                         hsa_signal_t* signal,
                                                         hsa_signal_value_t* value);
hsa_status_t HSA_API hsa_signal_group_wait_any_relaxed(hsa_signal_group_t signal_group,
                                                       const hsa_signal_condition_t* conditions,
                                                       const hsa_signal_value_t* compare_values,
                                                       hsa_wait_state_t wait_state_hint,
                                                       hsa_signal_t* signal,
                                                       hsa_signal_value_t* value);

/* --- Memory regions (declared before queues, which refer to them) ------------------------------ */

/* Opaque memory region handle (the pre-pool view of an agent's memory). */
typedef struct hsa_region_s {
  uint64_t handle;
} hsa_region_t;

/* --- Queues ----------------------------------------------------------------------------------- */

typedef enum {
  HSA_QUEUE_TYPE_MULTI = 0,       /* several producers */
  HSA_QUEUE_TYPE_SINGLE = 1,      /* one producer */
  HSA_QUEUE_TYPE_COOPERATIVE = 2  /* several producers, GWS dispatches; shared and counted */
} hsa_queue_type_t;

/* hsa_queue_type_t in a fixed 32-bit field. */
typedef uint32_t hsa_queue_type32_t;

typedef enum {
  HSA_QUEUE_FEATURE_KERNEL_DISPATCH = (1 << 0),
  HSA_QUEUE_FEATURE_AGENT_DISPATCH = (1 << 1)
} hsa_queue_feature_t;

/* A user-mode queue, allocated and owned by the runtime; read-only to the application except
 * for the packet ring at base_address. */
typedef struct hsa_queue_s {
  hsa_queue_type32_t type;
  uint32_t features; /* hsa_queue_feature_t bits */
#ifdef HSA_LARGE_MODEL
  void* base_address;
#elif defined HSA_LITTLE_ENDIAN
  void* base_address;
  uint32_t reserved0;
#else
  uint32_t reserved0;
  void* base_address;
#endif
  hsa_signal_t doorbell_signal;
  uint32_t size; /* packets, a power of 2 */
  uint32_t reserved1;
  uint64_t id; /* unique for the life of the process */
} hsa_queue_t;

/* Creates a queue of at least size packets on agent; callback (may be NULL) receives its
 * asynchronous errors. */
hsa_status_t HSA_API hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                      void (*callback)(hsa_status_t status, hsa_queue_t* source,
                                                       void* data),
                                      void* data, uint32_t private_segment_size,
                                      uint32_t group_segment_size, hsa_queue_t** queue);

/* Creates a queue whose packets the application processes itself. */
hsa_status_t HSA_API hsa_soft_queue_create(hsa_region_t region, uint32_t size,
                                           hsa_queue_type32_t type, uint32_t features,
                                           hsa_signal_t doorbell_signal, hsa_queue_t** queue);

hsa_status_t HSA_API hsa_queue_destroy(hsa_queue_t* queue);

/* Stops the queue: pending packets are abandoned and new ones ignored. */
hsa_status_t HSA_API hsa_queue_inactivate(hsa_queue_t* queue);

/* Atomic access to a queue's read and write indexes (memory order in the suffix; the _acquire,
 * _release and _acq_rel spellings are deprecated names of the sc* ones). */
uint64_t HSA_API HSA_DEPRECATED hsa_queue_load_read_index_acquire(const hsa_queue_t* queue);
uint64_t HSA_API hsa_queue_load_read_index_scacquire(const hsa_queue_t* queue);
uint64_t HSA_API hsa_queue_load_read_index_relaxed(const hsa_queue_t* queue);

uint64_t HSA_API HSA_DEPRECATED hsa_queue_load_write_index_acquire(const hsa_queue_t* queue);
uint64_t HSA_API hsa_queue_load_write_index_scacquire(const hsa_queue_t* queue);
uint64_t HSA_API hsa_queue_load_write_index_relaxed(const hsa_queue_t* queue);

void HSA_API hsa_queue_store_write_index_relaxed(const hsa_queue_t* queue, uint64_t value);
void HSA_API HSA_DEPRECATED hsa_queue_store_write_index_release(const hsa_queue_t* queue,
                                                                uint64_t value);
void HSA_API hsa_queue_store_write_index_screlease(const hsa_queue_t* queue, uint64_t value);

/* Compare and swap on the write index: returns the previous value. */
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_acq_rel(const hsa_queue_t* queue,
                                                                  uint64_t expected,
                                                                  uint64_t value);
uint64_t HSA_API hsa_queue_cas_write_index_scacq_screl(const hsa_queue_t* queue, uint64_t expected,
                                                       uint64_t value);
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_acquire(const hsa_queue_t* queue,
                                                                  uint64_t expected,
                                                                  uint64_t value);
uint64_t HSA_API hsa_queue_cas_write_index_scacquire(const hsa_queue_t* queue, uint64_t expected,
                                                     uint64_t value);
uint64_t HSA_API hsa_queue_cas_write_index_relaxed(const hsa_queue_t* queue, uint64_t expected,
                                                   uint64_t value);
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_release(const hsa_queue_t* queue,
                                                                  uint64_t expected,
                                                                  uint64_t value);
uint64_t HSA_API hsa_queue_cas_write_index_screlease(const hsa_queue_t* queue, uint64_t expected,
                                                     uint64_t value);

/* Adds to the write index: returns the previous value. */
uint64_t HSA_API HSA_DEPRECATED hsa_queue_add_write_index_acq_rel(const hsa_queue_t* queue,
                                                                  uint64_t value);
uint64_t HSA_API hsa_queue_add_write_index_scacq_screl(const hsa_queue_t* queue, uint64_t value);
uint64_t HSA_API HSA_DEPRECATED hsa_queue_add_write_index_acquire(const hsa_queue_t* queue,
                                                                  uint64_t value);
uint64_t HSA_API hsa_queue_add_write_index_scacquire(const hsa_queue_t* queue, uint64_t value);
uint64_t HSA_API hsa_queue_add_write_index_relaxed(const hsa_queue_t* queue, uint64_t value);
uint64_t HSA_API HSA_DEPRECATED hsa_queue_add_write_index_release(const hsa_queue_t* queue,
                                                                  uint64_t value);
uint64_t HSA_API hsa_queue_add_write_index_screlease(const hsa_queue_t* queue, uint64_t value);

void HSA_API hsa_queue_store_read_index_relaxed(const hsa_queue_t* queue, uint64_t value);
void HSA_API HSA_DEPRECATED hsa_queue_store_read_index_release(const hsa_queue_t* queue,
                                                               uint64_t value);
void HSA_API hsa_queue_store_read_index_screlease(const hsa_queue_t* queue, uint64_t value);

/* --- Architected Queuing Language (AQL) packets ----------------------------------------------- */

typedef enum {
  HSA_PACKET_TYPE_VENDOR_SPECIFIC = 0,
  HSA_PACKET_TYPE_INVALID = 1, /* processed and not yet handed back to the packet processor */
  HSA_PACKET_TYPE_KERNEL_DISPATCH = 2,
  HSA_PACKET_TYPE_BARRIER_AND = 3,
  HSA_PACKET_TYPE_AGENT_DISPATCH = 4,
  HSA_PACKET_TYPE_BARRIER_OR = 5
} hsa_packet_type_t;

typedef enum {
  HSA_FENCE_SCOPE_NONE = 0,
  HSA_FENCE_SCOPE_AGENT = 1,
  HSA_FENCE_SCOPE_SYSTEM = 2
} hsa_fence_scope_t;

/* Bit offsets of the fields of a packet's 16-bit header. */
typedef enum {
  HSA_PACKET_HEADER_TYPE = 0,
  HSA_PACKET_HEADER_BARRIER = 8,
  HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE = 9,
  HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE = 9, /* deprecated name */
  HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE = 11,
  HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE = 11 /* deprecated name */
} hsa_packet_header_t;

/* Widths, in bits, of the header fields above. */
typedef enum {
  HSA_PACKET_HEADER_WIDTH_TYPE = 8,
  HSA_PACKET_HEADER_WIDTH_BARRIER = 1,
  HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE = 2,
  HSA_PACKET_HEADER_WIDTH_ACQUIRE_FENCE_SCOPE = 2, /* deprecated name */
  HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE = 2,
  HSA_PACKET_HEADER_WIDTH_RELEASE_FENCE_SCOPE = 2 /* deprecated name */
} hsa_packet_header_width_t;

/* Bit offset and width of the dimension count in a kernel dispatch packet's setup field. */
typedef enum {
  HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS = 0
} hsa_kernel_dispatch_packet_setup_t;

typedef enum {
  HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS = 2
} hsa_kernel_dispatch_packet_setup_width_t;

/* 64-byte kernel dispatch packet. */
typedef struct hsa_kernel_dispatch_packet_s {
  union {
    struct {
      uint16_t header; /* hsa_packet_header_t fields */
      uint16_t setup;  /* hsa_kernel_dispatch_packet_setup_t fields */
    };
    uint32_t full_header; /* both, for a single 32-bit store */
  };
  uint16_t workgroup_size_x;
  uint16_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t reserved0;
  uint32_t grid_size_x;
  uint32_t grid_size_y;
  uint32_t grid_size_z;
  uint32_t private_segment_size; /* bytes per work-item */
  uint32_t group_segment_size;   /* bytes per work-group */
  uint64_t kernel_object;
#ifdef HSA_LARGE_MODEL
  void* kernarg_address;
#elif defined HSA_LITTLE_ENDIAN
  void* kernarg_address;
  uint32_t reserved1;
#else
  uint32_t reserved1;
  void* kernarg_address;
#endif
  uint64_t reserved2;
  hsa_signal_t completion_signal; /* handle 0: none */
} hsa_kernel_dispatch_packet_t;

/* 64-byte agent dispatch packet. */
typedef struct hsa_agent_dispatch_packet_s {
  uint16_t header;
  uint16_t type; /* application-defined function */
  uint32_t reserved0;
#ifdef HSA_LARGE_MODEL
  void* return_address;
#elif defined HSA_LITTLE_ENDIAN
  void* return_address;
  uint32_t reserved1;
#else
  uint32_t reserved1;
  void* return_address;
#endif
  uint64_t arg[4];
  uint64_t reserved2;
  hsa_signal_t completion_signal;
} hsa_agent_dispatch_packet_t;

/* 64-byte barrier packets: wait for all (AND) or any (OR) of five dependencies. */
typedef struct hsa_barrier_and_packet_s {
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  hsa_signal_t dep_signal[5]; /* handle 0: satisfied */
  uint64_t reserved2;
  hsa_signal_t completion_signal;
} hsa_barrier_and_packet_t;

typedef struct hsa_barrier_or_packet_s {
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  hsa_signal_t dep_signal[5]; /* handle 0: never satisfied */
  uint64_t reserved2;
  hsa_signal_t completion_signal;
} hsa_barrier_or_packet_t;

/* --- Memory ----------------------------------------------------------------------------------- */

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

/* Attributes for hsa_region_get_info; hsa_ext_amd.h's hsa_amd_region_info_t adds 0xA000...
 * In C++ the underlying type is fixed to int, as upstream fixes it. */
#ifdef __cplusplus
typedef enum : int {
#else
typedef enum {
#endif
  HSA_REGION_INFO_SEGMENT = 0,      /* hsa_region_segment_t */
  HSA_REGION_INFO_GLOBAL_FLAGS = 1, /* uint32_t mask of hsa_region_global_flag_t */
  HSA_REGION_INFO_SIZE = 2,         /* size_t */
  HSA_REGION_INFO_ALLOC_MAX_SIZE = 4,                   /* size_t */
  HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE = 8, /* uint32_t */
  HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED = 5,            /* bool */
  HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE = 6,            /* size_t */
  HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT = 7           /* size_t */
} hsa_region_info_t;

hsa_status_t HSA_API hsa_region_get_info(hsa_region_t region, hsa_region_info_t attribute,
                                         void* value);

/* Calls callback once per region accessible from agent. */
hsa_status_t HSA_API hsa_agent_iterate_regions(hsa_agent_t agent,
                                               hsa_status_t (*callback)(hsa_region_t region,
                                                                        void* data),
                                               void* data);

/* Allocates size bytes (rounded up to the region's granule) from region. */
hsa_status_t HSA_API hsa_memory_allocate(hsa_region_t region, size_t size, void** ptr);

hsa_status_t HSA_API hsa_memory_free(void* ptr);

/* Copies size bytes from src to dst, either of which may be host or device memory, and returns
 * when the copy is complete. */
hsa_status_t HSA_API hsa_memory_copy(void* dst, const void* src, size_t size);

/* Hands a coarse-grained buffer to agent with the given access. */
hsa_status_t HSA_API hsa_memory_assign_agent(void* ptr, hsa_agent_t agent,
                                             hsa_access_permission_t access);

/* Hints that OS-allocated memory will be used by kernel agents. */
hsa_status_t HSA_API hsa_memory_register(void* ptr, size_t size);

hsa_status_t HSA_API hsa_memory_deregister(void* ptr, size_t size);

/* --- Instruction set architectures ------------------------------------------------------------ */

typedef struct hsa_isa_s {
  uint64_t handle;
} hsa_isa_t;

/* Looks an ISA up by its vendor-prefixed name ("amdgcn-amd-amdhsa--gfx942"). */
hsa_status_t HSA_API hsa_isa_from_name(const char* name, hsa_isa_t* isa);

/* Calls callback once per ISA agent supports, in a stable order. */
hsa_status_t HSA_API hsa_agent_iterate_isas(hsa_agent_t agent,
                                            hsa_status_t (*callback)(hsa_isa_t isa, void* data),
                                            void* data);

typedef enum {
  HSA_ISA_INFO_NAME_LENGTH = 0,                                 /* uint32_t, without the NUL */
  HSA_ISA_INFO_NAME = 1,                                        /* char[NAME_LENGTH] */
  HSA_ISA_INFO_CALL_CONVENTION_COUNT = 2,                       /* deprecated */
  HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE = 3,         /* deprecated */
  HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT = 4, /* deprecated */
  HSA_ISA_INFO_MACHINE_MODELS = 5,                              /* bool[2] */
  HSA_ISA_INFO_PROFILES = 6,                                    /* bool[2] */
  HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES = 7,                /* bool[3] */
  HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES = 8,   /* bool[3] */
  HSA_ISA_INFO_FAST_F16_OPERATION = 9,                          /* bool */
  HSA_ISA_INFO_WORKGROUP_MAX_DIM = 12,                          /* uint16_t[3] */
  HSA_ISA_INFO_WORKGROUP_MAX_SIZE = 13,                         /* uint32_t */
  HSA_ISA_INFO_GRID_MAX_DIM = 14,                               /* hsa_dim3_t */
  HSA_ISA_INFO_GRID_MAX_SIZE = 16,                              /* uint64_t */
  HSA_ISA_INFO_FBARRIER_MAX_SIZE = 17                           /* uint32_t */
} hsa_isa_info_t;

/* Superseded by hsa_isa_get_info_alt (index selected a call convention). */
hsa_status_t HSA_API HSA_DEPRECATED hsa_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attribute,
                                                     uint32_t index, void* value);

hsa_status_t HSA_API hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value);

hsa_status_t HSA_API hsa_isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t profile,
                                                    uint16_t* mask);

typedef enum { HSA_FP_TYPE_16 = 1, HSA_FP_TYPE_32 = 2, HSA_FP_TYPE_64 = 4 } hsa_fp_type_t;

typedef enum { HSA_FLUSH_MODE_FTZ = 1, HSA_FLUSH_MODE_NON_FTZ = 2 } hsa_flush_mode_t;

typedef enum { HSA_ROUND_METHOD_SINGLE = 1, HSA_ROUND_METHOD_DOUBLE = 2 } hsa_round_method_t;

/* Stores how the ISA rounds a fused multiply-add of fp_type under flush_mode. */
hsa_status_t HSA_API hsa_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t fp_type,
                                              hsa_flush_mode_t flush_mode,
                                              hsa_round_method_t* round_method);

typedef struct hsa_wavefront_s {
  uint64_t handle;
} hsa_wavefront_t;

typedef enum {
  HSA_WAVEFRONT_INFO_SIZE = 0 /* uint32_t, work-items */
} hsa_wavefront_info_t;

hsa_status_t HSA_API hsa_wavefront_get_info(hsa_wavefront_t wavefront,
                                            hsa_wavefront_info_t attribute, void* value);

/* Calls callback once per wavefront kind isa supports. */
hsa_status_t HSA_API hsa_isa_iterate_wavefronts(hsa_isa_t isa,
                                                hsa_status_t (*callback)(hsa_wavefront_t wavefront,
                                                                         void* data),
                                                void* data);

/* Superseded by hsa_agent_iterate_isas. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_isa_compatible(hsa_isa_t code_object_isa,
                                                       hsa_isa_t agent_isa, bool* result);

/* --- Executables and code object readers ------------------------------------------------------ */

typedef struct hsa_code_object_reader_s {
  uint64_t handle;
} hsa_code_object_reader_t;

/* Reads a code object from an open file the application keeps open. */
hsa_status_t HSA_API hsa_code_object_reader_create_from_file(
    hsa_file_t file, hsa_code_object_reader_t* code_object_reader);

/* Reads a code object from memory the application keeps alive. */
hsa_status_t HSA_API hsa_code_object_reader_create_from_memory(
    const void* code_object, size_t size, hsa_code_object_reader_t* code_object_reader);

hsa_status_t HSA_API hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader);

typedef struct hsa_executable_s {
  uint64_t handle;
} hsa_executable_t;

typedef enum {
  HSA_EXECUTABLE_STATE_UNFROZEN = 0, /* code objects may be loaded, variables defined */
  HSA_EXECUTABLE_STATE_FROZEN = 1    /* symbols may be queried */
} hsa_executable_state_t;

/* Superseded by hsa_executable_create_alt. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_create(hsa_profile_t profile,
                                                          hsa_executable_state_t executable_state,
                                                          const char* options,
                                                          hsa_executable_t* executable);

hsa_status_t HSA_API hsa_executable_create_alt(
    hsa_profile_t profile, hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char* options, hsa_executable_t* executable);

hsa_status_t HSA_API hsa_executable_destroy(hsa_executable_t executable);

typedef struct hsa_loaded_code_object_s {
  uint64_t handle;
} hsa_loaded_code_object_t;

hsa_status_t HSA_API hsa_executable_load_program_code_object(
    hsa_executable_t executable, hsa_code_object_reader_t code_object_reader, const char* options,
    hsa_loaded_code_object_t* loaded_code_object);

hsa_status_t HSA_API hsa_executable_load_agent_code_object(
    hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_reader_t code_object_reader,
    const char* options, hsa_loaded_code_object_t* loaded_code_object);

hsa_status_t HSA_API hsa_executable_freeze(hsa_executable_t executable, const char* options);

typedef enum {
  HSA_EXECUTABLE_INFO_PROFILE = 1,                    /* hsa_profile_t */
  HSA_EXECUTABLE_INFO_STATE = 2,                      /* hsa_executable_state_t */
  HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 3 /* hsa_default_float_rounding_mode_t */
} hsa_executable_info_t;

hsa_status_t HSA_API hsa_executable_get_info(hsa_executable_t executable,
                                             hsa_executable_info_t attribute, void* value);

hsa_status_t HSA_API hsa_executable_global_variable_define(hsa_executable_t executable,
                                                           const char* variable_name,
                                                           void* address);

hsa_status_t HSA_API hsa_executable_agent_global_variable_define(hsa_executable_t executable,
                                                                 hsa_agent_t agent,
                                                                 const char* variable_name,
                                                                 void* address);

hsa_status_t HSA_API hsa_executable_readonly_variable_define(hsa_executable_t executable,
                                                             hsa_agent_t agent,
                                                             const char* variable_name,
                                                             void* address);

/* Stores 0 in *result when the frozen executable is consistent. */
hsa_status_t HSA_API hsa_executable_validate(hsa_executable_t executable, uint32_t* result);

hsa_status_t HSA_API hsa_executable_validate_alt(hsa_executable_t executable, const char* options,
                                                 uint32_t* result);

typedef struct hsa_executable_symbol_s {
  uint64_t handle;
} hsa_executable_symbol_t;

/* Superseded by hsa_executable_get_symbol_by_name. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_get_symbol(hsa_executable_t executable,
                                                              const char* module_name,
                                                              const char* symbol_name,
                                                              hsa_agent_t agent,
                                                              int32_t call_convention,
                                                              hsa_executable_symbol_t* symbol);

/* agent is NULL for a symbol with program allocation. */
hsa_status_t HSA_API hsa_executable_get_symbol_by_name(hsa_executable_t executable,
                                                       const char* symbol_name,
                                                       const hsa_agent_t* agent,
                                                       hsa_executable_symbol_t* symbol);

typedef enum {
  HSA_SYMBOL_KIND_VARIABLE = 0,
  HSA_SYMBOL_KIND_KERNEL = 1,
  HSA_SYMBOL_KIND_INDIRECT_FUNCTION = 2
} hsa_symbol_kind_t;

typedef enum {
  HSA_SYMBOL_LINKAGE_MODULE = 0,
  HSA_SYMBOL_LINKAGE_PROGRAM = 1
} hsa_symbol_linkage_t;

typedef enum {
  HSA_VARIABLE_ALLOCATION_AGENT = 0,
  HSA_VARIABLE_ALLOCATION_PROGRAM = 1
} hsa_variable_allocation_t;

typedef enum {
  HSA_VARIABLE_SEGMENT_GLOBAL = 0,
  HSA_VARIABLE_SEGMENT_READONLY = 1
} hsa_variable_segment_t;

typedef enum {
  HSA_EXECUTABLE_SYMBOL_INFO_TYPE = 0,                   /* hsa_symbol_kind_t */
  HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH = 1,            /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_NAME = 2,                   /* char[NAME_LENGTH] */
  HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH = 3,     /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME = 4,            /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_AGENT = 20,                 /* hsa_agent_t, deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS = 21,      /* uint64_t */
  HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE = 5,                /* hsa_symbol_linkage_t */
  HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION = 17,         /* bool */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION = 6,    /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT = 7,       /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT = 8,     /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE = 9,          /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST = 10,     /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT = 22,         /* uint64_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE = 11,      /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT = 12, /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE = 13,        /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE = 14,      /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK = 15,         /* bool */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION = 18,           /* deprecated */
  HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT = 23,         /* uint32_t or uint64_t */
  HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION = 16 /* deprecated */
} hsa_executable_symbol_info_t;

hsa_status_t HSA_API hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                                                    hsa_executable_symbol_info_t attribute,
                                                    void* value);

/* Superseded by the agent and program iterations below. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_iterate_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_executable_symbol_t symbol, void* data),
    void* data);

hsa_status_t HSA_API hsa_executable_iterate_agent_symbols(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_agent_t agent,
                             hsa_executable_symbol_t symbol, void* data),
    void* data);

hsa_status_t HSA_API hsa_executable_iterate_program_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_executable_symbol_t symbol, void* data),
    void* data);

/* --- Code objects (deprecated) ---------------------------------------------------------------- */

typedef struct hsa_code_object_s {
  uint64_t handle;
} hsa_code_object_t;

/* Application data passed through to the serialisation callback. */
typedef struct hsa_callback_data_s {
  uint64_t handle;
} hsa_callback_data_t;

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_serialize(
    hsa_code_object_t code_object,
    hsa_status_t (*alloc_callback)(size_t size, hsa_callback_data_t data, void** address),
    hsa_callback_data_t callback_data, const char* options, void** serialized_code_object,
    size_t* serialized_code_object_size);

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_deserialize(void* serialized_code_object,
                                                                size_t serialized_code_object_size,
                                                                const char* options,
                                                                hsa_code_object_t* code_object);

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_destroy(hsa_code_object_t code_object);

typedef enum { HSA_CODE_OBJECT_TYPE_PROGRAM = 0 } hsa_code_object_type_t;

typedef enum {
  HSA_CODE_OBJECT_INFO_VERSION = 0,                    /* char[64] */
  HSA_CODE_OBJECT_INFO_TYPE = 1,                       /* hsa_code_object_type_t */
  HSA_CODE_OBJECT_INFO_ISA = 2,                        /* hsa_isa_t */
  HSA_CODE_OBJECT_INFO_MACHINE_MODEL = 3,              /* hsa_machine_model_t */
  HSA_CODE_OBJECT_INFO_PROFILE = 4,                    /* hsa_profile_t */
  HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 5 /* hsa_default_float_rounding_mode_t */
} hsa_code_object_info_t;

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_get_info(hsa_code_object_t code_object,
                                                             hsa_code_object_info_t attribute,
                                                             void* value);

hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_load_code_object(hsa_executable_t executable,
                                                                    hsa_agent_t agent,
                                                                    hsa_code_object_t code_object,
                                                                    const char* options);

typedef struct hsa_code_symbol_s {
  uint64_t handle;
} hsa_code_symbol_t;

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_get_symbol(hsa_code_object_t code_object,
                                                               const char* symbol_name,
                                                               hsa_code_symbol_t* symbol);

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_get_symbol_from_name(
    hsa_code_object_t code_object, const char* module_name, const char* symbol_name,
    hsa_code_symbol_t* symbol);

typedef enum {
  HSA_CODE_SYMBOL_INFO_TYPE = 0,
  HSA_CODE_SYMBOL_INFO_NAME_LENGTH = 1,
  HSA_CODE_SYMBOL_INFO_NAME = 2,
  HSA_CODE_SYMBOL_INFO_MODULE_NAME_LENGTH = 3,
  HSA_CODE_SYMBOL_INFO_MODULE_NAME = 4,
  HSA_CODE_SYMBOL_INFO_LINKAGE = 5,
  HSA_CODE_SYMBOL_INFO_IS_DEFINITION = 17,
  HSA_CODE_SYMBOL_INFO_VARIABLE_ALLOCATION = 6,
  HSA_CODE_SYMBOL_INFO_VARIABLE_SEGMENT = 7,
  HSA_CODE_SYMBOL_INFO_VARIABLE_ALIGNMENT = 8,
  HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE = 9,
  HSA_CODE_SYMBOL_INFO_VARIABLE_IS_CONST = 10,
  HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE = 11,
  HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT = 12,
  HSA_CODE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE = 13,
  HSA_CODE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE = 14,
  HSA_CODE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK = 15,
  HSA_CODE_SYMBOL_INFO_KERNEL_CALL_CONVENTION = 18,
  HSA_CODE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION = 16,
  HSA_CODE_SYMBOL_INFO_KERNEL_WAVEFRONT_SIZE = 19 /* uint32_t, 32 or 64 */
} hsa_code_symbol_info_t;

/* --- OS handles for interop ------------------------------------------------------------------- */

/* A file descriptor, or a Win32 HANDLE on Windows. */
#if defined(_WIN32)
typedef void* hsa_handle_t;
#else
typedef int hsa_handle_t;
#endif

typedef uint32_t hsa_interop_map_flag_t;

#define HSA_INTEROP_MAP_FLAG_NONE 0u
#define HSA_INTEROP_MAP_FLAG_KMT_HANDLE (1u << 0)

/* A Windows LUID; both halves are 0 elsewhere. */
typedef struct hsa_luid_s {
  uint32_t low;
  uint32_t high;
} hsa_luid_t;

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_symbol_get_info(hsa_code_symbol_t code_symbol,
                                                             hsa_code_symbol_info_t attribute,
                                                             void* value);

hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_iterate_symbols(
    hsa_code_object_t code_object,
    hsa_status_t (*callback)(hsa_code_object_t code_object, hsa_code_symbol_t symbol, void* data),
    void* data);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HSA_RUNTIME_INC_HSA_H_ */
