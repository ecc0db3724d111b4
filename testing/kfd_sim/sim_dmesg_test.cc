// What the simulator writes to its kernel log (Simulator::Log / Dmesg) and what Snapshot renders: the lines a
// developer reads to see what the "kernel" did (queue and VM-fault lines are in sim_queue_test.cc, next to
// the queues that produce them).
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/units.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_log.h"
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
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::kVramFlags;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr uapi::AllocMemFlags kGttFlags =
    uapi::AllocMemFlags::kGtt | uapi::AllocMemFlags::kWritable | uapi::AllocMemFlags::kNoSubstitute;

// The lines of `sim`'s log that contain `needle`.
std::vector<SimLogLine> LinesWith(const Simulator& sim, const std::string& needle) {
  std::vector<SimLogLine> found;
  for (const SimLogLine& line : sim.Log()) {
    if (line.text.find(needle) != std::string::npos) found.push_back(line);
  }
  return found;
}

uint32_t CreateEvent(SimFile& file, uapi::EventType type) {
  uapi::CreateEventArgs args{};
  args.event_type = uapi::ToRaw(type);
  EXPECT_EQ(Ioctl(file, uapi::kCreateEvent, args), 0);
  return args.event_id;
}

TEST(SimDmesgTest, CreationLogsEveryGpuAsTheDriverFoundIt) {
  std::unique_ptr<Simulator> sim = MakeSimulator(Mi300xTopology(2));
  for (const GpuConfig& gpu : sim->topology().gpus) {
    SCOPED_TRACE(gpu.gpu_id);
    const std::string id = absl::StrCat("gpu_id 0x", absl::Hex(gpu.gpu_id));
    EXPECT_THAT(sim->Dmesg(), AllOf(HasSubstr(id), HasSubstr("gfx942"), HasSubstr("196592 MiB VRAM"),
                                    HasSubstr(absl::StrCat("renderD", gpu.drm_render_minor))));
  }
  EXPECT_THAT(sim->Dmesg(), HasSubstr("2 GPU(s)"));
}

TEST(SimDmesgTest, OpenAndCloseAreLoggedWithWhatCloseReleased) {
  std::unique_ptr<Simulator> sim = MakeSimulator();
  std::unique_ptr<SimFile> file = sim->Open();
  EXPECT_THAT(LinesWith(*sim, "process 1 (pid "), Contains(Field(&SimLogLine::text, HasSubstr("opened /dev/kfd"))));
  AcquireAllVms(*sim, *file);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;
  ASSERT_EQ(Alloc(*file, gpu, kTestVa, Bytes::MiB(2), kVramFlags).ret, 0);
  ASSERT_EQ(Alloc(*file, gpu, kTestVa + Bytes::MiB(4).raw(), Bytes::MiB(1), kGttFlags).ret, 0);
  CreateEvent(*file, uapi::EventType::kSignal);
  file.reset();

  const std::vector<SimLogLine> closed = LinesWith(*sim, "closed /dev/kfd");
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].level, SimLogLevel::kInfo);
  EXPECT_THAT(closed[0].text,
              AllOf(HasSubstr("process 1 "), HasSubstr("0 queue(s)"), HasSubstr("2 buffer(s)"), HasSubstr("2 MiB VRAM"),
                    HasSubstr("1 MiB system memory"), HasSubstr("1 event(s)")));
}

TEST(SimDmesgTest, AFailedIoctlIsLoggedWithItsNameAndErrno) {
  std::unique_ptr<Simulator> sim = MakeSimulator();
  std::unique_ptr<SimFile> file = sim->Open();
  const size_t before = sim->Log().size();
  uapi::GetVersionArgs version{};
  ASSERT_EQ(Ioctl(*file, uapi::kGetVersion, version), 0);
  EXPECT_EQ(sim->Log().size(), before) << "a successful ioctl writes nothing";

  ASSERT_EQ(hipmem_testing::Free(*file, uapi::MakeHandle(sim->topology().gpus[0].gpu_id, 77)), -EINVAL);
  const std::vector<SimLogLine> failed = LinesWith(*sim, "AMDKFD_IOC_FREE_MEMORY_OF_GPU");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].level, SimLogLevel::kDebug);
  EXPECT_THAT(failed[0].text, AllOf(HasSubstr("process 1"), HasSubstr("nr 0x17"), HasSubstr("-22 (EINVAL)")));

  // An nr the driver has no handler for is refused at the dispatcher, and logged there too.
  ASSERT_EQ(file->Ioctl(uapi::EncodeIoctl(uapi::IoctlDirection::kNone, 0x7f, 0), nullptr), -ENOTTY);
  EXPECT_THAT(sim->Log().back().text, AllOf(HasSubstr("nr 0x7f"), HasSubstr("-25 (ENOTTY)")));
}

TEST(SimDmesgTest, AFloodOfFailedIoctlsIsRatelimited) {
  std::unique_ptr<Simulator> sim = MakeSimulator();
  std::unique_ptr<SimFile> file = sim->Open();
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Free(*file, uapi::MakeHandle(0xbad, 1)), -EINVAL);
  EXPECT_EQ(LinesWith(*sim, "AMDKFD_IOC_FREE_MEMORY_OF_GPU").size(), SimLog::kRatelimitBurst);
  // The other lines still get through.
  file.reset();
  EXPECT_THAT(LinesWith(*sim, "closed /dev/kfd"), Not(IsEmpty()));
}

TEST(SimDmesgTest, ARaisedVmFaultIsLoggedWithProcessGpuAndAddress) {
  std::unique_ptr<Simulator> sim = MakeSimulator();
  std::unique_ptr<SimFile> file = sim->Open();
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;
  ASSERT_TRUE(sim->RaiseMemoryException(1, SimVmFault{.gpu_id = gpu,
                                                      .va = DeviceAddress(0x123456789),
                                                      .not_present = true,
                                                      .read_only = false,
                                                      .no_execute = false}));
  const std::vector<SimLogLine> faults = LinesWith(*sim, "VM fault");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].level, SimLogLevel::kError);
  EXPECT_THAT(faults[0].text, AllOf(HasSubstr(absl::StrCat("gpu_id 0x", absl::Hex(gpu))), HasSubstr("process 1"),
                                    HasSubstr("address 0x123456789"), HasSubstr("page 0x123456000"),
                                    HasSubstr("not present"), Not(HasSubstr("queue"))));

  // A fault naming a GPU the machine does not have is dropped, with a warning.
  EXPECT_FALSE(file->RaiseMemoryException(SimVmFault{
      .gpu_id = 0xbad, .va = DeviceAddress(0), .not_present = true, .read_only = false, .no_execute = false}));
  EXPECT_THAT(LinesWith(*sim, "unknown gpu_id 0xbad"), Contains(Field(&SimLogLine::level, SimLogLevel::kWarning)));
}

TEST(SimDmesgTest, ALogFullOfProcessesKeepsOnlyTheNewestLines) {
  std::unique_ptr<Simulator> sim = MakeSimulator();
  // Two lines per process (open, close): enough to push the boot lines out of the ring.
  const int kProcesses = static_cast<int>(SimLog::kDefaultCapacity);
  for (int i = 0; i < kProcesses; ++i) sim->Open().reset();
  const std::vector<SimLogLine> log = sim->Log();
  EXPECT_EQ(log.size(), SimLog::kDefaultCapacity);
  EXPECT_THAT(LinesWith(*sim, "gpu_id 0x"), IsEmpty()) << "the boot lines were the oldest";
  EXPECT_GT(log.front().sequence, 0u);
  EXPECT_THAT(log.back().text, HasSubstr(absl::StrCat("process ", kProcesses, " (pid")));
  EXPECT_THAT(log.back().text, HasSubstr("closed /dev/kfd"));
}

// Under TSan: ioctls of several processes and threads (failing and succeeding), snapshots and log readers
// all at once. In every build: the log stays ordered and every process's open and close are in it.
TEST(SimDmesgTest, ConcurrentIoctlsSnapshotsAndLogReadersAreSafe) {
  std::unique_ptr<Simulator> sim = MakeSimulator();
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      (void)sim->Snapshot();
      const std::vector<SimLogLine> log = sim->Log();
      for (size_t i = 1; i < log.size(); ++i) ASSERT_EQ(log[i].sequence, log[i - 1].sequence + 1);
      (void)sim->Dmesg();
    }
  });
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&sim, gpu, t] {
      std::unique_ptr<SimFile> file = sim->Open();
      AcquireAllVms(*sim, *file);
      for (int i = 0; i < 50; ++i) {
        const AllocResult r =
            Alloc(*file, gpu, kTestVa + uint64_t(i) * Bytes::MiB(2).raw(), Bytes::KiB(64), kVramFlags);
        EXPECT_EQ(r.ret, 0);
        EXPECT_EQ(Map(*file, r.handle, {gpu}).ret, 0);
        EXPECT_EQ(Free(*file, r.handle + 1000), -EINVAL) << t;  // never issued: a logged failure
        EXPECT_EQ(Free(*file, r.handle), 0);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(LinesWith(*sim, "opened /dev/kfd").size(), size_t{kThreads});
  EXPECT_EQ(LinesWith(*sim, "closed /dev/kfd").size(), size_t{kThreads});
}

TEST(SimDmesgTest, FormatSnapshotListsBuffersEventsAndAccounting) {
  std::unique_ptr<Simulator> sim = MakeSimulator();
  std::unique_ptr<SimFile> file = sim->Open();
  AcquireAllVms(*sim, *file);
  const uint32_t gpu = sim->topology().gpus[0].gpu_id;
  const AllocResult vram = Alloc(*file, gpu, kTestVa, Bytes::MiB(2), kVramFlags);
  ASSERT_EQ(vram.ret, 0);
  ASSERT_EQ(Map(*file, vram.handle, {gpu}).ret, 0);
  CreateEvent(*file, uapi::EventType::kMemory);

  const std::string text = FormatSnapshot(sim->Snapshot());
  const std::string gpu_text = absl::StrCat("0x", absl::Hex(gpu));
  EXPECT_THAT(text, HasSubstr("Process 1\n"));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("bo 0x", absl::Hex(vram.handle))));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("va 0x", absl::Hex(kTestVa))));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("mapped on ", gpu_text)));
  EXPECT_THAT(text, HasSubstr("VRAM|WRITABLE|EXECUTABLE|NO_SUBSTITUTE"));
  EXPECT_THAT(text, HasSubstr("MEMORY"));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("VRAM gpu ", gpu_text, ":")));
  EXPECT_THAT(text, HasSubstr("2 MiB used of 196592 MiB"));
}

}  // namespace
}  // namespace hipmem::kfd_sim
