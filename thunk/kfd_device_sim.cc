// The simulator backend (kfd_device_sim.h).
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "absl/base/const_init.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/host/fault_hook.h"
#include "testing/kfd_sim/held_dir.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

class SimKfdDevice final : public KfdDevice {
 public:
  SimKfdDevice(std::shared_ptr<SimMachine> machine, std::unique_ptr<kfd_sim::SimFile> file)
      : machine_(std::move(machine)), file_(std::move(file)) {}

  absl::string_view backend_name() const override { return "sim"; }
  const std::string& sysfs_topology_root() const override { return machine_->sysfs_root(); }

  int Ioctl(unsigned long request, void* arg) override { return -file_->Ioctl(request, arg); }

  absl::StatusOr<int> OpenRenderNode(uint32_t drm_render_minor) override {
    const int token = file_->OpenRenderNode(drm_render_minor);
    if (token < 0) return FromErrno(-token, absl::StrCat("open(/dev/dri/renderD", drm_render_minor, ")"));
    return token;
  }

  void CloseRenderNode(int) override {}

  absl::Status MapBoForCpu(int render_fd, void* addr, Bytes size, int prot, uint64_t mmap_offset) override {
    const int ret = file_->MmapBo(render_fd, addr, size.raw(), prot, mmap_offset);
    // The message only for a failure: formatting it costs as much as a small allocation's bookkeeping.
    if (ret == 0) return absl::OkStatus();
    return FromErrno(-ret, absl::StrCat("mmap(render fd, offset=0x", absl::Hex(mmap_offset), ")"));
  }

  // The simulator's invisible VRAM placeholder is an mprotect(PROT_NONE) over the range (sim_memory_ioctls.cc).
  bool InvisibleVramKeepsReservation() const override { return true; }

  // A buffer's pages are its own range of a page file, never handed out again and punched when it is freed
  // (bo_pages.h): a stale mapping reaches only zeroes.
  bool FreedBoCpuMappingMayStay() const override { return true; }

  absl::Status MapKfdPagesForCpu(void* addr, Bytes size, uint64_t mmap_offset) override {
    return FromErrno(-file_->MmapKfd(addr, size.raw(), PROT_READ | PROT_WRITE, mmap_offset),
                     absl::StrCat("mmap(/dev/kfd, offset=0x", absl::Hex(mmap_offset), ")"));
  }

  void RingDoorbell(uint64_t* doorbell, uint64_t value) override { kfd_sim::RingDoorbell(doorbell, value); }

  kfd_sim::SimFile* file() { return file_.get(); }

 private:
  // Declared first so the process (file_) closes before the machine can go away.
  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<kfd_sim::SimFile> file_;
};

}  // namespace

SimMachine::SimMachine(std::unique_ptr<kfd_sim::Simulator> simulator, kfd_sim::HeldDir sysfs_dir)
    : simulator_(std::move(simulator)), sysfs_dir_(std::move(sysfs_dir)), sysfs_root_(sysfs_dir_.path()) {}

SimMachine::~SimMachine() {
  std::error_code ec;
  std::filesystem::remove_all(sysfs_root_, ec);
  if (ec) HIPMEM_LOG(kWarning, "removing simulated sysfs ", sysfs_root_, ": ", ec.message());
}

absl::StatusOr<std::shared_ptr<SimMachine>> SimMachine::Create(const kfd_sim::Topology& topology) {
  ASSIGN_OR_RETURN(std::unique_ptr<kfd_sim::Simulator> simulator, kfd_sim::Simulator::Create(topology));
  // Under the test's private tmpdir when run by Bazel. A tree a killed process left behind goes first (held_dir.h).
  ASSIGN_OR_RETURN(kfd_sim::HeldDir dir, kfd_sim::HeldDir::Create("hipmem-sysfs-"));
  // Adopt the directory first so a failed write still removes it.
  std::shared_ptr<SimMachine> machine(new SimMachine(std::move(simulator), std::move(dir)));
  RETURN_IF_ERROR(machine->simulator_->WriteSysfs(machine->sysfs_root_));
  return machine;
}

namespace {

// The default machine of one OS process.
struct ProcessMachine {
  pid_t pid;
  absl::StatusOr<std::shared_ptr<SimMachine>> machine;
  ProcessMachine* parent;  // the parent's, left behind in a forked child; kept reachable (leak checkers)
};

ABSL_CONST_INIT absl::Mutex g_default_mu(absl::kConstInit);
// Never destroyed: devices may still be closing during static destruction. Replaced (the old one leaked, never
// touched again) in a forked child.
std::atomic<ProcessMachine*> g_default{nullptr};

// At exit, the tree of the machine this process created, and only that: a forked child inherits this handler,
// and its exit() must not remove its parent's tree.
void RemoveOwnSysfsAtExit() {
  const ProcessMachine* current = g_default.load(std::memory_order_acquire);
  if (current == nullptr || current->pid != getpid() || !current->machine.ok()) return;
  std::error_code ec;
  std::filesystem::remove_all((*current->machine)->sysfs_root(), ec);
}

}  // namespace

absl::StatusOr<std::shared_ptr<SimMachine>> SimMachine::Default() {
  // One machine per OS process. A forked child gets a fresh one: the parent's engines have no threads in the
  // child, and the child inherits whatever locks they held at fork(). The parent's machine stays behind in the
  // child's copy of the heap, never called into and never destroyed (its destructor would join threads that
  // are not there). The child's topology is the same default (HIPMEM_SIM_PRESET), in a sysfs tree of its own.
  const pid_t pid = getpid();
  if (ProcessMachine* current = g_default.load(std::memory_order_acquire); current != nullptr && current->pid == pid) {
    return current->machine;
  }
  ScopedLock lock(&g_default_mu);
  ProcessMachine* current = g_default.load(std::memory_order_acquire);
  if (current != nullptr && current->pid == pid) return current->machine;
  absl::StatusOr<kfd_sim::Topology> topology = kfd_sim::TopologyFromEnvironment();
  auto* fresh = new ProcessMachine{.pid = pid,
                                   .machine = topology.ok() ? Create(*topology)
                                                            : absl::StatusOr<std::shared_ptr<SimMachine>>(
                                                                  topology.status()),
                                   .parent = current};
  static const bool registered = (std::atexit(&RemoveOwnSysfsAtExit), true);  // inherited by children
  (void)registered;
  g_default.store(fresh, std::memory_order_release);  // the parent's record, if any, is leaked in the child
  return fresh->machine;
}

absl::StatusOr<std::unique_ptr<KfdDevice>> OpenSimKfdDevice(std::shared_ptr<SimMachine> machine) {
  // kfd_open failing (kfd_create_process: -ENOMEM) when a test injects it; answered as the Linux backend answers
  // a failed open.
  if (const int fault = kfd_sim::InjectedFault(kfd_sim::KernelEntry::kOpenKfd); fault != 0) {
    return WithHsakmtStatus(FromErrno(fault, "open(/dev/kfd)"), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  }
  std::unique_ptr<kfd_sim::SimFile> file = machine->simulator().Open();
  return std::make_unique<SimKfdDevice>(std::move(machine), std::move(file));
}

kfd_sim::SimFile* SimulatedFile(KfdDevice& device) {
  auto* sim = dynamic_cast<SimKfdDevice*>(&device);
  return sim != nullptr ? sim->file() : nullptr;
}

}  // namespace hipmem::thunk
