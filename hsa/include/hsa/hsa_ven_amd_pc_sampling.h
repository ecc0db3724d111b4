/* AMD PC sampling vendor extension, rewritten for hipmem.
 *
 * Declares what ROCr's hsa_ven_amd_pc_sampling.h declares (ROCm/rocm-systems
 * projects/rocr-runtime/runtime/hsa-runtime/inc/, 2025; experimental upstream), with upstream's
 * names, values, layouts and signatures; hsa_ext_amd.h includes it. hipmem does not model PC
 * sampling (the simulated GPU runs no waves to sample): every function answers
 * HSA_STATUS_ERROR_NOT_SUPPORTED and no agent advertises HSA_EXTENSION_AMD_PC_SAMPLING. The
 * functions carry no HSA_API upstream either. Plain C.
 */
#ifndef HSA_VEN_AMD_PC_SAMPLING_H
#define HSA_VEN_AMD_PC_SAMPLING_H

#include "hsa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One sample of the host-trap method. */
typedef struct {
  uint64_t pc;
  uint64_t exec_mask;
  uint32_t workgroup_id_x;
  uint32_t workgroup_id_y;
  uint32_t workgroup_id_z;
  uint32_t wave_in_wg : 6;
  uint32_t chiplet : 3;
  uint32_t reserved : 23;
  uint32_t hw_id;
  uint32_t reserved0;
  uint64_t reserved1;
  uint64_t timestamp;
  uint64_t correlation_id;
} perf_sample_hosttrap_v1_t;

/* One sample of the stochastic (hardware snapshot) method. */
typedef struct {
  uint64_t pc;
  uint64_t exec_mask;
  uint32_t workgroup_id_x;
  uint32_t workgroup_id_y;
  uint32_t workgroup_id_z;
  uint32_t wave_in_wg : 6;
  uint32_t chiplet : 3;
  uint32_t reserved : 23;
  uint32_t hw_id;
  uint32_t perf_snapshot_data;
  uint32_t perf_snapshot_data1;
  uint32_t perf_snapshot_data2;
  uint64_t timestamp;
  uint64_t correlation_id;
} perf_sample_snapshot_v1_t;

typedef enum {
  HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1 = 0,
  HSA_VEN_AMD_PCS_METHOD_STOCHASTIC_V1 = 1
} hsa_ven_amd_pcs_method_kind_t;

typedef enum {
  HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS = 0,
  HSA_VEN_AMD_PCS_INTERVAL_UNITS_CLOCK_CYCLES = 1,
  HSA_VEN_AMD_PCS_INTERVAL_UNITS_INSTRUCTIONS = 2
} hsa_ven_amd_pcs_units_t;

/* Runtime-provided copier handed to the client: copies up to data_size bytes into destination. */
typedef hsa_status_t (*hsa_ven_amd_pcs_data_copy_callback_t)(void* hsa_callback_data,
                                                             size_t data_size, void* destination);

/* Client callback: data_size bytes are ready; the client calls data_copy_callback to take them. */
typedef void (*hsa_ven_amd_pcs_data_ready_callback_t)(
    void* client_callback_data, size_t data_size, size_t lost_sample_count,
    hsa_ven_amd_pcs_data_copy_callback_t data_copy_callback, void* hsa_callback_data);

/* Handle of one sampling session. */
typedef struct {
  uint64_t handle;
} hsa_ven_amd_pcs_t;

typedef enum {
  HSA_VEN_AMD_PCS_CONFIGURATION_FLAGS_INTERVAL_POWER_OF_2 = (1 << 0)
} hsa_ven_amd_pcs_configuration_flags_t;

/* One supported (method, units, interval range) combination. */
typedef struct {
  hsa_ven_amd_pcs_method_kind_t method;
  hsa_ven_amd_pcs_units_t units;
  size_t min_interval;
  size_t max_interval;
  uint64_t flags; /* hsa_ven_amd_pcs_configuration_flags_t bits */
} hsa_ven_amd_pcs_configuration_t;

typedef hsa_status_t (*hsa_ven_amd_pcs_iterate_configuration_callback_t)(
    const hsa_ven_amd_pcs_configuration_t* configuration, void* callback_data);

hsa_status_t hsa_ven_amd_pcs_iterate_configuration(
    hsa_agent_t agent, hsa_ven_amd_pcs_iterate_configuration_callback_t configuration_callback,
    void* callback_data);

hsa_status_t hsa_ven_amd_pcs_create(hsa_agent_t agent, hsa_ven_amd_pcs_method_kind_t method,
                                    hsa_ven_amd_pcs_units_t units, size_t interval, size_t latency,
                                    size_t buffer_size,
                                    hsa_ven_amd_pcs_data_ready_callback_t data_ready_callback,
                                    void* client_callback_data, hsa_ven_amd_pcs_t* pc_sampling);

/* As hsa_ven_amd_pcs_create, adopting a session the driver already reserved as pcs_id. */
hsa_status_t hsa_ven_amd_pcs_create_from_id(
    uint32_t pcs_id, hsa_agent_t agent, hsa_ven_amd_pcs_method_kind_t method,
    hsa_ven_amd_pcs_units_t units, size_t interval, size_t latency, size_t buffer_size,
    hsa_ven_amd_pcs_data_ready_callback_t data_ready_callback, void* client_callback_data,
    hsa_ven_amd_pcs_t* pc_sampling);

hsa_status_t hsa_ven_amd_pcs_destroy(hsa_ven_amd_pcs_t pc_sampling);

hsa_status_t hsa_ven_amd_pcs_start(hsa_ven_amd_pcs_t pc_sampling);

hsa_status_t hsa_ven_amd_pcs_stop(hsa_ven_amd_pcs_t pc_sampling);

hsa_status_t hsa_ven_amd_pcs_flush(hsa_ven_amd_pcs_t pc_sampling);

#define hsa_ven_amd_pc_sampling_1_00

typedef struct hsa_ven_amd_pc_sampling_1_00_pfn_t {
  hsa_status_t (*hsa_ven_amd_pcs_iterate_configuration)(
      hsa_agent_t agent, hsa_ven_amd_pcs_iterate_configuration_callback_t configuration_callback,
      void* callback_data);
  hsa_status_t (*hsa_ven_amd_pcs_create)(hsa_agent_t agent, hsa_ven_amd_pcs_method_kind_t method,
                                         hsa_ven_amd_pcs_units_t units, size_t interval,
                                         size_t latency, size_t buffer_size,
                                         hsa_ven_amd_pcs_data_ready_callback_t data_ready_callback,
                                         void* client_callback_data,
                                         hsa_ven_amd_pcs_t* pc_sampling);
  hsa_status_t (*hsa_ven_amd_pcs_create_from_id)(
      uint32_t pcs_id, hsa_agent_t agent, hsa_ven_amd_pcs_method_kind_t method,
      hsa_ven_amd_pcs_units_t units, size_t interval, size_t latency, size_t buffer_size,
      hsa_ven_amd_pcs_data_ready_callback_t data_ready_callback, void* client_callback_data,
      hsa_ven_amd_pcs_t* pc_sampling);
  hsa_status_t (*hsa_ven_amd_pcs_destroy)(hsa_ven_amd_pcs_t pc_sampling);
  hsa_status_t (*hsa_ven_amd_pcs_start)(hsa_ven_amd_pcs_t pc_sampling);
  hsa_status_t (*hsa_ven_amd_pcs_stop)(hsa_ven_amd_pcs_t pc_sampling);
  hsa_status_t (*hsa_ven_amd_pcs_flush)(hsa_ven_amd_pcs_t pc_sampling);
} hsa_ven_amd_pc_sampling_1_00_pfn_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HSA_VEN_AMD_PC_SAMPLING_H */
