// The DKMS IPC share handles (IPC_EXPORT_HANDLE, IPC_IMPORT_HANDLE) through the raw ioctl ABI: between two KFD
// processes of one simulator, and between two OS processes (fork) whose simulators are their own. The importer
// sees the exporter's pages at a VA of its own, counted once against the exporter, and the buffer lives while any
// holder (the exporter's BO, an importer's BO, another process's import) does.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "base/units.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Free;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kDoorbellFlags;
using ::hipmem_testing::kDoorbellSlice;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::hipmem_testing::Reservation;
using ::hipmem_testing::UserPages;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr Bytes kSize = Bytes::MiB(2);
constexpr uint64_t kImportVa = kTestVa + (uint64_t{1} << 30);  // apart from the exporter's VA on purpose
constexpr AllocMemFlags kVisibleVram = kVramFlags | AllocMemFlags::kPublic;
constexpr uint32_t kExportFlags = 0x2041;  // opaque to the kernel (libhsakmt passes its HsaMemFlags)

struct Exported {
  int ret;
  uapi::IpcExportHandleArgs args;
};

Exported Export(SimFile& file, uint64_t handle, uint32_t gpu_id, uint32_t flags = kExportFlags) {
  uapi::IpcExportHandleArgs args{};
  args.handle = handle;
  args.gpu_id = gpu_id;
  args.flags = flags;
  const int ret = Ioctl(file, uapi::kIpcExportHandle, args);
  return Exported{.ret = ret, .args = args};
}

struct Imported {
  int ret;
  uapi::IpcImportHandleArgs args;
};

Imported Import(SimFile& file, const uint32_t (&share_handle)[4], uint32_t gpu_id, uint64_t va) {
  uapi::IpcImportHandleArgs args{};
  args.va_addr = va;
  args.gpu_id = gpu_id;
  std::memcpy(args.share_handle, share_handle, sizeof(args.share_handle));
  const int ret = Ioctl(file, uapi::kIpcImportHandle, args);
  return Imported{.ret = ret, .args = args};
}

// Writes a recognisable word into every page of `cpu` (kSize bytes).
void FillPages(char* cpu, uint64_t seed) {
  for (uint64_t i = 0; i < kSize.raw(); i += 4096) {
    const uint64_t word = seed + i;
    std::memcpy(cpu + i, &word, sizeof(word));
  }
}
bool PagesHold(const char* bytes, uint64_t seed) {
  for (uint64_t i = 0; i < kSize.raw(); i += 4096) {
    uint64_t word;
    std::memcpy(&word, bytes + i, sizeof(word));
    if (word != seed + i) return false;
  }
  return true;
}

class SimIpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = MakeSimulator(DefaultTopology());
    exporter_ = sim_->Open();
    importer_ = sim_->Open();
    exporter_fds_ = AcquireAllVms(*sim_, *exporter_);
    importer_fds_ = AcquireAllVms(*sim_, *importer_);
    gpu_ = sim_->topology().gpus[0].gpu_id;
  }
  void TearDown() override {
    exporter_.reset();  // processes close before their simulator goes
    importer_.reset();
  }

  // A host-visible VRAM buffer of the exporter, CPU-mapped at `cpu`, filled from `seed` and IPC-exported.
  struct SharedBuffer {
    AllocResult bo;
    Exported exported;
  };
  SharedBuffer FilledAndExported(const Reservation& cpu, uint64_t seed) {
    const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVisibleVram);
    EXPECT_EQ(bo.ret, 0);
    EXPECT_EQ(exporter_->MmapBo(exporter_fds_[0], cpu.addr(), kSize.raw(), PROT_READ | PROT_WRITE, bo.mmap_offset),
              0);
    FillPages(cpu.bytes(), seed);
    return SharedBuffer{.bo = bo, .exported = Export(*exporter_, bo.handle, gpu_)};
  }
  Bytes VramUsed() const { return sim_->Snapshot().gpus.at(0).vram_used; }
  size_t ImporterBos() const { return sim_->Snapshot().processes.at(1).bos.size(); }

  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> exporter_;
  std::unique_ptr<SimFile> importer_;
  std::vector<int> exporter_fds_;
  std::vector<int> importer_fds_;
  uint32_t gpu_ = 0;
};

TEST_F(SimIpcTest, AnotherProcessImportsTheBufferAndSharesItsPages) {
  const Reservation cpu(kSize);
  const SharedBuffer shared = FilledAndExported(cpu, 0x1000);
  ASSERT_EQ(shared.exported.ret, 0);
  const Bytes used = VramUsed();
  EXPECT_EQ(shared.exported.args.share_handle[3], static_cast<uint32_t>(getpid())) << "the exporter's pid";

  const Imported imported = Import(*importer_, shared.exported.args.share_handle, gpu_, kImportVa);
  ASSERT_EQ(imported.ret, 0);
  EXPECT_EQ(uapi::HandleGpuId(imported.args.handle), gpu_);
  EXPECT_EQ(imported.args.flags, kExportFlags) << "the exporter's flags, handed over unchanged";
  EXPECT_NE(imported.args.mmap_offset, 0u);
  EXPECT_EQ(VramUsed(), used) << "the pages are counted once, against the exporter";
  EXPECT_FALSE(importer_->IsMapped(gpu_, DeviceAddress(kImportVa), kSize)) << "import does not map";

  // The importer's GPU reaches the exporter's pages at its own VA, and only the buffer's range.
  ASSERT_EQ(Map(*importer_, imported.args.handle, {gpu_}).ret, 0);
  std::vector<char> seen(kSize.raw());
  ASSERT_TRUE(importer_->ReadGpuMemory(gpu_, DeviceAddress(kImportVa), kSize, seen.data()));
  EXPECT_TRUE(PagesHold(seen.data(), 0x1000));
  EXPECT_FALSE(importer_->IsMapped(gpu_, DeviceAddress(kImportVa) + kSize, Bytes(4096)));

  // The importer's CPU mapping (the mmap offset import returned) shares them both ways.
  const Reservation import_cpu(kSize);
  ASSERT_EQ(importer_->MmapBo(importer_fds_[0], import_cpu.addr(), kSize.raw(), PROT_READ | PROT_WRITE,
                              imported.args.mmap_offset),
            0);
  EXPECT_TRUE(PagesHold(import_cpu.bytes(), 0x1000));
  std::memcpy(import_cpu.bytes() + 8, "imported", 9);
  EXPECT_STREQ(cpu.bytes() + 8, "imported");

  EXPECT_EQ(Free(*importer_, imported.args.handle), 0);
  EXPECT_EQ(Free(*exporter_, shared.bo.handle), 0);
}

TEST_F(SimIpcTest, ExportingAgainOrReexportingAnImportNamesTheSameBuffer) {
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  const Exported first = Export(*exporter_, bo.handle, gpu_, 1);
  const Exported second = Export(*exporter_, bo.handle, gpu_, 2);
  ASSERT_EQ(first.ret, 0);
  ASSERT_EQ(second.ret, 0);
  EXPECT_EQ(std::memcmp(first.args.share_handle, second.args.share_handle, 16), 0);
  const Imported imported = Import(*importer_, first.args.share_handle, gpu_, kImportVa);
  ASSERT_EQ(imported.ret, 0);
  EXPECT_EQ(imported.args.flags, 1u) << "the first export's flags stay with the handle";
  const Exported again = Export(*importer_, imported.args.handle, gpu_, 3);
  ASSERT_EQ(again.ret, 0);
  EXPECT_EQ(std::memcmp(first.args.share_handle, again.args.share_handle, 16), 0);
  // Two handles for two buffers.
  const AllocResult other = Alloc(*exporter_, gpu_, kTestVa + kSize.raw() * 2, kSize, kVramFlags);
  ASSERT_EQ(other.ret, 0);
  const Exported other_export = Export(*exporter_, other.handle, gpu_);
  ASSERT_EQ(other_export.ret, 0);
  EXPECT_NE(std::memcmp(first.args.share_handle, other_export.args.share_handle, 16), 0);
}

TEST_F(SimIpcTest, ImportOutlivesTheExportersFreeAndTheLastHolderReturnsTheMemory) {
  const Bytes before = VramUsed();
  const Reservation cpu(kSize);
  const SharedBuffer shared = FilledAndExported(cpu, 0x2000);
  ASSERT_EQ(shared.exported.ret, 0);
  const Imported imported = Import(*importer_, shared.exported.args.share_handle, gpu_, kImportVa);
  ASSERT_EQ(imported.ret, 0);
  ASSERT_EQ(Map(*importer_, imported.args.handle, {gpu_}).ret, 0);

  // The kernel keeps the BO alive while it is imported: the exporter's free only drops its own reference.
  ASSERT_EQ(Free(*exporter_, shared.bo.handle), 0);
  std::vector<char> seen(kSize.raw());
  ASSERT_TRUE(importer_->ReadGpuMemory(gpu_, DeviceAddress(kImportVa), kSize, seen.data()));
  EXPECT_TRUE(PagesHold(seen.data(), 0x2000));
  EXPECT_EQ(VramUsed(), before + kSize) << "still counted, against the exporter's GPU";
  // The handle still names it while an importer holds it.
  const Imported third = Import(*exporter_, shared.exported.args.share_handle, gpu_, kImportVa);
  ASSERT_EQ(third.ret, 0);
  ASSERT_EQ(Free(*exporter_, third.args.handle), 0);

  ASSERT_EQ(Free(*importer_, imported.args.handle), 0);
  EXPECT_EQ(VramUsed(), before) << "the last holder gives the memory back";
  EXPECT_EQ(Import(*importer_, shared.exported.args.share_handle, gpu_, kImportVa).ret, -EINVAL)
      << "a handle whose every holder is gone is unknown";
}

TEST_F(SimIpcTest, ClosingTheExporterKeepsAnImportAlive) {
  const Reservation cpu(kSize);
  const SharedBuffer shared = FilledAndExported(cpu, 0x3000);
  ASSERT_EQ(shared.exported.ret, 0);
  const Imported imported = Import(*importer_, shared.exported.args.share_handle, gpu_, kImportVa);
  ASSERT_EQ(imported.ret, 0);
  exporter_.reset();  // close(): releases every BO of the exporter
  ASSERT_EQ(Map(*importer_, imported.args.handle, {gpu_}).ret, 0);
  std::vector<char> seen(kSize.raw());
  ASSERT_TRUE(importer_->ReadGpuMemory(gpu_, DeviceAddress(kImportVa), kSize, seen.data()));
  EXPECT_TRUE(PagesHold(seen.data(), 0x3000));
}

TEST_F(SimIpcTest, HandleOfAFreedBufferIsUnknown) {
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  const Exported exported = Export(*exporter_, bo.handle, gpu_);
  ASSERT_EQ(exported.ret, 0);
  ASSERT_EQ(Free(*exporter_, bo.handle), 0);
  EXPECT_EQ(Import(*importer_, exported.args.share_handle, gpu_, kImportVa).ret, -EINVAL);
  EXPECT_EQ(ImporterBos(), 0u);
}

TEST_F(SimIpcTest, ExportRefusesWhatCannotBeShared) {
  const AllocResult vram = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(vram.ret, 0);
  EXPECT_EQ(Export(*exporter_, vram.handle, 0xdead).ret, -EINVAL) << "unknown gpu_id";
  EXPECT_EQ(Export(*exporter_, uapi::MakeHandle(gpu_, 999), gpu_).ret, -EINVAL) << "unknown handle";
  // User pages: amdgpu_gem_prime_export refuses them.
  const UserPages user(kSize);
  const AllocResult userptr = Alloc(*exporter_, gpu_, kTestVa + (uint64_t{1} << 28), kSize,
                                    AllocMemFlags::kUserptr | AllocMemFlags::kWritable, user.address());
  ASSERT_EQ(userptr.ret, 0);
  EXPECT_EQ(Export(*exporter_, userptr.handle, gpu_).ret, -EPERM);
  const AllocResult doorbell = Alloc(*exporter_, gpu_, kTestVa + (uint64_t{1} << 29), kDoorbellSlice, kDoorbellFlags);
  ASSERT_EQ(doorbell.ret, 0);
  EXPECT_EQ(Export(*exporter_, doorbell.handle, gpu_).ret, -EINVAL);
  // A process whose VM on the GPU was never acquired has no device to export from.
  std::unique_ptr<SimFile> bare = sim_->Open();
  EXPECT_EQ(Export(*bare, vram.handle, gpu_).ret, -ENODEV);
}

TEST_F(SimIpcTest, ImportRefusesUnknownHandlesAndBadPlacesAndLeavesNothing) {
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  const Exported exported = Export(*exporter_, bo.handle, gpu_);
  ASSERT_EQ(exported.ret, 0);
  const uint32_t(&good)[4] = exported.args.share_handle;

  uint32_t forged[4];
  std::memcpy(forged, good, sizeof(forged));
  forged[0] ^= 1;  // one bit off: all 128 bits are compared
  EXPECT_EQ(Import(*importer_, forged, gpu_, kImportVa).ret, -EINVAL);
  EXPECT_EQ(Import(*importer_, good, 0xdead, kImportVa).ret, -EINVAL) << "unknown gpu_id";
  EXPECT_EQ(Import(*importer_, good, gpu_, kImportVa + 4).ret, -EINVAL) << "misaligned VA";
  const AllocResult taken = Alloc(*importer_, gpu_, kImportVa, kSize, kVramFlags);
  ASSERT_EQ(taken.ret, 0);
  EXPECT_EQ(Import(*importer_, good, gpu_, kImportVa + kSize.raw() / 2).ret, -EADDRINUSE);
  ASSERT_EQ(Free(*importer_, taken.handle), 0);
  std::unique_ptr<SimFile> bare = sim_->Open();
  EXPECT_EQ(Import(*bare, good, gpu_, kImportVa).ret, -ENODEV) << "no VM acquired";
  EXPECT_EQ(ImporterBos(), 0u) << "a refused import leaves no buffer behind";

  // A handle of another simulated machine in this OS process: its table is not this one's.
  std::unique_ptr<Simulator> other_machine = MakeSimulator(DefaultTopology());
  {
    std::unique_ptr<SimFile> stranger = other_machine->Open();
    AcquireAllVms(*other_machine, *stranger);
    EXPECT_EQ(Import(*stranger, good, gpu_, kImportVa).ret, -EINVAL);
  }
}

// ---- across OS processes ----

// Forks; the child runs `body` and _exits with its result (0: every check held; otherwise the first failed
// step), with a 10 s alarm. The parent gets the child's pid and the two pipe ends to talk to it.
struct Child {
  pid_t pid = -1;
  int to_child = -1;    // write end
  int from_child = -1;  // read end
};
Child Spawn(const std::function<int(int from_parent, int to_parent)>& body) {
  int down[2];
  int up[2];
  if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) return Child{};
  const pid_t pid = fork();
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    alarm(10);
    _exit(body(down[0], up[1]));
  }
  close(down[0]);
  close(up[1]);
  return Child{.pid = pid, .to_child = down[1], .from_child = up[0]};
}
int Reap(Child& child) {
  close(child.to_child);
  close(child.from_child);
  int status = 0;
  if (waitpid(child.pid, &status, 0) != child.pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
bool Send(int fd, char c) { return write(fd, &c, 1) == 1; }
bool Receive(int fd, char expected) {
  char c = 0;
  return read(fd, &c, 1) == 1 && c == expected;
}

// In a forked child: its own machine, the default one, with every VM acquired.
struct ChildMachine {
  std::unique_ptr<Simulator> sim = MakeSimulator(DefaultTopology());
  std::unique_ptr<SimFile> file = sim->Open();
  std::vector<int> fds = AcquireAllVms(*sim, *file);
  ~ChildMachine() { file.reset(); }
};

TEST_F(SimIpcTest, ForkedProcessImportsThroughTheExportersSocketAndWritesBack) {
  const Reservation cpu(kSize);
  const SharedBuffer shared = FilledAndExported(cpu, 0x4000);
  ASSERT_EQ(shared.exported.ret, 0);
  const uapi::IpcExportHandleArgs handle = shared.exported.args;
  const uint32_t gpu = gpu_;
  Child child = Spawn([&](int, int) {
    ChildMachine machine;
    const Imported imported = Import(*machine.file, handle.share_handle, gpu, kImportVa);
    if (imported.ret != 0) return 1;
    if (imported.args.flags != kExportFlags) return 2;
    if (Map(*machine.file, imported.args.handle, {gpu}).ret != 0) return 3;
    std::vector<char> seen(kSize.raw());
    if (!machine.file->ReadGpuMemory(gpu, DeviceAddress(kImportVa), kSize, seen.data())) return 4;
    if (!PagesHold(seen.data(), 0x4000)) return 5;
    // The child's GPU maps just the buffer: the page after it is not there.
    if (machine.file->IsMapped(gpu, DeviceAddress(kImportVa) + kSize, Bytes(4096))) return 6;
    // Not charged to the child's machine: the exporter's owns the memory.
    if (!machine.sim->Snapshot().gpus.at(0).vram_used.is_zero()) return 7;
    const Reservation import_cpu(kSize);
    char* const cpu_view = import_cpu.bytes();
    if (cpu_view == nullptr || machine.file->MmapBo(machine.fds[0], cpu_view, kSize.raw(), PROT_READ | PROT_WRITE,
                                                    imported.args.mmap_offset) != 0) {
      return 8;
    }
    const char kMarker[] = "from the child";
    std::memcpy(cpu_view + 8, kMarker, sizeof(kMarker));
    if (Free(*machine.file, imported.args.handle) != 0) return 9;
    return 0;
  });
  ASSERT_GT(child.pid, 0);
  EXPECT_EQ(Reap(child), 0);
  EXPECT_STREQ(cpu.bytes() + 8, "from the child");
  EXPECT_EQ(Free(*exporter_, shared.bo.handle), 0);
}

TEST_F(SimIpcTest, RemoteImportKeepsTheBufferUntilTheImportingProcessEnds) {
  const Bytes before = VramUsed();
  const Reservation cpu(kSize);
  const SharedBuffer shared = FilledAndExported(cpu, 0x5000);
  ASSERT_EQ(shared.exported.ret, 0);
  const uapi::IpcExportHandleArgs handle = shared.exported.args;
  const uint32_t gpu = gpu_;
  Child child = Spawn([&](int from_parent, int to_parent) {
    ChildMachine machine;
    const Imported imported = Import(*machine.file, handle.share_handle, gpu, kImportVa);
    if (imported.ret != 0) return 1;
    if (Map(*machine.file, imported.args.handle, {gpu}).ret != 0) return 2;
    if (!Send(to_parent, 'i')) return 3;
    if (!Receive(from_parent, 'f')) return 4;  // the parent has freed its buffer
    std::vector<char> seen(kSize.raw());
    if (!machine.file->ReadGpuMemory(gpu, DeviceAddress(kImportVa), kSize, seen.data())) return 5;
    if (!PagesHold(seen.data(), 0x5000)) return 6;
    if (!Send(to_parent, 'r')) return 7;
    pause();  // ends by SIGKILL, holding the import: a crash must release it too
    return 8;
  });
  ASSERT_GT(child.pid, 0);
  ASSERT_TRUE(Receive(child.from_child, 'i'));
  ASSERT_EQ(Free(*exporter_, shared.bo.handle), 0);
  EXPECT_EQ(VramUsed(), before + kSize) << "the other process's import holds the buffer";
  ASSERT_TRUE(Send(child.to_child, 'f'));
  EXPECT_TRUE(Receive(child.from_child, 'r')) << "the child read the pages after the exporter's free";
  kill(child.pid, SIGKILL);
  EXPECT_EQ(Reap(child), 128 + SIGKILL);
  // The server notices the closed connection and drops the child's hold, the last one.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (VramUsed() != before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(VramUsed(), before);
  EXPECT_EQ(Import(*importer_, handle.share_handle, gpu_, kImportVa).ret, -EINVAL);
}

TEST_F(SimIpcTest, AnotherProcessNeedsTheWholeSecretAndALiveExporter) {
  const AllocResult bo = Alloc(*exporter_, gpu_, kTestVa, kSize, kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  const Exported exported = Export(*exporter_, bo.handle, gpu_);
  ASSERT_EQ(exported.ret, 0);
  uapi::IpcExportHandleArgs forged = exported.args;
  forged.share_handle[2] ^= 0x80000000u;
  // A process that has exited serves nothing.
  Child gone = Spawn([](int, int) { return 0; });
  ASSERT_GT(gone.pid, 0);
  const pid_t gone_pid = gone.pid;
  ASSERT_EQ(Reap(gone), 0);
  uapi::IpcExportHandleArgs dead = exported.args;
  dead.share_handle[3] = static_cast<uint32_t>(gone_pid);
  const uint32_t gpu = gpu_;
  Child child = Spawn([&](int, int) {
    ChildMachine machine;
    if (Import(*machine.file, forged.share_handle, gpu, kImportVa).ret != -EINVAL) return 1;
    if (Import(*machine.file, dead.share_handle, gpu, kImportVa).ret != -EINVAL) return 2;
    if (!machine.sim->Snapshot().processes.at(0).bos.empty()) return 3;
    return 0;
  });
  ASSERT_GT(child.pid, 0);
  EXPECT_EQ(Reap(child), 0);
}

}  // namespace
}  // namespace hipmem::kfd_sim
