// Which KFD backend a process opens: the real /dev/kfd or the embedded simulator.
//
// OpenDefaultKfdDevice() chooses:
//   HIPMEM_KFD_BACKEND=sim | linux   explicit choice;
//   unset                            linux if /dev/kfd exists, else sim.
// HIPMEM_SIM_PRESET=<name> picks the default simulated machine (testing/kfd_sim/presets.h); unset or
// empty, one MI300X.
#ifndef HIPMEM_THUNK_DEFAULT_KFD_DEVICE_H_
#define HIPMEM_THUNK_DEFAULT_KFD_DEVICE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "thunk/kfd_device.h"

namespace hipmem::thunk {

// Opens the backend HIPMEM_KFD_BACKEND names, else Linux when /dev/kfd exists, else the default
// simulated machine. kInvalidArgument for an unknown backend name or a HIPMEM_SIM_PRESET naming no preset.
absl::StatusOr<std::unique_ptr<KfdDevice>> OpenDefaultKfdDevice();

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_DEFAULT_KFD_DEVICE_H_
