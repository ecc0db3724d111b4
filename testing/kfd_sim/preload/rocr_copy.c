/* A plain HSA program, compiled against hipmem's <hsa/hsa.h> and <hsa/hsa_ext_amd.h> but run on whatever ROCr the
 * path in argv[1] names (the tests give Debian's libhsa-runtime64.so.1, loaded with dlopen): it copies a buffer
 * host -> GPU, GPU -> GPU (within each GPU, and between each pair of GPUs) and GPU -> host with
 * hsa_amd_memory_async_copy, and checks every byte that comes back. Prints one line per copy; exits 0 when all
 * came back intact, 1 (with ROCr's status string) on the first failure, 2 on bad usage.
 *
 * usage: rocr_copy LIBHSA_PATH [BYTES]   (BYTES defaults to 4 MiB + 12: not a multiple of any copy granule)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

#define MAX_GPUS 8

/* The entry points, looked up in the library the caller names. */
static struct {
  __typeof__(hsa_init)* init;
  __typeof__(hsa_shut_down)* shut_down;
  __typeof__(hsa_status_string)* status_string;
  __typeof__(hsa_iterate_agents)* iterate_agents;
  __typeof__(hsa_agent_get_info)* agent_get_info;
  __typeof__(hsa_amd_agent_iterate_memory_pools)* iterate_pools;
  __typeof__(hsa_amd_memory_pool_get_info)* pool_get_info;
  __typeof__(hsa_amd_memory_pool_allocate)* pool_allocate;
  __typeof__(hsa_amd_memory_pool_free)* pool_free;
  __typeof__(hsa_amd_agents_allow_access)* allow_access;
  __typeof__(hsa_signal_create)* signal_create;
  __typeof__(hsa_signal_destroy)* signal_destroy;
  __typeof__(hsa_signal_wait_scacquire)* signal_wait;
  __typeof__(hsa_amd_memory_async_copy)* async_copy;
} hsa;

typedef struct {
  hsa_agent_t agent;
  hsa_amd_memory_pool_t pool; /* the agent's allocatable global pool (coarse-grained for a GPU) */
  int has_pool;
  char name[64];
} Agent;

static Agent cpu;
static Agent gpus[MAX_GPUS];
static int gpu_count;

static int Check(hsa_status_t status, const char* what) {
  if (status == HSA_STATUS_SUCCESS) return 0;
  const char* text = NULL;
  if (hsa.status_string(status, &text) != HSA_STATUS_SUCCESS || text == NULL) text = "(no string)";
  fprintf(stderr, "rocr_copy: %s failed: 0x%x %s\n", what, (unsigned)status, text);
  return 1;
}

static hsa_status_t PickPool(hsa_amd_memory_pool_t pool, void* data) {
  Agent* a = (Agent*)data;
  hsa_amd_segment_t segment;
  uint32_t flags = 0;
  bool allocatable = false;
  if (hsa.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
      segment != HSA_AMD_SEGMENT_GLOBAL) {
    return HSA_STATUS_SUCCESS;
  }
  hsa.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  hsa.pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allocatable);
  if (!allocatable || (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) != 0) return HSA_STATUS_SUCCESS;
  if (!a->has_pool) {
    a->pool = pool;
    a->has_pool = 1;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t CollectAgent(hsa_agent_t agent, void* data) {
  (void)data;
  hsa_device_type_t type;
  if (hsa.agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  Agent* a = NULL;
  if (type == HSA_DEVICE_TYPE_CPU && cpu.agent.handle == 0) {
    a = &cpu;
  } else if (type == HSA_DEVICE_TYPE_GPU && gpu_count < MAX_GPUS) {
    a = &gpus[gpu_count++];
  }
  if (a == NULL) return HSA_STATUS_SUCCESS;
  a->agent = agent;
  hsa.agent_get_info(agent, HSA_AGENT_INFO_NAME, a->name);
  return hsa.iterate_pools(agent, PickPool, a);
}

/* One asynchronous copy of `size` bytes, waited for. */
static int Copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
                const char* what) {
  hsa_signal_t done;
  if (Check(hsa.signal_create(1, 0, NULL, &done), "hsa_signal_create")) return 1;
  int failed = Check(hsa.async_copy(dst, dst_agent, src, src_agent, size, 0, NULL, done), what);
  if (!failed) {
    const hsa_signal_value_t left =
        hsa.signal_wait(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    if (left != 0) {
      fprintf(stderr, "rocr_copy: %s: completion signal ended at %ld\n", what, (long)left);
      failed = 1;
    }
  }
  hsa.signal_destroy(done);
  return failed;
}

static void* Lookup(void* lib, const char* name) {
  void* sym = dlsym(lib, name);
  if (sym == NULL) {
    fprintf(stderr, "rocr_copy: %s has no %s\n", "the HSA runtime", name);
    exit(2);
  }
  return sym;
}

/* The byte at `i` of the pattern for round `round`: every position and round differ. */
static uint8_t Pattern(size_t i, unsigned round) { return (uint8_t)(i * 131u + (i >> 8) * 7u + round * 29u + 1u); }

static int Verify(const uint8_t* data, size_t size, unsigned round, const char* what) {
  for (size_t i = 0; i < size; ++i) {
    if (data[i] != Pattern(i, round)) {
      fprintf(stderr, "rocr_copy: %s: byte %zu is 0x%02x, expected 0x%02x\n", what, i, data[i], Pattern(i, round));
      return 1;
    }
  }
  printf("%s: %zu bytes ok\n", what, size);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: rocr_copy LIBHSA_PATH [BYTES]\n");
    return 2;
  }
  const size_t size = argc == 3 ? (size_t)strtoull(argv[2], NULL, 0) : (size_t)(4u << 20) + 12u;
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "rocr_copy: dlopen(%s): %s\n", argv[1], dlerror());
    return 2;
  }
  hsa.init = (__typeof__(hsa.init))Lookup(lib, "hsa_init");
  hsa.shut_down = (__typeof__(hsa.shut_down))Lookup(lib, "hsa_shut_down");
  hsa.status_string = (__typeof__(hsa.status_string))Lookup(lib, "hsa_status_string");
  hsa.iterate_agents = (__typeof__(hsa.iterate_agents))Lookup(lib, "hsa_iterate_agents");
  hsa.agent_get_info = (__typeof__(hsa.agent_get_info))Lookup(lib, "hsa_agent_get_info");
  hsa.iterate_pools = (__typeof__(hsa.iterate_pools))Lookup(lib, "hsa_amd_agent_iterate_memory_pools");
  hsa.pool_get_info = (__typeof__(hsa.pool_get_info))Lookup(lib, "hsa_amd_memory_pool_get_info");
  hsa.pool_allocate = (__typeof__(hsa.pool_allocate))Lookup(lib, "hsa_amd_memory_pool_allocate");
  hsa.pool_free = (__typeof__(hsa.pool_free))Lookup(lib, "hsa_amd_memory_pool_free");
  hsa.allow_access = (__typeof__(hsa.allow_access))Lookup(lib, "hsa_amd_agents_allow_access");
  hsa.signal_create = (__typeof__(hsa.signal_create))Lookup(lib, "hsa_signal_create");
  hsa.signal_destroy = (__typeof__(hsa.signal_destroy))Lookup(lib, "hsa_signal_destroy");
  hsa.signal_wait = (__typeof__(hsa.signal_wait))Lookup(lib, "hsa_signal_wait_scacquire");
  hsa.async_copy = (__typeof__(hsa.async_copy))Lookup(lib, "hsa_amd_memory_async_copy");

  if (hsa.init() != HSA_STATUS_SUCCESS) {
    fprintf(stderr, "rocr_copy: hsa_init failed\n");
    return 1;
  }
  if (Check(hsa.iterate_agents(CollectAgent, NULL), "hsa_iterate_agents")) return 1;
  if (!cpu.has_pool || gpu_count == 0) {
    fprintf(stderr, "rocr_copy: no CPU pool or no GPU (%d GPUs)\n", gpu_count);
    return 1;
  }
  hsa_agent_t all[MAX_GPUS + 1];
  for (int g = 0; g < gpu_count; ++g) {
    if (!gpus[g].has_pool) {
      fprintf(stderr, "rocr_copy: GPU %d (%s) has no allocatable global pool\n", g, gpus[g].name);
      return 1;
    }
    all[g] = gpus[g].agent;
  }
  all[gpu_count] = cpu.agent;

  uint8_t* host_src = NULL;
  uint8_t* host_dst = NULL;
  void* dev[MAX_GPUS][2];
  if (Check(hsa.pool_allocate(cpu.pool, size, 0, (void**)&host_src), "allocating host memory") ||
      Check(hsa.pool_allocate(cpu.pool, size, 0, (void**)&host_dst), "allocating host memory") ||
      Check(hsa.allow_access(gpu_count, all, NULL, host_src), "hsa_amd_agents_allow_access(host)") ||
      Check(hsa.allow_access(gpu_count, all, NULL, host_dst), "hsa_amd_agents_allow_access(host)")) {
    return 1;
  }
  for (int g = 0; g < gpu_count; ++g) {
    for (int b = 0; b < 2; ++b) {
      char what[96];
      snprintf(what, sizeof(what), "allocating VRAM on GPU %d", g);
      if (Check(hsa.pool_allocate(gpus[g].pool, size, 0, &dev[g][b]), what)) return 1;
      /* Every GPU (and the CPU agent, for ROCr's bookkeeping) may reach every buffer: peer copies need it. */
      if (Check(hsa.allow_access(gpu_count + 1, all, NULL, dev[g][b]), "hsa_amd_agents_allow_access(VRAM)")) return 1;
    }
  }

  unsigned round = 0;
  for (int g = 0; g < gpu_count; ++g) {
    for (int h = 0; h < gpu_count; ++h) {
      ++round;
      for (size_t i = 0; i < size; ++i) host_src[i] = Pattern(i, round);
      memset(host_dst, 0, size);
      char what[128];
      snprintf(what, sizeof(what), "host -> GPU %d", g);
      if (Copy(dev[g][0], gpus[g].agent, host_src, cpu.agent, size, what)) return 1;
      /* Within one GPU, or to a peer's VRAM. */
      snprintf(what, sizeof(what), "GPU %d -> GPU %d", g, h);
      if (Copy(dev[h][1], gpus[h].agent, dev[g][0], gpus[g].agent, size, what)) return 1;
      snprintf(what, sizeof(what), "GPU %d -> host", h);
      if (Copy(host_dst, cpu.agent, dev[h][1], gpus[h].agent, size, what)) return 1;
      snprintf(what, sizeof(what), "host -> GPU %d -> GPU %d -> host", g, h);
      if (Verify(host_dst, size, round, what)) return 1;
    }
  }

  for (int g = 0; g < gpu_count; ++g) {
    hsa.pool_free(dev[g][0]);
    hsa.pool_free(dev[g][1]);
  }
  hsa.pool_free(host_src);
  hsa.pool_free(host_dst);
  if (Check(hsa.shut_down(), "hsa_shut_down")) return 1;
  printf("rocr_copy: %d GPU(s), all copies intact\n", gpu_count);
  return 0;
}
