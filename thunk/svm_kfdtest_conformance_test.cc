// kfdtest's KFDSVMRangeTest and KFDSVMEvictTest cases that need no shader, through the hsaKmt C API only, each with
// XNACK off and on (kfdtest's TEST_P parameter). Each test names the kfdtest case it stands for and checks what the
// upstream body checks (read from ROCm/ROCR-Runtime libhsakmt/tests/kfdtest/src; the code is ours), plus what the
// simulator can show that hardware hides: AVAILABLE_MEMORY moving with the pages. Where a dispatch would read or
// write the range, an SDMA copy does, rung through a plain doorbell store as kfdtest's SDMAQueue rings it.
// Sizes upstream picks for real hardware (1 GiB, 256 MiB, 64 MiB) are smaller here; each test says so.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/kfdtest_c_api_fixture.h"

namespace {

using ::hipmem_testing::KfdtestCApiTest;
using ::hipmem_testing::kPageBytes;
using ::hipmem_testing::kRingBytes;
using ::hipmem_testing::kSanitizerSlowdown;
using ::hipmem_testing::Ring;
namespace sdma = ::hipmem::gpu_abi::sdma;

constexpr HSAuint32 kInvalidNode = 0xffffffff;  // kfdtest's INVALID_NODEID
constexpr HSAuint32 kDefaultFlags = HSA_SVM_FLAG_HOST_ACCESS | HSA_SVM_FLAG_COHERENT;
constexpr HSAuint32 kRingDwords = kRingBytes / 4;
// Bounds a broken simulator; generous because a sanitizer build copies megabytes several times slower.
constexpr HSAuint32 kCopyTimeoutMs = 20000 * kSanitizerSlowdown;

// kfdtest's RegisterSVMRange: one SET_ATTR of PREFETCH_LOC and PREFERRED_LOC `prefetch`, SET_FLAGS `flags` and
// ACCESS for `gpu`.
HSAKMT_STATUS RegisterRange(HSAuint32 gpu, void* p, HSAuint64 size, HSAuint32 prefetch, HSAuint32 flags) {
  HSA_SVM_ATTRIBUTE attrs[] = {
      {HSA_SVM_ATTR_PREFETCH_LOC, prefetch},
      {HSA_SVM_ATTR_PREFERRED_LOC, prefetch},
      {HSA_SVM_ATTR_SET_FLAGS, flags},
      {HSA_SVM_ATTR_ACCESS, gpu},
  };
  return hsaKmtSVMSetAttr(p, size, 4, attrs);
}

// kfdtest's SVMRangePrefetchToNode / SVMRangeMapToNode / SVMRangeMapInPlaceToNode / SVMRangSetGranularity: one
// attribute.
HSAKMT_STATUS SetOne(void* p, HSAuint64 size, HSA_SVM_ATTR_TYPE type, HSAuint32 value) {
  HSA_SVM_ATTRIBUTE attr{type, value};
  return hsaKmtSVMSetAttr(p, size, 1, &attr);
}
HSAKMT_STATUS PrefetchTo(void* p, HSAuint64 size, HSAuint32 node) {
  return SetOne(p, size, HSA_SVM_ATTR_PREFETCH_LOC, node);
}

// kfdtest's SVMRangeGetPrefetchNode, and the same for any one attribute: the value, or nullopt when GET_ATTR fails.
std::optional<HSAuint32> GetOne(void* p, HSAuint64 size, HSA_SVM_ATTR_TYPE type, HSAuint32 value = 0) {
  HSA_SVM_ATTRIBUTE attr{type, value};
  if (hsaKmtSVMGetAttr(p, size, 1, &attr) != HSAKMT_STATUS_SUCCESS) return std::nullopt;
  return type == HSA_SVM_ATTR_ACCESS ? attr.type : attr.value;
}

HSAuint64 Available(HSAuint32 node) {
  HSAuint64 bytes = 0;
  EXPECT_EQ(hsaKmtAvailableMemory(node, &bytes), HSAKMT_STATUS_SUCCESS);
  return bytes;
}

void* Anonymous(HSAuint64 size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT_NE(p, MAP_FAILED);
  return p == MAP_FAILED ? nullptr : p;
}

// kfdtest's HsaSVMRange: private anonymous memory of its own (or `addr`), registered with RegisterRange(gpu, ...,
// prefetch, HOST_ACCESS | COHERENT). Unmaps the memory it mapped, without unregistering (as kfdtest's does: the
// kernel drops a range whose memory goes).
class SvmRange {
 public:
  SvmRange(HSAuint64 size, HSAuint32 gpu, HSAuint32 prefetch = 0, void* addr = nullptr)
      : size_(size), addr_(addr), owned_(addr == nullptr) {
    if (owned_) addr_ = Anonymous(size);
    if (addr_ != nullptr) {
      status_ = RegisterRange(gpu, addr_, size, prefetch, kDefaultFlags);
      EXPECT_EQ(status_, HSAKMT_STATUS_SUCCESS);
    }
  }
  ~SvmRange() {
    if (owned_ && addr_ != nullptr) munmap(addr_, size_);
  }
  SvmRange(const SvmRange&) = delete;
  SvmRange& operator=(const SvmRange&) = delete;

  template <typename T>
  T* As() const {
    return static_cast<T*>(addr_);
  }
  HSAuint64 size() const { return size_; }
  HSAKMT_STATUS status() const { return status_; }

 private:
  HSAuint64 size_;
  void* addr_;
  bool owned_;
  HSAKMT_STATUS status_ = HSAKMT_STATUS_ERROR;
};

// kfdtest's SDMAQueue with PlaceAndSubmitPacket and Wait4PacketConsumption(event): packets never straddle the
// ring's end (a NOP pads it, as BaseQueue does), copies and fills are split at the packet's size limit, and a
// FENCE + TRAP of the event ends each batch.
class SdmaQueue {
 public:
  SdmaQueue(HSAuint32 node, void* ring_buffer, HsaEvent* event)
      : ring_(std::make_unique<Ring>(node, HSA_QUEUE_SDMA, ring_buffer)), event_(event) {}

  HSAKMT_STATUS status() const { return ring_->status(); }
  HSAKMT_STATUS Destroy() { return ring_->Destroy(); }

  template <typename Packet>
  void Place(const Packet& packet) {
    static_assert(sizeof(Packet) % 4 == 0);
    const uint32_t dwords = sizeof(Packet) / 4;
    if (ring_->WptrDwords() + dwords > kRingDwords) {
      std::vector<uint32_t> nop(kRingDwords - ring_->WptrDwords(), 0);
      nop[0] = sdma::MakeNopHeader(static_cast<uint32_t>(nop.size()));
      ring_->Place(nop);
    }
    ring_->PlaceStruct(packet);
  }
  void Copy(const void* dst, const void* src, HSAuint64 bytes) {
    for (HSAuint64 done = 0; done < bytes;) {
      const uint32_t chunk = static_cast<uint32_t>(std::min<HSAuint64>(bytes - done, sdma::kMaxLinearBytes));
      Place(sdma::MakeCopy(reinterpret_cast<uint64_t>(dst) + done, reinterpret_cast<uint64_t>(src) + done, chunk));
      done += chunk;
    }
  }
  void Fill(const void* dst, uint32_t value, HSAuint64 bytes) {
    for (HSAuint64 done = 0; done < bytes;) {
      const uint32_t chunk = static_cast<uint32_t>(std::min<HSAuint64>(bytes - done, sdma::kMaxLinearBytes));
      Place(sdma::MakeFill(reinterpret_cast<uint64_t>(dst) + done, value, chunk));
      done += chunk;
    }
  }
  // Submits what was placed with the event's FENCE + TRAP behind it and waits for the event: SUCCESS once every
  // packet ran, WAIT_TIMEOUT when the queue stopped (a VM fault halts it).
  HSAKMT_STATUS Run(HSAuint32 timeout_ms = kCopyTimeoutMs) {
    Place(sdma::MakeFence(event_->EventData.HWData2, event_->EventId));
    Place(sdma::MakeTrap(event_->EventId));
    ring_->Submit();
    return hsaKmtWaitOnEvent(event_, timeout_ms);
  }

 private:
  std::unique_ptr<Ring> ring_;
  HsaEvent* event_;
};

// kfdtest's KFDSVMRangeTest fixture: KFDBaseComponentTest, then SVMSetXNACKMode(GetParam()); TearDown restores the
// mode the process had.
class KfdtestSvmTest : public KfdtestCApiTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    KfdtestCApiTest::SetUp();
    if (HasFatalFailure()) return;
    node_ = gpus_[0];
    // SVMAPISupported(): every kfdtest SVM body returns at once without it, so on hardware that lacks it they all
    // "pass"; here the GPUs advertise it and the bodies run.
    ASSERT_EQ(props_[0].Capability.ui32.SVMAPISupported, 1u);
    ASSERT_EQ(hsaKmtGetXNACKMode(&saved_xnack_), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(hsaKmtSetXNACKMode(GetParam()), HSAKMT_STATUS_SUCCESS);
    xnack_ = GetParam() != 0;
  }
  void TearDown() override {
    EXPECT_EQ(hsaKmtSetXNACKMode(saved_xnack_), HSAKMT_STATUS_SUCCESS);
    KfdtestCApiTest::TearDown();
  }

  SdmaQueue NewSdmaQueue(HSAuint32 node) {
    return SdmaQueue(node, HostBuffer(kRingBytes, node, /*exec=*/true),
                     NewEvent(HSA_EVENTTYPE_SIGNAL, node, /*manual_reset=*/false));
  }

  HSAuint32 node_ = 0;
  bool xnack_ = false;
  HSAint32 saved_xnack_ = 0;
};

// Whether the simulator can watch this process's ranges: it sees munmaps only through userfaultfd's UNMAP events
// (testing/kfd_sim/svm_space.h), and a host may refuse the system call (a container's seccomp profile).
bool UserfaultfdAvailable() {
  if (std::getenv("HIPMEM_SIM_SVM_NO_UFFD") != nullptr) return false;
  const long fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  close(static_cast<int>(fd));
  return true;
}

// ---- KFDSVMRangeTest.SetGetAttributesTest ----

TEST_P(KfdtestSvmTest, AttributesReadBackTheKernelsDefaultsThenWhatWasSet) {
  // kfdtest's HsaSVMRange(size): memory never registered.
  void* p = Anonymous(kPageBytes);
  ASSERT_NE(p, nullptr);
  HSA_SVM_ATTRIBUTE want[] = {
      {HSA_SVM_ATTR_PREFETCH_LOC, node_},
      {HSA_SVM_ATTR_PREFERRED_LOC, node_},
      {HSA_SVM_ATTR_SET_FLAGS, HSA_SVM_FLAG_HOST_ACCESS | HSA_SVM_FLAG_GPU_EXEC | HSA_SVM_FLAG_COHERENT},
      {HSA_SVM_ATTR_GRANULARITY, 0x3f},
      {HSA_SVM_ATTR_ACCESS, node_},
  };
  HSA_SVM_ATTRIBUTE got[5];
  std::memcpy(got, want, sizeof(got));
  ASSERT_EQ(hsaKmtSVMGetAttr(p, kPageBytes, 5, got), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(got[0].value, kInvalidNode);
  EXPECT_EQ(got[1].value, kInvalidNode);
  EXPECT_EQ(got[2].value, kDefaultFlags);
  EXPECT_EQ(got[3].value, 9u);
  // Memory nobody gave attributes: every GPU may touch it under XNACK, none without.
  EXPECT_EQ(got[4].type, static_cast<HSAuint32>(xnack_ ? HSA_SVM_ATTR_ACCESS : HSA_SVM_ATTR_NO_ACCESS));

  ASSERT_EQ(hsaKmtSVMSetAttr(p, kPageBytes, 5, want), HSAKMT_STATUS_SUCCESS);
  std::memcpy(got, want, sizeof(got));
  ASSERT_EQ(hsaKmtSVMGetAttr(p, kPageBytes, 5, got), HSAKMT_STATUS_SUCCESS);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i].value, want[i].value) << "attribute " << i;
  EXPECT_EQ(got[4].type, static_cast<HSAuint32>(HSA_SVM_ATTR_ACCESS));
  EXPECT_EQ(got[4].value, node_);
  munmap(p, kPageBytes);
}

// ---- KFDSVMRangeTest.XNACKModeTest ----

TEST_P(KfdtestSvmTest, XnackModeTogglesButNotWhileAQueueLives) {
  HSAint32 enable = -1;
  ASSERT_EQ(hsaKmtGetXNACKMode(&enable), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(enable, GetParam());
  for (int round = 0; round < 2; ++round) {
    enable = !enable;
    ASSERT_EQ(hsaKmtSetXNACKMode(enable), HSAKMT_STATUS_SUCCESS) << "gfx942 and gfx90a switch per process";
    HSAint32 now = -1;
    ASSERT_EQ(hsaKmtGetXNACKMode(&now), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(now, enable);
    for (HSAuint32 node : gpus_) {
      SCOPED_TRACE(testing::Message() << "node " << node);
      Ring queue(node, HSA_QUEUE_COMPUTE, HostBuffer(kRingBytes, node, /*exec=*/true));
      ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
      EXPECT_EQ(hsaKmtSetXNACKMode(enable), HSAKMT_STATUS_ERROR) << "the kernel's -EBUSY while queues exist";
      EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
    }
  }
}

// ---- KFDSVMRangeTest.InvalidRangeTest, and the arguments libhsakmt and the kernel refuse ----

TEST_P(KfdtestSvmTest, RangesOutsideTheProcessAndBadArgumentsAreRefused) {
  // kfdtest registers 0x10000, one page, which no process maps.
  EXPECT_NE(RegisterRange(node_, reinterpret_cast<void*>(0x10000), 0x1000, 0, kDefaultFlags), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(RegisterRange(node_, reinterpret_cast<void*>(0x10000), 0x1000, 0, kDefaultFlags), HSAKMT_STATUS_ERROR);

  SvmRange range(4 * kPageBytes, node_);
  char* p = range.As<char>();
  HSA_SVM_ATTRIBUTE access{HSA_SVM_ATTR_ACCESS, node_};
  EXPECT_EQ(hsaKmtSVMSetAttr(nullptr, kPageBytes, 1, &access), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMSetAttr(p + 8, kPageBytes, 1, &access), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMSetAttr(p, 0, 1, &access), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMGetAttr(p, kPageBytes + 4, 1, &access), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSVMSetAttr(p, kPageBytes, 1, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(SetOne(p, kPageBytes, HSA_SVM_ATTR_PREFETCH_LOC, num_nodes_), HSAKMT_STATUS_INVALID_NODE_UNIT);
  EXPECT_EQ(SetOne(p, kPageBytes, HSA_SVM_ATTR_ACCESS, 0), HSAKMT_STATUS_INVALID_NODE_UNIT) << "the CPU is no GPU";
  // The kernel's -EINVAL: an unknown attribute type; an answer-only type asked as a question.
  EXPECT_EQ(SetOne(p, kPageBytes, static_cast<HSA_SVM_ATTR_TYPE>(8), 0), HSAKMT_STATUS_ERROR);
  HSA_SVM_ATTRIBUTE in_place{HSA_SVM_ATTR_ACCESS_IN_PLACE, node_};
  EXPECT_EQ(hsaKmtSVMGetAttr(p, kPageBytes, 1, &in_place), HSAKMT_STATUS_ERROR);
  // None of that changed the range.
  EXPECT_EQ(GetOne(p, 4 * kPageBytes, HSA_SVM_ATTR_PREFETCH_LOC), std::optional<HSAuint32>(0));
  EXPECT_EQ(GetOne(p, 4 * kPageBytes, HSA_SVM_ATTR_ACCESS, node_),
            std::optional<HSAuint32>(HSA_SVM_ATTR_ACCESS));
}

// ---- KFDSVMRangeTest.SplitSystemRangeTest / SplitVramRangeTest ----

// kfdtest's SplitRangeTest: ranges registered over, inside, across the ends of and around earlier ones, each case
// on fresh memory; every registration must succeed. Here each case also checks that the ranges answer what was
// set, and, in VRAM, that the VRAM the GPU reports in use is what the live ranges hold.
class KfdtestSvmSplitTest : public KfdtestSvmTest {
 protected:
  void Split(HSAuint32 location) {
    constexpr HSAuint64 kBuf = 16 * kPageBytes;
    struct Case {
      const char* name;
      HSAuint64 map_bytes;
      std::vector<std::pair<HSAuint64, HSAuint64>> ranges;  // offset, size, registered in order
    };
    const Case cases[] = {
        {"1: inside", kBuf, {{0, kBuf}, {8192, kPageBytes}}},
        {"2.1: over the tail", kBuf, {{0, kBuf}, {4096, kBuf - 4096}}},
        {"2.2: across the end", kBuf + 8192, {{0, kBuf}, {8192, kBuf}}},
        {"3: over the head", kBuf, {{0, kBuf}, {0, kBuf - 8192}}},
        {"4.1: the same", kBuf, {{0, kBuf}, {0, kBuf}}},
        {"4.2: around", kBuf + 8192, {{0, kBuf}, {0, kBuf + 8192}}},
        {"5: over two", kBuf + 65536, {{8192, 8192}, {32768, 8192}, {0, kBuf + 65536}}},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      char* p = static_cast<char*>(Anonymous(c.map_bytes));
      ASSERT_NE(p, nullptr);
      for (const auto& [offset, size] : c.ranges) {
        ASSERT_EQ(RegisterRange(node_, p + offset, size, location, kDefaultFlags), HSAKMT_STATUS_SUCCESS);
      }
      const auto [last_offset, last_size] = c.ranges.back();
      EXPECT_EQ(GetOne(p + last_offset, last_size, HSA_SVM_ATTR_PREFETCH_LOC), std::optional<HSAuint32>(location));
      EXPECT_EQ(GetOne(p + last_offset, last_size, HSA_SVM_ATTR_PREFERRED_LOC), std::optional<HSAuint32>(location));
      EXPECT_EQ(GetOne(p + last_offset, last_size, HSA_SVM_ATTR_ACCESS, node_),
                std::optional<HSAuint32>(HSA_SVM_ATTR_ACCESS));
      // Writes through the CPU land, whether the pages were in VRAM or not.
      std::memset(p, 0x5c, c.map_bytes);
      EXPECT_EQ(p[c.map_bytes - 1], 0x5c);
      ASSERT_EQ(munmap(p, c.map_bytes), 0);
    }
    // Case 6: the memory goes before its range is dropped.
    char* p = static_cast<char*>(Anonymous(kBuf));
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(RegisterRange(node_, p + 8192, 8192, location, kDefaultFlags), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(munmap(p, kBuf), 0);
    EXPECT_EQ(GetOne(p + 8192, 8192, HSA_SVM_ATTR_PREFETCH_LOC), std::nullopt) << "no memory there any more";
  }
};

TEST_P(KfdtestSvmSplitTest, SystemRangesSplitAndMergeWhereverTheyAreSet) { Split(0); }

TEST_P(KfdtestSvmSplitTest, VramRangesSplitAndMergeWhereverTheyAreSet) { Split(node_); }

// ---- KFDSVMRangeTest.PrefetchTest ----

TEST_P(KfdtestSvmTest, PrefetchLocationIsPerRangeAndUndefinedWhereRangesDisagree) {
  constexpr HSAuint64 kBuf = 16 << 10;
  void* gone = nullptr;
  {
    SvmRange range(kBuf, node_);
    gone = range.As<void>();
  }
  // The memory is gone: asking about it fails.
  EXPECT_EQ(GetOne(gone, kBuf, HSA_SVM_ATTR_PREFETCH_LOC), std::nullopt);

  SvmRange range(kBuf, node_);
  char* p = range.As<char>();
  EXPECT_EQ(GetOne(p, kBuf, HSA_SVM_ATTR_PREFETCH_LOC), std::optional<HSAuint32>(0));
  ASSERT_EQ(PrefetchTo(p + kBuf / 2, kBuf / 2, node_), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(GetOne(p + kBuf / 2, kBuf / 2, HSA_SVM_ATTR_PREFETCH_LOC), std::optional<HSAuint32>(node_));
  EXPECT_EQ(GetOne(p, kBuf / 2, HSA_SVM_ATTR_PREFETCH_LOC), std::optional<HSAuint32>(0));
  EXPECT_EQ(GetOne(p, kBuf, HSA_SVM_ATTR_PREFETCH_LOC), std::optional<HSAuint32>(kInvalidNode));
}

// ---- KFDSVMRangeTest.PartialUnmapSysMemTest ----

// Upstream unmaps the middle of a registered range, then makes a queue (whose allocations upstream libhsakmt may
// place in the hole: the kernel then refused them, EADDRINUSE, while a range still held it) and copies from both
// pieces left. Here the hole is mapped again: GET_ATTR finds no range there any more (the kernel's MMU notifier
// dropped that part at the munmap) and it registers as a buffer; //testing/kfd_sim:sim_svm_test allocates a
// buffer at the hole's very address, which this thunk's own placement never does. The copies use SDMA, as
// everywhere in this file.
TEST_P(KfdtestSvmTest, MunmapOfPartOfARangeDropsThatPartAndTheRestStillWorks) {
  if (!UserfaultfdAvailable()) GTEST_SKIP() << "no userfaultfd here: the simulator cannot see munmaps (svm_space.h)";
  constexpr HSAuint64 kBuf = 16 * kPageBytes;
  constexpr HSAuint64 kHole = 4 * kPageBytes;
  SvmRange dest(kBuf, node_);
  char* p = static_cast<char*>(Anonymous(kBuf));
  ASSERT_NE(p, nullptr);
  SvmRange sys(kBuf, node_, /*prefetch=*/0, p);
  ASSERT_EQ(sys.status(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint64 i = 0; i < kBuf / 4; ++i) reinterpret_cast<HSAuint32*>(p)[i] = 0x01010101;
  char* hole = p + 2 * kPageBytes;
  char* tail = hole + kHole;
  ASSERT_EQ(munmap(hole, kHole), 0);

  // Another mapping where the hole is, as libhsakmt's next allocation may get it.
  void* again = mmap(hole, kHole, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_EQ(again, static_cast<void*>(hole));
  // No range there any more: GET_ATTR answers the defaults (the range had PREFERRED_LOC system memory).
  EXPECT_EQ(GetOne(hole, kHole, HSA_SVM_ATTR_PREFERRED_LOC), HSAuint32{0xffffffff});
  EXPECT_EQ(GetOne(p, 2 * kPageBytes, HSA_SVM_ATTR_PREFERRED_LOC), HSAuint32{0});
  EXPECT_EQ(GetOne(tail, kBuf - 2 * kPageBytes - kHole, HSA_SVM_ATTR_PREFERRED_LOC), HSAuint32{0});
  ASSERT_EQ(hsaKmtRegisterMemory(hole, kHole), HSAKMT_STATUS_SUCCESS);
  HSAuint64 gpu_va = 0;
  ASSERT_EQ(hsaKmtMapMemoryToGPU(hole, kHole, &gpu_va), HSAKMT_STATUS_SUCCESS);

  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Copy(dest.As<void>(), tail, 4);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(dest.As<HSAuint32>()[0], 0x01010101u);
  dest.As<HSAuint32>()[0] = 0;
  queue.Copy(dest.As<void>(), p, 4);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(dest.As<HSAuint32>()[0], 0x01010101u);
  // The buffer in the hole is the GPU's too (at the GPU address the thunk gave it).
  queue.Fill(reinterpret_cast<void*>(gpu_va), 0x5A5A5A5A, kHole);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(reinterpret_cast<HSAuint32*>(hole)[kHole / 4 - 1], 0x5A5A5A5Au);
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);

  EXPECT_EQ(hsaKmtUnmapMemoryToGPU(hole), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDeregisterMemory(hole), HSAKMT_STATUS_SUCCESS);
  munmap(p, kBuf);
}

// Unmapping a range living in VRAM gives its VRAM back (svm_range_unmap_from_cpu frees the part's pages).
TEST_P(KfdtestSvmTest, MunmapOfARangeInVramGivesTheVramBack) {
  if (!UserfaultfdAvailable()) GTEST_SKIP() << "no userfaultfd here: the simulator cannot see munmaps (svm_space.h)";
  constexpr HSAuint64 kBuf = 64 * kPageBytes;
  char* p = static_cast<char*>(Anonymous(kBuf));
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x11, kBuf);
  const HSAuint64 before = Available(node_);
  SvmRange range(kBuf, node_, node_, p);
  ASSERT_EQ(range.status(), HSAKMT_STATUS_SUCCESS);
  if (Available(node_) == before) GTEST_SKIP() << "the range did not move to VRAM (no userfaultfd here)";
  ASSERT_EQ(Available(node_), before - kBuf);
  ASSERT_EQ(munmap(p + kBuf / 2, kBuf / 2), 0);
  // Any SVM call looks at the ranges first.
  EXPECT_EQ(GetOne(p, kBuf / 2, HSA_SVM_ATTR_PREFERRED_LOC), node_);
  EXPECT_EQ(Available(node_), before - kBuf / 2);
  EXPECT_EQ(p[0], 0x11) << "the half left comes back on a CPU touch";
  ASSERT_EQ(munmap(p, kBuf / 2), 0);
  EXPECT_EQ(GetOne(range.As<void>(), kPageBytes, HSA_SVM_ATTR_PREFERRED_LOC), std::nullopt) << "nothing mapped there";
  EXPECT_EQ(Available(node_), before);
}

// ---- KFDSVMRangeTest.MigrateTest (16 MiB, as upstream; 4 rounds instead of 8) ----

TEST_P(KfdtestSvmTest, SdmaWritesRangesInVramAndTheCpuReadsThemBack) {
  constexpr HSAuint64 kBuf = 16 << 20;
  SvmRange data(kBuf, node_);
  SvmRange buf(kBuf, node_);
  SvmRange buf2(kBuf, node_);
  ASSERT_EQ(PrefetchTo(buf.As<void>(), kBuf, 0), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(PrefetchTo(buf2.As<void>(), kBuf, 0), HSAKMT_STATUS_SUCCESS);
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  HSAuint32* d = data.As<HSAuint32>();
  for (HSAuint32 i = 0; i < kBuf / 4; ++i) d[i] = i;
  const HSAuint64 before = Available(node_);

  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(testing::Message() << "round " << round);
    ASSERT_EQ(PrefetchTo(buf.As<void>(), kBuf, node_), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(PrefetchTo(buf2.As<void>(), kBuf, node_), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(Available(node_), before - 2 * kBuf) << "both ranges live in VRAM";
    queue.Copy(buf.As<void>(), d, kBuf);
    queue.Copy(buf2.As<void>(), d, kBuf);
    ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(Available(node_), before - 2 * kBuf) << "the GPU wrote them in VRAM";
    // The CPU's reads fault the pages back to system memory.
    for (HSAuint32 i = 0; i < kBuf / 4; ++i) {
      ASSERT_EQ(buf.As<HSAuint32>()[i], i);
      ASSERT_EQ(buf2.As<HSAuint32>()[i], i);
    }
    EXPECT_EQ(Available(node_), before) << "back in system memory";
  }
  // Back in system memory, the GPU reaches it there (XNACK off: remapped; on: after a retry fault).
  std::memset(buf.As<void>(), 0, kBuf);
  queue.Copy(buf.As<void>(), d, kBuf);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint32 i = 0; i < kBuf / 4; ++i) ASSERT_EQ(buf.As<HSAuint32>()[i], i);
}

// ---- KFDSVMRangeTest.MigrateAccessInPlaceTest (32 MiB; upstream min(256 MiB, VRAM / 2)) ----

TEST_P(KfdtestSvmTest, AccessInPlaceRangeBroughtBackByTheCpuIsFilledBySdmaInSystemMemory) {
  constexpr HSAuint64 kBuf = 32 << 20;
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  SvmRange data(kBuf, node_);
  HSAuint32* d = data.As<HSAuint32>();
  const HSAuint64 before = Available(node_);
  ASSERT_EQ(SetOne(d, kBuf, HSA_SVM_ATTR_ACCESS_IN_PLACE, node_), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(PrefetchTo(d, kBuf, node_), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(Available(node_), before - kBuf);
  for (HSAuint32 i = 0; i < kBuf / 4; i += 1024) d[i] = i;
  EXPECT_EQ(Available(node_), before) << "every granule came back";
  queue.Fill(d, 0x55AAAA55, kBuf);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint32 i = 0; i < kBuf / 4; i += 1024) ASSERT_EQ(d[i], 0x55AAAA55u) << i;
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
}

// ---- KFDSVMRangeTest.MigrateGranularityTest (1024 pages; upstream 16384) ----

// Upstream counts the CPU faults in dmesg; here AVAILABLE_MEMORY shows each touch bringing back exactly one granule.
TEST_P(KfdtestSvmTest, EachCpuTouchBringsBackOneGranule) {
  constexpr HSAuint64 kPages = 1024;
  constexpr HSAuint64 kBuf = kPages * kPageBytes;
  SvmRange buf(kBuf, node_);
  SvmRange buf2(kBuf, node_);
  HSAuint32* p = buf.As<HSAuint32>();
  HSAuint32* p2 = buf2.As<HSAuint32>();
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint32 i = 0; i < kPages; ++i) p2[i * kPageBytes / 4] = i;
  const HSAuint64 before = Available(node_);
  for (int granularity = 10; granularity >= 0; --granularity) {
    SCOPED_TRACE(testing::Message() << "granularity " << granularity);
    ASSERT_EQ(PrefetchTo(p, kBuf, node_), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(SetOne(p, kBuf, HSA_SVM_ATTR_GRANULARITY, granularity), HSAKMT_STATUS_SUCCESS);
    ASSERT_EQ(Available(node_), before - kBuf);
    queue.Copy(p, p2, kBuf);
    ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
    // The granule around the touched page, aligned in the address space and cut at the range's ends (as
    // svm_migrate_to_ram picks it).
    const HSAuint64 granule = kPageBytes << granularity;
    const HSAuint64 start = reinterpret_cast<HSAuint64>(p);
    const HSAuint64 brought = std::min(start + kBuf, (start & ~(granule - 1)) + granule) - start;
    EXPECT_EQ(p[0], 0u);
    EXPECT_EQ(Available(node_), before - kBuf + brought) << "the first touch";
    for (HSAuint32 i = 0; i < kPages; ++i) ASSERT_EQ(p[i * kPageBytes / 4], i);
    EXPECT_EQ(Available(node_), before);
  }
}

// ---- KFDSVMRangeTest.MigrateLargeBufTest (64 MiB; upstream min(1 GiB, 3/4 of VRAM)) ----

TEST_P(KfdtestSvmTest, ReregisteringMemoryOnTheGpuMigratesItAndSdmaCopiesBothWays) {
  constexpr HSAuint64 kBuf = 64 << 20;
  auto fill = [](const SvmRange& r, HSAuint32 v) { std::fill_n(r.As<HSAuint32>(), r.size() / 4, v); };
  auto every_page_is = [](const SvmRange& r, HSAuint32 v) {
    for (HSAuint64 i = 0; i < r.size() / 4; i += 1024) {
      if (r.As<HSAuint32>()[i] != v) return testing::AssertionFailure() << "dword " << i << " is " << r.As<HSAuint32>()[i];
    }
    return testing::AssertionSuccess();
  };
  SvmRange sys(kBuf, node_);
  fill(sys, 1);
  SvmRange sys2(kBuf, node_);
  fill(sys2, 2);
  const HSAuint64 before = Available(node_);
  // The same memory registered again with the GPU as its location: its contents move to VRAM.
  SvmRange local(kBuf, node_, node_, sys.As<void>());
  EXPECT_EQ(Available(node_), before - kBuf);
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Copy(sys2.As<void>(), local.As<void>(), kBuf);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_TRUE(every_page_is(sys2, 1));
  fill(sys2, 3);
  queue.Copy(local.As<void>(), sys2.As<void>(), kBuf);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  // A granularity of 2^30 pages: one touch brings the whole range back.
  ASSERT_EQ(SetOne(sys.As<void>(), kBuf, HSA_SVM_ATTR_GRANULARITY, 30), HSAKMT_STATUS_SUCCESS);
  EXPECT_TRUE(every_page_is(sys, 3));
  EXPECT_EQ(Available(node_), before);
  fill(sys, 4);
  queue.Copy(sys2.As<void>(), local.As<void>(), kBuf);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_TRUE(every_page_is(sys2, 4));
}

// ---- KFDSVMRangeTest.MigratePolicyTest (1 MiB, as upstream) ----

TEST_P(KfdtestSvmTest, CpuChangesToARangeBackFromVramReachTheGpu) {
  constexpr HSAuint64 kBuf = 1 << 20;
  SvmRange data(kBuf, node_);
  SvmRange sys(kBuf, node_);
  HSAuint64* d = data.As<HSAuint64>();
  HSAuint64* b = sys.As<HSAuint64>();
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint64 i = 0; i < kBuf / 8; ++i) d[i] = i;
  ASSERT_EQ(PrefetchTo(b, kBuf, node_), HSAKMT_STATUS_SUCCESS);
  queue.Copy(b, d, kBuf);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint64 i = 0; i < kBuf / 8; ++i) {
    ASSERT_EQ(b[i], i);
    b[i] = i + 1;
  }
  queue.Copy(d, b, kBuf);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint64 i = 0; i < kBuf / 8; i += 512) ASSERT_EQ(d[i], i + 1);
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
}

// ---- KFDSVMRangeTest.MultiGPUMigrationTest / MultiGPUAccessInPlaceTest (1 MiB, as upstream) ----

// Both ranges given to (and prefetched to) every GPU in turn, then each GPU's SDMA copies one into the other.
void CopyOnEveryGpu(const std::vector<HSAuint32>& gpus, HSA_SVM_ATTR_TYPE access,
                    const std::function<SdmaQueue(HSAuint32)>& new_queue, HSAuint32 node) {
  constexpr HSAuint64 kBuf = 1 << 20;
  SvmRange sys(kBuf, node);
  SvmRange data(kBuf, node);
  HSAuint64* b = sys.As<HSAuint64>();
  HSAuint64* d = data.As<HSAuint64>();
  for (HSAuint64 i = 0; i < kBuf / 8; ++i) b[i] = i;
  for (HSAuint32 gpu : gpus) {
    EXPECT_EQ(SetOne(b, kBuf, access, gpu), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(PrefetchTo(b, kBuf, gpu), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(SetOne(d, kBuf, access, gpu), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(PrefetchTo(d, kBuf, gpu), HSAKMT_STATUS_SUCCESS);
  }
  for (HSAuint32 gpu : gpus) {
    SCOPED_TRACE(testing::Message() << "SDMA of node " << gpu);
    std::memset(d, 0, kBuf);
    SdmaQueue queue = new_queue(gpu);
    ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
    queue.Copy(d, b, kBuf);
    ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
    for (HSAuint64 i = 0; i < kBuf / 8; i += 512) ASSERT_EQ(d[i], i);
    EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
  }
}

TEST_P(KfdtestSvmTest, EveryGpuCopiesRangesMigratedBetweenGpus) {
  if (gpus_.size() < 2) GTEST_SKIP() << "kfdtest skips: at least two SVM GPUs needed (run the _2xmi250x variant)";
  CopyOnEveryGpu(gpus_, HSA_SVM_ATTR_ACCESS, [this](HSAuint32 n) { return NewSdmaQueue(n); }, node_);
}

TEST_P(KfdtestSvmTest, EveryGpuCopiesRangesItMayOnlyAccessInPlace) {
  if (gpus_.size() < 2) GTEST_SKIP() << "kfdtest skips: at least two SVM GPUs needed (run the _2xmi250x variant)";
  CopyOnEveryGpu(gpus_, HSA_SVM_ATTR_ACCESS_IN_PLACE, [this](HSAuint32 n) { return NewSdmaQueue(n); },
                 node_);
}

// ---- KFDSVMRangeTest.MultiThreadMigrationTest (16 MiB; upstream 128 MiB) ----

TEST_P(KfdtestSvmTest, MigrationsRacingGpuAndCpuAccessKeepTheData) {
  constexpr HSAuint64 kBuf = 16 << 20;
  SvmRange sys(kBuf, node_);
  SvmRange data(kBuf, node_);
  HSAuint64* b = sys.As<HSAuint64>();
  HSAuint64* d = data.As<HSAuint64>();
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  for (HSAuint64 i = 0; i < kBuf / 8; ++i) b[i] = i;
  for (int loop = 0; loop < 2; ++loop) {
    SCOPED_TRACE(testing::Message() << "loop " << loop);
    std::memset(d, 0, kBuf);
    // The GPU reads the range while another thread moves it to VRAM.
    queue.Copy(d, b, kBuf);
    std::atomic<HSAKMT_STATUS> prefetched{HSAKMT_STATUS_ERROR};
    std::thread gpu_side([&] { prefetched = PrefetchTo(b, kBuf, node_); });
    EXPECT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
    gpu_side.join();
    EXPECT_EQ(prefetched.load(), HSAKMT_STATUS_SUCCESS);
    for (HSAuint64 i = 0; i < kBuf / 8; i += 512) ASSERT_EQ(d[i], i);
    // The CPU reads it while this thread moves it back.
    std::atomic<bool> cpu_ok{true};
    std::thread cpu_side([&] {
      for (HSAuint64 i = 0; i < kBuf / 8; i += 512) {
        if (b[i] != i) cpu_ok = false;
      }
    });
    EXPECT_EQ(PrefetchTo(b, kBuf, 0), HSAKMT_STATUS_SUCCESS);
    cpu_side.join();
    EXPECT_TRUE(cpu_ok.load());
  }
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
}

// ---- KFDSVMRangeTest.MigrateFileBackedRangeTest ----

TEST_P(KfdtestSvmTest, SdmaFillOfAFileBackedRangeReachesTheFile) {
  char name[] = "/tmp/kfdtest-XXXXXX";
  const int fd = mkostemp(name, 0600);
  ASSERT_NE(fd, -1);
  std::vector<char> page(kPageBytes, 0x30);
  ASSERT_EQ(write(fd, page.data(), page.size()), static_cast<ssize_t>(page.size()));
  void* file = mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(file, MAP_FAILED);
  {
    // A shared mapping's pages are the file's: the range is mapped where it lies, whatever its location says.
    SvmRange range(kPageBytes, node_, node_, file);
    SdmaQueue queue = NewSdmaQueue(node_);
    ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
    queue.Fill(file, 0x33333333, kPageBytes);
    ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
  }
  ASSERT_EQ(munmap(file, kPageBytes), 0);
  ASSERT_EQ(close(fd), 0);
  const int again = open(name, O_RDONLY);
  ASSERT_NE(again, -1);
  ASSERT_EQ(read(again, page.data(), page.size()), static_cast<ssize_t>(page.size()));
  EXPECT_EQ(page[0], 0x33);
  EXPECT_EQ(page[kPageBytes - 1], 0x33);
  close(again);
  unlink(name);
}

// ---- KFDSVMRangeTest.PrefaultPartialRangeTest ----

TEST_P(KfdtestSvmTest, PrefetchOfPartlyTouchedMemoryKeepsTouchedPagesAndSdmaFillsTheRest) {
  constexpr HSAuint64 kBuf = 4 * kPageBytes;
  char* p = static_cast<char*>(Anonymous(kBuf));
  ASSERT_NE(p, nullptr);
  std::memset(p + kPageBytes, 0x2, kPageBytes);
  std::memset(p + 2 * kPageBytes, 0x3, kPageBytes);
  EXPECT_EQ(RegisterRange(node_, p, kBuf, 0, 0), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(PrefetchTo(p, kBuf, node_), HSAKMT_STATUS_SUCCESS);
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Fill(p, 0x01010101, kPageBytes);
  queue.Fill(p + 3 * kPageBytes, 0x04040404, kPageBytes);
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(p[i * kPageBytes], i + 1) << "page " << i;
  munmap(p, kBuf);
}

// ---- XNACK off vs on: a GPU touching a range it was given no access to (what BasicSystemMemTest's dispatch and
// MigratePolicyTest's notes rely on; ReadOnlyRangeTest's VM-fault event) ----

TEST_P(KfdtestSvmTest, GpuTouchOfARangeWithoutAccessFaultsOnlyWithXnackOff) {
  constexpr HSAuint64 kBuf = 4 * kPageBytes;
  char* p = static_cast<char*>(Anonymous(kBuf));
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x11, kBuf);
  // A range with a preferred location and no ACCESS for any GPU.
  ASSERT_EQ(SetOne(p, kBuf, HSA_SVM_ATTR_PREFERRED_LOC, 0), HSAKMT_STATUS_SUCCESS);
  HsaEvent* fault = NewEvent(HSA_EVENTTYPE_MEMORY, node_);
  ASSERT_NE(fault, nullptr);
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Fill(p + kPageBytes, 0x22222222, 256);
  if (xnack_) {
    // A retry fault: the kernel maps the range where it lies and the fill completes.
    ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(p[kPageBytes + 255], 0x22);
    EXPECT_EQ(p[kPageBytes + 256], 0x11);
    EXPECT_EQ(hsaKmtWaitOnEvent(fault, 0), HSAKMT_STATUS_WAIT_TIMEOUT) << "no VM fault";
  } else {
    // A VM fault: the queue stops, the MEMORY event names the page, the memory is untouched.
    EXPECT_EQ(queue.Run(1000), HSAKMT_STATUS_WAIT_TIMEOUT);
    ASSERT_EQ(hsaKmtWaitOnEvent(fault, 1000), HSAKMT_STATUS_SUCCESS);
    EXPECT_EQ(fault->EventData.EventType, HSA_EVENTTYPE_MEMORY);
    EXPECT_EQ(fault->EventData.EventData.MemoryAccessFault.VirtualAddress,
              reinterpret_cast<HSAuint64>(p + kPageBytes));
    EXPECT_EQ(fault->EventData.EventData.MemoryAccessFault.NodeId, node_);
    EXPECT_EQ(p[kPageBytes], 0x11);
  }
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
  munmap(p, kBuf);
}

TEST_P(KfdtestSvmTest, GpuTouchOfANoAccessRangeFaultsEvenWithXnack) {
  constexpr HSAuint64 kBuf = 2 * kPageBytes;
  char* p = static_cast<char*>(Anonymous(kBuf));
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(SetOne(p, kBuf, HSA_SVM_ATTR_NO_ACCESS, node_), HSAKMT_STATUS_SUCCESS);
  HsaEvent* fault = NewEvent(HSA_EVENTTYPE_MEMORY, node_);
  ASSERT_NE(fault, nullptr);
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Fill(p, 0x22222222, 64);
  EXPECT_EQ(queue.Run(1000), HSAKMT_STATUS_WAIT_TIMEOUT);
  ASSERT_EQ(hsaKmtWaitOnEvent(fault, 1000), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(fault->EventData.EventData.MemoryAccessFault.VirtualAddress, reinterpret_cast<HSAuint64>(p));
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
  munmap(p, kBuf);
}

// ---- KFDSVMRangeTest.EvictSystemRangeTest, its SDMA half (the CopyDword dispatches are out) ----

// Queues made before a fork that turns the range's pages copy-on-write; the parent's store then gives it a page of
// its own, which the GPU must reach (the kernel's MMU notifier remaps it), not the copy the child keeps. Upstream
// uses the stack and a child spinning without calls; here the range is mmap'd memory, so the child may sleep.
TEST_P(KfdtestSvmTest, SdmaWritesThePageTheParentOwnsAfterForkMadeItCopyOnWrite) {
  SvmRange range(kPageBytes, node_);
  auto* word = range.As<HSAuint32>();
  SdmaQueue queue = NewSdmaQueue(node_);
  ASSERT_EQ(queue.status(), HSAKMT_STATUS_SUCCESS);
  queue.Place(sdma::MakeWrite<1>(reinterpret_cast<uint64_t>(word), {0x12345678u}));
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(*word, 0x12345678u);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    for (;;) pause();  // until the parent's SIGTERM
  }
  *word = 0xdeadbeef;  // copy-on-write: the parent's own page from here on
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);

  queue.Place(sdma::MakeWrite<1>(reinterpret_cast<uint64_t>(word), {0xD0BED0BEu}));
  ASSERT_EQ(queue.Run(), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(*word, 0xD0BED0BEu);
  EXPECT_EQ(queue.Destroy(), HSAKMT_STATUS_SUCCESS);
}

// ---- KFDSVMEvictTest.BasicTest (one process, 16 × 64 MiB; upstream forks 4 processes holding VRAM + up to RAM/3
// between them) ----

// The kB this process holds of shared memory (the simulator's VRAM page files are memfds it maps).
HSAuint64 ResidentSharedKiB() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return 0;
  char line[256];
  HSAuint64 kib = 0;
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::sscanf(line, "RssShmem: %lu kB", &kib) == 1) break;
  }
  std::fclose(status);
  return kib;
}

// Upstream's ranges are registered with the GPU as location and never touched; VRAM + RAM/3 of them must all
// register. Migrating memory nobody wrote must then cost VRAM, not host memory, or the host runs out first.
TEST_P(KfdtestSvmTest, RangesNeverTouchedMoveToVramWithoutTakingHostMemory) {
  constexpr HSAuint64 kBuf = 64 << 20;
  constexpr int kCount = 16;
  const HSAuint64 before = Available(node_);
  const HSAuint64 shared_before = ResidentSharedKiB();
  std::vector<void*> bufs;
  for (int i = 0; i < kCount; ++i) {
    void* p = Anonymous(kBuf);
    ASSERT_NE(p, nullptr);
    bufs.push_back(p);
    ASSERT_EQ(RegisterRange(node_, p, kBuf, node_, 0), HSAKMT_STATUS_SUCCESS) << "range " << i;
  }
  EXPECT_EQ(Available(node_), before - kCount * kBuf) << "all of them live in VRAM";
  EXPECT_LT(ResidentSharedKiB(), shared_before + (kBuf >> 10))
      << "1 GiB of zeroes in VRAM took host memory";
  // Still zeroes, and the CPU brings one back on a touch.
  EXPECT_EQ(static_cast<char*>(bufs[3])[kBuf - 1], 0);
  for (void* p : bufs) munmap(p, kBuf);
}

// kfdtest's TEST_P values: XNACK off (0) and on (1).
INSTANTIATE_TEST_SUITE_P(Xnack, KfdtestSvmTest, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int>& info) { return info.param ? "On" : "Off"; });
INSTANTIATE_TEST_SUITE_P(Xnack, KfdtestSvmSplitTest, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int>& info) { return info.param ? "On" : "Off"; });

}  // namespace
