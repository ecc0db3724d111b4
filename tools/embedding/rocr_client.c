/* A plain-C ROCr client, as rocminfo or rocm_bandwidth_test are: it knows only hsa/hsa.h and hsa/hsa_ext_amd.h.
 * check_embedding.sh builds it in a workspace of its own against @hipmem//hsa:hsa_runtime64 and runs it on one
 * MI300X, two MI250X GCDs and an RX 7900 XTX (whose VRAM the CPU cannot reach, so VRAM is only ever touched by
 * the engines here). Steps: rocminfo's identity queries, the region API, pool allocation, pointer info, locked
 * host memory, a copy chain through dependency signals, a fill, copy profiling and, with two GPUs, a peer copy
 * after hsa_amd_agents_allow_access. Prints "rocr client: N GPU(s) OK" and exits 0, or names the failed step. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

#define MAX_GPUS 8
#define SIZE (1u << 20)

static int failures = 0;

#define CHECK(step, cond)                                  \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "rocr client: FAILED %s\n", step); \
      failures++;                                          \
      goto done;                                           \
    }                                                      \
  } while (0)

#define CHECK_HSA(step, call)                                                  \
  do {                                                                         \
    hsa_status_t s_ = (call);                                                  \
    if (s_ != HSA_STATUS_SUCCESS) {                                            \
      const char* why_ = "";                                                   \
      hsa_status_string(s_, &why_);                                            \
      fprintf(stderr, "rocr client: FAILED %s: 0x%x %s\n", step, s_, why_);    \
      failures++;                                                              \
      goto done;                                                               \
    }                                                                          \
  } while (0)

typedef struct {
  hsa_agent_t cpu;
  bool have_cpu;
  hsa_agent_t gpus[MAX_GPUS];
  int num_gpus;
} Agents;

static hsa_status_t collect_agent(hsa_agent_t agent, void* data) {
  Agents* a = (Agents*)data;
  hsa_device_type_t type;
  hsa_status_t s = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (s != HSA_STATUS_SUCCESS) return s;
  if (type == HSA_DEVICE_TYPE_CPU && !a->have_cpu) {
    a->cpu = agent;
    a->have_cpu = true;
  } else if (type == HSA_DEVICE_TYPE_GPU && a->num_gpus < MAX_GPUS) {
    a->gpus[a->num_gpus++] = agent;
  }
  return HSA_STATUS_SUCCESS;
}

/* The first pool of `agent` in the global segment whose flags contain `want` and that allows allocation. */
typedef struct {
  uint32_t want;
  hsa_amd_memory_pool_t pool;
  bool found;
} PoolQuery;

static hsa_status_t find_pool(hsa_amd_memory_pool_t pool, void* data) {
  PoolQuery* q = (PoolQuery*)data;
  hsa_amd_segment_t segment;
  uint32_t flags = 0;
  bool alloc = false;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
      hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc) !=
          HSA_STATUS_SUCCESS) {
    return HSA_STATUS_ERROR;
  }
  if (segment != HSA_AMD_SEGMENT_GLOBAL || !alloc) return HSA_STATUS_SUCCESS;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS) {
    return HSA_STATUS_ERROR;
  }
  if ((flags & q->want) != q->want || q->found) return HSA_STATUS_SUCCESS;
  q->pool = pool;
  q->found = true;
  return HSA_STATUS_INFO_BREAK;
}

static bool pool_of(hsa_agent_t agent, uint32_t want, hsa_amd_memory_pool_t* pool) {
  PoolQuery q = {want, {0}, false};
  hsa_status_t s = hsa_amd_agent_iterate_memory_pools(agent, find_pool, &q);
  if (s != HSA_STATUS_SUCCESS && s != HSA_STATUS_INFO_BREAK) return false;
  *pool = q.pool;
  return q.found;
}

static hsa_status_t find_global_region(hsa_region_t region, void* data) {
  hsa_region_segment_t segment;
  bool alloc = false;
  hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment);
  hsa_region_get_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
  if (segment != HSA_REGION_SEGMENT_GLOBAL || !alloc) return HSA_STATUS_SUCCESS;
  *(hsa_region_t*)data = region;
  return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t first_isa(hsa_isa_t isa, void* data) {
  *(hsa_isa_t*)data = isa;
  return HSA_STATUS_INFO_BREAK;
}

static hsa_signal_value_t wait_zero(hsa_signal_t signal) {
  return hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
}

static void fill_pattern(uint8_t* p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i) p[i] = (uint8_t)(i * 31u + seed);
}

/* One GPU: identity, regions, pointer info, lock, the copy chain, fill and profiling. */
static void check_gpu(hsa_agent_t cpu, hsa_agent_t gpu, int index) {
  char name[64] = {0}, product[64] = {0}, uuid[24] = {0}, isa_name[256] = {0};
  uint32_t cus = 0, bdfid = 0, isa_len = 0;
  hsa_isa_t isa = {0};
  hsa_region_t region = {0};
  hsa_amd_memory_pool_t vram_pool, host_pool;
  void *vram = NULL, *vram2 = NULL, *region_buf = NULL, *host = NULL, *locked_agent_ptr = NULL;
  uint8_t *pageable = NULL, *back = NULL;
  hsa_signal_t s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0};
  hsa_amd_pointer_info_t info;
  hsa_agent_t* accessible = NULL;
  uint32_t num_accessible = 0;
  hsa_amd_profiling_async_copy_time_t time;

  /* rocminfo's identity queries. */
  CHECK_HSA("agent name", hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
  CHECK_HSA("product name", hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, product));
  CHECK_HSA("uuid", hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_UUID, uuid));
  CHECK_HSA("compute units", hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
  CHECK_HSA("bdfid", hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_BDFID, &bdfid));
  CHECK("names are set", strncmp(name, "gfx", 3) == 0 && product[0] != '\0' && strncmp(uuid, "GPU-", 4) == 0);
  CHECK("compute units", cus > 0);
  CHECK_HSA("iterate isas", hsa_agent_iterate_isas(gpu, first_isa, &isa) == HSA_STATUS_INFO_BREAK
                                ? HSA_STATUS_SUCCESS
                                : HSA_STATUS_ERROR);
  CHECK_HSA("isa name length", hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &isa_len));
  CHECK("isa name fits", isa_len > 0 && isa_len < sizeof(isa_name));
  CHECK_HSA("isa name", hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, isa_name));
  CHECK("isa names the gfx target", strstr(isa_name, name) != NULL);
  printf("gpu %d: %s \"%s\" %s, %u CUs, BDFID %u, ISA %s\n", index, name, product, uuid, cus, bdfid, isa_name);

  /* The HSA 1.0 region API over the same pools. */
  CHECK_HSA("iterate regions", hsa_agent_iterate_regions(gpu, find_global_region, &region) == HSA_STATUS_INFO_BREAK
                                   ? HSA_STATUS_SUCCESS
                                   : HSA_STATUS_ERROR);
  CHECK_HSA("region allocate", hsa_memory_allocate(region, 4096, &region_buf));
  CHECK_HSA("region free", hsa_memory_free(region_buf));
  region_buf = NULL;

  /* Pools: coarse-grained VRAM, fine-grained system memory. */
  CHECK("vram pool", pool_of(gpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, &vram_pool));
  CHECK("host pool", pool_of(cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, &host_pool));
  CHECK_HSA("allocate vram", hsa_amd_memory_pool_allocate(vram_pool, SIZE, 0, &vram));
  CHECK_HSA("allocate vram2", hsa_amd_memory_pool_allocate(vram_pool, SIZE, 0, &vram2));
  CHECK_HSA("allocate host", hsa_amd_memory_pool_allocate(host_pool, SIZE, 0, &host));
  CHECK_HSA("host allow access", hsa_amd_agents_allow_access(1, &gpu, NULL, host));

  /* Pointer info one byte inside, with the accessible agents. */
  memset(&info, 0, sizeof(info));
  info.size = sizeof(info);
  CHECK_HSA("pointer info", hsa_amd_pointer_info((uint8_t*)vram + 1, &info, malloc, &num_accessible, &accessible));
  CHECK("pointer info fields", info.type == HSA_EXT_POINTER_TYPE_HSA && info.agentOwner.handle == gpu.handle &&
                                   info.agentBaseAddress == vram && info.sizeInBytes >= SIZE);
  CHECK("accessible agents", num_accessible >= 1 && accessible != NULL);

  /* Locked (pinned) pageable memory is a copy source through its agent pointer. */
  pageable = (uint8_t*)malloc(SIZE);
  back = (uint8_t*)malloc(SIZE);
  CHECK("malloc", pageable != NULL && back != NULL);
  fill_pattern(pageable, SIZE, (unsigned)index + 7u);
  CHECK_HSA("lock", hsa_amd_memory_lock(pageable, SIZE, &gpu, 1, &locked_agent_ptr));

  /* A chain: locked host -> vram -> vram2 -> host, each step waiting on the one before through its signal. */
  CHECK_HSA("signal 1", hsa_signal_create(1, 0, NULL, &s1));
  CHECK_HSA("signal 2", hsa_signal_create(1, 0, NULL, &s2));
  CHECK_HSA("signal 3", hsa_signal_create(1, 0, NULL, &s3));
  CHECK_HSA("signal 4", hsa_signal_create(1, 0, NULL, &s4));
  CHECK_HSA("profiling on", hsa_amd_profiling_async_copy_enable(true));
  CHECK_HSA("copy h2d", hsa_amd_memory_async_copy(vram, gpu, locked_agent_ptr, cpu, SIZE, 0, NULL, s1));
  CHECK_HSA("copy d2d", hsa_amd_memory_async_copy(vram2, gpu, vram, gpu, SIZE, 1, &s1, s2));
  CHECK_HSA("copy d2h", hsa_amd_memory_async_copy(host, cpu, vram2, gpu, SIZE, 1, &s2, s3));
  CHECK("chain completes", wait_zero(s3) == 0);
  CHECK("chain data", memcmp(host, pageable, SIZE) == 0);
  CHECK_HSA("copy time", hsa_amd_profiling_get_async_copy_time(s1, &time));
  CHECK("copy time ordered", time.start > 0 && time.end >= time.start);
  CHECK_HSA("profiling off", hsa_amd_profiling_async_copy_enable(false));

  /* A fill on the GPU, read back by a copy. */
  CHECK_HSA("fill", hsa_amd_memory_fill(vram, 0xA5A5A5A5u, SIZE / 4));
  hsa_signal_store_screlease(s4, 1);
  CHECK_HSA("copy filled", hsa_amd_memory_async_copy(host, cpu, vram, gpu, SIZE, 0, NULL, s4));
  CHECK("filled copy completes", wait_zero(s4) == 0);
  for (size_t i = 0; i < SIZE; ++i) CHECK("fill data", ((uint8_t*)host)[i] == 0xA5);

  /* hsa_memory_copy, the synchronous HSA 1.0 copy. */
  CHECK_HSA("memory copy", hsa_memory_copy(back, vram2, SIZE));
  CHECK("memory copy data", memcmp(back, pageable, SIZE) == 0);

done:
  if (locked_agent_ptr != NULL) hsa_amd_memory_unlock(pageable);
  free(pageable);
  free(back);
  free(accessible);
  if (s1.handle) hsa_signal_destroy(s1);
  if (s2.handle) hsa_signal_destroy(s2);
  if (s3.handle) hsa_signal_destroy(s3);
  if (s4.handle) hsa_signal_destroy(s4);
  if (vram) hsa_amd_memory_pool_free(vram);
  if (vram2) hsa_amd_memory_pool_free(vram2);
  if (host) hsa_amd_memory_pool_free(host);
}

/* Two GPUs: a peer copy from GPU 0's VRAM to GPU 1's after each is granted the other's buffer. */
static void check_peer(hsa_agent_t cpu, hsa_agent_t g0, hsa_agent_t g1) {
  hsa_amd_memory_pool_t p0, p1, host_pool;
  void *a = NULL, *b = NULL, *host = NULL;
  uint8_t* expect = NULL;
  hsa_signal_t s = {0};
  hsa_agent_t both[2] = {g0, g1};
  hsa_amd_memory_pool_access_t access;
  CHECK("peer pools", pool_of(g0, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, &p0) &&
                          pool_of(g1, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, &p1) &&
                          pool_of(cpu, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, &host_pool));
  CHECK_HSA("peer access query", hsa_amd_agent_memory_pool_get_info(g1, p0, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS,
                                                                    &access));
  CHECK("peer access is by grant", access == HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);
  CHECK_HSA("peer allocate a", hsa_amd_memory_pool_allocate(p0, SIZE, 0, &a));
  CHECK_HSA("peer allocate b", hsa_amd_memory_pool_allocate(p1, SIZE, 0, &b));
  CHECK_HSA("peer allocate host", hsa_amd_memory_pool_allocate(host_pool, SIZE, 0, &host));
  CHECK_HSA("grant a", hsa_amd_agents_allow_access(2, both, NULL, a));
  CHECK_HSA("grant b", hsa_amd_agents_allow_access(2, both, NULL, b));
  CHECK_HSA("grant host", hsa_amd_agents_allow_access(2, both, NULL, host));
  expect = (uint8_t*)malloc(SIZE);
  CHECK("malloc", expect != NULL);
  fill_pattern(expect, SIZE, 99);
  memcpy(host, expect, SIZE);
  CHECK_HSA("peer signal", hsa_signal_create(1, 0, NULL, &s));
  CHECK_HSA("peer h2d", hsa_amd_memory_async_copy(a, g0, host, cpu, SIZE, 0, NULL, s));
  CHECK("peer h2d completes", wait_zero(s) == 0);
  memset(host, 0, SIZE);
  hsa_signal_store_screlease(s, 1);
  CHECK_HSA("peer copy", hsa_amd_memory_async_copy(b, g1, a, g0, SIZE, 0, NULL, s));
  CHECK("peer copy completes", wait_zero(s) == 0);
  hsa_signal_store_screlease(s, 1);
  CHECK_HSA("peer d2h", hsa_amd_memory_async_copy(host, cpu, b, g1, SIZE, 0, NULL, s));
  CHECK("peer d2h completes", wait_zero(s) == 0);
  CHECK("peer data", memcmp(host, expect, SIZE) == 0);
  printf("peer copy gpu 0 -> gpu 1: OK\n");
done:
  free(expect);
  if (s.handle) hsa_signal_destroy(s);
  if (a) hsa_amd_memory_pool_free(a);
  if (b) hsa_amd_memory_pool_free(b);
  if (host) hsa_amd_memory_pool_free(host);
}

int main(void) {
  Agents agents;
  memset(&agents, 0, sizeof(agents));
  uint16_t major = 0, minor = 0;
  CHECK_HSA("hsa_init", hsa_init());
  CHECK_HSA("system version", hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
  CHECK_HSA("system version minor", hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor));
  CHECK_HSA("iterate agents", hsa_iterate_agents(collect_agent, &agents));
  CHECK("a CPU and a GPU", agents.have_cpu && agents.num_gpus > 0);
  for (int i = 0; i < agents.num_gpus; ++i) check_gpu(agents.cpu, agents.gpus[i], i);
  if (agents.num_gpus > 1) check_peer(agents.cpu, agents.gpus[0], agents.gpus[1]);
  CHECK_HSA("hsa_shut_down", hsa_shut_down());
done:
  if (failures != 0) return 1;
  printf("rocr client: %d GPU(s) OK\n", agents.num_gpus);
  return 0;
}
