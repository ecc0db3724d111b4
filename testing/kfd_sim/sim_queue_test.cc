// User-mode queues on the simulator, end to end through the ioctl ABI: CREATE/UPDATE/DESTROY_QUEUE, the
// doorbell slice mapped through /dev/kfd, and the SDMA engine that runs the ring through the GPU page
// table (kfdtest's SDMA copy/fill and VM-fault scenarios, written against the simulator's raw ABI).
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/doorbell.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/blit_kernels.h"
#include "gpu_abi/sdma_packets.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace aql = ::hipmem::gpu_abi::aql;
namespace blit = ::hipmem::gpu_abi::blit;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Free;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::hipmem_testing::Reservation;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr AllocMemFlags kGtt = hipmem_testing::kQueueGttFlags;
constexpr AllocMemFlags kPublicVram = hipmem_testing::kVramFlags | AllocMemFlags::kPublic;
using ::hipmem_testing::kDoorbellFlags;
using ::hipmem_testing::kDoorbellSlice;
constexpr uint32_t kRingBytes = 4096;

// One buffer: GPU-mapped at `va`, CPU-mapped (through the render node) at `cpu`.
struct Buffer {
  uint64_t handle = 0;
  uint64_t va = 0;
  char* cpu = nullptr;
  std::unique_ptr<Reservation> reservation;
};

class SimQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(DefaultTopology()); }

  void Open(Topology topology) {
    file_.reset();
    sim_ = MakeSimulator(std::move(topology));
    file_ = sim_->Open();
    fds_ = AcquireAllVms(*sim_, *file_);
    gpu_ = sim_->topology().gpus[0].gpu_id;
  }

  // Allocates, GPU-maps and CPU-maps a buffer at the next free test VA.
  Buffer NewBuffer(Bytes size, AllocMemFlags flags) {
    Buffer b;
    b.va = next_va_;
    next_va_ += size.raw() + Bytes::MiB(2).raw();
    const AllocResult r = Alloc(*file_, gpu_, b.va, size, flags);
    EXPECT_EQ(r.ret, 0);
    b.handle = r.handle;
    EXPECT_EQ(Map(*file_, b.handle, {gpu_}).ret, 0);
    b.reservation = std::make_unique<Reservation>(size);
    EXPECT_EQ(file_->MmapBo(fds_[0], b.reservation->addr(), size.raw(), PROT_READ | PROT_WRITE, r.mmap_offset), 0);
    b.cpu = b.reservation->bytes();
    return b;
  }

  // An AQL ring of kRingBytes with every packet slot invalid, as ROCr hands a fresh queue to the CP.
  Buffer NewAqlRing() {
    Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
    for (uint32_t slot = 0; slot < kRingBytes / aql::kPacketBytes; ++slot) {
      aql::InvalidateSlot(ring.cpu + slot * aql::kPacketBytes);
    }
    return ring;
  }

  // The doorbell slice, allocated as libhsakmt does (a DOORBELL buffer, GPU-mapped) and CPU-mapped through
  // /dev/kfd at the offset the allocation returned.
  void MapDoorbells() {
    const AllocResult r = Alloc(*file_, gpu_, next_va_, kDoorbellSlice, kDoorbellFlags);
    ASSERT_EQ(r.ret, 0);
    next_va_ += Bytes::MiB(2).raw();
    EXPECT_EQ(r.mmap_offset, uapi::kMmapTypeDoorbell | (uint64_t{gpu_} << uapi::kMmapGpuIdShift));
    EXPECT_EQ(Map(*file_, r.handle, {gpu_}).ret, 0);
    doorbells_ = std::make_unique<Reservation>(kDoorbellSlice);
    ASSERT_EQ(file_->MmapKfd(doorbells_->addr(), kDoorbellSlice.raw(), PROT_READ | PROT_WRITE, r.mmap_offset), 0);
  }

  uapi::CreateQueueArgs SdmaQueueArgs(const Buffer& ring, const Buffer& pointers,
                                      uapi::QueueType type = uapi::QueueType::kSdma) {
    uapi::CreateQueueArgs args{};
    args.ring_base_address = ring.va;
    args.write_pointer_address = pointers.va + 8;
    args.read_pointer_address = pointers.va;
    args.ring_size = kRingBytes;
    args.gpu_id = gpu_;
    args.queue_type = static_cast<uint32_t>(type);
    args.queue_percentage = 100;
    args.queue_priority = 7;
    return args;
  }

  // Appends a packet to the ring (the CPU's view) at the producer's write pointer.
  template <typename Packet>
  void Push(const Buffer& ring, const Packet& packet) {
    for (size_t i = 0; i < sizeof(Packet); i += 4) {
      std::memcpy(ring.cpu + (wptr_ + i) % kRingBytes, reinterpret_cast<const char*>(&packet) + i, 4);
    }
    wptr_ += sizeof(Packet);
  }

  void Ring(uint64_t doorbell_offset) {
    auto* word = reinterpret_cast<uint64_t*>(doorbells_->bytes() + (doorbell_offset & (kDoorbellSlice.raw() - 1)));
    RingDoorbell(word, wptr_);
  }

  uint32_t CreateEvent(uapi::EventType type) {
    uapi::CreateEventArgs args{};
    args.event_type = uapi::ToRaw(type);
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateEvent, args), 0);
    return args.event_id;
  }

  // A signal event whose slot lives in an event page this process handed over (the dGPU path), so that a
  // queue can write the slot before it traps, as ROCr's SDMA signal sequence does.
  struct SignalEvent {
    uint32_t id;
    uint64_t slot_va;
  };
  SignalEvent CreateSignalEventWithPage() {
    const Buffer page = NewBuffer(Bytes(uint64_t{uapi::kSignalEventLimit} * 8), kGtt);
    uapi::CreateEventArgs args{};
    args.event_type = uapi::ToRaw(uapi::EventType::kSignal);
    args.event_page_offset = page.handle;
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateEvent, args), 0);
    return SignalEvent{args.event_id, page.va + uint64_t{args.event_slot_index} * 8};
  }

  // What an SDMA queue runs to signal `event`: write the event id into its slot, then raise the trap.
  void PushSignal(const Buffer& ring, const SignalEvent& event) {
    Push(ring, sdma::MakeFence(event.slot_va, event.id));
    Push(ring, sdma::MakeTrap(event.id));
  }

  uapi::EventData WaitFor(uint32_t event_id) { return hipmem_testing::WaitForEvent(*file_, event_id); }


  std::string WaitForLogLine(std::initializer_list<std::string> parts) { return hipmem_testing::WaitForLogLine(*sim_, parts); }


  SimQueue OnlyQueue() { return hipmem_testing::OnlyQueue(*sim_); }


  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
  std::vector<int> fds_;
  uint32_t gpu_ = 0;
  uint64_t next_va_ = kTestVa;
  std::unique_ptr<Reservation> doorbells_;
  uint64_t wptr_ = 0;
};

TEST_F(SimQueueTest, SdmaCopyFillFenceAndTrapRunThroughTheQueue) {
  MapDoorbells();
  const Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer src = NewBuffer(Bytes::KiB(64), kGtt);
  const Buffer dst = NewBuffer(Bytes::KiB(64), kPublicVram);
  for (size_t i = 0; i < Bytes::KiB(64).raw(); ++i) src.cpu[i] = static_cast<char>(i * 13 + 1);
  const SignalEvent event = CreateSignalEventWithPage();

  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
  EXPECT_EQ(args.doorbell_offset & ~(kDoorbellSlice.raw() - 1),
            uapi::kMmapTypeDoorbell | (uint64_t{gpu_} << uapi::kMmapGpuIdShift));

  const uint64_t fence_va = pointers.va + 64;
  Push(ring, sdma::MakeCopy(dst.va, src.va, Bytes::KiB(60).raw()));
  Push(ring, sdma::MakeFill(dst.va + Bytes::KiB(60).raw(), 0x5a5a5a5a, Bytes::KiB(4).raw()));
  Push(ring, sdma::MakeFence(fence_va, 0xF00D));
  PushSignal(ring, event);
  Ring(args.doorbell_offset);
  WaitFor(event.id);

  EXPECT_EQ(std::memcmp(dst.cpu, src.cpu, Bytes::KiB(60).raw()), 0);
  for (size_t i = Bytes::KiB(60).raw(); i < Bytes::KiB(64).raw(); ++i) ASSERT_EQ(dst.cpu[i], 0x5a) << i;
  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(pointers.cpu + 64)).load(), 0xF00Du);
  // The read pointer is written back after the trap that woke us: it reaches the end soon after.
  auto* rptr = reinterpret_cast<uint64_t*>(pointers.cpu);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::atomic_ref<uint64_t>(*rptr).load() != wptr_ && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(std::atomic_ref<uint64_t>(*rptr).load(), wptr_) << "the engine writes its read pointer back";
  const SimQueue q = OnlyQueue();
  EXPECT_TRUE(q.active);
  EXPECT_FALSE(q.halted);
  EXPECT_EQ(q.read_pointer, wptr_);
}

TEST_F(SimQueueTest, UnmappedAccessIsAVmFaultThatHaltsTheQueueAndSignalsMemoryEvents) {
  MapDoorbells();
  const Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer src = NewBuffer(Bytes::KiB(4), kGtt);
  const uint32_t memory_event = CreateEvent(uapi::EventType::kMemory);
  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);

  const uint64_t unmapped = uint64_t{1} << 40;
  Push(ring, sdma::MakeCopy(unmapped + 0x123, src.va, 64));
  Push(ring, sdma::MakeFence(pointers.va + 64, 1));
  Ring(args.doorbell_offset);
  const uapi::EventData data = WaitFor(memory_event);

  EXPECT_EQ(+data.memory_exception_data.gpu_id, gpu_);
  EXPECT_EQ(+data.memory_exception_data.va, unmapped) << "the faulting page";
  EXPECT_EQ(+data.memory_exception_data.failure.NotPresent, 1u);
  EXPECT_TRUE(OnlyQueue().halted);
  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(pointers.cpu + 64)).load(), 0u)
      << "nothing after the fault runs";
  // The kernel log names the fault's process, GPU, address and queue. It is written before the memory event
  // is set, so it is there once the waiter wakes.
  std::vector<SimLogLine> faults;
  for (const SimLogLine& line : sim_->Log()) {
    if (line.text.find("VM fault") != std::string::npos) faults.push_back(line);
  }
  ASSERT_EQ(faults.size(), 1u) << sim_->Dmesg();
  EXPECT_EQ(faults[0].level, SimLogLevel::kError);
  EXPECT_THAT(faults[0].text,
              ::testing::AllOf(::testing::HasSubstr(absl::StrCat("gpu_id 0x", absl::Hex(gpu_))),
                               ::testing::HasSubstr("process 1"), ::testing::HasSubstr("from queue 0"),
                               ::testing::HasSubstr(absl::StrCat("address 0x", absl::Hex(unmapped + 0x123)))));
}

TEST_F(SimQueueTest, QueueCreateUpdateAndDestroyAreInTheKernelLog) {
  const Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
  const std::string gpu = absl::StrCat("gpu_id 0x", absl::Hex(gpu_));
  const std::string created =
      WaitForLogLine({"process 1: ", gpu, "created SDMA queue 0", absl::StrCat("ring 0x", absl::Hex(ring.va))});
  EXPECT_THAT(created, ::testing::HasSubstr("100%, priority 7, active"));

  uapi::UpdateQueueArgs update{.ring_base_address = ring.va, .queue_id = args.queue_id, .ring_size = kRingBytes,
                               .queue_percentage = 0, .queue_priority = 3};
  ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, update), 0);
  WaitForLogLine({"updated SDMA queue 0", "0%, priority 3, inactive"});
  uapi::DestroyQueueArgs destroy{.queue_id = args.queue_id, .pad = 0};
  ASSERT_EQ(Ioctl(*file_, uapi::kDestroyQueue, destroy), 0);
  WaitForLogLine({"process 1: ", gpu, "destroyed SDMA queue 0 at read pointer"});
}

TEST_F(SimQueueTest, AnAqlQueueErrorIsInTheKernelLog) {
  MapDoorbells();
  const Buffer ring = NewAqlRing();
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer code = NewBuffer(Bytes::KiB(4), kGtt);  // all zero: no built-in kernel's descriptor
  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers, uapi::QueueType::kComputeAql);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
  WaitForLogLine({"created COMPUTE_AQL queue 0"});
  aql::WritePacket(ring.cpu, blit::MakeDispatch(code.va, code.va + 64, 4096));
  auto* doorbell = reinterpret_cast<uint64_t*>(doorbells_->bytes() + (args.doorbell_offset & (kDoorbellSlice.raw() - 1)));
  RingDoorbell(doorbell, 0);
  const std::string line = WaitForLogLine({"process 1: ", "aql queue 0", "halted on a queue error"});
  EXPECT_THAT(line, ::testing::HasSubstr(QueueErrorName(QueueError::kInvalidKernelObject)));
}

TEST_F(SimQueueTest, AqlQueueRunsABlitKernelAndItsCompletionSignalRaisesTheEvent) {
  MapDoorbells();
  const Buffer ring = NewAqlRing();  // 64 packet slots
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);  // read_dispatch_id @0, write_dispatch_id @8
  const Buffer code = NewBuffer(Bytes::KiB(4), kGtt);      // descriptor @0, kernargs @64, signal @128
  const Buffer src = NewBuffer(Bytes::KiB(256), kGtt);
  const Buffer dst = NewBuffer(Bytes::KiB(256), kPublicVram);
  for (size_t i = 0; i < Bytes::KiB(256).raw(); ++i) src.cpu[i] = static_cast<char>(i * 7 + 3);
  const SignalEvent event = CreateSignalEventWithPage();

  const blit::KernelDescriptor descriptor = blit::MakeDescriptor(blit::KernelId::kCopy);
  std::memcpy(code.cpu, &descriptor, sizeof(descriptor));
  const blit::CopyArgs kernargs = blit::MakeCopyArgs(dst.va, src.va, Bytes::KiB(256).raw());
  std::memcpy(code.cpu + 64, &kernargs, sizeof(kernargs));
  aql::AmdSignal signal{};
  signal.kind = 1;  // AMD_SIGNAL_KIND_USER
  signal.value = 1;
  signal.event_mailbox_ptr = event.slot_va;
  signal.event_id = event.id;
  std::memcpy(code.cpu + 128, &signal, sizeof(signal));

  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers, uapi::QueueType::kComputeAql);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
  aql::WritePacket(ring.cpu, blit::MakeDispatch(code.va, code.va + 64, Bytes::KiB(256).raw(), code.va + 128));
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(pointers.cpu + 8)).store(1);
  auto* doorbell = reinterpret_cast<uint64_t*>(doorbells_->bytes() + (args.doorbell_offset & (kDoorbellSlice.raw() - 1)));
  RingDoorbell(doorbell, 0);  // AQL doorbells carry the index of the last packet written
  WaitFor(event.id);

  EXPECT_EQ(std::memcmp(dst.cpu, src.cpu, Bytes::KiB(256).raw()), 0);
  EXPECT_EQ(std::atomic_ref<int64_t>(*reinterpret_cast<int64_t*>(code.cpu + 128 + aql::kSignalValueOffset)).load(), 0)
      << "the completion signal is decremented";
  EXPECT_EQ(std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(pointers.cpu)).load(), 1u)
      << "read_dispatch_id moved past the packet before the signal fired";
  // The CP's own count of completed packets moves just after the interrupt that woke us.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (OnlyQueue().read_pointer != 1u && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_EQ(OnlyQueue().read_pointer, 1u);
  EXPECT_EQ(OnlyQueue().type, uapi::QueueType::kComputeAql);
}

TEST_F(SimQueueTest, AqlBlitToAnUnmappedDestinationIsAVmFault) {
  MapDoorbells();
  const Buffer ring = NewAqlRing();
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer code = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer src = NewBuffer(Bytes::KiB(64), kGtt);
  const uint32_t memory_event = CreateEvent(uapi::EventType::kMemory);
  const blit::KernelDescriptor descriptor = blit::MakeDescriptor(blit::KernelId::kCopy);
  std::memcpy(code.cpu, &descriptor, sizeof(descriptor));
  const uint64_t unmapped = uint64_t{3} << 40;
  const blit::CopyArgs kernargs = blit::MakeCopyArgs(unmapped, src.va, Bytes::KiB(64).raw());
  std::memcpy(code.cpu + 64, &kernargs, sizeof(kernargs));

  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers, uapi::QueueType::kComputeAql);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
  aql::WritePacket(ring.cpu, blit::MakeDispatch(code.va, code.va + 64, Bytes::KiB(64).raw()));
  RingDoorbell(reinterpret_cast<uint64_t*>(doorbells_->bytes() + (args.doorbell_offset & (kDoorbellSlice.raw() - 1))), 0);
  EXPECT_EQ(+WaitFor(memory_event).memory_exception_data.va, unmapped);
  EXPECT_TRUE(OnlyQueue().halted);
}

TEST_F(SimQueueTest, UnmapWhileAQueueRunsStopsTheEngineAtTheMissingPage) {
  MapDoorbells();
  const Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer src = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer dst = NewBuffer(Bytes::KiB(4), kGtt);
  const uint32_t memory_event = CreateEvent(uapi::EventType::kMemory);
  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
  ASSERT_EQ(hipmem_testing::Unmap(*file_, dst.handle, {gpu_}).ret, 0);

  Push(ring, sdma::MakeCopy(dst.va, src.va, 4096));
  Ring(args.doorbell_offset);
  EXPECT_EQ(+WaitFor(memory_event).memory_exception_data.va, dst.va);
}

TEST_F(SimQueueTest, CreateQueueRefusesWhatTheKernelRefuses) {
  const Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  struct Row {
    const char* what;
    void (*mutate)(uapi::CreateQueueArgs&);
    int expected;
  };
  const Row rows[] = {
      {"percentage above 100", [](uapi::CreateQueueArgs& a) { a.queue_percentage = 101; }, -EINVAL},
      {"priority above 15", [](uapi::CreateQueueArgs& a) { a.queue_priority = 16; }, -EINVAL},
      {"ring size not a power of two", [](uapi::CreateQueueArgs& a) { a.ring_size = 3000; }, -EINVAL},
      {"ring above the user address space", [](uapi::CreateQueueArgs& a) { a.ring_base_address = ~uint64_t{0}; },
       -EFAULT},
      {"read pointer above the user address space",
       [](uapi::CreateQueueArgs& a) { a.read_pointer_address = uint64_t{1} << 50; }, -EFAULT},
      {"unknown queue type", [](uapi::CreateQueueArgs& a) { a.queue_type = 9; }, -524 /* ENOTSUPP */},
      {"unknown gpu", [](uapi::CreateQueueArgs& a) { a.gpu_id = 0xbad; }, -EINVAL},
      {"ring not mapped on the GPU", [](uapi::CreateQueueArgs& a) { a.ring_base_address = uint64_t{1} << 40; },
       -EINVAL},
      {"write pointer not mapped on the GPU", [](uapi::CreateQueueArgs& a) { a.write_pointer_address = 0x1000; },
       -EINVAL},
      {"ring larger than its buffer", [](uapi::CreateQueueArgs& a) { a.ring_size = 1u << 20; }, -EINVAL},
      {"SDMA engine id beyond the GPU's engines",
       [](uapi::CreateQueueArgs& a) {
         a.queue_type = static_cast<uint32_t>(uapi::QueueType::kSdmaByEngineId);
         a.sdma_engine_id = 16;
       },
       -EINVAL},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers);
    row.mutate(args);
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), row.expected);
  }
  EXPECT_TRUE(sim_->Snapshot().processes[0].queues.empty()) << "no refused call leaves a queue behind";

  // A ring smaller than KFD_MIN_QUEUE_RING_SIZE is raised to it, not refused.
  uapi::CreateQueueArgs small = SdmaQueueArgs(ring, pointers);
  small.ring_size = 256;
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, small), 0);
  EXPECT_EQ(OnlyQueue().ring_size, Bytes(1024));
}

TEST_F(SimQueueTest, SdmaQueueSlotsAreSharedByEveryProcessAndReturnedOnClose) {
  const Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  const GpuConfig& gpu = sim_->topology().gpus[0];
  const uint32_t slots = gpu.num_sdma_engines * 8;  // num_sdma_queues_per_engine
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < slots; ++i) {
    uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers);
    ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0) << i;
    ids.push_back(args.queue_id);
  }
  EXPECT_EQ(ids.front(), 0u);
  EXPECT_EQ(ids.back(), slots - 1) << "queue ids are the lowest free ones";
  uapi::CreateQueueArgs one_more = SdmaQueueArgs(ring, pointers);
  EXPECT_EQ(Ioctl(*file_, uapi::kCreateQueue, one_more), -ENOMEM);
  uapi::CreateQueueArgs xgmi = SdmaQueueArgs(ring, pointers, uapi::QueueType::kSdmaXgmi);
  EXPECT_EQ(Ioctl(*file_, uapi::kCreateQueue, xgmi), 0) << "XGMI engines have their own slots";

  // Another process meets the same limit until this one destroys a queue, and gets them all at close.
  auto other = sim_->Open();
  const std::vector<int> other_fds = AcquireAllVms(*sim_, *other);
  const AllocResult other_ring = Alloc(*other, gpu_, kTestVa, Bytes(kRingBytes), kGtt);
  ASSERT_EQ(Map(*other, other_ring.handle, {gpu_}).ret, 0);
  uapi::CreateQueueArgs theirs{};
  theirs.ring_base_address = kTestVa;
  theirs.read_pointer_address = kTestVa + 2048;
  theirs.write_pointer_address = kTestVa + 2056;
  theirs.ring_size = 1024;
  theirs.gpu_id = gpu_;
  theirs.queue_type = static_cast<uint32_t>(uapi::QueueType::kSdma);
  theirs.queue_percentage = 100;
  EXPECT_EQ(Ioctl(*other, uapi::kCreateQueue, theirs), -ENOMEM);
  uapi::DestroyQueueArgs destroy{.queue_id = ids[3], .pad = 0};
  ASSERT_EQ(Ioctl(*file_, uapi::kDestroyQueue, destroy), 0);
  EXPECT_EQ(Ioctl(*other, uapi::kCreateQueue, theirs), 0);
  EXPECT_EQ(Ioctl(*other, uapi::kCreateQueue, theirs), -ENOMEM);
  file_.reset();
  EXPECT_EQ(Ioctl(*other, uapi::kCreateQueue, theirs), 0) << "close() returned the closed process's slots";
}

TEST_F(SimQueueTest, DestroyAndUpdateRefuseUnknownQueuesWithTheKernelsErrnos) {
  uapi::DestroyQueueArgs destroy{.queue_id = 5, .pad = 0};
  EXPECT_EQ(Ioctl(*file_, uapi::kDestroyQueue, destroy), -EINVAL);
  uapi::UpdateQueueArgs update{.ring_base_address = 0, .queue_id = 5, .ring_size = 0, .queue_percentage = 100,
                               .queue_priority = 0};
  EXPECT_EQ(Ioctl(*file_, uapi::kUpdateQueue, update), -EFAULT);
  update.queue_percentage = 101;
  EXPECT_EQ(Ioctl(*file_, uapi::kUpdateQueue, update), -EINVAL) << "arguments are checked before the queue";
}

TEST_F(SimQueueTest, AnInactiveQueueRunsNothingUntilUpdateReactivatesIt) {
  MapDoorbells();
  const Buffer ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer pointers = NewBuffer(Bytes::KiB(4), kGtt);
  const SignalEvent event = CreateSignalEventWithPage();
  uapi::CreateQueueArgs args = SdmaQueueArgs(ring, pointers);
  args.queue_percentage = 0;  // created inactive, as the kernel allows
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
  EXPECT_FALSE(OnlyQueue().active);

  Push(ring, sdma::MakeFence(pointers.va + 64, 1));
  PushSignal(ring, event);
  Ring(args.doorbell_offset);
  EXPECT_EQ(hipmem_testing::WaitEventResult(*file_, event.id, 50), uapi::ToRaw(uapi::WaitResult::kTimeout))
      << "an inactive queue is not scheduled";
  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(pointers.cpu + 64)).load(), 0u);

  uapi::UpdateQueueArgs update{.ring_base_address = ring.va, .queue_id = args.queue_id, .ring_size = kRingBytes,
                               .queue_percentage = 100, .queue_priority = 7};
  ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, update), 0);
  WaitFor(event.id);
  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(pointers.cpu + 64)).load(), 1u)
      << "reactivated, it runs what the doorbell announced meanwhile";
  EXPECT_TRUE(OnlyQueue().active);
}

TEST_F(SimQueueTest, DoorbellMmapTakesOnlyTheSliceOfAnAcquiredGpu) {
  Reservation place(Bytes::KiB(16));
  const uint64_t doorbell = uapi::kMmapTypeDoorbell | (uint64_t{gpu_} << uapi::kMmapGpuIdShift);
  EXPECT_EQ(file_->MmapKfd(place.addr(), 4096, PROT_READ | PROT_WRITE, doorbell), -EINVAL) << "not the slice";
  EXPECT_EQ(file_->MmapKfd(place.addr(), kDoorbellSlice.raw(), PROT_READ | PROT_WRITE,
                           uapi::kMmapTypeDoorbell | (uint64_t{0xbad} << uapi::kMmapGpuIdShift)),
            -EINVAL)
      << "unknown gpu";
  EXPECT_EQ(file_->MmapKfd(place.addr(), kDoorbellSlice.raw(), PROT_READ, uapi::kMmapTypeEvents), -EINVAL)
      << "EVENTS is not simulated";
  EXPECT_EQ(file_->MmapKfd(nullptr, kDoorbellSlice.raw(), PROT_READ, doorbell), -EINVAL);
  EXPECT_EQ(file_->MmapKfd(place.addr(), kDoorbellSlice.raw(), PROT_READ | PROT_WRITE, doorbell), 0);

  auto fresh = sim_->Open();  // no VM acquired on any GPU
  EXPECT_EQ(fresh->MmapKfd(place.addr(), kDoorbellSlice.raw(), PROT_READ | PROT_WRITE, doorbell), -EINVAL);
}

TEST_F(SimQueueTest, PeerVramMapNeedsALinkBetweenTheGpus) {
  Topology unlinked = Mi300xTopology(2);
  std::erase_if(unlinked.io_links, [](const IoLinkConfig& l) { return l.node_from != 0 && l.node_to != 0; });
  Open(unlinked);
  const uint32_t peer = sim_->topology().gpus[1].gpu_id;
  const AllocResult vram = Alloc(*file_, gpu_, kTestVa, Bytes::KiB(64), hipmem_testing::kVramFlags);
  ASSERT_EQ(vram.ret, 0);
  EXPECT_EQ(Map(*file_, vram.handle, {gpu_, peer}).ret, -EINVAL);
  const AllocResult gtt = Alloc(*file_, gpu_, kTestVa + (uint64_t{1} << 30), Bytes::KiB(64), kGtt);
  EXPECT_EQ(Map(*file_, gtt.handle, {gpu_, peer}).ret, 0) << "system memory reaches every GPU";

  Open(Mi300xTopology(2));  // XGMI all-to-all
  const AllocResult linked = Alloc(*file_, gpu_, kTestVa, Bytes::KiB(64), hipmem_testing::kVramFlags);
  EXPECT_EQ(Map(*file_, linked.handle, {gpu_, sim_->topology().gpus[1].gpu_id}).ret, 0);
}

}  // namespace
}  // namespace hipmem::kfd_sim
