// The device number of the CPU: where memory that is not VRAM lives. ROCclr's amd::CpuDeviceId and HIP's
// hipCpuDeviceId are both -1; clr sits below the HIP headers, so it names the value itself, once.
#ifndef HIPMEM_CLR_CPU_DEVICE_ID_H_
#define HIPMEM_CLR_CPU_DEVICE_ID_H_

namespace hipmem::clr {

inline constexpr int kCpuDeviceId = -1;

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_CPU_DEVICE_ID_H_
