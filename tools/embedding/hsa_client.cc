#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <cstdio>
int main() { hsa_status_t s = hsa_init(); std::printf("hsa_init: %d\n", s); return s == HSA_STATUS_SUCCESS && hsa_shut_down() == HSA_STATUS_SUCCESS ? 0 : 1; }
