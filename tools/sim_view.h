// What `hipmem info` and `hipmem dmesg` show of the simulated machine: the simulator's introspection
// (kfd_sim::Simulator::Snapshot, rendered by kfd_sim::FormatSnapshot) and its kernel log (Simulator::Dmesg),
// read from the process-wide machine the thunk's simulator backend runs on (thunk::SimMachine::Default).
// Plays the parts of a real machine's debugfs and dmesg that a ROCm developer looks at.
#ifndef HIPMEM_TOOLS_SIM_VIEW_H_
#define HIPMEM_TOOLS_SIM_VIEW_H_

#include <string>

#include "absl/status/statusor.h"

namespace hipmem::tools {

// Returns whether this process's KFD backend is the in-process simulator: the choice
// thunk::OpenDefaultKfdDevice makes (HIPMEM_KFD_BACKEND=sim, or no HIPMEM_KFD_BACKEND and no /dev/kfd).
bool SimulatorInUse();

// Returns the "Simulator" section of `hipmem info`: a banner like the HSA Agents one, then every process,
// buffer, queue and event of the simulated machine and its memory accounting, at this moment. On another
// backend, the banner and one line saying the section needs the simulator.
// Errors: those of thunk::SimMachine::Default() (kInvalidArgument for an unknown HIPMEM_SIM_PRESET).
absl::StatusOr<std::string> SimulatorSection();

// Returns the simulated machine's kernel log as `dmesg` prints it (everything this process made the
// "kernel" say since the machine was created, the newest 1024 lines), or, on another backend, one line
// saying so (read the real one with dmesg).
// Errors: those of thunk::SimMachine::Default().
absl::StatusOr<std::string> SimulatorDmesg();

}  // namespace hipmem::tools

#endif  // HIPMEM_TOOLS_SIM_VIEW_H_
