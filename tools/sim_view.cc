#include "tools/sim_view.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::tools {
namespace {

constexpr char kBanner[] = "=====================\nSimulator\n=====================\n";

}  // namespace

bool SimulatorInUse() {
  // Mirrors thunk::OpenDefaultKfdDevice without opening anything: asking the runtime would open another
  // KFD process just to learn its backend's name.
  const char* backend = std::getenv("HIPMEM_KFD_BACKEND");
  if (backend != nullptr) return std::string_view(backend) == "sim";
  return !thunk::LinuxKfdPresent();
}

absl::StatusOr<std::string> SimulatorSection() {
  if (!SimulatorInUse()) {
    return absl::StrCat(kBanner, "Not in use: the KFD backend is the Linux driver (/dev/kfd).\n");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<thunk::SimMachine> machine, thunk::SimMachine::Default());
  return absl::StrCat(kBanner, kfd_sim::FormatSnapshot(machine->simulator().Snapshot()));
}

absl::StatusOr<std::string> SimulatorDmesg() {
  if (!SimulatorInUse()) {
    return std::string("hipmem dmesg: the KFD backend is the Linux driver; its log is the kernel's (dmesg).\n");
  }
  ASSIGN_OR_RETURN(std::shared_ptr<thunk::SimMachine> machine, thunk::SimMachine::Default());
  return machine->simulator().Dmesg();
}

}  // namespace hipmem::tools
