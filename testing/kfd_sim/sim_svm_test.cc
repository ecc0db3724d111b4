// AMDKFD_IOC_SVM through the simulator's raw ABI, as libhsakmt issues it: SET_ATTR / GET_ATTR over the process's
// own memory with every attribute, ranges splitting and answering UNDEFINED where they disagree, the kernel's
// errno for bad input, per-process isolation; residency (prefetch to VRAM and back, the VRAM accounting moving with
// the pages, a CPU touch bringing a range back); and an SDMA copy touching SVM memory with XNACK off (an unmapped
// range is a VM fault) and on (a retry fault maps it and the copy completes).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/aliased_memory_sync.h"
#include "gmock/gmock.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "kfd_uapi/kfd_svm.h"
#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/raw_sdma_fixture.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
namespace sdma = ::hipmem::gpu_abi::sdma;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::Available;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::Map;
using ::hipmem_testing::UserPages;
using ::testing::HasSubstr;
using AttrType = uapi::SvmAttrType;

constexpr uint64_t kPage = 4096;
constexpr uint32_t kDefaultFlags = uapi::ToRaw(uapi::SvmFlags::kHostAccess) | uapi::ToRaw(uapi::SvmFlags::kCoherent);

uapi::SvmAttribute Attr(AttrType type, uint32_t value = 0) { return {.type = uapi::ToRaw(type), .value = value}; }

// Issues AMDKFD_IOC_SVM as libhsakmt does: header and attributes in one buffer, their size in the request.
int Svm(SimFile& file, uapi::SvmOp op, uint64_t start, uint64_t size, std::vector<uapi::SvmAttribute>& attrs) {
  std::vector<std::byte> buffer(sizeof(uapi::SvmArgs) + attrs.size() * sizeof(uapi::SvmAttribute));
  const uapi::SvmArgs args{.start_addr = start, .size = size, .op = uapi::ToRaw(op),
                           .nattr = static_cast<uint32_t>(attrs.size())};
  std::memcpy(buffer.data(), &args, sizeof(args));
  std::memcpy(buffer.data() + sizeof(args), attrs.data(), attrs.size() * sizeof(uapi::SvmAttribute));
  const int ret = file.Ioctl(uapi::SvmRequest(args.nattr), buffer.data());
  std::memcpy(attrs.data(), buffer.data() + sizeof(args), attrs.size() * sizeof(uapi::SvmAttribute));
  return ret;
}
int Set(SimFile& file, uint64_t start, uint64_t size, std::vector<uapi::SvmAttribute> attrs) {
  return Svm(file, uapi::SvmOp::kSetAttr, start, size, attrs);
}
// GET_ATTR of one attribute; returns its value (type for ACCESS), failing the test when the ioctl fails.
uint32_t Get(SimFile& file, uint64_t start, uint64_t size, AttrType type, uint32_t value = 0) {
  std::vector<uapi::SvmAttribute> attrs = {Attr(type, value)};
  EXPECT_EQ(Svm(file, uapi::SvmOp::kGetAttr, start, size, attrs), 0);
  return type == AttrType::kAccess ? attrs[0].type : attrs[0].value;
}

bool SetXnack(SimFile& file, bool on) {
  uapi::SetXnackModeArgs args{.xnack_enabled = on ? 1 : 0};
  return Ioctl(file, uapi::kSetXnackMode, args) == 0;
}

// Whether the simulator could move SVM ranges into VRAM here (userfaultfd available): a prefetch that changes
// nothing in AVAILABLE_MEMORY says it could not.
// Whether the simulator can watch ranges through userfaultfd (its UNMAP events are how it sees munmaps): not under
// HIPMEM_SIM_SVM_NO_UFFD, nor where the host refuses the system call (a container's seccomp profile).
bool UserfaultfdAvailable() {
  if (std::getenv("HIPMEM_SIM_SVM_NO_UFFD") != nullptr) return false;
  const long fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  close(static_cast<int>(fd));
  return true;
}

bool MigrationWorks(const Simulator& sim) {
  for (const SimLogLine& line : sim.Log()) {
    if (line.text.find("ranges stay in system memory") != std::string::npos) return false;
  }
  return true;
}

class SimSvmTest : public hipmem_testing::RawSdmaFixture {
 protected:
  void Open(Topology topology = DefaultTopology()) { RawSdmaFixture::Open(std::move(topology)); }

  // Submits one COPY_LINEAR, then a FENCE (as a runtime completes a copy: the engine publishes what it did before
  // it runs the fence), and waits until the engine consumed both (true) or halted (false).
  bool Copy(uint64_t dst, uint64_t src, uint32_t bytes) {
    Push(sdma::MakeCopy(dst, src, bytes));
    Push(sdma::MakeFence(pointers_.va + 64, static_cast<uint32_t>(wptr_)));
    Submit();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      if (Rptr() == wptr_) {
        // The engine published before its write-back; its stores into SVM memory land at the very addresses this
        // thread reads next, so ThreadSanitizer needs the edge the hardware's ordering gives.
        ObserveThroughAliases();
        return true;
      }
      if (hipmem_testing::OnlyQueue(*sim_).halted) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    ADD_FAILURE() << "the copy neither finished nor halted the queue";
    return false;
  }
};

TEST_F(SimSvmTest, SetAttrThenGetAttrReadsEveryAttributeBack) {
  Open();
  UserPages mem(Bytes(16 * kPage));
  const uint64_t a = mem.address();
  const uint32_t ro = uapi::ToRaw(uapi::SvmFlags::kGpuRo);
  ASSERT_EQ(Set(*file_, a, 16 * kPage,
                {Attr(AttrType::kPreferredLoc, gpu_), Attr(AttrType::kAccessInPlace, gpu_),
                 Attr(AttrType::kSetFlags, ro), Attr(AttrType::kClrFlags, uapi::ToRaw(uapi::SvmFlags::kCoherent)),
                 Attr(AttrType::kGranularity, 4)}),
            0);
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kPreferredLoc), gpu_);
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kPrefetchLoc), uapi::kSvmLocationUndefined) << "never prefetched";
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kAccess, gpu_), uapi::ToRaw(AttrType::kAccessInPlace));
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kSetFlags), uapi::ToRaw(uapi::SvmFlags::kHostAccess) | ro);
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kClrFlags), ~(uapi::ToRaw(uapi::SvmFlags::kHostAccess) | ro));
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kGranularity), 4u);
  // ACCESS replaces ACCESS_IN_PLACE, NO_ACCESS removes both; granularity is capped at 0x3f.
  ASSERT_EQ(Set(*file_, a, 16 * kPage, {Attr(AttrType::kAccess, gpu_), Attr(AttrType::kGranularity, 200)}), 0);
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kAccess, gpu_), uapi::ToRaw(AttrType::kAccess));
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kGranularity), 0x3fu);
  ASSERT_EQ(Set(*file_, a, 16 * kPage, {Attr(AttrType::kNoAccess, gpu_)}), 0);
  EXPECT_EQ(Get(*file_, a, 16 * kPage, AttrType::kAccess, gpu_), uapi::ToRaw(AttrType::kNoAccess));
}

TEST_F(SimSvmTest, MemoryWithoutRangesAnswersTheKernelsDefaults) {
  Open();
  UserPages mem(Bytes(4 * kPage));
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kPreferredLoc), uapi::kSvmLocationUndefined);
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kPrefetchLoc), uapi::kSvmLocationUndefined);
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kSetFlags), kDefaultFlags);
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kClrFlags), ~kDefaultFlags);
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kGranularity), 9u);
  // XNACK off: no GPU may touch memory nobody gave it; XNACK on: every GPU may.
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kAccess, gpu_), uapi::ToRaw(AttrType::kNoAccess));
  ASSERT_TRUE(SetXnack(*file_, true));
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kAccess, gpu_), uapi::ToRaw(AttrType::kAccess));
}

TEST_F(SimSvmTest, PartialSetSplitsTheRangeAndGetOverDifferingRangesIsUndefined) {
  Open();
  UserPages mem(Bytes(8 * kPage));
  const uint64_t a = mem.address();
  const uint32_t ro = uapi::ToRaw(uapi::SvmFlags::kGpuRo);
  ASSERT_EQ(Set(*file_, a, 8 * kPage, {Attr(AttrType::kPreferredLoc, gpu_), Attr(AttrType::kGranularity, 6)}), 0);
  ASSERT_EQ(Set(*file_, a + 2 * kPage, 2 * kPage,
                {Attr(AttrType::kPreferredLoc, uapi::kSvmLocationSysmem), Attr(AttrType::kSetFlags, ro),
                 Attr(AttrType::kGranularity, 2)}),
            0);
  EXPECT_EQ(Get(*file_, a, 2 * kPage, AttrType::kPreferredLoc), gpu_);
  EXPECT_EQ(Get(*file_, a + 2 * kPage, 2 * kPage, AttrType::kPreferredLoc), uapi::kSvmLocationSysmem);
  EXPECT_EQ(Get(*file_, a + 4 * kPage, 4 * kPage, AttrType::kPreferredLoc), gpu_);
  EXPECT_EQ(Get(*file_, a, 8 * kPage, AttrType::kPreferredLoc), uapi::kSvmLocationUndefined);
  // Flags: SET_FLAGS is what every range has, CLR_FLAGS what none has; granularity the smallest.
  EXPECT_EQ(Get(*file_, a, 8 * kPage, AttrType::kSetFlags), kDefaultFlags);
  EXPECT_EQ(Get(*file_, a, 8 * kPage, AttrType::kClrFlags), ~(kDefaultFlags | ro));
  EXPECT_EQ(Get(*file_, a, 8 * kPage, AttrType::kGranularity), 2u);
  // Setting the middle back makes the three alike again: one answer over the whole.
  ASSERT_EQ(Set(*file_, a + 2 * kPage, 2 * kPage,
                {Attr(AttrType::kPreferredLoc, gpu_), Attr(AttrType::kClrFlags, ro), Attr(AttrType::kGranularity, 6)}),
            0);
  EXPECT_EQ(Get(*file_, a, 8 * kPage, AttrType::kPreferredLoc), gpu_);
  EXPECT_EQ(Get(*file_, a, 8 * kPage, AttrType::kClrFlags), ~kDefaultFlags);
}

TEST_F(SimSvmTest, BadInputGetsTheKernelsErrno) {
  Open();
  UserPages mem(Bytes(4 * kPage));
  const uint64_t a = mem.address();
  struct Row {
    const char* name;
    uapi::SvmOp op;
    uint64_t start;
    uint64_t size;
    std::vector<uapi::SvmAttribute> attrs;
    int want;
  };
  const uint32_t no_gpu = gpu_ + 1;
  UserPages holed(Bytes(3 * kPage));
  ASSERT_EQ(munmap(reinterpret_cast<void*>(holed.address() + kPage), kPage), 0);
  const std::vector<Row> rows = {
      {"unaligned start", uapi::SvmOp::kSetAttr, a + 8, kPage, {}, -EINVAL},
      {"unaligned size", uapi::SvmOp::kSetAttr, a, kPage + 1, {}, -EINVAL},
      {"zero start", uapi::SvmOp::kSetAttr, 0, kPage, {}, -EINVAL},
      {"zero size", uapi::SvmOp::kGetAttr, a, 0, {}, -EINVAL},
      {"wrapping range", uapi::SvmOp::kSetAttr, a, ~uint64_t{0} - kPage + 1, {}, -EINVAL},
      {"unknown op", static_cast<uapi::SvmOp>(7), a, kPage, {}, -EINVAL},
      {"unknown attribute", uapi::SvmOp::kSetAttr, a, kPage, {{.type = 8, .value = 0}}, -EINVAL},
      {"unknown gpu", uapi::SvmOp::kSetAttr, a, kPage, {Attr(AttrType::kAccess, no_gpu)}, -EINVAL},
      {"undefined prefetch", uapi::SvmOp::kSetAttr, a, kPage,
       {Attr(AttrType::kPrefetchLoc, uapi::kSvmLocationUndefined)}, -EINVAL},
      {"hole in the range", uapi::SvmOp::kSetAttr, holed.address(), 3 * kPage, {}, -EFAULT},
      {"hole, get", uapi::SvmOp::kGetAttr, holed.address(), 3 * kPage, {Attr(AttrType::kGranularity)}, -EFAULT},
      {"outside the address space", uapi::SvmOp::kSetAttr, uint64_t{1} << 50, kPage, {}, -EFAULT},
      {"get NO_ACCESS", uapi::SvmOp::kGetAttr, a, kPage, {Attr(AttrType::kNoAccess, gpu_)}, -EINVAL},
      {"get ACCESS_IN_PLACE", uapi::SvmOp::kGetAttr, a, kPage, {Attr(AttrType::kAccessInPlace, gpu_)}, -EINVAL},
      {"get ACCESS of an unknown gpu", uapi::SvmOp::kGetAttr, a, kPage, {Attr(AttrType::kAccess, no_gpu)}, -EINVAL},
  };
  for (Row row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(Svm(*file_, row.op, row.start, row.size, row.attrs), row.want);
  }
  // A bad attribute anywhere refuses the whole call before anything changes.
  EXPECT_EQ(Set(*file_, a, kPage, {Attr(AttrType::kPreferredLoc, gpu_), Attr(AttrType::kAccess, no_gpu)}), -EINVAL);
  EXPECT_EQ(Get(*file_, a, kPage, AttrType::kPreferredLoc), uapi::kSvmLocationUndefined);
  // More attributes than the request's size carries.
  std::vector<std::byte> buffer(sizeof(uapi::SvmArgs));
  const uapi::SvmArgs lying{.start_addr = a, .size = kPage, .op = 0, .nattr = 3};
  std::memcpy(buffer.data(), &lying, sizeof(lying));
  EXPECT_EQ(file_->Ioctl(uapi::kSvm.request(), buffer.data()), -EINVAL);
}

TEST_F(SimSvmTest, RangesAndBuffersRefuseEachOthersAddresses) {
  Open();
  // A buffer mapped at a CPU address the process owns: SVM there is EADDRINUSE.
  UserPages mem(Bytes(8 * kPage));
  const hipmem_testing::AllocResult bo =
      Alloc(*file_, gpu_, mem.address() + 4 * kPage, Bytes(4 * kPage), hipmem_testing::kVramFlags);
  ASSERT_EQ(bo.ret, 0);
  ASSERT_EQ(Map(*file_, bo.handle, {gpu_}).ret, 0);
  EXPECT_EQ(Set(*file_, mem.address(), 8 * kPage, {Attr(AttrType::kAccess, gpu_)}), -EADDRINUSE);
  EXPECT_EQ(Set(*file_, mem.address(), 4 * kPage, {Attr(AttrType::kAccess, gpu_)}), 0);
  // And a buffer may not take a VA an SVM range holds.
  EXPECT_EQ(Alloc(*file_, gpu_, mem.address(), Bytes(kPage), hipmem_testing::kVramFlags).ret, -EADDRINUSE);
}

// kfdtest's PartialUnmapSysMemTest: a munmap of part of a range drops that part (the kernel's MMU notifier,
// svm_range_unmap_from_cpu), so a buffer may take the freed hole, as upstream libhsakmt's next allocation may.
TEST_F(SimSvmTest, MunmapDropsThePartOfARangeItUnmapsAndABufferMayTakeTheHole) {
  Open();
  constexpr uint64_t kBuf = 16 * kPage;
  void* p = mmap(nullptr, kBuf, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const uint64_t start = reinterpret_cast<uint64_t>(p);
  const uint64_t hole = start + 2 * kPage;
  ASSERT_EQ(Set(*file_, start, kBuf, {Attr(AttrType::kAccess, gpu_)}), 0);
  // The unmap is seen through userfaultfd (svm_space.h); without it the range keeps the hole, as documented there.
  if (!UserfaultfdAvailable()) GTEST_SKIP() << "no userfaultfd here: munmaps are not seen";
  ASSERT_EQ(munmap(reinterpret_cast<void*>(hole), 4 * kPage), 0);
  void* again = mmap(reinterpret_cast<void*>(hole), 4 * kPage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_EQ(again, reinterpret_cast<void*>(hole));

  EXPECT_EQ(Alloc(*file_, gpu_, hole, Bytes(4 * kPage), hipmem_testing::kVramFlags).ret, 0);
  // What is left of the range is still a range.
  EXPECT_EQ(Alloc(*file_, gpu_, start, Bytes(kPage), hipmem_testing::kVramFlags).ret, -EADDRINUSE);
  EXPECT_EQ(Alloc(*file_, gpu_, hole + 4 * kPage, Bytes(kPage), hipmem_testing::kVramFlags).ret, -EADDRINUSE);
  const std::vector<SimSvmRange> ranges = sim_->Snapshot().processes.at(0).svm_ranges;
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].start.raw(), start);
  EXPECT_EQ(ranges[0].size.raw(), 2 * kPage);
  EXPECT_EQ(ranges[1].start.raw(), hole + 4 * kPage);
  EXPECT_EQ(ranges[1].size.raw(), 10 * kPage);
  EXPECT_EQ(ranges[1].mapped_gpu_ids, std::vector<uint32_t>{gpu_}) << "the GPU still maps the rest";

  // The whole range unmapped: nothing left.
  ASSERT_EQ(munmap(p, kBuf), 0);
  EXPECT_TRUE(sim_->Snapshot().processes.at(0).svm_ranges.empty());
}

TEST_F(SimSvmTest, MemoryTheGpuCouldNotWriteIsNeverMapped) {
  Open();
  CreateSdmaQueue();
  const Buffer src = NewBuffer(Bytes(kPage));
  UserPages mem(Bytes(2 * kPage));
  ASSERT_EQ(mprotect(reinterpret_cast<void*>(mem.address()), 2 * kPage, PROT_READ), 0);
  // XNACK off: mapping it at SET_ATTR fails as hmm_range_fault would.
  EXPECT_EQ(Set(*file_, mem.address(), 2 * kPage, {Attr(AttrType::kAccess, gpu_)}), -EFAULT);
  // The GPU's store is a VM fault, not a crash of the process.
  EXPECT_FALSE(Copy(mem.address(), src.va, 64));
  hipmem_testing::WaitForLogLine(*sim_, {"VM fault", absl::StrCat("address 0x", absl::Hex(mem.address()))});
}

TEST_F(SimSvmTest, RangesBelongToTheirProcess) {
  Open();
  std::unique_ptr<SimFile> other = sim_->Open();
  AcquireAllVms(*sim_, *other);
  UserPages mem(Bytes(4 * kPage));
  ASSERT_EQ(Set(*file_, mem.address(), 4 * kPage, {Attr(AttrType::kPreferredLoc, gpu_)}), 0);
  EXPECT_EQ(Get(*file_, mem.address(), 4 * kPage, AttrType::kPreferredLoc), gpu_);
  EXPECT_EQ(Get(*other, mem.address(), 4 * kPage, AttrType::kPreferredLoc), uapi::kSvmLocationUndefined);
}

TEST_F(SimSvmTest, PrefetchMovesTheVramAccountingAndACpuTouchBringsTheRangeBack) {
  Open();
  const uint64_t bytes = 64 * kPage;
  UserPages mem{Bytes(bytes)};
  auto* cpu = reinterpret_cast<uint32_t*>(mem.address());
  for (uint64_t i = 0; i < bytes / 4; ++i) cpu[i] = static_cast<uint32_t>(i * 2654435761u);
  const uint64_t before = Available(*file_, gpu_);
  ASSERT_EQ(Set(*file_, mem.address(), bytes, {Attr(AttrType::kPrefetchLoc, gpu_)}), 0);
  if (!MigrationWorks(*sim_)) GTEST_SKIP() << "no userfaultfd here: ranges stay in system memory\n" << sim_->Dmesg();
  EXPECT_EQ(Get(*file_, mem.address(), bytes, AttrType::kPrefetchLoc), gpu_);
  EXPECT_EQ(Available(*file_, gpu_), before - bytes) << "the pages live in VRAM now";
  // The CPU reads its data: the granules it touches (granularity 9, 2 MiB: the range or the two parts of it
  // either side of a 2 MiB boundary) come back.
  for (uint64_t i = 0; i < bytes / 4; ++i) ASSERT_EQ(cpu[i], static_cast<uint32_t>(i * 2654435761u)) << i;
  EXPECT_EQ(Available(*file_, gpu_), before);
  hipmem_testing::WaitForLogLine(*sim_, {"svm migrated", "system memory", "CPU fault"});

  // Granularity 2 (4 pages): a touch brings back just the touched granule.
  ASSERT_EQ(Set(*file_, mem.address(), bytes, {Attr(AttrType::kGranularity, 2), Attr(AttrType::kPrefetchLoc, gpu_)}),
            0);
  EXPECT_EQ(Available(*file_, gpu_), before - bytes);
  cpu[4 * kPage / 4 + 5] = 7;  // a store into the second granule
  EXPECT_EQ(Available(*file_, gpu_), before - bytes + 4 * kPage);
  EXPECT_EQ(cpu[4 * kPage / 4 + 6], static_cast<uint32_t>((4 * kPage / 4 + 6) * 2654435761u));
  // A prefetch to system memory brings back the rest.
  ASSERT_EQ(Set(*file_, mem.address(), bytes, {Attr(AttrType::kPrefetchLoc, uapi::kSvmLocationSysmem)}), 0);
  EXPECT_EQ(Available(*file_, gpu_), before);
  for (uint64_t i = 0; i < bytes / 4; ++i) {
    ASSERT_EQ(cpu[i], i == 4 * kPage / 4 + 5 ? 7u : static_cast<uint32_t>(i * 2654435761u)) << i;
  }
}

TEST_F(SimSvmTest, PrefetchOfPagesNeverTouchedMovesZeroes) {
  Open();
  UserPages mem(Bytes(8 * kPage));
  const uint64_t before = Available(*file_, gpu_);
  ASSERT_EQ(Set(*file_, mem.address(), 8 * kPage, {Attr(AttrType::kGranularity, 0x3f), Attr(AttrType::kPrefetchLoc, gpu_)}),
            0);
  if (!MigrationWorks(*sim_)) GTEST_SKIP() << "no userfaultfd here: ranges stay in system memory";
  EXPECT_EQ(Available(*file_, gpu_), before - 8 * kPage);
  EXPECT_EQ(reinterpret_cast<const char*>(mem.address())[5 * kPage], 0);
  EXPECT_EQ(Available(*file_, gpu_), before);
}

TEST_F(SimSvmTest, PrefetchBetweenGpusMovesTheAccountingAcross) {
  Open(Mi300xTopology(2));
  const uint32_t gpu1 = sim_->topology().gpus[1].gpu_id;
  const uint64_t bytes = 16 * kPage;
  UserPages mem{Bytes(bytes)};
  std::memset(reinterpret_cast<void*>(mem.address()), 0x3c, bytes);
  // The largest granule, so that one touch brings the whole range back wherever 2 MiB boundaries fall.
  ASSERT_EQ(Set(*file_, mem.address(), bytes, {Attr(AttrType::kGranularity, 0x3f)}), 0);
  const uint64_t before0 = Available(*file_, gpu_);
  const uint64_t before1 = Available(*file_, gpu1);
  ASSERT_EQ(Set(*file_, mem.address(), bytes, {Attr(AttrType::kPrefetchLoc, gpu_)}), 0);
  if (!MigrationWorks(*sim_)) GTEST_SKIP() << "no userfaultfd here: ranges stay in system memory";
  ASSERT_EQ(Set(*file_, mem.address(), bytes, {Attr(AttrType::kPrefetchLoc, gpu1)}), 0);
  EXPECT_EQ(Available(*file_, gpu_), before0);
  EXPECT_EQ(Available(*file_, gpu1), before1 - bytes);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(mem.address())[bytes - 1], 0x3c);
  EXPECT_EQ(Available(*file_, gpu1), before1);
  // Closing the process returns whatever VRAM its ranges still hold.
  ASSERT_EQ(Set(*file_, mem.address(), bytes, {Attr(AttrType::kPrefetchLoc, gpu1)}), 0);
  EXPECT_EQ(Available(*file_, gpu1), before1 - bytes);
  file_.reset();
  std::unique_ptr<SimFile> next = sim_->Open();
  EXPECT_EQ(Available(*next, gpu1), before1);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(mem.address())[0], 0x3c) << "the data came back at close";
}

// Two KFD processes of one OS process with ranges over the same memory: the second one's migration reads pages the
// first moved to VRAM, a CPU fault that only the first can serve while the second holds its own ranges.
TEST_F(SimSvmTest, AnotherProcessMigratingMemoryInVramWaitsForItToComeBack) {
  Open();
  std::unique_ptr<SimFile> other = sim_->Open();
  AcquireAllVms(*sim_, *other);
  UserPages mem(Bytes(8 * kPage));
  std::memset(reinterpret_cast<void*>(mem.address()), 0x21, 8 * kPage);
  const uint64_t before = Available(*file_, gpu_);
  ASSERT_EQ(Set(*file_, mem.address(), 8 * kPage, {Attr(AttrType::kGranularity, 0x3f), Attr(AttrType::kPrefetchLoc, gpu_)}),
            0);
  if (!MigrationWorks(*sim_)) GTEST_SKIP() << "no userfaultfd here: ranges stay in system memory";
  ASSERT_EQ(Set(*other, mem.address(), 8 * kPage, {Attr(AttrType::kGranularity, 0x3f), Attr(AttrType::kPrefetchLoc, gpu_)}),
            0);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(mem.address())[7 * kPage], 0x21) << sim_->Dmesg();
  EXPECT_EQ(reinterpret_cast<unsigned char*>(mem.address())[0], 0x21);
  EXPECT_EQ(Available(*file_, gpu_), before) << "both copies came back";
}

TEST_F(SimSvmTest, PrefetchBeyondFreeVramLeavesTheRangeInSystemMemory) {
  Open(hipmem_testing::SmallTopology(Bytes::KiB(64), Bytes::GiB(1)));
  UserPages mem(Bytes(32 * kPage));
  reinterpret_cast<char*>(mem.address())[0] = 5;
  const uint64_t before = Available(*file_, gpu_);
  // svm_range_trigger_migration ignores a failed migration to VRAM: the call succeeds, nothing moves.
  EXPECT_EQ(Set(*file_, mem.address(), 32 * kPage, {Attr(AttrType::kPrefetchLoc, gpu_)}), 0);
  EXPECT_EQ(Available(*file_, gpu_), before);
  EXPECT_EQ(reinterpret_cast<char*>(mem.address())[0], 5);
}

TEST_F(SimSvmTest, XnackOffSdmaCopyReachesOnlyRangesItsGpuMayAccess) {
  Open();
  CreateSdmaQueue();
  const Buffer dst = NewBuffer(Bytes(kPage));
  UserPages svm(Bytes(4 * kPage));
  std::memset(reinterpret_cast<void*>(svm.address()), 0x11, 4 * kPage);
  ASSERT_EQ(Set(*file_, svm.address(), 2 * kPage, {Attr(AttrType::kAccess, gpu_)}), 0);
  // The first two pages are mapped on the GPU: the copy reads them.
  ASSERT_TRUE(Copy(dst.va, svm.address() + 16, 64));
  EXPECT_EQ(static_cast<unsigned char>(dst.cpu[63]), 0x11);
  // The next two are a range without access (and XNACK is off): a VM fault halts the queue.
  ASSERT_EQ(Set(*file_, svm.address() + 2 * kPage, 2 * kPage, {Attr(AttrType::kNoAccess, gpu_)}), 0);
  EXPECT_FALSE(Copy(dst.va, svm.address() + 2 * kPage, 64));
  EXPECT_TRUE(hipmem_testing::OnlyQueue(*sim_).halted);
  hipmem_testing::WaitForLogLine(*sim_, {"VM fault", absl::StrCat("address 0x", absl::Hex(svm.address() + 2 * kPage))});
}

TEST_F(SimSvmTest, XnackOnSdmaCopyRetriesAfterTheFaultMapsTheRange) {
  Open();
  ASSERT_TRUE(SetXnack(*file_, true));
  CreateSdmaQueue();
  const Buffer src = NewBuffer(Bytes(kPage));
  std::memset(src.cpu, 0x6b, kPage);
  UserPages svm(Bytes(4 * kPage));
  // A range with no access attribute given: under XNACK every GPU may access it, none maps it yet.
  ASSERT_EQ(Set(*file_, svm.address(), 4 * kPage, {Attr(AttrType::kPreferredLoc, uapi::kSvmLocationSysmem)}), 0);
  ASSERT_TRUE(Copy(svm.address() + kPage, src.va, 128));
  EXPECT_EQ(reinterpret_cast<unsigned char*>(svm.address())[kPage + 127], 0x6b);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(svm.address())[kPage + 128], 0);
  hipmem_testing::WaitForLogLine(*sim_, {"retry fault", absl::StrCat("0x", absl::Hex(svm.address() + kPage))});
  // NO_ACCESS faults for good, XNACK or not.
  ASSERT_EQ(Set(*file_, svm.address(), 4 * kPage, {Attr(AttrType::kNoAccess, gpu_)}), 0);
  EXPECT_FALSE(Copy(svm.address(), src.va, 64));
  hipmem_testing::WaitForLogLine(*sim_, {"VM fault", absl::StrCat("address 0x", absl::Hex(svm.address()))});
}

TEST_F(SimSvmTest, SdmaCopyReadsAndWritesARangeLivingInVram) {
  Open();
  CreateSdmaQueue();
  const Buffer other = NewBuffer(Bytes(kPage));
  std::memset(other.cpu, 0x2d, kPage);
  UserPages svm(Bytes(4 * kPage));
  std::memset(reinterpret_cast<void*>(svm.address()), 0x44, 4 * kPage);
  const uint64_t before = Available(*file_, gpu_);
  // The largest granule: one CPU touch brings all of it back.
  ASSERT_EQ(Set(*file_, svm.address(), 4 * kPage,
                {Attr(AttrType::kAccess, gpu_), Attr(AttrType::kGranularity, 0x3f), Attr(AttrType::kPrefetchLoc, gpu_)}),
            0);
  if (!MigrationWorks(*sim_)) GTEST_SKIP() << "no userfaultfd here: ranges stay in system memory";
  ASSERT_EQ(Available(*file_, gpu_), before - 4 * kPage);
  // The GPU writes the VRAM copy and reads it back out; the range stays in VRAM throughout.
  ASSERT_TRUE(Copy(svm.address() + 2 * kPage, other.va, 256));
  ASSERT_TRUE(Copy(other.va + 1024, svm.address() + 2 * kPage - 16, 32));
  EXPECT_EQ(Available(*file_, gpu_), before - 4 * kPage);
  EXPECT_EQ(static_cast<unsigned char>(other.cpu[1024]), 0x44);
  EXPECT_EQ(static_cast<unsigned char>(other.cpu[1024 + 16]), 0x2d);
  // The CPU sees the GPU's writes once the range comes back.
  EXPECT_EQ(reinterpret_cast<unsigned char*>(svm.address())[2 * kPage + 255], 0x2d);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(svm.address())[2 * kPage + 256], 0x44);
  EXPECT_EQ(Available(*file_, gpu_), before);
}

// Only under sim_svm_no_uffd_test (HIPMEM_SIM_SVM_NO_UFFD=1, as on a host without userfaultfd): nothing can bring a
// range back on a CPU touch, so ranges stay in system memory; a prefetch records its location and moves nothing,
// the log says why once, and the GPU still reaches the range where it is.
TEST_F(SimSvmTest, WithoutUserfaultfdRangesStayInSystemMemoryAndGpusReachThemThere) {
  if (std::getenv("HIPMEM_SIM_SVM_NO_UFFD") == nullptr) GTEST_SKIP() << "runs in sim_svm_no_uffd_test";
  Open();
  CreateSdmaQueue();
  const Buffer dst = NewBuffer(Bytes(kPage));
  UserPages svm(Bytes(4 * kPage));
  std::memset(reinterpret_cast<void*>(svm.address()), 0x77, 4 * kPage);
  const uint64_t before = Available(*file_, gpu_);
  ASSERT_EQ(Set(*file_, svm.address(), 4 * kPage, {Attr(AttrType::kAccess, gpu_), Attr(AttrType::kPrefetchLoc, gpu_)}),
            0);
  EXPECT_EQ(Get(*file_, svm.address(), 4 * kPage, AttrType::kPrefetchLoc), gpu_);
  EXPECT_EQ(Available(*file_, gpu_), before);
  EXPECT_THAT(hipmem_testing::WaitForLogLine(*sim_, {"ranges stay in system memory"}),
              HasSubstr("HIPMEM_SIM_SVM_NO_UFFD=1"));
  ASSERT_TRUE(Copy(dst.va, svm.address() + kPage, 64));
  EXPECT_EQ(static_cast<unsigned char>(dst.cpu[63]), 0x77);
}

}  // namespace
}  // namespace hipmem::kfd_sim
