// A test fixture that drives one simulated GPU's SDMA engine the way kfdtest and libhsakmt do, through raw ioctls:
// GTT buffers mapped for the GPU and the CPU, a queue built from the doorbell slice, a ring and its read/write
// pointers, packets copied into the ring and a plain doorbell store. Shared by the simulator tests that need an
// engine touching memory without any runtime above the KFD.
#ifndef HIPMEM_TESTING_KFD_SIM_RAW_SDMA_FIXTURE_H_
#define HIPMEM_TESTING_KFD_SIM_RAW_SDMA_FIXTURE_H_

#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "base/units.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem_testing {

class RawSdmaFixture : public ::testing::Test {
 protected:
  static constexpr uint32_t kRingBytes = 4096;

  // A GTT buffer GPU-mapped at `va` and CPU-mapped at `cpu`.
  struct Buffer {
    uint64_t va = 0;
    char* cpu = nullptr;
    std::unique_ptr<Reservation> reservation;
  };

  // A fresh simulator on `topology`, this process's file on it with every GPU's VM acquired.
  void Open(hipmem::kfd_sim::Topology topology) {
    file_.reset();
    sim_ = MakeSimulator(std::move(topology));
    file_ = sim_->Open();
    fds_ = AcquireAllVms(*sim_, *file_);
    gpu_ = sim_->topology().gpus[0].gpu_id;
  }

  Buffer NewBuffer(hipmem::Bytes size) {
    Buffer b;
    b.va = next_va_;
    next_va_ += size.raw() + hipmem::Bytes::MiB(2).raw();
    const AllocResult r = Alloc(*file_, gpu_, b.va, size, kQueueGttFlags);
    EXPECT_EQ(r.ret, 0);
    EXPECT_EQ(Map(*file_, r.handle, {gpu_}).ret, 0);
    b.reservation = std::make_unique<Reservation>(size);
    EXPECT_EQ(file_->MmapBo(fds_[0], b.reservation->addr(), size.raw(), PROT_READ | PROT_WRITE, r.mmap_offset), 0);
    b.cpu = b.reservation->bytes();
    return b;
  }

  // An SDMA queue on the first GPU as libhsakmt builds one: the doorbell slice, a ring, the read/write pointers.
  void CreateSdmaQueue() {
    const AllocResult r = Alloc(*file_, gpu_, next_va_, kDoorbellSlice, kDoorbellFlags);
    ASSERT_EQ(r.ret, 0);
    next_va_ += hipmem::Bytes::MiB(2).raw();
    ASSERT_EQ(Map(*file_, r.handle, {gpu_}).ret, 0);
    doorbells_ = std::make_unique<Reservation>(kDoorbellSlice);
    ASSERT_EQ(file_->MmapKfd(doorbells_->addr(), kDoorbellSlice.raw(), PROT_READ | PROT_WRITE, r.mmap_offset), 0);
    ring_ = NewBuffer(hipmem::Bytes(kRingBytes));
    pointers_ = NewBuffer(hipmem::Bytes::KiB(4));
    hipmem::kfd_uapi::CreateQueueArgs args{};
    args.ring_base_address = ring_.va;
    args.write_pointer_address = pointers_.va + 8;
    args.read_pointer_address = pointers_.va;
    args.ring_size = kRingBytes;
    args.gpu_id = gpu_;
    args.queue_type = static_cast<uint32_t>(hipmem::kfd_uapi::QueueType::kSdma);
    args.queue_percentage = 100;
    args.queue_priority = 7;
    ASSERT_EQ(Ioctl(*file_, hipmem::kfd_uapi::kCreateQueue, args), 0);
    doorbell_offset_ = args.doorbell_offset;
    queue_id_ = args.queue_id;
  }

  // Copies a packet into the ring, a dword at a time (the ring may wrap inside it).
  template <typename Packet>
  void Push(const Packet& packet) {
    for (size_t i = 0; i < sizeof(Packet); i += 4) {
      std::memcpy(ring_.cpu + (wptr_ + i) % kRingBytes, reinterpret_cast<const char*>(&packet) + i, 4);
    }
    wptr_ += sizeof(Packet);
  }

  // Rings the doorbell with the write pointer.
  void Submit() {
    auto* word = reinterpret_cast<uint64_t*>(doorbells_->bytes() + (doorbell_offset_ & (kDoorbellSlice.raw() - 1)));
    hipmem::kfd_sim::RingDoorbell(word, wptr_);
  }

  // The engine's read pointer write-back.
  uint64_t Rptr() const {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(pointers_.cpu)).load(std::memory_order_acquire);
  }

  std::unique_ptr<hipmem::kfd_sim::Simulator> sim_;
  std::unique_ptr<hipmem::kfd_sim::SimFile> file_;
  std::vector<int> fds_;
  uint32_t gpu_ = 0;
  uint64_t next_va_ = kTestVa;
  std::unique_ptr<Reservation> doorbells_;
  uint64_t doorbell_offset_ = 0;
  uint32_t queue_id_ = 0;
  Buffer ring_, pointers_;
  uint64_t wptr_ = 0;
};

}  // namespace hipmem_testing

#endif  // HIPMEM_TESTING_KFD_SIM_RAW_SDMA_FIXTURE_H_
