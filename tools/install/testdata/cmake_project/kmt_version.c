/* C code on hsakmt::hsakmt: opens the KFD and reports its interface version and node count. */
#include <hsakmt/hsakmt.h>
#include <stdio.h>

int main(void) {
  if (hsaKmtOpenKFD() != HSAKMT_STATUS_SUCCESS) {
    fprintf(stderr, "hsaKmtOpenKFD failed\n");
    return 1;
  }
  HsaVersionInfo version;
  HsaSystemProperties system;
  if (hsaKmtGetVersion(&version) != HSAKMT_STATUS_SUCCESS ||
      hsaKmtAcquireSystemProperties(&system) != HSAKMT_STATUS_SUCCESS) {
    fprintf(stderr, "hsaKmtGetVersion or hsaKmtAcquireSystemProperties failed\n");
    return 1;
  }
  printf("kmt_version: KFD %u.%u, %u node(s)\n", version.KernelInterfaceMajorVersion,
         version.KernelInterfaceMinorVersion, system.NumNodes);
  hsaKmtReleaseSystemProperties();
  hsaKmtCloseKFD();
  return 0;
}
