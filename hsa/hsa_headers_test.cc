// Compiles the public HSA headers as C++ and checks what C++ callers of ROCr rely on: the layouts and values
// of hsa_layout_asserts.inc (shared with the C test), exact declaration types, and AMD enumerators that
// survive a cast to the core enum.
#include "hsa/hsa_layout_asserts.inc"

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gtest/gtest.h"
#include "hsa/hsa_ext_amd.h"

namespace {

template <typename Fn, typename Expected>
constexpr bool kSameType = std::is_same_v<Fn, Expected>;

static_assert(kSameType<decltype(&hsa_init), hsa_status_t (*)()>);
static_assert(kSameType<decltype(&hsa_shut_down), hsa_status_t (*)()>);
static_assert(
    kSameType<decltype(&hsa_status_string), hsa_status_t (*)(hsa_status_t, const char**)>);
static_assert(
    kSameType<decltype(&hsa_system_get_info), hsa_status_t (*)(hsa_system_info_t, void*)>);
static_assert(kSameType<decltype(&hsa_iterate_agents),
                        hsa_status_t (*)(hsa_status_t (*)(hsa_agent_t, void*), void*)>);
static_assert(kSameType<decltype(&hsa_agent_get_info),
                        hsa_status_t (*)(hsa_agent_t, hsa_agent_info_t, void*)>);
static_assert(kSameType<decltype(&hsa_memory_copy), hsa_status_t (*)(void*, const void*, size_t)>);
static_assert(kSameType<decltype(&hsa_amd_agent_iterate_memory_pools),
                        hsa_status_t (*)(hsa_agent_t,
                                         hsa_status_t (*)(hsa_amd_memory_pool_t, void*), void*)>);
static_assert(
    kSameType<decltype(&hsa_amd_memory_pool_get_info),
              hsa_status_t (*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void*)>);
static_assert(kSameType<decltype(&hsa_amd_memory_pool_allocate),
                        hsa_status_t (*)(hsa_amd_memory_pool_t, size_t, uint32_t, void**)>);
static_assert(kSameType<decltype(&hsa_amd_memory_pool_free), hsa_status_t (*)(void*)>);
static_assert(kSameType<decltype(&hsa_amd_agent_memory_pool_get_info),
                        hsa_status_t (*)(hsa_agent_t, hsa_amd_memory_pool_t,
                                         hsa_amd_agent_memory_pool_info_t, void*)>);

// Callers pass AMD attributes and statuses through the core enums with a cast; the values must lie
// inside those enums' ranges for the casts to be defined.
constexpr auto kMemoryAvail = static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_MEMORY_AVAIL);
static_assert(static_cast<int>(kMemoryAvail) == 0xA015);
constexpr auto kAqlExtensions = static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_AQL_EXTENSIONS);
static_assert(static_cast<int>(kAqlExtensions) == 0xA115);
constexpr auto kInvalidPool = static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
static_assert(static_cast<int>(kInvalidPool) == 40);
static_assert(std::is_same_v<std::underlying_type_t<hsa_status_t>, unsigned int>);

TEST(HsaHeadersTest, BitFieldsSitWhereUpstreamPutsThem) { EXPECT_EQ(HsaCheckBitFields(), 0); }

TEST(HsaHeadersTest, HandlesAreValueTypes) {
  hsa_agent_t agent{0x1234};
  hsa_amd_memory_pool_t pool{0x5678};
  EXPECT_EQ(agent.handle, 0x1234u);
  EXPECT_EQ(pool.handle, 0x5678u);
  static_assert(std::is_trivially_copyable_v<hsa_agent_t>);
  static_assert(sizeof(hsa_region_t) == sizeof(uint64_t));
}

}  // namespace
