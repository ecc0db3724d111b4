// Conformance scenarios after kfdtest (libhsakmt/tests/kfdtest: KFDMemoryTest, KFDQMTest, KFDEventTest,
// KFDExceptionTest), written against this thunk's C++ API and checked against the simulated kernel's own
// books (Simulator::Snapshot). Each test names the kfdtest behaviour it follows; the code is ours.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/events.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"
#include "thunk/queues.h"

namespace hipmem::thunk {
namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;
using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpuNode(1);
constexpr MemFlags kVram = MemFlags::kNonPaged | MemFlags::kCoarseGrain | MemFlags::kNoSubstitute;
constexpr MemFlags kHostVisible = MemFlags::kNonPaged | MemFlags::kHostAccess;

std::unique_ptr<Kfd> OpenOn(const std::shared_ptr<SimMachine>& machine) {
  absl::StatusOr<std::unique_ptr<KfdDevice>> device = OpenSimKfdDevice(machine);
  EXPECT_THAT(device, IsOk());
  if (!device.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Kfd>> kfd = Kfd::Open(*std::move(device));
  EXPECT_THAT(kfd, IsOk());
  return kfd.ok() ? *std::move(kfd) : nullptr;
}

class KfdConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override { UseMachine(kfd_sim::DefaultTopology()); }

  void UseMachine(const kfd_sim::Topology& topology) {
    kfd_.reset();
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(topology));
    kfd_ = OpenOn(machine_);
    ASSERT_NE(kfd_, nullptr);
  }

  kfd_sim::SimSnapshot Snapshot() const { return machine_->simulator().Snapshot(); }

  // Host-visible system memory mapped on the GPU (kfdtest's HsaMemoryBuffer(isLocal = false)).
  char* HostBuffer(Bytes size) {
    absl::StatusOr<DeviceAddress> a = Unowned(kfd_->AllocMemory(kCpuNode, size, kHostVisible));
    EXPECT_THAT(a, IsOk());
    if (!a.ok()) return nullptr;
    EXPECT_THAT(kfd_->MapMemoryToGpu(*a), IsOk());
    return static_cast<char*>(a->ToPointer());
  }

  // An SDMA queue with a completion event, as kfdtest's SDMAQueue + its PM4/SDMA fence helpers.
  struct Sdma {
    char* ring;
    Queue queue;
    Event done;
    uint64_t wptr = 0;

    template <typename Packet>
    void Push(const Packet& p) {
      for (size_t i = 0; i < sizeof(p); i += 4) std::memcpy(ring + (wptr + i) % 4096, reinterpret_cast<const char*>(&p) + i, 4);
      wptr += sizeof(p);
    }
    // Writes the event into its mailbox and traps, rings the doorbell, and waits for the event.
    absl::Status SubmitAndWait() {
      Push(sdma::MakeFence(reinterpret_cast<uint64_t>(done.handle().mailbox), done.handle().trigger_data));
      Push(sdma::MakeTrap(done.handle().trigger_data));
      queue.RingDoorbell(wptr);
      return done.Wait(absl::Seconds(10)).status();
    }
  };
  std::unique_ptr<Sdma> NewSdma() {
    char* ring = HostBuffer(Bytes::KiB(4));
    absl::StatusOr<Queue> queue = Queue::Create(
        *kfd_, QueueSpec{.node = kGpuNode, .type = QueueType::kSdma, .ring = DeviceAddress::FromPointer(ring),
                         .ring_size = Bytes::KiB(4)});
    EXPECT_THAT(queue, IsOk());
    absl::StatusOr<Event> done = Event::Create(*kfd_, EventDescriptor{.type = EventType::kSignal, .node = kGpuNode});
    EXPECT_THAT(done, IsOk());
    if (!queue.ok() || !done.ok()) return nullptr;
    return std::unique_ptr<Sdma>(new Sdma{ring, *std::move(queue), *std::move(done)});
  }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> kfd_;
};

// KFDMemoryTest.MemoryAlloc / MapUnmapToNodes: allocate, map, unmap, free; the kernel's books agree at every
// step and AVAILABLE_MEMORY comes back to where it started.
TEST_F(KfdConformanceTest, AllocMapUnmapFreeKeepsTheKernelsBooks) {
  ASSERT_OK_AND_ASSIGN(const Bytes before, kfd_->AvailableMemory(kGpuNode));
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(4), kVram)));
  EXPECT_EQ(*kfd_->AvailableMemory(kGpuNode), before - Bytes::MiB(4));
  ASSERT_THAT(kfd_->MapMemoryToGpu(vram), IsOk());
  kfd_sim::SimSnapshot s = Snapshot();
  ASSERT_EQ(s.processes.size(), 1u);
  const auto bo = std::find_if(s.processes[0].bos.begin(), s.processes[0].bos.end(),
                               [&](const kfd_sim::SimBo& b) { return b.va == vram; });
  ASSERT_NE(bo, s.processes[0].bos.end());
  EXPECT_EQ(bo->mapped_gpu_ids.size(), 1u);
  ASSERT_THAT(kfd_->UnmapMemoryFromGpu(vram), IsOk());
  ASSERT_THAT(kfd_->FreeMemory(vram), IsOk());
  EXPECT_EQ(*kfd_->AvailableMemory(kGpuNode), before);
  EXPECT_EQ(Snapshot().gpus[0].vram_used, Bytes(0));
}

// KFDMemoryTest.ZeroMemorySizeAlloc / InvalidMemoryPointerAlloc, and a double free.
TEST_F(KfdConformanceTest, ZeroSizeAndDoubleFreeAreRefused) {
  EXPECT_EQ(ToHsakmtStatus(Unowned(kfd_->AllocMemory(kGpuNode, Bytes(0), kVram)).status()), HSAKMT_STATUS_INVALID_PARAMETER);
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram)));
  ASSERT_THAT(kfd_->FreeMemory(vram), IsOk());
  // hsakmt_fmm_release with the SVM API: an address of no allocation answers SUCCESS and frees nothing.
  EXPECT_EQ(ToHsakmtStatus(kfd_->FreeMemory(vram)), HSAKMT_STATUS_SUCCESS);
}

// The kernel side of a double free and of an unmap of unmapped memory: the thunk's records are bypassed and
// the raw ioctls meet the kernel's errnos.
TEST_F(KfdConformanceTest, KernelRefusesDoubleFreeAndUnmapOfUnmapped) {
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram)));
  const uint64_t handle = Snapshot().processes[0].bos.back().handle;
  uint32_t gpu_id = kfd_->Node(kGpuNode).value()->gpu_id->raw();
  kfd_uapi::UnmapMemoryFromGpuArgs unmap{};
  unmap.handle = handle;
  unmap.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu_id);
  unmap.n_devices = 1;
  EXPECT_THAT(Ioctl(kfd_->device(), kfd_uapi::kUnmapMemoryFromGpu, unmap), StatusIs(absl::StatusCode::kInvalidArgument))
      << "never mapped: -EINVAL";
  kfd_uapi::FreeMemoryOfGpuArgs free_args{handle};
  EXPECT_THAT(Ioctl(kfd_->device(), kfd_uapi::kFreeMemoryOfGpu, free_args), IsOk());
  EXPECT_THAT(Ioctl(kfd_->device(), kfd_uapi::kFreeMemoryOfGpu, free_args), StatusIs(absl::StatusCode::kInvalidArgument))
      << "double free: -EINVAL";
  (void)vram;  // the thunk still lists it; closing the process must not trip over the kernel's refusal
}

// KFDMemoryTest.MemoryRegister: a stack buffer registered, mapped, reached by an SDMA copy, deregistered.
TEST_F(KfdConformanceTest, RegisteredHostMemoryIsReachableByTheGpuUntilDeregistered) {
  alignas(4096) char stack[8192];
  std::memset(stack, 0x3c, sizeof(stack));
  ASSERT_OK_AND_ASSIGN(const DeviceAddress gpu_va, Unowned(kfd_->RegisterMemory(stack, Bytes(sizeof(stack)))));
  ASSERT_THAT(kfd_->MapMemoryToGpu(DeviceAddress::FromPointer(stack)), IsOk());
  char* dst = HostBuffer(Bytes::KiB(8));
  std::unique_ptr<Sdma> q = NewSdma();
  ASSERT_NE(q, nullptr);
  q->Push(sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), gpu_va.raw(), sizeof(stack)));
  ASSERT_THAT(q->SubmitAndWait(), IsOk());
  EXPECT_EQ(dst[0], 0x3c);
  EXPECT_EQ(dst[sizeof(stack) - 1], 0x3c);
  EXPECT_EQ(kfd_->QueryPointerInfo(stack).type, PointerType::kRegisteredUser);
  ASSERT_THAT(kfd_->DeregisterMemory(stack), IsOk());
  EXPECT_EQ(kfd_->QueryPointerInfo(stack).type, PointerType::kUnknown);
  EXPECT_EQ(ToHsakmtStatus(kfd_->DeregisterMemory(stack)), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}

// KFDMemoryTest.CheckZeroInitializationVram: fresh VRAM reads zero, also where another allocation wrote
// before it was freed (the kernel wipes VRAM on release). Read back by the SDMA engine, not the CPU.
TEST_F(KfdConformanceTest, FreshVramReadsZeroEvenAfterReuse) {
  std::unique_ptr<Sdma> q = NewSdma();
  ASSERT_NE(q, nullptr);
  char* host = HostBuffer(Bytes::MiB(1));
  for (int round = 0; round < 2; ++round) {
    ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(1), kVram)));
    ASSERT_THAT(kfd_->MapMemoryToGpu(vram), IsOk());
    std::memset(host, 0x77, Bytes::MiB(1).raw());
    q->Push(sdma::MakeCopy(reinterpret_cast<uint64_t>(host), vram.raw(), Bytes::MiB(1).raw()));
    ASSERT_THAT(q->SubmitAndWait(), IsOk());
    EXPECT_TRUE(std::all_of(host, host + Bytes::MiB(1).raw(), [](char c) { return c == 0; })) << "round " << round;
    q->Push(sdma::MakeFill(vram.raw(), 0xdeadbeef, Bytes::MiB(1).raw()));  // dirty it for the next round
    ASSERT_THAT(q->SubmitAndWait(), IsOk());
    ASSERT_THAT(kfd_->FreeMemory(vram), IsOk());
  }
}

// Two processes on one machine: each has its own handles and page tables.
TEST_F(KfdConformanceTest, TwoProcessesAreIsolated) {
  std::unique_ptr<Kfd> other = OpenOn(machine_);
  ASSERT_NE(other, nullptr);
  ASSERT_OK_AND_ASSIGN(const DeviceAddress mine, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram)));
  ASSERT_THAT(kfd_->MapMemoryToGpu(mine), IsOk());
  const kfd_sim::SimSnapshot s = Snapshot();
  ASSERT_EQ(s.processes.size(), 2u);
  const uint64_t my_handle = s.processes[0].bos.back().handle;
  kfd_uapi::FreeMemoryOfGpuArgs steal{my_handle};
  EXPECT_THAT(Ioctl(other->device(), kfd_uapi::kFreeMemoryOfGpu, steal), StatusIs(absl::StatusCode::kInvalidArgument))
      << "another process's handle is unknown here";
  // Not its allocation: SUCCESS and nothing freed (hsakmt_fmm_release with the SVM API); the mapping below stays.
  EXPECT_EQ(ToHsakmtStatus(other->FreeMemory(mine)), HSAKMT_STATUS_SUCCESS);
  const uint32_t gpu_id = kfd_->Node(kGpuNode).value()->gpu_id->raw();
  EXPECT_TRUE(SimulatedFile(kfd_->device())->IsMapped(gpu_id, mine, Bytes::KiB(64)));
  EXPECT_FALSE(SimulatedFile(other->device())->IsMapped(gpu_id, mine, Bytes::KiB(64)));
  other.reset();
  EXPECT_EQ(Snapshot().processes.size(), 1u) << "close() ends the process";
}

// KFDEventTest: a wait on an event nobody signals times out.
TEST_F(KfdConformanceTest, EventWaitTimesOut) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(*kfd_, EventDescriptor{.type = EventType::kSignal, .node = kGpuNode}));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ToHsakmtStatus(event.Wait(absl::Milliseconds(30)).status()), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
}

// KFDQMTest.SdmaConcurrentCopies: two SDMA queues copy and fill at the same time.
TEST_F(KfdConformanceTest, TwoSdmaQueuesCopyAndFillConcurrently) {
  std::unique_ptr<Sdma> a = NewSdma();
  std::unique_ptr<Sdma> b = NewSdma();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const Bytes size = Bytes::MiB(8);
  char* src = HostBuffer(size);
  char* dst = HostBuffer(size);
  char* filled = HostBuffer(size);
  for (size_t i = 0; i < size.raw(); ++i) src[i] = static_cast<char>(i % 253);
  a->Push(sdma::MakeCopy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), size.raw()));
  b->Push(sdma::MakeFill(reinterpret_cast<uint64_t>(filled), 0x01010101, size.raw()));
  std::thread other([&] { EXPECT_THAT(b->SubmitAndWait(), IsOk()); });
  EXPECT_THAT(a->SubmitAndWait(), IsOk());
  other.join();
  EXPECT_EQ(std::memcmp(dst, src, size.raw()), 0);
  EXPECT_TRUE(std::all_of(filled, filled + size.raw(), [](char c) { return c == 1; }));
}

// KFDExceptionTest.AddressFault: an SDMA access to an unmapped VA raises a memory exception event carrying
// the faulting page, and the queue stops.
TEST_F(KfdConformanceTest, SdmaAccessToUnmappedMemoryRaisesAMemoryException) {
  std::unique_ptr<Sdma> q = NewSdma();
  ASSERT_NE(q, nullptr);
  ASSERT_OK_AND_ASSIGN(Event fault, Event::Create(*kfd_, EventDescriptor{.type = EventType::kMemory, .node = kGpuNode}));
  char* src = HostBuffer(Bytes::KiB(4));
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram)));  // not mapped
  q->Push(sdma::MakeCopy(vram.raw() + 0x2100, reinterpret_cast<uint64_t>(src), 4096));
  q->queue.RingDoorbell(q->wptr);
  ASSERT_OK_AND_ASSIGN(const WaitResult result, fault.Wait(absl::Seconds(10)));
  ASSERT_EQ(result.memory_faults.size(), 1u);
  ASSERT_TRUE(result.memory_faults[0].has_value());
  EXPECT_EQ(result.memory_faults[0]->address, vram + Bytes(0x2000));
  EXPECT_EQ(result.memory_faults[0]->node, kGpuNode);
  EXPECT_TRUE(result.memory_faults[0]->not_present);
  EXPECT_TRUE(Snapshot().processes[0].queues.at(0).halted);
}

// KFDMemoryTest.MemoryAllocAll: allocate until the kernel says no; the refusal is NO_MEMORY, nothing leaks,
// and freeing everything brings AVAILABLE_MEMORY back.
TEST_F(KfdConformanceTest, ExhaustionIsNoMemoryAndAccountingSurvives) {
  kfd_sim::Topology small = kfd_sim::DefaultTopology();
  small.gpus[0].vram_bytes = Bytes::MiB(64).raw();
  UseMachine(small);
  ASSERT_OK_AND_ASSIGN(const Bytes before, kfd_->AvailableMemory(kGpuNode));
  std::vector<DeviceAddress> held;
  absl::Status refused = absl::OkStatus();
  for (int i = 0; i < 100 && refused.ok(); ++i) {
    absl::StatusOr<DeviceAddress> a = Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(5), kVram));
    if (a.ok()) {
      held.push_back(*a);
    } else {
      refused = a.status();
    }
  }
  EXPECT_EQ(held.size(), 12u) << "64 MiB holds twelve 5 MiB buffers";
  EXPECT_EQ(ToHsakmtStatus(refused), HSAKMT_STATUS_NO_MEMORY) << refused;
  EXPECT_EQ(*kfd_->AvailableMemory(kGpuNode), before - Bytes::MiB(60));
  for (DeviceAddress a : held) ASSERT_THAT(kfd_->FreeMemory(a), IsOk());
  EXPECT_EQ(*kfd_->AvailableMemory(kGpuNode), before);
}

// Closing a process releases everything it held: buffers, mappings, queues and their SDMA slots.
TEST_F(KfdConformanceTest, CloseReleasesBuffersQueuesAndSlots) {
  // A queue nobody destroys: created with the raw ioctl, so no owner object will clean it up.
  char* ring = HostBuffer(Bytes::KiB(4));
  char* pointers = HostBuffer(Bytes::KiB(4));
  kfd_uapi::CreateQueueArgs args{};
  args.ring_base_address = reinterpret_cast<uint64_t>(ring);
  args.read_pointer_address = reinterpret_cast<uint64_t>(pointers);
  args.write_pointer_address = reinterpret_cast<uint64_t>(pointers) + 8;
  args.ring_size = 4096;
  args.gpu_id = kfd_->Node(kGpuNode).value()->gpu_id->raw();
  args.queue_type = static_cast<uint32_t>(kfd_uapi::QueueType::kSdma);
  args.queue_percentage = 100;
  ASSERT_THAT(Ioctl(kfd_->device(), kfd_uapi::kCreateQueue, args), IsOk());
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::MiB(2), kVram)));
  ASSERT_THAT(kfd_->MapMemoryToGpu(vram), IsOk());
  EXPECT_EQ(Snapshot().processes[0].queues.size(), 1u);
  kfd_.reset();
  const kfd_sim::SimSnapshot s = Snapshot();
  EXPECT_TRUE(s.processes.empty());
  EXPECT_EQ(s.gpus[0].vram_used, Bytes(0));
  EXPECT_EQ(s.system_used, Bytes(0));
}

using KfdConformanceDeathTest = KfdConformanceTest;

// A CPU touch of VRAM the CPU cannot see (no large BAR) faults, as on hardware.
TEST_F(KfdConformanceDeathTest, CpuTouchOfPrivateVramFaults) {
  absl::StatusOr<kfd_sim::Topology> topology = kfd_sim::PresetTopology("rx7900xtx");
  ASSERT_THAT(topology, IsOk());
  UseMachine(*topology);
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram)));
  EXPECT_EQ(ToHsakmtStatus(Unowned(kfd_->AllocMemory(kGpuNode, Bytes::KiB(64), kVram | MemFlags::kHostAccess)).status()),
            HSAKMT_STATUS_NO_MEMORY)
      << "the kernel refuses host-visible VRAM on a small-BAR GPU";
  EXPECT_DEATH(*static_cast<volatile char*>(vram.ToPointer()) = 1, "");
}

}  // namespace
}  // namespace hipmem::thunk
