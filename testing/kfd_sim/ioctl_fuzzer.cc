// Fuzzes the simulated KFD's ioctl entry (SimFile::Ioctl) with arbitrary request words and argument bytes: each
// input is one KFD process's life (ioctl_fuzz_input.h), opened on one simulated machine, its render nodes opened
// as libhsakmt opens them, closed at the end. Beyond "no crash, no sanitizer report, no hang", every input must
// leave the machine as it found it once the process is closed: no process, no VRAM and no system memory charged
// (the simulator's promise in simulator.h), else the fuzzer aborts.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/ioctl_fuzz_input.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/kfd_sim/user_memory.h"

namespace {

namespace uapi = ::hipmem::kfd_uapi;
namespace fuzz = ::hipmem::kfd_sim::fuzz;
using ::hipmem::kfd_sim::SimFile;
using ::hipmem::kfd_sim::SimSnapshot;
using ::hipmem::kfd_sim::Simulator;

struct Machine {
  std::unique_ptr<Simulator> sim;
  std::byte* scratch = nullptr;
  hipmem::Bytes system_used_at_start{0};
};

Machine& TheMachine() {
  static Machine* const machine = [] {
    auto* m = new Machine;
    absl::StatusOr<std::unique_ptr<Simulator>> sim = Simulator::Create(hipmem::kfd_sim::DefaultTopology());
    if (!sim.ok()) {
      std::fprintf(stderr, "ioctl_fuzzer: %s\n", sim.status().ToString().c_str());
      std::abort();
    }
    m->sim = *std::move(sim);
    void* p = mmap(reinterpret_cast<void*>(fuzz::kScratchAddress), fuzz::kScratchBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != reinterpret_cast<void*>(fuzz::kScratchAddress)) {
      std::fprintf(stderr, "ioctl_fuzzer: cannot map the scratch region at 0x%llx\n",
                   static_cast<unsigned long long>(fuzz::kScratchAddress));
      std::abort();
    }
    m->scratch = static_cast<std::byte*>(p);
    m->system_used_at_start = m->sim->Snapshot().system_used;
    return m;
  }();
  return *machine;
}

template <typename T>
T Load(const uint8_t*& p, const uint8_t* end, bool& ok) {
  T v{};
  if (static_cast<size_t>(end - p) < sizeof(T)) {
    ok = false;
    return v;
  }
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}

void CheckMachineIsBackToItsStart(const Machine& m) {
  const SimSnapshot s = m.sim->Snapshot();
  bool clean = s.processes.empty() && s.system_used == m.system_used_at_start;
  for (const auto& gpu : s.gpus) clean = clean && gpu.vram_used.raw() == 0;
  if (!clean) {
    std::fprintf(stderr, "ioctl_fuzzer: the machine is not back to its start after close:\n%s\n",
                 hipmem::kfd_sim::FormatSnapshot(s).c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Machine& m = TheMachine();
  const uint8_t* p = data;
  const uint8_t* const end = data + size;
  bool ok = true;
  const uint16_t scratch_len = Load<uint16_t>(p, end, ok);
  if (!ok) return 0;
  const size_t scratch_bytes = std::min<size_t>({scratch_len, static_cast<size_t>(end - p), fuzz::kScratchBytes});
  std::memset(m.scratch, 0, fuzz::kScratchBytes);
  std::memcpy(m.scratch, p, scratch_bytes);
  p += scratch_bytes;

  std::vector<int> exported;  // dma-buf descriptors the input's exports made
  {
    std::unique_ptr<SimFile> file = m.sim->Open();
    // As libhsakmt does before ACQUIRE_VM; the tokens are the same for every fresh process.
    for (const auto& gpu : m.sim->topology().gpus) file->OpenRenderNode(gpu.drm_render_minor);
    for (size_t records = 0; records < fuzz::kMaxRecords; ++records) {
      const uint32_t request = Load<uint32_t>(p, end, ok);
      const uint16_t len = Load<uint16_t>(p, end, ok);
      if (!ok) break;
      const size_t given = std::min<size_t>(len, static_cast<size_t>(end - p));
      // Exactly as large as the caller says the argument is (the request's size field) or as the bytes given: a
      // read past it is the simulator's bug, which the sanitizer reports.
      std::vector<uint8_t> arg(std::max<size_t>(given, uapi::IoctlSize(request)));
      std::memcpy(arg.data(), p, given);
      p += given;
      // A wait may sleep as long as its timeout says, as the kernel's does: not a finding. Made immediate. Whatever
      // the type byte and direction bits say: the KFD, and the simulator, pick the handler by the number alone (a
      // request of type 0x18 with WAIT_EVENTS' number waited 38 hours in a 1 h run).
      if (uapi::IoctlNr(request) == uapi::kWaitEvents.nr &&
          arg.size() >= offsetof(uapi::WaitEventsArgs, timeout) + sizeof(uint32_t)) {
        const uint32_t immediate = uapi::kEventTimeoutImmediate;
        std::memcpy(arg.data() + offsetof(uapi::WaitEventsArgs, timeout), &immediate, sizeof(immediate));
      }
      // The simulator may read and write only the scratch region and this argument: the fuzzer's own memory is not
      // the simulated process's to hand out (user_memory.h).
      const hipmem::kfd_sim::UserRange window[] = {
          {fuzz::kScratchAddress, fuzz::kScratchBytes},
          {reinterpret_cast<uintptr_t>(arg.data()), arg.size()},
      };
      hipmem::kfd_sim::RestrictUserMemoryTo(window);
      // An export hands the process a dma-buf descriptor, which holds its buffer past the KFD's close as on Linux:
      // the input's process closes it at its end below, as its exit would. An export whose size field is too short
      // to hand the descriptor back is not issued: nobody could ever close what it made.
      const bool exports = uapi::IoctlNr(request) == uapi::kExportDmabuf.nr;
      constexpr size_t kFdOffset = offsetof(uapi::ExportDmabufArgs, dmabuf_fd);
      if (exports && uapi::IoctlSize(request) < kFdOffset + sizeof(uint32_t)) continue;
      const int ret = file->Ioctl(request, arg.empty() ? nullptr : arg.data());
      if (exports && ret == 0) {
        uint32_t fd = 0;
        std::memcpy(&fd, arg.data() + kFdOffset, sizeof(fd));
        exported.push_back(static_cast<int>(fd));
      }
    }
  }
  for (const int fd : exported) close(fd);
  CheckMachineIsBackToItsStart(m);
  return 0;
}
