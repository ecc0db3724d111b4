/* Compiles the public HSA headers as C: the layouts and values of hsa_layout_asserts.inc (shared with the
 * C++ test hsa_headers_test.cc), then the types of the declarations ROCr clients such as rocminfo and
 * rocm_bandwidth_test call. Everything but the bit-field positions is checked at compile time. */
#include "hsa/hsa_layout_asserts.inc"

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

_Static_assert(HAS_TYPE(hsa_agent_iterate_isas,
                        hsa_status_t (*)(hsa_agent_t, hsa_status_t (*)(hsa_isa_t, void*), void*)),
               "hsa_agent_iterate_isas");
_Static_assert(HAS_TYPE(hsa_isa_get_info_alt, hsa_status_t (*)(hsa_isa_t, hsa_isa_info_t, void*)),
               "hsa_isa_get_info_alt");
_Static_assert(HAS_TYPE(hsa_signal_create, hsa_status_t (*)(hsa_signal_value_t, uint32_t,
                                                            const hsa_agent_t*, hsa_signal_t*)),
               "hsa_signal_create");
_Static_assert(HAS_TYPE(hsa_signal_wait_scacquire,
                        hsa_signal_value_t (*)(hsa_signal_t, hsa_signal_condition_t,
                                               hsa_signal_value_t, uint64_t, hsa_wait_state_t)),
               "hsa_signal_wait_scacquire");
_Static_assert(HAS_TYPE(hsa_signal_store_screlease, void (*)(hsa_signal_t, hsa_signal_value_t)),
               "hsa_signal_store_screlease");
_Static_assert(HAS_TYPE(hsa_amd_memory_async_copy,
                        hsa_status_t (*)(void*, hsa_agent_t, const void*, hsa_agent_t, size_t,
                                         uint32_t, const hsa_signal_t*, hsa_signal_t)),
               "hsa_amd_memory_async_copy");
_Static_assert(HAS_TYPE(hsa_amd_agents_allow_access,
                        hsa_status_t (*)(uint32_t, const hsa_agent_t*, const uint32_t*, const void*)),
               "hsa_amd_agents_allow_access");
_Static_assert(HAS_TYPE(hsa_amd_profiling_async_copy_enable, hsa_status_t (*)(bool)),
               "hsa_amd_profiling_async_copy_enable");
_Static_assert(HAS_TYPE(hsa_amd_profiling_get_async_copy_time,
                        hsa_status_t (*)(hsa_signal_t, hsa_amd_profiling_async_copy_time_t*)),
               "hsa_amd_profiling_get_async_copy_time");
_Static_assert(HAS_TYPE(hsa_amd_signal_wait_any,
                        uint32_t (*)(uint32_t, hsa_signal_t*, hsa_signal_condition_t*,
                                     hsa_signal_value_t*, uint64_t, hsa_wait_state_t,
                                     hsa_signal_value_t*)),
               "hsa_amd_signal_wait_any");
_Static_assert(HAS_TYPE(hsa_queue_add_write_index_screlease, uint64_t (*)(const hsa_queue_t*, uint64_t)),
               "hsa_queue_add_write_index_screlease");

int main(void) { return HsaCheckBitFields(); }
