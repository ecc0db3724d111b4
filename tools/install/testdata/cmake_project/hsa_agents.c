/* C code on hsa-runtime64::hsa-runtime64: counts the GPU agents the HSA runtime reports. */
#include <hsa/hsa.h>
#include <stdio.h>

static hsa_status_t count_gpu(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  hsa_status_t status = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (status != HSA_STATUS_SUCCESS) return status;
  if (type == HSA_DEVICE_TYPE_GPU) ++*(int*)data;
  return HSA_STATUS_SUCCESS;
}

int main(void) {
  if (hsa_init() != HSA_STATUS_SUCCESS) {
    fprintf(stderr, "hsa_init failed\n");
    return 1;
  }
  int gpus = 0;
  if (hsa_iterate_agents(count_gpu, &gpus) != HSA_STATUS_SUCCESS || gpus == 0) {
    fprintf(stderr, "no GPU agent\n");
    return 1;
  }
  hsa_shut_down();
  printf("hsa_agents: %d GPU agent(s)\n", gpus);
  return 0;
}
