#include "thunk/default_kfd_device.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {

absl::StatusOr<std::unique_ptr<KfdDevice>> OpenDefaultKfdDevice() {
  const char* env = std::getenv("HIPMEM_KFD_BACKEND");
  const std::string backend = env != nullptr ? env : (LinuxKfdPresent() ? "linux" : "sim");
  if (backend == "linux") return OpenLinuxKfdDevice();
  if (backend == "sim") {
    ASSIGN_OR_RETURN(std::shared_ptr<SimMachine> machine, SimMachine::Default());
    return OpenSimKfdDevice(std::move(machine));
  }
  return absl::InvalidArgumentError(absl::StrCat("HIPMEM_KFD_BACKEND=", backend, ": expected 'sim' or 'linux'"));
}

}  // namespace hipmem::thunk
