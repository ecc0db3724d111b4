// The memory entry points as ROCr clients use them (rocrtst / HSA conformance behaviour): pool flags,
// MEMORY_AVAIL and the fragment cache, pointer info, locking, deallocation callbacks, regions, and
// allocate/free/query from 8 threads. Runs on the default simulated machine (one MI300X) unless
// HIPMEM_SIM_PRESET says otherwise; the peer tests need two GPUs and skip on one.
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_test_util.h"

namespace {

using ::testing::UnorderedElementsAre;

// The agent's GLOBAL pool with exactly `flags`.
hsa_amd_memory_pool_t PoolWith(hsa_agent_t agent, uint32_t flags) {
  const hsa_amd_memory_pool_t pool = hipmem::hsa_test::GlobalPoolExactly(agent, flags);
  EXPECT_NE(pool.handle, 0u) << "no pool with global flags " << flags;
  return pool;
}

uint64_t MemoryAvail(hsa_agent_t gpu) {
  uint64_t avail = 0;
  EXPECT_EQ(hsa_agent_get_info(gpu, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_MEMORY_AVAIL), &avail),
            HSA_STATUS_SUCCESS);
  return avail;
}

struct Described {
  hsa_amd_pointer_info_t info;
  std::vector<uint64_t> agents;
};

Described Describe(const void* p) {
  Described d{};
  d.info.size = sizeof(d.info);
  uint32_t count = 0;
  hsa_agent_t* agents = nullptr;
  EXPECT_EQ(hsa_amd_pointer_info(p, &d.info, malloc, &count, &agents), HSA_STATUS_SUCCESS);
  for (uint32_t i = 0; i < count; ++i) d.agents.push_back(agents[i].handle);
  free(agents);
  return d;
}

constexpr uint32_t kCoarse = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
constexpr uint32_t kFine = HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;

TEST(HsaMemoryCApiTest, BeforeInitEveryCallIsNotInitialized) {
  int x = 0;
  void* p = nullptr;
  hsa_amd_pointer_info_t info{};
  info.size = sizeof(info);
  EXPECT_EQ(hsa_amd_pointer_info(&x, &info, nullptr, nullptr, nullptr), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_amd_memory_lock(&x, sizeof(x), nullptr, 0, &p), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_memory_allocate(hsa_region_t{1}, 4096, &p), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(p, nullptr);
}

class HsaMemoryCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    found_ = hipmem::hsa_test::CollectAgents();
    ASSERT_FALSE(found_.gpus.empty());
    ASSERT_EQ(found_.cpus.size(), 1u);
    gpu_ = found_.gpus[0];
    cpu_ = found_.cpus[0];
    vram_ = PoolWith(gpu_, kCoarse);
    system_ = PoolWith(cpu_, kFine);
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  hipmem::hsa_test::CAgents found_;
  hsa_agent_t gpu_{}, cpu_{};
  hsa_amd_memory_pool_t vram_{}, system_{};
};

TEST_F(HsaMemoryCApi, SmallVramAllocationsShareACachedBlockCountedInMemoryAvail) {
  const uint64_t before = MemoryAvail(gpu_);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 64 << 10, 0, &a), HSA_STATUS_SUCCESS);
  EXPECT_EQ(before - MemoryAvail(gpu_), 2u << 20) << "one 2 MiB block from the KFD";
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 64 << 10, 0, &b), HSA_STATUS_SUCCESS);
  EXPECT_EQ(before - MemoryAvail(gpu_), 2u << 20) << "the second fragment comes from the same block";
  EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 64 << 10);
  ASSERT_EQ(hsa_amd_memory_pool_free(a), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_pool_free(b), HSA_STATUS_SUCCESS);
  // The empty block stays cached, and MEMORY_AVAIL counts it as free, as ROCr does.
  EXPECT_EQ(MemoryAvail(gpu_), before);
  // The cached block is reused: the next fragment lands where the first was.
  void* c = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, 0, &c), HSA_STATUS_SUCCESS);
  EXPECT_EQ(c, a);
  EXPECT_EQ(hsa_amd_memory_pool_free(c), HSA_STATUS_SUCCESS);
}

TEST_F(HsaMemoryCApi, PoolFlagsMakeTheirOwnKfdBuffer) {
  const uint64_t before = MemoryAvail(gpu_);
  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 64 << 10, HSA_AMD_MEMORY_POOL_CONTIGUOUS_FLAG, &p), HSA_STATUS_SUCCESS);
  EXPECT_EQ(before - MemoryAvail(gpu_), 64u << 10) << "a flagged allocation is not carved from a block";
  Described d = Describe(p);
  EXPECT_EQ(d.info.type, HSA_EXT_POINTER_TYPE_HSA);
  EXPECT_NE(d.info.alloc_flags & HSA_AMD_POINTER_INFO_ALLOC_FLAG_CONTIGUOUS, 0u);
  EXPECT_EQ(d.info.sizeInBytes, 64u << 10);
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
  EXPECT_EQ(MemoryAvail(gpu_), before);

  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, HSA_AMD_MEMORY_POOL_EXECUTABLE_FLAG, &p), HSA_STATUS_SUCCESS);
  EXPECT_NE(Describe(p).info.alloc_flags & HSA_AMD_POINTER_INFO_ALLOC_FLAG_EXECUTABLE, 0u);
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);

  p = nullptr;
  EXPECT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, 1u << 7, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "an undefined hsa_amd_memory_pool_flag_t bit";
  EXPECT_EQ(p, nullptr);
}

TEST_F(HsaMemoryCApi, PointerInfoDescribesTheFragmentAndNotPastItsEnd) {
  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, 0, &p), HSA_STATUS_SUCCESS);
  Described d = Describe(static_cast<char*>(p) + 100);
  EXPECT_EQ(d.info.size, sizeof(hsa_amd_pointer_info_t));
  EXPECT_EQ(d.info.type, HSA_EXT_POINTER_TYPE_HSA);
  EXPECT_EQ(d.info.agentBaseAddress, p);
  EXPECT_EQ(d.info.hostBaseAddress, p);
  EXPECT_EQ(d.info.sizeInBytes, 4096u);
  EXPECT_EQ(d.info.agentOwner.handle, gpu_.handle);
  EXPECT_EQ(d.info.global_flags, kCoarse);
  EXPECT_FALSE(d.info.registered);
  EXPECT_NE(d.info.alloc_flags & HSA_AMD_POINTER_INFO_ALLOC_FLAG_NONPAGED, 0u);
  EXPECT_THAT(d.agents, UnorderedElementsAre(gpu_.handle));
  EXPECT_EQ(d.info.userData, nullptr);

  // One past the end is the block's free space: no allocation of the caller's.
  EXPECT_EQ(Describe(static_cast<char*>(p) + 4096).info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
  int on_stack = 0;
  Described unknown = Describe(&on_stack);
  EXPECT_EQ(unknown.info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
  EXPECT_TRUE(unknown.agents.empty());

  int tag = 0;
  EXPECT_EQ(hsa_amd_pointer_info_set_userdata(p, &tag), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Describe(p).info.userData, &tag);
  EXPECT_EQ(hsa_amd_pointer_info_set_userdata(static_cast<char*>(p) + 8, &tag), HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "user data attaches to an allocation's start";

  // A caller built against an older, shorter struct gets only its part written.
  hsa_amd_pointer_info_t old{};
  std::memset(&old, 0xab, sizeof(old));
  old.size = offsetof(hsa_amd_pointer_info_t, sizeInBytes);
  ASSERT_EQ(hsa_amd_pointer_info(p, &old, nullptr, nullptr, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(old.size, offsetof(hsa_amd_pointer_info_t, sizeInBytes));
  EXPECT_EQ(old.agentBaseAddress, p);
  uint64_t untouched;
  std::memcpy(&untouched, &old.sizeInBytes, sizeof(untouched));
  EXPECT_EQ(untouched, 0xababababababababull);

  EXPECT_EQ(hsa_amd_pointer_info(p, nullptr, nullptr, nullptr, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint32_t count = 0;
  hsa_agent_t* agents = nullptr;
  EXPECT_EQ(hsa_amd_pointer_info(p, &old, nullptr, &count, &agents), HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "an agent list needs an allocator";
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Describe(p).info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
}

TEST_F(HsaMemoryCApi, SystemAllocationIsMappedOnEveryGpu) {
  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(system_, 8192, 0, &p), HSA_STATUS_SUCCESS);
  Described d = Describe(p);
  EXPECT_EQ(d.info.type, HSA_EXT_POINTER_TYPE_HSA);
  EXPECT_EQ(d.info.agentOwner.handle, cpu_.handle);
  EXPECT_EQ(d.info.global_flags, kFine);
  EXPECT_EQ(d.agents.size(), found_.gpus.size());
  EXPECT_EQ(Describe(static_cast<char*>(p) + 8192).info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
}

TEST_F(HsaMemoryCApi, LockPinsHostMemoryUntilUnlock) {
  constexpr size_t kSize = 64 << 10;
  void* host = aligned_alloc(4096, kSize);
  ASSERT_NE(host, nullptr);
  std::memset(host, 0x5a, kSize);
  void* agent_ptr = nullptr;
  ASSERT_EQ(hsa_amd_memory_lock(host, kSize, &gpu_, 1, &agent_ptr), HSA_STATUS_SUCCESS);
  ASSERT_NE(agent_ptr, nullptr);
  Described d = Describe(static_cast<char*>(host) + 100);
  EXPECT_EQ(d.info.type, HSA_EXT_POINTER_TYPE_LOCKED);
  EXPECT_EQ(d.info.hostBaseAddress, host);
  EXPECT_EQ(d.info.agentBaseAddress, agent_ptr);
  EXPECT_EQ(d.info.sizeInBytes, kSize);
  EXPECT_EQ(d.info.agentOwner.handle, cpu_.handle) << "locked memory is the CPU's";
  EXPECT_TRUE(d.info.registered);
  EXPECT_EQ(d.info.global_flags, kFine);
  EXPECT_THAT(d.agents, UnorderedElementsAre(gpu_.handle));
  int tag = 0;
  EXPECT_EQ(hsa_amd_pointer_info_set_userdata(host, &tag), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Describe(host).info.userData, &tag);

  ASSERT_EQ(hsa_amd_memory_unlock(host), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Describe(host).info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
  EXPECT_EQ(hsa_amd_memory_unlock(host), HSA_STATUS_SUCCESS) << "not locked any more: nothing to undo, as ROCr";
  free(host);
}

TEST_F(HsaMemoryCApi, LockToACoarsePoolAndBadLocksAreRefused) {
  constexpr size_t kSize = 16 << 10;
  void* host = aligned_alloc(4096, kSize);
  ASSERT_NE(host, nullptr);
  void* agent_ptr = nullptr;
  EXPECT_EQ(hsa_amd_memory_lock_to_pool(host, kSize, nullptr, 0, vram_, 0, &agent_ptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "host memory takes a CPU pool's properties";
  EXPECT_EQ(hsa_amd_memory_lock_to_pool(host, kSize, nullptr, 0, PoolWith(cpu_, kCoarse), 1, &agent_ptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "flags are reserved";
  EXPECT_EQ(agent_ptr, nullptr);
  ASSERT_EQ(hsa_amd_memory_lock_to_pool(host, kSize, nullptr, 0, PoolWith(cpu_, kCoarse), 0, &agent_ptr),
            HSA_STATUS_SUCCESS);
  Described d = Describe(host);
  EXPECT_EQ(d.info.global_flags, kCoarse);
  EXPECT_EQ(d.agents.size(), found_.gpus.size()) << "no agent list: every GPU";
  ASSERT_EQ(hsa_amd_memory_unlock(host), HSA_STATUS_SUCCESS);

  EXPECT_EQ(hsa_amd_memory_lock(nullptr, kSize, nullptr, 0, &agent_ptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_lock(host, 0, nullptr, 0, &agent_ptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_memory_lock(host, kSize, nullptr, 0, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_agent_t bogus{0x1234};
  EXPECT_EQ(hsa_amd_memory_lock(host, kSize, &bogus, 1, &agent_ptr), HSA_STATUS_ERROR_INVALID_AGENT);
  free(host);

  // Pages that are not mapped cannot be pinned: the kernel refuses, and nothing stays locked.
  void* hole = mmap(nullptr, kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  EXPECT_NE(hsa_amd_memory_lock(hole, kSize, nullptr, 0, &agent_ptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Describe(hole).info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
  munmap(hole, kSize);
}

struct Notes {
  std::atomic<int> calls{0};
  void* ptr = nullptr;
  hsa_amd_pointer_type_t type_during = HSA_EXT_POINTER_TYPE_UNKNOWN;
};

void NoteFree(void* ptr, void* data) {
  auto* notes = static_cast<Notes*>(data);
  notes->calls++;
  notes->ptr = ptr;
  hsa_amd_pointer_info_t info{};
  info.size = sizeof(info);
  hsa_amd_pointer_info(ptr, &info, nullptr, nullptr, nullptr);
  notes->type_during = info.type;
}
void OtherNote(void* ptr, void* data) { NoteFree(ptr, data); }

TEST_F(HsaMemoryCApi, DeallocationCallbacksRunBeforeTheFree) {
  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, 0, &p), HSA_STATUS_SUCCESS);
  Notes first, second;
  ASSERT_EQ(hsa_amd_register_deallocation_callback(p, NoteFree, &first), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_register_deallocation_callback(p, OtherNote, &second), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_deregister_deallocation_callback(p, OtherNote), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_deregister_deallocation_callback(p, OtherNote), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_register_deallocation_callback(static_cast<char*>(p) + 4, NoteFree, &first),
            HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "callbacks attach to an allocation's start";
  EXPECT_EQ(hsa_amd_register_deallocation_callback(p, nullptr, &first), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
  EXPECT_EQ(first.calls, 1);
  EXPECT_EQ(first.ptr, p);
  EXPECT_EQ(first.type_during, HSA_EXT_POINTER_TYPE_HSA) << "the memory is still allocated while it runs";
  EXPECT_EQ(second.calls, 0);
}

struct RegionSearch {
  hsa_region_t kernarg{0}, vram{0};
  int count = 0;
};

hsa_status_t FindRegions(hsa_region_t region, void* data) {
  auto* found = static_cast<RegionSearch*>(data);
  ++found->count;
  hsa_region_segment_t segment;
  uint32_t flags = 0;
  bool host = false;
  if (hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
      hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS ||
      hsa_region_get_info(region, static_cast<hsa_region_info_t>(HSA_AMD_REGION_INFO_HOST_ACCESSIBLE), &host) !=
          HSA_STATUS_SUCCESS) {
    return HSA_STATUS_ERROR;
  }
  if (segment != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  if ((flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && host) found->kernarg = region;
  if ((flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED) && !host) found->vram = region;
  return HSA_STATUS_SUCCESS;
}

TEST_F(HsaMemoryCApi, RegionsOfAKernelAgentIncludeKernargAndAllocate) {
  RegionSearch found;
  ASSERT_EQ(hsa_agent_iterate_regions(gpu_, FindRegions, &found), HSA_STATUS_SUCCESS);
  ASSERT_NE(found.kernarg.handle, 0u) << "HSA 1.0 clients find the kernarg region through the kernel agent";
  ASSERT_NE(found.vram.handle, 0u);
  size_t granule = 0, max_size = 0, size = 0;
  ASSERT_EQ(hsa_region_get_info(found.kernarg, HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE, &granule), HSA_STATUS_SUCCESS);
  EXPECT_EQ(granule, 4096u);
  ASSERT_EQ(hsa_region_get_info(found.vram, HSA_REGION_INFO_ALLOC_MAX_SIZE, &max_size), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_region_get_info(found.vram, HSA_REGION_INFO_SIZE, &size), HSA_STATUS_SUCCESS);
  EXPECT_GT(max_size, 0u);
  EXPECT_LE(max_size, size);
  // The same pools under both APIs: a region handle is a pool handle.
  uint64_t pool_size = 0;
  ASSERT_EQ(hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{found.vram.handle}, HSA_AMD_MEMORY_POOL_INFO_SIZE,
                                         &pool_size),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(pool_size, size);

  void* args = nullptr;
  ASSERT_EQ(hsa_memory_allocate(found.kernarg, 256, &args), HSA_STATUS_SUCCESS);
  std::memset(args, 0x11, 256);  // kernarg memory is the CPU's to write
  EXPECT_EQ(Describe(args).info.type, HSA_EXT_POINTER_TYPE_HSA);
  EXPECT_EQ(hsa_memory_assign_agent(args, gpu_, HSA_ACCESS_PERMISSION_RO), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_free(args), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_free(args), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  EXPECT_EQ(hsa_memory_free(nullptr), HSA_STATUS_SUCCESS);

  void* v = nullptr;
  const uint64_t before = MemoryAvail(gpu_);
  ASSERT_EQ(hsa_memory_allocate(found.vram, 4096, &v), HSA_STATUS_SUCCESS);
  EXPECT_EQ(before - MemoryAvail(gpu_), 4096u) << "the region allocator does not carve fragments";
  EXPECT_EQ(hsa_memory_free(v), HSA_STATUS_SUCCESS);

  // CPU regions: the CPU agent's own pools only.
  RegionSearch cpu;
  ASSERT_EQ(hsa_agent_iterate_regions(cpu_, FindRegions, &cpu), HSA_STATUS_SUCCESS);
  EXPECT_NE(cpu.kernarg.handle, 0u);
  EXPECT_LT(cpu.count, found.count);
}

TEST_F(HsaMemoryCApi, RegionMisuseGetsRocrCodes) {
  void* p = nullptr;
  size_t value = 0;
  EXPECT_EQ(hsa_region_get_info(hsa_region_t{0x1234}, HSA_REGION_INFO_SIZE, &value), HSA_STATUS_ERROR_INVALID_REGION);
  EXPECT_EQ(hsa_memory_allocate(hsa_region_t{0x1234}, 4096, &p), HSA_STATUS_ERROR_INVALID_REGION);
  EXPECT_EQ(hsa_region_get_info(hsa_region_t{vram_.handle}, HSA_REGION_INFO_SIZE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_allocate(hsa_region_t{vram_.handle}, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_iterate_regions(hsa_agent_t{0x1234}, FindRegions, nullptr), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_agent_iterate_regions(gpu_, nullptr, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(p, nullptr);
  int x = 0;
  EXPECT_EQ(hsa_memory_register(&x, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_register(&x, sizeof(x)), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_deregister(&x, sizeof(x)), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_assign_agent(&x, gpu_, HSA_ACCESS_PERMISSION_RW), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  EXPECT_EQ(hsa_memory_assign_agent(&x, gpu_, HSA_ACCESS_PERMISSION_NONE), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

TEST_F(HsaMemoryCApi, AllowAccessArgumentsAreCheckedAsRocr) {
  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, 0, &p), HSA_STATUS_SUCCESS);
  const uint32_t flags = 0;
  EXPECT_EQ(hsa_amd_agents_allow_access(1, &gpu_, &flags, p), HSA_STATUS_ERROR_INVALID_ARGUMENT) << "flags reserved";
  EXPECT_EQ(hsa_amd_agents_allow_access(0, &gpu_, nullptr, p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_agents_allow_access(1, nullptr, nullptr, p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_amd_agents_allow_access(1, &gpu_, nullptr, nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_agent_t bogus{0x1234};
  EXPECT_EQ(hsa_amd_agents_allow_access(1, &bogus, nullptr, p), HSA_STATUS_ERROR_INVALID_AGENT);
  int x = 0;
  EXPECT_EQ(hsa_amd_agents_allow_access(1, &gpu_, nullptr, &x), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  // The owner and the CPU: nothing changes for VRAM, which stays on its GPU.
  const hsa_agent_t both[] = {cpu_, gpu_};
  EXPECT_EQ(hsa_amd_agents_allow_access(2, both, nullptr, p), HSA_STATUS_SUCCESS);
  EXPECT_THAT(Describe(p).agents, UnorderedElementsAre(gpu_.handle));
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
}

TEST_F(HsaMemoryCApi, AllowAccessMapsVramOnThePeer) {
  if (found_.gpus.size() < 2) GTEST_SKIP() << "needs two GPUs (HIPMEM_SIM_PRESET=2xmi250x)";
  const hsa_agent_t peer = found_.gpus[1];
  void* p = nullptr;
  void* q = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, 0, &p), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, 0, &q), HSA_STATUS_SUCCESS);
  hsa_amd_memory_pool_access_t access;
  ASSERT_EQ(hsa_amd_agent_memory_pool_get_info(peer, vram_, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(access, HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);
  EXPECT_THAT(Describe(p).agents, UnorderedElementsAre(gpu_.handle)) << "the peer has no mapping before the grant";
  ASSERT_EQ(hsa_amd_agents_allow_access(1, &peer, nullptr, p), HSA_STATUS_SUCCESS);
  EXPECT_THAT(Describe(p).agents, UnorderedElementsAre(gpu_.handle, peer.handle));
  // Fragments share their block's buffer: a later grant for a neighbour keeps the peer's mapping.
  ASSERT_EQ(hsa_amd_agents_allow_access(1, &gpu_, nullptr, q), HSA_STATUS_SUCCESS);
  EXPECT_THAT(Describe(p).agents, UnorderedElementsAre(gpu_.handle, peer.handle));
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_pool_free(q), HSA_STATUS_SUCCESS);

  // A buffer of its own takes exactly the granted set.
  ASSERT_EQ(hsa_amd_memory_pool_allocate(vram_, 4096, HSA_AMD_MEMORY_POOL_CONTIGUOUS_FLAG, &p), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_agents_allow_access(1, &peer, nullptr, p), HSA_STATUS_SUCCESS);
  EXPECT_THAT(Describe(p).agents, UnorderedElementsAre(gpu_.handle, peer.handle));
  ASSERT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
}

// rocrtst's concurrent memory test: 8 threads allocate, check, query pools and free at once; every allocation
// is its own (pointer info reports exactly it) and everything balances at the end.
TEST_F(HsaMemoryCApi, EightThreadsAllocateQueryAndFreeConcurrently) {
  const uint64_t before = MemoryAvail(gpu_);
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::pair<void*, size_t>> live;
      for (int i = 0; i < kRounds; ++i) {
        const size_t size = 4096u * (1 + (t * 7 + i * 13) % 40);
        hsa_amd_memory_pool_t pool = (i % 3 == 0) ? system_ : vram_;
        void* p = nullptr;
        if (hsa_amd_memory_pool_allocate(pool, size, 0, &p) != HSA_STATUS_SUCCESS) {
          ++failures;
          continue;
        }
        live.emplace_back(p, size);
        size_t pool_size = 0;
        if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &pool_size) != HSA_STATUS_SUCCESS ||
            pool_size == 0) {
          ++failures;
        }
        if (i % 2 == 1) {
          auto [q, q_size] = live.front();
          live.erase(live.begin());
          hsa_amd_pointer_info_t info{};
          info.size = sizeof(info);
          if (hsa_amd_pointer_info(static_cast<char*>(q) + q_size - 1, &info, nullptr, nullptr, nullptr) !=
                  HSA_STATUS_SUCCESS ||
              info.agentBaseAddress != q || info.sizeInBytes != q_size) {
            ++failures;
          }
          if (hsa_amd_memory_pool_free(q) != HSA_STATUS_SUCCESS) ++failures;
        }
      }
      for (auto [q, q_size] : live) {
        if (hsa_amd_memory_pool_free(q) != HSA_STATUS_SUCCESS) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(MemoryAvail(gpu_), before) << "every block is back in the KFD or in the cache";
}

}  // namespace
