// The hsa_* entry points hipmem declares (hsa.h, hsa_ext_amd.h, hsa_ext_image.h,
// hsa_ven_amd_pc_sampling.h) but does not implement. They exist so that programs written for ROCr --
// rocminfo, rocm_bandwidth_test, HIP runtimes -- compile and link against //hsa:hsa_runtime64 unchanged,
// and they answer what ROCr answers for a feature the system lacks: HSA_STATUS_ERROR_NOT_SUPPORTED, after
// HSA_STATUS_ERROR_NOT_INITIALIZED before hsa_init (every ROCr entry point checks that first). Nothing here
// changes state, so none of these can half-succeed.
//
// Two kinds, told apart at every definition: NotYetImplemented() for runtime features a later change brings
// (issue #8: queues, regions, async copies, ...), NotModelled() for features the simulated machine
// has no counterpart for (code objects and the loader, images, IPC across OS processes, graphics interop,
// PC sampling, SPM, direct storage). Both give the same status.
//
// Definitions only, like hsa_c_api.cc: the declarations (and their C linkage) come from the headers, which
// also pin every signature (a C++ definition that differs from its extern "C" declaration does not compile).
#include <cstdint>

#include "absl/status/statusor.h"
#include "base/log.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_ext_image.h"
#include "hsa/hsa_status.h"
#include "hsa/hsa_ven_amd_pc_sampling.h"
#include "hsa/runtime.h"

namespace hipmem::hsa {
namespace {

// Answers an entry point hipmem does not provide: NOT_INITIALIZED before hsa_init, else NOT_SUPPORTED.
hsa_status_t Unsupported() {
  absl::StatusOr<Runtime*> runtime = SharedRuntime();
  if (!runtime.ok()) return ToHsaStatus(runtime.status());
  return static_cast<hsa_status_t>(HSA_STATUS_ERROR_NOT_SUPPORTED);
}

// A runtime feature issue #8 brings; until then, Unsupported().
hsa_status_t NotYetImplemented() { return Unsupported(); }

// A feature the simulated machine has no counterpart for.
hsa_status_t NotModelled() { return Unsupported(); }

}  // namespace
}  // namespace hipmem::hsa

using hipmem::hsa::NotModelled;
using hipmem::hsa::NotYetImplemented;

extern "C" {


// Not yet implemented, TODO(#10): discarding SVM ranges (the rest of SVM: hsa_svm_c_api.cc).
hsa_status_t HSA_API hsa_amd_svm_discard_batch_async(void**, size_t*, uint32_t, uint32_t, const hsa_signal_t*,
                                                     hsa_signal_t) {
  return NotYetImplemented();
}

// Not modelled: the virtual memory API and dma-buf export. The system reports VIRTUAL_MEM_API_SUPPORTED and
// DMABUF_SUPPORTED false (agent_info.cc), which clients check first; hipmem keeps no reserved-range or
// physical-handle map to serve them. (ROCr on such a system answers INVALID_ARGUMENT from
// vmem_address_reserve(_align)/handle_create and the thunk's HSA_STATUS_ERROR from export_dmabuf.)
hsa_status_t hsa_amd_vmem_address_reserve(void**, size_t, uint64_t, uint64_t) { return NotModelled(); }
hsa_status_t hsa_amd_vmem_address_reserve_align(void**, size_t, uint64_t, uint64_t, uint64_t) {
  return NotModelled();
}
hsa_status_t hsa_amd_vmem_address_free(void*, size_t) { return NotModelled(); }
hsa_status_t hsa_amd_vmem_handle_create(hsa_amd_memory_pool_t, size_t, hsa_amd_memory_type_t, uint64_t,
                                        hsa_amd_vmem_alloc_handle_t*) {
  return NotModelled();
}
hsa_status_t hsa_amd_vmem_handle_release(hsa_amd_vmem_alloc_handle_t) { return NotModelled(); }
hsa_status_t hsa_amd_vmem_map(void*, size_t, size_t, hsa_amd_vmem_alloc_handle_t, uint64_t) {
  return NotModelled();
}
hsa_status_t hsa_amd_vmem_unmap(void*, size_t) { return NotModelled(); }
hsa_status_t hsa_amd_vmem_set_access(void*, size_t, const hsa_amd_memory_access_desc_t*, size_t) {
  return NotModelled();
}
hsa_status_t hsa_amd_vmem_get_access(void*, hsa_access_permission_t*, hsa_agent_t) { return NotModelled(); }
hsa_status_t hsa_amd_vmem_export_shareable_handle(int*, hsa_amd_vmem_alloc_handle_t, uint64_t) {
  return NotModelled();
}
hsa_status_t hsa_amd_vmem_import_shareable_handle(int, hsa_amd_vmem_alloc_handle_t*) { return NotModelled(); }
hsa_status_t hsa_amd_vmem_retain_alloc_handle(hsa_amd_vmem_alloc_handle_t*, void*) { return NotModelled(); }
hsa_status_t hsa_amd_vmem_get_alloc_properties_from_handle(hsa_amd_vmem_alloc_handle_t, hsa_amd_memory_pool_t*,
                                                           hsa_amd_memory_type_t*) {
  return NotModelled();
}
hsa_status_t hsa_amd_portable_export_dmabuf(const void*, size_t, int*, uint64_t*) { return NotModelled(); }
hsa_status_t hsa_amd_portable_export_dmabuf_v2(const void*, size_t, int*, uint64_t*, uint64_t) {
  return NotModelled();
}
hsa_status_t hsa_amd_portable_close_dmabuf(int) { return NotModelled(); }

// Not modelled: ROCr's packet logging (AQL, blit-kernel and SDMA packets dumped to a FILE*). hipmem's layers log
// through base/log and trace sinks; the copy and queue paths have no packet-dump hook to switch on.
hsa_status_t hsa_amd_enable_logging(uint8_t*, void*) { return NotModelled(); }

// Not modelled: the deprecated HSAIL-era code object API (hsa_code_object_t); AMDGPU code objects load through
// the code object reader and executable entry points (hsa_loader_c_api.cc).
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_serialize(hsa_code_object_t,
                                                              hsa_status_t (*)(size_t, hsa_callback_data_t, void**),
                                                              hsa_callback_data_t, const char*, void**, size_t*) {
  return NotModelled();
}
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_deserialize(void*, size_t, const char*, hsa_code_object_t*) {
  return NotModelled();
}
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_destroy(hsa_code_object_t) { return NotModelled(); }
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_get_info(hsa_code_object_t, hsa_code_object_info_t, void*) {
  return NotModelled();
}
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_load_code_object(hsa_executable_t, hsa_agent_t, hsa_code_object_t,
                                                                    const char*) {
  return NotModelled();
}
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_get_symbol(hsa_code_object_t, const char*, hsa_code_symbol_t*) {
  return NotModelled();
}
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_get_symbol_from_name(hsa_code_object_t, const char*, const char*,
                                                                         hsa_code_symbol_t*) {
  return NotModelled();
}
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_symbol_get_info(hsa_code_symbol_t, hsa_code_symbol_info_t, void*) {
  return NotModelled();
}
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_iterate_symbols(
    hsa_code_object_t, hsa_status_t (*)(hsa_code_object_t, hsa_code_symbol_t, void*), void*) {
  return NotModelled();
}

// Not modelled: images and samplers (no texture units); no agent advertises HSA_EXTENSION_IMAGES.
hsa_status_t HSA_API hsa_ext_image_get_capability(hsa_agent_t, hsa_ext_image_geometry_t, const hsa_ext_image_format_t*,
                                                  uint32_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_get_capability_with_layout(hsa_agent_t, hsa_ext_image_geometry_t,
                                                              const hsa_ext_image_format_t*,
                                                              hsa_ext_image_data_layout_t, uint32_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_data_get_info(hsa_agent_t, const hsa_ext_image_descriptor_t*,
                                                 hsa_access_permission_t, hsa_ext_image_data_info_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_data_get_info_with_layout(hsa_agent_t, const hsa_ext_image_descriptor_t*,
                                                             hsa_access_permission_t, hsa_ext_image_data_layout_t,
                                                             size_t, size_t, hsa_ext_image_data_info_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_create(hsa_agent_t, const hsa_ext_image_descriptor_t*, const void*,
                                          hsa_access_permission_t, hsa_ext_image_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_create_with_layout(hsa_agent_t, const hsa_ext_image_descriptor_t*, const void*,
                                                      hsa_access_permission_t, hsa_ext_image_data_layout_t, size_t,
                                                      size_t, hsa_ext_image_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_destroy(hsa_agent_t, hsa_ext_image_t) { return NotModelled(); }
hsa_status_t HSA_API hsa_ext_image_copy(hsa_agent_t, hsa_ext_image_t, const hsa_dim3_t*, hsa_ext_image_t,
                                        const hsa_dim3_t*, const hsa_dim3_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_import(hsa_agent_t, const void*, size_t, size_t, hsa_ext_image_t,
                                          const hsa_ext_image_region_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_export(hsa_agent_t, hsa_ext_image_t, void*, size_t, size_t,
                                          const hsa_ext_image_region_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_image_clear(hsa_agent_t, hsa_ext_image_t, const void*, const hsa_ext_image_region_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_sampler_create(hsa_agent_t, const hsa_ext_sampler_descriptor_t*, hsa_ext_sampler_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_sampler_create_v2(hsa_agent_t, const hsa_ext_sampler_descriptor_v2_t*,
                                               hsa_ext_sampler_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_ext_sampler_destroy(hsa_agent_t, hsa_ext_sampler_t) { return NotModelled(); }
hsa_status_t HSA_API hsa_amd_image_create(hsa_agent_t, const hsa_ext_image_descriptor_t*,
                                          const hsa_amd_image_descriptor_t*, const void*, hsa_access_permission_t,
                                          hsa_ext_image_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_amd_image_get_info_max_dim(hsa_agent_t, hsa_agent_info_t, void*) { return NotModelled(); }

// Not modelled: memory and signals shared across OS processes (the simulated KFD lives in one process).
hsa_status_t HSA_API hsa_amd_ipc_memory_create(void*, size_t, hsa_amd_ipc_memory_t*) { return NotModelled(); }
hsa_status_t HSA_API hsa_amd_ipc_memory_attach(const hsa_amd_ipc_memory_t*, size_t, uint32_t, const hsa_agent_t*,
                                               void**) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_amd_ipc_memory_detach(void*) { return NotModelled(); }
hsa_status_t HSA_API hsa_amd_ipc_signal_create(hsa_signal_t, hsa_amd_ipc_signal_t*) { return NotModelled(); }
hsa_status_t HSA_API hsa_amd_ipc_signal_attach(const hsa_amd_ipc_signal_t*, hsa_signal_t*) { return NotModelled(); }

// Not modelled: graphics interop buffers (there is no graphics stack to share them with).
hsa_status_t HSA_API hsa_amd_interop_map_buffer(uint32_t, hsa_agent_t*, hsa_handle_t, uint32_t, size_t*, void**,
                                                size_t*, const void**) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_amd_interop_unmap_buffer(void*) { return NotModelled(); }

// Not modelled: PC sampling and the streaming performance monitor (no waves run to be sampled).
hsa_status_t hsa_ven_amd_pcs_iterate_configuration(hsa_agent_t, hsa_ven_amd_pcs_iterate_configuration_callback_t,
                                                   void*) {
  return NotModelled();
}
hsa_status_t hsa_ven_amd_pcs_create(hsa_agent_t, hsa_ven_amd_pcs_method_kind_t, hsa_ven_amd_pcs_units_t, size_t, size_t,
                                    size_t, hsa_ven_amd_pcs_data_ready_callback_t, void*, hsa_ven_amd_pcs_t*) {
  return NotModelled();
}
hsa_status_t hsa_ven_amd_pcs_create_from_id(uint32_t, hsa_agent_t, hsa_ven_amd_pcs_method_kind_t,
                                            hsa_ven_amd_pcs_units_t, size_t, size_t, size_t,
                                            hsa_ven_amd_pcs_data_ready_callback_t, void*, hsa_ven_amd_pcs_t*) {
  return NotModelled();
}
hsa_status_t hsa_ven_amd_pcs_destroy(hsa_ven_amd_pcs_t) { return NotModelled(); }
hsa_status_t hsa_ven_amd_pcs_start(hsa_ven_amd_pcs_t) { return NotModelled(); }
hsa_status_t hsa_ven_amd_pcs_stop(hsa_ven_amd_pcs_t) { return NotModelled(); }
hsa_status_t hsa_ven_amd_pcs_flush(hsa_ven_amd_pcs_t) { return NotModelled(); }
hsa_status_t hsa_amd_spm_acquire(hsa_agent_t) { return NotModelled(); }
hsa_status_t hsa_amd_spm_release(hsa_agent_t) { return NotModelled(); }
hsa_status_t hsa_amd_spm_set_dest_buffer(hsa_agent_t, size_t, uint32_t*, uint32_t*, void*, bool*) {
  return NotModelled();
}

// Not modelled: direct storage I/O between files and device memory (no storage path is simulated).
hsa_status_t HSA_API hsa_amd_ais_file_write(hsa_amd_ais_file_handle_t, void*, uint64_t, int64_t, uint64_t*, int32_t*) {
  return NotModelled();
}
hsa_status_t HSA_API hsa_amd_ais_file_read(hsa_amd_ais_file_handle_t, void*, uint64_t, int64_t, uint64_t*, int32_t*) {
  return NotModelled();
}

}  // extern "C"
