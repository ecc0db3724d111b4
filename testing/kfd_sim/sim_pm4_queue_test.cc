// PM4 compute queues on the simulator, end to end through the ioctl ABI, as kfdtest's PM4Queue drives them:
// CREATE_QUEUE type COMPUTE, packets written into the ring, the 64-bit write pointer in dwords stored to memory
// and the doorbell, events signalled by RELEASE_MEM and waited for with WAIT_EVENTS.
#include <sys/mman.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gpu_abi/pm4_packets.h"
#include "gpu_abi/sdma_packets.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/engines/doorbell_poller.h"
#include "testing/kfd_sim/engines/pm4_test_shaders.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
namespace pm4 = ::hipmem::gpu_abi::pm4;
namespace sdma = ::hipmem::gpu_abi::sdma;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::MakeSimulator;
using ::hipmem_testing::Map;
using ::hipmem_testing::Reservation;
using ::testing::HasSubstr;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;

constexpr AllocMemFlags kGtt = hipmem_testing::kQueueGttFlags;
constexpr AllocMemFlags kPublicVram = hipmem_testing::kVramFlags | AllocMemFlags::kPublic;
using ::hipmem_testing::kDoorbellFlags;
using ::hipmem_testing::kDoorbellSlice;
constexpr uint32_t kRingBytes = 4096;
constexpr uint32_t kRingDwords = kRingBytes / 4;

// One buffer: GPU-mapped at `va`, CPU-mapped (through the render node) at `cpu`.
struct Buffer {
  uint64_t handle = 0;
  uint64_t va = 0;
  char* cpu = nullptr;
  std::unique_ptr<Reservation> reservation;
};

class SimPm4QueueTest : public ::testing::Test {
 protected:
  // The machine the fixture simulates (the default: one MI300X, gfx942).
  virtual Topology MakeTopology() { return DefaultTopology(); }

  void SetUp() override {
    sim_ = MakeSimulator(MakeTopology());
    file_ = sim_->Open();
    fds_ = AcquireAllVms(*sim_, *file_);
    gpu_ = sim_->topology().gpus[0].gpu_id;
    MapDoorbells();
    ring_ = NewBuffer(Bytes(kRingBytes), kGtt);
    pointers_ = NewBuffer(Bytes::KiB(4), kGtt);
  }

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

  // The doorbell slice as libhsakmt's map_doorbell_dgpu sets it up: a DOORBELL buffer GPU-mapped at the address
  // where the CPU maps it through /dev/kfd, so a GPU engine can ring a doorbell too.
  void MapDoorbells() {
    doorbells_ = std::make_unique<Reservation>(kDoorbellSlice);
    const uint64_t va = reinterpret_cast<uintptr_t>(doorbells_->addr());
    const AllocResult r = Alloc(*file_, gpu_, va, kDoorbellSlice, kDoorbellFlags);
    ASSERT_EQ(r.ret, 0);
    EXPECT_EQ(Map(*file_, r.handle, {gpu_}).ret, 0);
    ASSERT_EQ(file_->MmapKfd(doorbells_->addr(), kDoorbellSlice.raw(), PROT_READ | PROT_WRITE, r.mmap_offset), 0);
  }

  // A queue laid out as libhsakmt does: read pointer at +0, write pointer at +8 of `pointers`.
  uapi::CreateQueueArgs QueueArgs(const Buffer& ring, const Buffer& pointers,
                                  uapi::QueueType type = uapi::QueueType::kCompute) {
    uapi::CreateQueueArgs args{};
    args.ring_base_address = ring.va;
    args.read_pointer_address = pointers.va;
    args.write_pointer_address = pointers.va + 8;
    args.ring_size = kRingBytes;
    args.gpu_id = gpu_;
    args.queue_type = static_cast<uint32_t>(type);
    args.queue_percentage = 100;
    args.queue_priority = 7;
    return args;
  }
  // The fixture's PM4 queue (HSA_QUEUE_COMPUTE).
  uapi::CreateQueueArgs Pm4QueueArgs() { return QueueArgs(ring_, pointers_); }

  uint32_t CreateQueue() {
    uapi::CreateQueueArgs args = Pm4QueueArgs();
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), 0);
    doorbell_offset_ = args.doorbell_offset;
    return args.queue_id;
  }

  // kfdtest's PlacePacket: the packet's dwords at the write pointer, wrapping at the ring's end.
  void Push(const std::vector<uint32_t>& packet) {
    auto* ring = reinterpret_cast<uint32_t*>(ring_.cpu);
    for (uint32_t dw : packet) ring[wptr_++ % kRingDwords] = dw;
  }

  // kfdtest's SubmitPacket on gfx9+: the 64-bit write pointer (dwords) to memory, then to the doorbell.
  void Submit() {
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(pointers_.cpu + 8)).store(wptr_, std::memory_order_release);
    RingDoorbell(Doorbell(doorbell_offset_), wptr_);
  }

  // The doorbell CREATE_QUEUE placed at `doorbell_offset`, at its CPU address (which is also its GPU VA).
  uint64_t* Doorbell(uint64_t doorbell_offset) const {
    return reinterpret_cast<uint64_t*>(doorbells_->bytes() + (doorbell_offset & (kDoorbellSlice.raw() - 1)));
  }

  // The read pointer as kfdtest's PM4Queue::Rptr reads it: 32 bits, a dword offset wrapping at the ring size.
  uint32_t Rptr() const {
    return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(pointers_.cpu)).load(std::memory_order_acquire);
  }

  uint32_t CreateEvent(uapi::EventType type) {
    uapi::CreateEventArgs args{};
    args.event_type = uapi::ToRaw(type);
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateEvent, args), 0);
    return args.event_id;
  }

  // A signal event whose mailbox slot lives in an event page this process handed over (libhsakmt's dGPU path).
  struct SignalEvent {
    uint32_t id;
    uint64_t slot_va;
  };
  SignalEvent CreateSignalEventWithPage() {
    event_page_ = NewBuffer(Bytes(uint64_t{uapi::kSignalEventLimit} * 8), kGtt);
    uapi::CreateEventArgs args{};
    args.event_type = uapi::ToRaw(uapi::EventType::kSignal);
    args.event_page_offset = event_page_.handle;
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateEvent, args), 0);
    return SignalEvent{args.event_id, event_page_.va + uint64_t{args.event_slot_index} * 8};
  }

  uapi::EventData WaitFor(uint32_t event_id) { return hipmem_testing::WaitForEvent(*file_, event_id); }


  std::string WaitForLogLine(std::initializer_list<std::string> parts) { return hipmem_testing::WaitForLogLine(*sim_, parts); }


  // Waits (up to 10 s) for the reported read pointer to reach the write pointer, as kfdtest's
  // Wait4PacketConsumption does.
  bool WaitForConsumption() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (Rptr() != wptr_ % kRingDwords) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return true;
  }

  // kfdtest's WaitOnValue: waits (up to 10 s) for the dword at `cpu` to read `value`.
  static bool WaitForValue(const char* cpu, uint32_t value) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::atomic_ref<const uint32_t>(*reinterpret_cast<const uint32_t*>(cpu)).load() != value) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return true;
  }

  SimQueue OnlyQueue() { return hipmem_testing::OnlyQueue(*sim_); }

  void RingPm4QueueFromSdma(bool quiet_first);


  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
  std::vector<int> fds_;
  uint32_t gpu_ = 0;
  uint64_t next_va_ = kTestVa;
  std::unique_ptr<Reservation> doorbells_;
  Buffer ring_;
  Buffer pointers_;
  Buffer event_page_;
  uint64_t doorbell_offset_ = 0;
  uint64_t wptr_ = 0;
};

TEST_F(SimPm4QueueTest, WriteDataThenReleaseMemSignalsTheEventWaitEventsSleepsOn) {
  const Buffer dst = NewBuffer(Bytes::KiB(4), kPublicVram);
  const SignalEvent event = CreateSignalEventWithPage();
  CreateQueue();
  WaitForLogLine({"process 1: ", "created COMPUTE queue 0", "active"});

  Push(pm4::MakeWriteData(dst.va, {0xdead, 0xbeef}));
  Push(pm4::MakeSignalEvent(event.slot_va, event.id));
  Submit();
  WaitFor(event.id);

  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(dst.cpu)).load(), 0xdeadu);
  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(dst.cpu + 4)).load(), 0xbeefu);
  ASSERT_TRUE(WaitForConsumption()) << "read pointer " << Rptr() << ", write pointer " << wptr_;
  const SimQueue q = OnlyQueue();
  EXPECT_EQ(q.type, uapi::QueueType::kCompute);
  EXPECT_TRUE(q.active);
  EXPECT_FALSE(q.halted);
  EXPECT_EQ(q.read_pointer, wptr_);
}

TEST_F(SimPm4QueueTest, AnIndirectBufferRunsFromGpuMemoryAndTheRingResumesAfterIt) {
  const Buffer dst = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer ib = NewBuffer(Bytes::KiB(4), kPublicVram);
  const SignalEvent event = CreateSignalEventWithPage();
  std::vector<uint32_t> commands = pm4::MakeWriteData(dst.va, {1, 2});
  const std::vector<uint32_t> copy = pm4::MakeCopyData(dst.va + 8, dst.va, /*is64=*/false);
  commands.insert(commands.end(), copy.begin(), copy.end());
  std::memcpy(ib.cpu, commands.data(), commands.size() * 4);
  CreateQueue();

  Push(pm4::MakeIndirectBuffer(ib.va, static_cast<uint32_t>(commands.size())));
  Push(pm4::MakeWriteData(dst.va + 12, {4}));
  Push(pm4::MakeSignalEvent(event.slot_va, event.id));
  Submit();
  WaitFor(event.id);

  const auto* words = reinterpret_cast<const uint32_t*>(dst.cpu);
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], 2u);
  EXPECT_EQ(words[2], 1u) << "COPY_DATA inside the IB";
  EXPECT_EQ(words[3], 4u) << "the ring continues after the IB";
}

// A GPU whose shaders the simulator cannot run (RDNA3): a dispatch stands for a wave that never ends.
class SimPm4QueueOnRdna3Test : public SimPm4QueueTest {
 protected:
  Topology MakeTopology() override {
    absl::StatusOr<Topology> topology = PresetTopology("rx7900xtx");
    EXPECT_TRUE(topology.ok()) << topology.status();
    return *std::move(topology);
  }
};

TEST_F(SimPm4QueueOnRdna3Test, ADispatchHaltsTheQueueAsAGpuHangAndTheProcessStillCleansUp) {
  const uint32_t hw_event = CreateEvent(uapi::EventType::kHwException);
  const Buffer dst = NewBuffer(Bytes::KiB(4), kGtt);
  const uint32_t queue_id = CreateQueue();

  Push(pm4::MakeSetShReg(0x2E0C, {0x1000, 0}));
  Push(pm4::MakeDispatchDirect(1, 1, 1));
  Push(pm4::MakeWriteData(dst.va, {1}));
  Submit();
  const uapi::EventData data = WaitFor(hw_event);

  EXPECT_EQ(+data.hw_exception_data.gpu_id, gpu_);
  EXPECT_EQ(+data.hw_exception_data.reset_cause, uapi::kHwExceptionGpuHang);
  EXPECT_EQ(+data.hw_exception_data.memory_lost, 1u);
  const std::string line = WaitForLogLine({"process 1: ", "pm4 queue 0", "halted on a queue error"});
  EXPECT_THAT(line, HasSubstr("DISPATCH_DIRECT"));
  EXPECT_TRUE(OnlyQueue().halted);
  EXPECT_EQ(std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(dst.cpu)).load(), 0u)
      << "nothing after the dispatch runs";
  EXPECT_EQ(Rptr(), 4u) << "the read pointer stops at the dispatch";

  uapi::DestroyQueueArgs destroy{.queue_id = queue_id, .pad = 0};
  EXPECT_EQ(Ioctl(*file_, uapi::kDestroyQueue, destroy), 0);
  WaitForLogLine({"destroyed COMPUTE queue 0", "(halted)"});
  file_.reset();  // close(): nothing of the halted queue is left to block it
  EXPECT_TRUE(sim_->Snapshot().processes.empty());
}

TEST_F(SimPm4QueueTest, AWriteToAnUnmappedAddressIsAVmFaultThatSetsMemoryEvents) {
  const uint32_t memory_event = CreateEvent(uapi::EventType::kMemory);
  CreateQueue();
  const uint64_t unmapped = uint64_t{1} << 40;
  Push(pm4::MakeWriteData(unmapped + 0x24, {1}));
  Submit();
  const uapi::EventData data = WaitFor(memory_event);

  EXPECT_EQ(+data.memory_exception_data.gpu_id, gpu_);
  EXPECT_EQ(+data.memory_exception_data.va, unmapped) << "the faulting page";
  EXPECT_EQ(+data.memory_exception_data.failure.NotPresent, 1u);
  EXPECT_TRUE(OnlyQueue().halted);
  WaitForLogLine({"VM fault in process 1 from queue 0", "address 0x10000000024"});
}

TEST_F(SimPm4QueueTest, UpdateQueueParksTheQueueAndResumesItWhereItStopped) {
  const Buffer dst = NewBuffer(Bytes::KiB(4), kGtt);
  auto* words = reinterpret_cast<uint32_t*>(dst.cpu);
  const uint32_t queue_id = CreateQueue();
  Push(pm4::MakeWriteData(dst.va, {1}));
  Submit();
  ASSERT_TRUE(WaitForConsumption());
  words[0] = 0;  // a re-run of the first packet would write it again

  uapi::UpdateQueueArgs park{.ring_base_address = ring_.va, .queue_id = queue_id, .ring_size = kRingBytes,
                             .queue_percentage = 0, .queue_priority = 7};
  ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, park), 0);
  Push(pm4::MakeWriteData(dst.va + 4, {2}));
  Submit();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(std::atomic_ref<uint32_t>(words[1]).load(), 0u) << "an inactive queue runs nothing";

  uapi::UpdateQueueArgs resume = park;
  resume.queue_percentage = 100;
  ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, resume), 0);
  ASSERT_TRUE(WaitForConsumption());
  EXPECT_EQ(std::atomic_ref<uint32_t>(words[1]).load(), 2u);
  EXPECT_EQ(std::atomic_ref<uint32_t>(words[0]).load(), 0u) << "packets before the park do not run again";
}

// The engine raises a RELEASE_MEM's interrupt before it counts the packet. A queue parked by the thread that the
// interrupt woke, at once, must still count it: resumed, it must not run the packet (and signal) again.
TEST_F(SimPm4QueueTest, ParkingRightAfterASignalDoesNotRunTheSignallingPacketAgain) {
  event_page_ = NewBuffer(Bytes(uint64_t{uapi::kSignalEventLimit} * 8), kGtt);
  uapi::CreateEventArgs create{};
  create.event_type = uapi::ToRaw(uapi::EventType::kSignal);
  create.auto_reset = 1;  // a second signal would stay pending
  create.event_page_offset = event_page_.handle;
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateEvent, create), 0);
  const uint64_t slot_va = event_page_.va + uint64_t{create.event_slot_index} * 8;
  const uint32_t queue_id = CreateQueue();
  uapi::UpdateQueueArgs park{.ring_base_address = 0, .queue_id = queue_id, .ring_size = 0, .queue_percentage = 100,
                             .queue_priority = 7};
  uapi::UpdateQueueArgs resume{.ring_base_address = ring_.va, .queue_id = queue_id, .ring_size = kRingBytes,
                               .queue_percentage = 100, .queue_priority = 7};
  constexpr int kRounds = 40;
  int repeated = 0;
  for (int round = 0; round < kRounds; ++round) {
    Push(pm4::MakeSignalEvent(slot_va, create.event_id));
    Submit();
    WaitFor(create.event_id);
    ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, park), 0);  // as soon as the signal arrived
    ASSERT_EQ(Ioctl(*file_, uapi::kUpdateQueue, resume), 0);
    ASSERT_TRUE(WaitForConsumption());
    const uint32_t again = hipmem_testing::WaitEventResult(*file_, create.event_id, 5);
    if (again != uapi::ToRaw(uapi::WaitResult::kTimeout)) ++repeated;
  }
  EXPECT_EQ(repeated, 0) << "of " << kRounds << " rounds signalled twice";
}

// kfdtest's QMTest.GPUDoorbellWrite (gfx9+, DOORBELL_WRITE_USE_SDMA): a PM4 packet is placed in its ring but not
// submitted; an SDMA queue WRITEs the pending 64-bit write pointer (two dwords) to the PM4 queue's write pointer and
// then to its doorbell, at the doorbell's CPU address (also its GPU VA). The engine's store into the doorbell must
// start the PM4 queue, as the hardware's doorbell logic sees a GPU write to the doorbell BAR. `quiet_first` holds
// the SDMA queue on a POLL_REGMEM until the doorbell page has been still long enough to be write-protected again,
// so that only the engine's own store can wake the PM4 queue.
void SimPm4QueueTest::RingPm4QueueFromSdma(bool quiet_first) {
  const Buffer dst = NewBuffer(Bytes::KiB(4), kGtt);
  CreateQueue();
  const uint64_t pm4_doorbell = doorbell_offset_;
  const Buffer sdma_ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer sdma_pointers = NewBuffer(Bytes::KiB(4), kGtt);
  uapi::CreateQueueArgs sdma_args = QueueArgs(sdma_ring, sdma_pointers, uapi::QueueType::kSdma);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, sdma_args), 0);

  Push(pm4::MakeWriteData(dst.va, {0x12345678, 0x87654321}));  // placed, not submitted
  const uint64_t pending = wptr_;
  const std::array<uint32_t, 2> pending_dwords = {static_cast<uint32_t>(pending), static_cast<uint32_t>(pending >> 32)};
  uint64_t sdma_wptr = 0;
  const auto place = [&](const auto& packet) {
    std::memcpy(sdma_ring.cpu + sdma_wptr, &packet, sizeof(packet));
    sdma_wptr += sizeof(packet);
  };
  const uint64_t gate_va = sdma_pointers.va + 64;
  if (quiet_first) place(sdma::MakePoll(gate_va, 1, ~0u, sdma::PollFunction::kEqual, 10, sdma::kPollForever));
  place(sdma::MakeWrite<2>(pointers_.va + 8, pending_dwords));
  place(sdma::MakeWrite<2>(reinterpret_cast<uintptr_t>(Doorbell(pm4_doorbell)), pending_dwords));
  // kfdtest's SubmitPacket: a bare store of the SDMA write pointer (bytes) into the SDMA queue's doorbell.
  std::atomic_ref<uint64_t>(*Doorbell(sdma_args.doorbell_offset)).store(sdma_wptr, std::memory_order_release);
  if (quiet_first) {
    std::this_thread::sleep_for(kDoorbellHotFor * 5);
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(sdma_pointers.cpu + 64)).store(1);
  }

  EXPECT_TRUE(WaitForValue(dst.cpu, 0x12345678));
  EXPECT_TRUE(WaitForValue(dst.cpu + 4, 0x87654321));
  EXPECT_TRUE(WaitForConsumption());
}

TEST_F(SimPm4QueueTest, AnSdmaWriteIntoThePm4QueuesDoorbellRunsThePm4Queue) { RingPm4QueueFromSdma(false); }

TEST_F(SimPm4QueueTest, AnSdmaWriteIntoAQuietDoorbellPageRunsThePm4Queue) { RingPm4QueueFromSdma(true); }

// GPUDoorbellWrite's other form: a second PM4 queue rings the first with two 64-bit RELEASE_MEM writes (no
// interrupt), to the first queue's write pointer and then to its doorbell; here after a WAIT_REG_MEM that holds it
// until the doorbell page has gone quiet, so that only the CP's own store can wake the first queue.
TEST_F(SimPm4QueueTest, AReleaseMemIntoAnotherPm4QueuesQuietDoorbellRunsThatQueue) {
  const Buffer dst = NewBuffer(Bytes::KiB(4), kGtt);
  CreateQueue();
  const uint64_t first_doorbell = doorbell_offset_;
  Push(pm4::MakeWriteData(dst.va, {0x12345678, 0x87654321}));  // placed, not submitted
  const uint64_t pending = wptr_;

  const Buffer other_ring = NewBuffer(Bytes(kRingBytes), kGtt);
  const Buffer other_pointers = NewBuffer(Bytes::KiB(4), kGtt);
  uapi::CreateQueueArgs other = QueueArgs(other_ring, other_pointers);
  ASSERT_EQ(Ioctl(*file_, uapi::kCreateQueue, other), 0);
  std::vector<uint32_t> packets;
  for (const std::vector<uint32_t>& packet : {
           pm4::MakeWaitRegMem(other_pointers.va + 64, 1, ~0u, pm4::CompareFunction::kEqual),
           pm4::MakeReleaseMem(pointers_.va + 8, pending, pm4::ReleaseData::kData64, pm4::ReleaseInterrupt::kNone, 0),
           pm4::MakeReleaseMem(reinterpret_cast<uintptr_t>(Doorbell(first_doorbell)), pending,
                               pm4::ReleaseData::kData64, pm4::ReleaseInterrupt::kNone, 0),
       }) {
    packets.insert(packets.end(), packet.begin(), packet.end());
  }
  std::memcpy(other_ring.cpu, packets.data(), packets.size() * 4);
  RingDoorbell(Doorbell(other.doorbell_offset), packets.size());
  std::this_thread::sleep_for(kDoorbellHotFor * 5);
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(other_pointers.cpu + 64)).store(1);

  EXPECT_TRUE(WaitForValue(dst.cpu, 0x12345678));
  EXPECT_TRUE(WaitForValue(dst.cpu + 4, 0x87654321));
  EXPECT_TRUE(WaitForConsumption());
}

TEST_F(SimPm4QueueTest, CreateQueueChecksAComputeQueuesEopBuffer) {
  const Buffer eop = NewBuffer(Bytes::KiB(4), kPublicVram);
  struct Row {
    const char* what;
    uint64_t address;
    uint64_t size;
    int expected;
  };
  const Row rows[] = {
      {"no EOP buffer (optional)", 0, 0, 0},
      {"the node's 4 KiB, mapped", eop.va, 4096, 0},
      {"smaller than the node's", eop.va, 2048, -EINVAL},
      {"not mapped on the GPU", uint64_t{1} << 40, 4096, -EINVAL},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    uapi::CreateQueueArgs args = Pm4QueueArgs();
    args.eop_buffer_address = row.address;
    args.eop_buffer_size = row.size;
    EXPECT_EQ(Ioctl(*file_, uapi::kCreateQueue, args), row.expected);
    if (row.expected == 0) {
      uapi::DestroyQueueArgs destroy{.queue_id = args.queue_id, .pad = 0};
      EXPECT_EQ(Ioctl(*file_, uapi::kDestroyQueue, destroy), 0);
    }
  }
}

// kfdtest's shader tests on a GFX9 GPU: a raw shader in GPU memory, its registers and DISPATCH_DIRECT in an IB
// the ring calls, then RELEASE_MEM signalling an event, all through a real CREATE_QUEUE of type COMPUTE.
class SimPm4ShaderTest : public SimPm4QueueTest, public ::testing::WithParamInterface<const char*> {
 protected:
  Topology MakeTopology() override {
    absl::StatusOr<Topology> topology = PresetTopology(GetParam());
    EXPECT_TRUE(topology.ok()) << topology.status();
    return *std::move(topology);
  }

  gfx9::Target target() const {
    return sim_->topology().gpus[0].gfx_target_version == 90010 ? gfx9::Target::kGfx90a : gfx9::Target::kGfx942;
  }

  // The shader copied into a fresh buffer (whose VA is 256-byte aligned, as COMPUTE_PGM_LO needs).
  pm4::ShaderDispatch Launch(std::string_view code, std::vector<uint32_t> user_data, uint32_t rsrc2) {
    code_ = NewBuffer(Bytes::KiB(4), kGtt);
    std::memcpy(code_.cpu, code.data(), code.size());
    pm4::ShaderDispatch d;
    d.code_va = code_.va;
    d.rsrc1 = kKfdtestRsrc1;
    d.rsrc2 = rsrc2;
    d.rsrc3 = kKfdtestRsrc3;
    d.user_data = std::move(user_data);
    return d;
  }

  // Places the dispatch's IB in GPU memory and pushes the call to it, without submitting.
  void PushDispatch(const pm4::ShaderDispatch& d) {
    ib_ = NewBuffer(Bytes::KiB(4), kPublicVram);
    const std::vector<uint32_t> commands = pm4::MakeShaderDispatch(d);
    std::memcpy(ib_.cpu, commands.data(), commands.size() * 4);
    Push(pm4::MakeIndirectBuffer(ib_.va, static_cast<uint32_t>(commands.size())));
  }

  static std::vector<uint32_t> Address(uint64_t va) { return {pm4::Lo(va), pm4::Hi(va)}; }
  static uint32_t Word(const Buffer& b, size_t i) {
    return std::atomic_ref<uint32_t>(reinterpret_cast<uint32_t*>(b.cpu)[i]).load(std::memory_order_acquire);
  }

  Buffer code_;
  Buffer ib_;
};

TEST_P(SimPm4ShaderTest, AShaderWritesAConstantAndTheEventAfterItSignals) {
  const Buffer dst = NewBuffer(Bytes::KiB(4), kPublicVram);
  const SignalEvent event = CreateSignalEventWithPage();
  CreateQueue();
  PushDispatch(Launch(Pm4ShadersFor(target()).write_constant, Address(dst.va), Rsrc2(2)));
  Push(pm4::MakeSignalEvent(event.slot_va, event.id));
  Submit();
  WaitFor(event.id);

  EXPECT_EQ(Word(dst, 0), 0x1234abcdu);
  ASSERT_TRUE(WaitForConsumption()) << "read pointer " << Rptr() << ", write pointer " << wptr_;
  EXPECT_FALSE(OnlyQueue().halted);
}

TEST_P(SimPm4ShaderTest, AtomicIncrementsFromManyWorkgroupsAllLandInGpuMemory) {
  const Buffer counter = NewBuffer(Bytes::KiB(4), kGtt);
  const SignalEvent event = CreateSignalEventWithPage();
  CreateQueue();
  std::vector<uint32_t> user = Address(counter.va);
  user.push_back(25);  // increments per work-item
  pm4::ShaderDispatch d = Launch(Pm4ShadersFor(target()).atomic_loop, user, Rsrc2(3));
  d.workgroup_size = {64, 1, 1};
  d.dims = {300, 1, 1};  // work-items: four full workgroups and one of 44
  PushDispatch(d);
  Push(pm4::MakeSignalEvent(event.slot_va, event.id));
  Submit();
  WaitFor(event.id);
  EXPECT_EQ(Word(counter, 0), 300u * 25u);
}

TEST_P(SimPm4ShaderTest, AShaderStoreToAnUnmappedAddressSetsMemoryEventsAndHaltsTheQueue) {
  const uint32_t memory_event = CreateEvent(uapi::EventType::kMemory);
  const Buffer after = NewBuffer(Bytes::KiB(4), kGtt);
  CreateQueue();
  const uint64_t unmapped = uint64_t{1} << 40;
  PushDispatch(Launch(Pm4ShadersFor(target()).write_constant, Address(unmapped + 0x40), Rsrc2(2)));
  Push(pm4::MakeWriteData(after.va, {1}));
  Submit();
  const uapi::EventData data = WaitFor(memory_event);

  EXPECT_EQ(+data.memory_exception_data.gpu_id, gpu_);
  EXPECT_EQ(+data.memory_exception_data.va, unmapped) << "the faulting page";
  EXPECT_TRUE(OnlyQueue().halted);
  EXPECT_EQ(Word(after, 0), 0u) << "nothing after the dispatch runs";
}

// kfdtest's GWS semaphore case, in our words: ALLOC_QUEUE_GWS gives the PM4 queue the GPU's global wave sync; one
// dispatch sets semaphore 0 to the dword in memory (1), the next has every wave of many workgroups increment that
// dword under the semaphore with a non-atomic read-modify-write. Only mutual exclusion leaves it at 1 + waves.
TEST_P(SimPm4ShaderTest, AGwsSemaphoreKeepsEveryWavesUpdateOfOneDword) {
  const Buffer value = NewBuffer(Bytes::KiB(4), kGtt);
  reinterpret_cast<uint32_t*>(value.cpu)[0] = 1;
  const SignalEvent event = CreateSignalEventWithPage();
  const uint32_t queue = CreateQueue();
  uapi::AllocQueueGwsArgs gws{.queue_id = queue, .num_gws = 64, .first_gws = ~0u, .pad = 0};
  ASSERT_EQ(Ioctl(*file_, uapi::kAllocQueueGws, gws), 0);
  EXPECT_EQ(gws.first_gws, 0u);
  PushDispatch(Launch(Pm4ShadersFor(target()).gws_init, Address(value.va), Rsrc2(2)));
  // The ring still calls these when the next Launch and PushDispatch replace code_ and ib_.
  const Buffer init_code = std::move(code_);
  const Buffer init_ib = std::move(ib_);
  constexpr uint32_t kWaves = 128;
  pm4::ShaderDispatch d = Launch(Pm4ShadersFor(target()).gws_locked_increment, Address(value.va), Rsrc2(2));
  d.workgroup_size = {64, 1, 1};
  d.dims = {kWaves * 64, 1, 1};  // work-items
  PushDispatch(d);
  Push(pm4::MakeSignalEvent(event.slot_va, event.id));
  Submit();
  WaitFor(event.id);
  EXPECT_EQ(Word(value, 0), 1u + kWaves);
  EXPECT_FALSE(OnlyQueue().halted);
}

// The same shader on a queue the KFD gave no GWS halts the queue (an illegal instruction) instead of hanging.
TEST_P(SimPm4ShaderTest, AGwsInstructionOnAQueueWithoutGwsHaltsIt) {
  const Buffer value = NewBuffer(Bytes::KiB(4), kGtt);
  const Buffer after = NewBuffer(Bytes::KiB(4), kGtt);
  CreateQueue();
  PushDispatch(Launch(Pm4ShadersFor(target()).gws_init, Address(value.va), Rsrc2(2)));
  Push(pm4::MakeWriteData(after.va, {1}));
  Submit();
  const std::string line = WaitForLogLine({"halted on a queue error", "no global wave sync"});
  EXPECT_NE(line, "") << "the queue did not halt on the GWS instruction";
  EXPECT_TRUE(OnlyQueue().halted);
  EXPECT_EQ(Word(after, 0), 0u) << "nothing after the dispatch runs";
}

INSTANTIATE_TEST_SUITE_P(Gfx9, SimPm4ShaderTest, ::testing::Values("mi250x", "mi300x"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace hipmem::kfd_sim
