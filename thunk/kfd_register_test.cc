// Registration of user memory (hsaKmtRegisterMemory*), hsaKmtQueryPointerInfo and hsaKmtSetMemoryUserData
// through the thunk's C++ API, against a fresh two-GPU simulated machine per test. The simulator's snapshot
// shows what the kernel holds: the USERPTR buffer, its GPU mappings and the system memory it is charged.
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/kfd_testing.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using AllocMemFlags = kfd_uapi::AllocMemFlags;

constexpr NodeId kCpuNode(0);
constexpr NodeId kGpu0(1);
constexpr NodeId kGpu1(2);
constexpr Bytes kPage = Bytes::KiB(4);

DeviceAddress At(const void* p) { return DeviceAddress::FromPointer(p); }
DeviceAddress PageOf(DeviceAddress a) { return AlignDown(a, kPage); }

class KfdRegisterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::Mi300xTopology(2)));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<KfdDevice> device, OpenSimKfdDevice(machine_));
    ASSERT_OK_AND_ASSIGN(kfd_, Kfd::Open(std::move(device)));
    start_ = machine_->simulator().Snapshot();
  }

  kfd_sim::SimSnapshot Snapshot() const { return machine_->simulator().Snapshot(); }

  // The kernel's buffer whose GPU VA range starts on `gpu_address`'s page, if any.
  std::optional<kfd_sim::SimBo> BoAt(DeviceAddress gpu_address) const {
    const kfd_sim::SimSnapshot snapshot = Snapshot();
    for (const kfd_sim::SimBo& bo : snapshot.processes.at(0).bos) {
      if (bo.va == PageOf(gpu_address)) return bo;
    }
    return std::nullopt;
  }

  uint32_t GpuId(int i) const { return machine_->simulator().topology().gpus[i].gpu_id; }

  // The kernel holds nothing more than before the test's registrations.
  void ExpectNothingHeld() const {
    const kfd_sim::SimSnapshot now = Snapshot();
    EXPECT_THAT(kfd_sim::BosButMmioPages(now.processes.at(0)), IsEmpty());
    EXPECT_EQ(now.system_used, start_.system_used);
  }

  std::shared_ptr<SimMachine> machine_;
  std::unique_ptr<Kfd> kfd_;
  kfd_sim::SimSnapshot start_;
};

// kfdtest MemoryRegister: a heap buffer at an unaligned address registers, maps on every GPU by default, and
// goes away with its registration.
TEST_F(KfdRegisterTest, HeapBufferRegistersMapsAndDeregisters) {
  std::vector<char> heap(3 * kPage.raw());
  char* p = heap.data() + 100;
  const Bytes size(2 * kPage.raw());
  ASSERT_OK_AND_ASSIGN(DeviceAddress gpu, Unowned(kfd_->RegisterMemory(p, size)));
  // libhsakmt without the SVM API: a VA of its own, keeping the pointer's offset in its page.
  EXPECT_NE(PageOf(gpu), PageOf(At(p)));
  EXPECT_EQ(gpu.raw() % kPage.raw(), At(p).raw() % kPage.raw());

  std::optional<kfd_sim::SimBo> bo = BoAt(gpu);
  ASSERT_TRUE(bo.has_value());
  EXPECT_EQ(bo->size, Bytes(3 * kPage.raw())) << "every page the range touches";
  EXPECT_TRUE(kfd_uapi::HasFlag(bo->flags, AllocMemFlags::kUserptr));
  EXPECT_EQ(Snapshot().system_used - start_.system_used, bo->size);

  std::optional<Kfd::AllocationInfo> found = kfd_->FindAllocation(At(p + 10));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->range.base, PageOf(gpu));
  EXPECT_FALSE(found->is_vram);

  ASSERT_THAT(kfd_->MapMemoryToGpu(At(p)), IsOk());
  EXPECT_THAT(BoAt(gpu)->mapped_gpu_ids, ElementsAre(GpuId(0), GpuId(1)));
  EXPECT_THAT(kfd_->GpuAddressOf(At(p)), ::testing::Optional(gpu));

  ASSERT_THAT(kfd_->UnmapMemoryFromGpu(At(p)), IsOk());
  EXPECT_THAT(BoAt(gpu)->mapped_gpu_ids, IsEmpty());
  ASSERT_THAT(kfd_->DeregisterMemory(p), IsOk());
  ExpectNothingHeld();
  EXPECT_FALSE(kfd_->FindAllocation(At(p)).has_value());
}

// kfdtest MemoryRegister also registers stack and initialised data: any mapped, readable memory will do.
TEST_F(KfdRegisterTest, StackAndStaticDataRegister) {
  static int static_data = 7;
  volatile int stack_data[17] = {};
  ASSERT_OK_AND_ASSIGN(DeviceAddress on_stack,
                       Unowned(kfd_->RegisterMemory(const_cast<int*>(&stack_data[0]), Bytes(sizeof(int)))));
  ASSERT_OK_AND_ASSIGN(DeviceAddress in_data, Unowned(kfd_->RegisterMemory(&static_data, Bytes(sizeof(int)))));
  EXPECT_NE(on_stack, in_data);
  const NodeId gpu1_only[] = {kGpu1};
  EXPECT_THAT(kfd_->MapMemoryToGpu(At(&static_data), gpu1_only), IsOk());
  EXPECT_THAT(BoAt(in_data)->mapped_gpu_ids, ElementsAre(GpuId(1)));
  EXPECT_THAT(kfd_->DeregisterMemory(const_cast<int*>(&stack_data[0])), IsOk());
  EXPECT_THAT(kfd_->DeregisterMemory(&static_data), IsOk()) << "deregistering unmaps";
  ExpectNothingHeld();
}

// A range crossing a page boundary pins both pages.
TEST_F(KfdRegisterTest, UnalignedRangeCoversEveryPageItTouches) {
  std::vector<char> heap(3 * kPage.raw());
  char* page_end = static_cast<char*>(AlignUp(At(heap.data()), kPage)->ToPointer()) + kPage.raw() - 6;
  ASSERT_OK_AND_ASSIGN(DeviceAddress gpu, Unowned(kfd_->RegisterMemory(page_end, Bytes(12))));
  EXPECT_EQ(gpu - PageOf(gpu), kPage - Bytes(6));
  EXPECT_EQ(BoAt(gpu)->size, Bytes(2 * kPage.raw()));
  EXPECT_THAT(kfd_->DeregisterMemory(page_end), IsOk());
}

// kfdtest MemoryRegisterSamePtr, same pointer and size: one buffer, counted registrations and maps.
TEST_F(KfdRegisterTest, SamePointerAndSizeCountsRegistrationsAndMaps) {
  std::vector<uint32_t> mem(4);
  void* p = &mem[2];
  const Bytes size(2 * sizeof(uint32_t));
  const NodeId nodes[] = {kGpu0, kGpu1};
  ASSERT_OK_AND_ASSIGN(DeviceAddress first, Unowned(kfd_->RegisterMemory(p, size, nodes)));
  ASSERT_THAT(kfd_->MapMemoryToGpu(At(p), nodes, size), IsOk());
  ASSERT_OK_AND_ASSIGN(DeviceAddress second, Unowned(kfd_->RegisterMemory(p, size, nodes)));
  ASSERT_THAT(kfd_->MapMemoryToGpu(At(p), nodes, size), IsOk());
  EXPECT_EQ(first, second);
  EXPECT_THAT(kfd_sim::BosButMmioPages(Snapshot().processes[0]), ::testing::SizeIs(1));

  // One unmap and one deregistration leave the memory registered and mapped for the other user.
  ASSERT_THAT(kfd_->UnmapMemoryFromGpu(first), IsOk());
  ASSERT_THAT(kfd_->DeregisterMemory(first.ToPointer()), IsOk());
  EXPECT_THAT(BoAt(first)->mapped_gpu_ids, ElementsAre(GpuId(0), GpuId(1)));
  EXPECT_EQ(kfd_->QueryPointerInfo(p).type, PointerType::kRegisteredUser);

  ASSERT_THAT(kfd_->UnmapMemoryFromGpu(second), IsOk());
  EXPECT_THAT(BoAt(second)->mapped_gpu_ids, IsEmpty());
  ASSERT_THAT(kfd_->DeregisterMemory(second.ToPointer()), IsOk());
  ExpectNothingHeld();
  absl::Status again = kfd_->DeregisterMemory(p);
  EXPECT_THAT(again, StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(ToHsakmtStatus(again), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
}

// kfdtest MemoryRegisterSamePtr, same pointer with another size: a registration of its own at another GPU
// address; the size picks it when mapping.
TEST_F(KfdRegisterTest, SamePointerWithAnotherSizeIsAnotherRegistration) {
  std::vector<uint32_t> mem(4);
  void* p = &mem[0];
  ASSERT_OK_AND_ASSIGN(DeviceAddress wide, Unowned(kfd_->RegisterMemory(p, Bytes(8))));
  ASSERT_OK_AND_ASSIGN(DeviceAddress narrow, Unowned(kfd_->RegisterMemory(p, Bytes(4))));
  EXPECT_NE(wide, narrow);
  EXPECT_THAT(kfd_->GpuAddressOf(At(p), Bytes(8)), ::testing::Optional(wide));
  EXPECT_THAT(kfd_->GpuAddressOf(At(p), Bytes(4)), ::testing::Optional(narrow));
  // Without a size the pointer no longer names one registration.
  EXPECT_EQ(ToHsakmtStatus(kfd_->MapMemoryToGpu(At(p))), HSAKMT_STATUS_INVALID_HANDLE);

  const NodeId gpu0_only[] = {kGpu0};
  ASSERT_THAT(kfd_->MapMemoryToGpu(At(p), gpu0_only, Bytes(8)), IsOk());
  EXPECT_THAT(BoAt(wide)->mapped_gpu_ids, ElementsAre(GpuId(0)));
  EXPECT_THAT(BoAt(narrow)->mapped_gpu_ids, IsEmpty());
  // The GPU addresses name their registrations without a size.
  EXPECT_THAT(kfd_->UnmapMemoryFromGpu(wide), IsOk());
  EXPECT_THAT(kfd_->DeregisterMemory(wide.ToPointer()), IsOk());
  EXPECT_THAT(kfd_->DeregisterMemory(p), IsOk()) << "the pointer is unambiguous again";
  ExpectNothingHeld();
}

TEST_F(KfdRegisterTest, RegisteredNodesAreTheDefaultMapAndCannotChange) {
  std::vector<char> heap(64);
  const NodeId gpu1_only[] = {kGpu1};
  const NodeId gpu0_only[] = {kGpu0};
  ASSERT_OK_AND_ASSIGN(DeviceAddress gpu, Unowned(kfd_->RegisterMemory(heap.data(), Bytes(64), gpu1_only)));
  absl::StatusOr<DeviceAddress> other = Unowned(kfd_->RegisterMemory(heap.data(), Bytes(64), gpu0_only));
  EXPECT_THAT(other, StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_EQ(ToHsakmtStatus(other.status()), HSAKMT_STATUS_MEMORY_ALREADY_REGISTERED);
  // Without nodes, a re-registration is welcome and keeps the nodes.
  ASSERT_THAT(Unowned(kfd_->RegisterMemory(heap.data(), Bytes(64))), IsOk());
  EXPECT_THAT(kfd_->QueryPointerInfo(heap.data()).registered_nodes, ElementsAre(kGpu1));

  ASSERT_THAT(kfd_->MapMemoryToGpu(At(heap.data())), IsOk());
  EXPECT_THAT(BoAt(gpu)->mapped_gpu_ids, ElementsAre(GpuId(1)));
  // Two registrations counted, the refused one not.
  ASSERT_THAT(kfd_->DeregisterMemory(heap.data()), IsOk());
  ASSERT_THAT(kfd_->DeregisterMemory(heap.data()), IsOk());
  ExpectNothingHeld();
}

TEST_F(KfdRegisterTest, CoherenceFollowsTheFlags) {
  std::vector<char> heap(3 * kPage.raw());
  struct Row {
    const char* what;
    MemFlags flags;
    bool coherent;
    bool ext_coherent;
    MemFlags reported;
  };
  const Row kRows[] = {
      {"hsaKmtRegisterMemory: coarse-grained", MemFlags::kHostAccess | MemFlags::kCoarseGrain, false, false,
       MemFlags::kCoarseGrain},
      {"fine-grained", MemFlags::kHostAccess, true, false, MemFlags::kNone},
      {"extended coherent", MemFlags::kHostAccess | MemFlags::kExtendedCoherent, true, true,
       MemFlags::kExtendedCoherent},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    ASSERT_OK_AND_ASSIGN(DeviceAddress gpu, Unowned(kfd_->RegisterMemory(heap.data(), Bytes(100), {}, row.flags)));
    const kfd_sim::SimBo bo = *BoAt(gpu);
    EXPECT_EQ(kfd_uapi::HasFlag(bo.flags, AllocMemFlags::kCoherent), row.coherent);
    EXPECT_EQ(kfd_uapi::HasFlag(bo.flags, AllocMemFlags::kExtCoherent), row.ext_coherent);
    EXPECT_TRUE(kfd_uapi::HasFlag(bo.flags, AllocMemFlags::kWritable | AllocMemFlags::kExecutable));
    EXPECT_EQ(kfd_->QueryPointerInfo(heap.data()).flags, row.reported);
    ASSERT_THAT(kfd_->DeregisterMemory(heap.data()), IsOk());
  }
}

TEST_F(KfdRegisterTest, BadRequestsAreRefusedAndLeaveNothing) {
  std::vector<char> heap(64);
  ASSERT_OK_AND_ASSIGN(DeviceAddress allocated, Unowned(kfd_->AllocMemory(kCpuNode, kPage, MemFlags::kHostAccess)));
  const kfd_sim::SimSnapshot before = Snapshot();
  const NodeId unknown_node[] = {NodeId(9)};
  const NodeId cpu_node[] = {kCpuNode};
  struct Row {
    const char* what;
    void* address;
    Bytes size;
    std::span<const NodeId> nodes;
    MemFlags flags;
    HSAKMT_STATUS expected;
  };
  const MemFlags kDefault = MemFlags::kHostAccess | MemFlags::kCoarseGrain;
  const Row kRows[] = {
      {"null pointer", nullptr, Bytes(64), {}, kDefault, HSAKMT_STATUS_ERROR},
      {"zero size", heap.data(), Bytes(0), {}, kDefault, HSAKMT_STATUS_ERROR},
      {"range wraps", heap.data(), Bytes(~uint64_t{0}), {}, kDefault, HSAKMT_STATUS_ERROR},
      {"coarse and extended coherent", heap.data(), Bytes(64), {},
       kDefault | MemFlags::kExtendedCoherent, HSAKMT_STATUS_INVALID_PARAMETER},
      {"not host-accessible", heap.data(), Bytes(64), {}, MemFlags::kCoarseGrain, HSAKMT_STATUS_NOT_SUPPORTED},
      {"non-paged", heap.data(), Bytes(64), {}, kDefault | MemFlags::kNonPaged, HSAKMT_STATUS_NOT_SUPPORTED},
      {"unknown node", heap.data(), Bytes(64), unknown_node, kDefault, HSAKMT_STATUS_INVALID_NODE_UNIT},
      {"node without a GPU", heap.data(), Bytes(64), cpu_node, kDefault, HSAKMT_STATUS_INVALID_PARAMETER},
      {"memory this process allocated", allocated.ToPointer(), kPage, {}, kDefault, HSAKMT_STATUS_INVALID_HANDLE},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    EXPECT_EQ(ToHsakmtStatus(Unowned(kfd_->RegisterMemory(row.address, row.size, row.nodes, row.flags)).status()),
              row.expected);
  }
  const kfd_sim::SimSnapshot after = Snapshot();
  EXPECT_EQ(after.processes[0].bos.size(), before.processes[0].bos.size());
  EXPECT_EQ(after.system_used, before.system_used);
  EXPECT_EQ(kfd_->QueryPointerInfo(heap.data()).type, PointerType::kUnknown);
  EXPECT_THAT(kfd_->FreeMemory(allocated), IsOk());
}

// The kernel pins the pages: memory that is not mapped, or not accessible, is refused with EFAULT and costs
// neither a buffer nor system memory.
TEST_F(KfdRegisterTest, UnmappedOrInaccessibleMemoryIsRefused) {
  const Bytes size = kPage + kPage;
  void* none = mmap(nullptr, size.raw(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(none, MAP_FAILED);
  void* gone = mmap(nullptr, size.raw(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  ASSERT_EQ(munmap(gone, size.raw()), 0);
  for (void* p : {none, gone}) {
    absl::StatusOr<DeviceAddress> r = Unowned(kfd_->RegisterMemory(p, size));
    EXPECT_THAT(r, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("EFAULT")));
    EXPECT_EQ(ToHsakmtStatus(r.status()), HSAKMT_STATUS_ERROR);
    EXPECT_EQ(kfd_->QueryPointerInfo(p).type, PointerType::kUnknown);
    EXPECT_EQ(ToHsakmtStatus(kfd_->DeregisterMemory(p)), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  }
  ExpectNothingHeld();
  munmap(none, size.raw());
}

TEST_F(KfdRegisterTest, DeregisteringWhatIsNotRegisteredIsMemoryNotRegistered) {
  int stranger = 0;
  EXPECT_EQ(ToHsakmtStatus(kfd_->DeregisterMemory(&stranger)), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(ToHsakmtStatus(kfd_->DeregisterMemory(nullptr)), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  ASSERT_OK_AND_ASSIGN(DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpu0, kPage, MemFlags::kNonPaged)));
  EXPECT_EQ(ToHsakmtStatus(kfd_->DeregisterMemory(vram.ToPointer())), HSAKMT_STATUS_MEMORY_NOT_REGISTERED);
  EXPECT_THAT(kfd_->FreeMemory(vram), IsOk()) << "the allocation was left alone";
}

// As libhsakmt's hsaKmtFreeMemory, freeing a registered pointer drops a registration.
TEST_F(KfdRegisterTest, FreeMemoryOfARegisteredPointerDeregisters) {
  std::vector<char> heap(64);
  ASSERT_THAT(Unowned(kfd_->RegisterMemory(heap.data(), Bytes(64))), IsOk());
  EXPECT_THAT(kfd_->FreeMemory(At(heap.data())), IsOk());
  ExpectNothingHeld();
}

// kfdtest QueryPointerInfo.
TEST_F(KfdRegisterTest, PointerInfoDescribesAllocationsRegistrationsAndStrangers) {
  const MemFlags host_flags = MemFlags::kHostAccess | MemFlags::kNoNumaBind;
  ASSERT_OK_AND_ASSIGN(DeviceAddress host, Unowned(kfd_->AllocMemory(kCpuNode, Bytes(8 * kPage.raw()), host_flags)));
  ASSERT_THAT(kfd_->MapMemoryToGpu(host), IsOk());
  PointerInfo info = kfd_->QueryPointerInfo(host.ToPointer());
  EXPECT_EQ(info.type, PointerType::kAllocated);
  EXPECT_EQ(info.node, kCpuNode);
  EXPECT_EQ(info.flags, host_flags);
  EXPECT_EQ(info.cpu_address, host);
  EXPECT_EQ(info.gpu_address, host);
  EXPECT_EQ(info.size, Bytes(8 * kPage.raw()));
  EXPECT_THAT(info.mapped_nodes, ElementsAre(kGpu0, kGpu1));
  EXPECT_THAT(info.registered_nodes, IsEmpty());
  ASSERT_THAT(kfd_->UnmapMemoryFromGpu(host), IsOk());
  EXPECT_THAT(kfd_->QueryPointerInfo(host.ToPointer()).mapped_nodes, IsEmpty());
  // An interior pointer describes the whole allocation.
  info = kfd_->QueryPointerInfo((host + Bytes(4)).ToPointer());
  EXPECT_EQ(info.type, PointerType::kAllocated);
  EXPECT_EQ(info.cpu_address, host);

  ASSERT_OK_AND_ASSIGN(DeviceAddress vram, Unowned(kfd_->AllocMemory(kGpu1, Bytes(8 * kPage.raw()), MemFlags::kNonPaged)));
  info = kfd_->QueryPointerInfo((vram + Bytes(16)).ToPointer());
  EXPECT_EQ(info.node, kGpu1);
  EXPECT_EQ(info.gpu_address, vram);

  std::vector<uint32_t> mem(4);
  const NodeId both[] = {kGpu0, kGpu1};
  ASSERT_OK_AND_ASSIGN(DeviceAddress registered, Unowned(kfd_->RegisterMemory(&mem[0], Bytes(8))));
  ASSERT_THAT(kfd_->MapMemoryToGpu(At(&mem[0])), IsOk());
  ASSERT_THAT(Unowned(kfd_->RegisterMemory(&mem[2], Bytes(8), both)), IsOk());
  info = kfd_->QueryPointerInfo(&mem[1]);  // inside the first registration
  EXPECT_EQ(info.type, PointerType::kRegisteredUser);
  EXPECT_EQ(info.cpu_address, At(&mem[0]));
  EXPECT_EQ(info.gpu_address, registered);
  EXPECT_EQ(info.size, Bytes(8));
  EXPECT_EQ(info.node, kGpu0) << "the GPU holding the USERPTR buffer";
  EXPECT_THAT(info.registered_nodes, IsEmpty());
  EXPECT_THAT(info.mapped_nodes, ElementsAre(kGpu0, kGpu1));
  EXPECT_THAT(kfd_->QueryPointerInfo(&mem[2]).registered_nodes, ElementsAre(kGpu0, kGpu1));
  // The registration's GPU address leads to it too.
  EXPECT_EQ(kfd_->QueryPointerInfo(registered.ToPointer()).cpu_address, At(&mem[0]));

  int stranger = 0;
  info = kfd_->QueryPointerInfo(&stranger);
  EXPECT_EQ(info.type, PointerType::kUnknown);
  EXPECT_EQ(info.size, Bytes(0));
  EXPECT_EQ(kfd_->QueryPointerInfo(nullptr).type, PointerType::kUnknown);

  ASSERT_THAT(kfd_->DeregisterMemory(&mem[0]), IsOk());
  ASSERT_THAT(kfd_->DeregisterMemory(&mem[2]), IsOk());
  ASSERT_THAT(kfd_->FreeMemory(vram), IsOk());
  ASSERT_THAT(kfd_->FreeMemory(host), IsOk());
}

TEST_F(KfdRegisterTest, UserDataRoundTrips) {
  char user_data[16] = "This is a test.";
  ASSERT_OK_AND_ASSIGN(DeviceAddress host, Unowned(kfd_->AllocMemory(kCpuNode, kPage, MemFlags::kHostAccess)));
  ASSERT_THAT(kfd_->SetMemoryUserData(host.ToPointer(), user_data), IsOk());
  EXPECT_EQ(kfd_->QueryPointerInfo((host + Bytes(8)).ToPointer()).user_data, user_data);

  std::vector<char> heap(64);
  ASSERT_THAT(Unowned(kfd_->RegisterMemory(heap.data() + 1, Bytes(32))), IsOk());
  ASSERT_THAT(kfd_->SetMemoryUserData(heap.data() + 1, &heap), IsOk());
  EXPECT_EQ(kfd_->QueryPointerInfo(heap.data() + 2).user_data, &heap);

  // Only a start address names memory here, as in libhsakmt.
  absl::Status inside = kfd_->SetMemoryUserData((host + Bytes(8)).ToPointer(), nullptr);
  EXPECT_THAT(inside, StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(ToHsakmtStatus(inside), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(kfd_->QueryPointerInfo(host.ToPointer()).user_data, user_data);

  ASSERT_THAT(kfd_->DeregisterMemory(heap.data() + 1), IsOk());
  ASSERT_THAT(kfd_->FreeMemory(host), IsOk());
}

TEST_F(KfdRegisterTest, ClosingReleasesRegistrations) {
  std::vector<char> heap(2 * kPage.raw());
  ASSERT_THAT(Unowned(kfd_->RegisterMemory(heap.data(), Bytes(100))), IsOk());
  ASSERT_THAT(Unowned(kfd_->RegisterMemory(heap.data(), Bytes(100))), IsOk());
  ASSERT_THAT(kfd_->MapMemoryToGpu(At(heap.data())), IsOk());
  kfd_.reset();
  EXPECT_EQ(Snapshot().system_used, start_.system_used);
}

// Concurrent identical registrations meet in one buffer, as libhsakmt's re-check under the aperture lock does.
TEST_F(KfdRegisterTest, ConcurrentIdenticalRegistrationsShareOneBuffer) {
  std::vector<char> heap(kPage.raw());
  std::vector<std::thread> threads;
  std::vector<absl::StatusOr<DeviceAddress>> results(4, absl::UnknownError("not run"));
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = Unowned(kfd_->RegisterMemory(heap.data(), Bytes(64))); });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::StatusOr<DeviceAddress>& r : results) {
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(*r, *results[0]);
  }
  EXPECT_THAT(kfd_sim::BosButMmioPages(Snapshot().processes[0]), ::testing::SizeIs(1));
  for (size_t i = 0; i < results.size(); ++i) ASSERT_THAT(kfd_->DeregisterMemory(heap.data()), IsOk());
  ExpectNothingHeld();
}

// KfdRegistration, the owner RegisterMemory returns: the owner suite (STYLE.md section 8), read through the kernel's
// buffers.
TEST_F(KfdRegisterTest, RegistrationOwnerDeregistersWhenItGoes) {
  std::vector<char> heap(2 * kPage.raw());
  {
    ASSERT_OK_AND_ASSIGN(KfdRegistration registration, kfd_->RegisterMemory(heap.data() + 8, Bytes(64)));
    EXPECT_EQ(registration.host(), heap.data() + 8);
    EXPECT_TRUE(BoAt(registration.gpu_address()).has_value());
    EXPECT_EQ(kfd_->QueryPointerInfo(heap.data() + 8).type, PointerType::kRegisteredUser);
  }
  EXPECT_EQ(kfd_->QueryPointerInfo(heap.data() + 8).type, PointerType::kUnknown);
  ExpectNothingHeld();
}

TEST_F(KfdRegisterTest, RegistrationOwnerMoveEmptiesTheSourceAndMoveAssignDeregistersTheOld) {
  std::vector<char> a_heap(kPage.raw());
  std::vector<char> b_heap(kPage.raw());
  ASSERT_OK_AND_ASSIGN(KfdRegistration a, kfd_->RegisterMemory(a_heap.data(), Bytes(64)));
  ASSERT_OK_AND_ASSIGN(KfdRegistration b, kfd_->RegisterMemory(b_heap.data(), Bytes(64)));
  KfdRegistration moved = std::move(a);
  EXPECT_TRUE(a.empty());
  EXPECT_THAT(std::move(a).Deregister(), StatusIs(absl::StatusCode::kFailedPrecondition)) << "the source is empty";
  EXPECT_EQ(kfd_->QueryPointerInfo(a_heap.data()).type, PointerType::kRegisteredUser);
  moved = std::move(b);
  EXPECT_EQ(kfd_->QueryPointerInfo(a_heap.data()).type, PointerType::kUnknown)
      << "move-assign deregisters what the target held";
  EXPECT_EQ(kfd_->QueryPointerInfo(b_heap.data()).type, PointerType::kRegisteredUser);
  KfdRegistration& alias = moved;
  moved = std::move(alias);
  EXPECT_EQ(kfd_->QueryPointerInfo(b_heap.data()).type, PointerType::kRegisteredUser) << "self-move keeps it";
  EXPECT_THAT(std::move(moved).Deregister(), IsOk());
  ExpectNothingHeld();
}

TEST_F(KfdRegisterTest, RegistrationOwnerEachCountedRegistrationIsOneOwner) {
  std::vector<char> heap(kPage.raw());
  ASSERT_OK_AND_ASSIGN(KfdRegistration first, kfd_->RegisterMemory(heap.data(), Bytes(64)));
  {
    ASSERT_OK_AND_ASSIGN(KfdRegistration second, kfd_->RegisterMemory(heap.data(), Bytes(64)));
    EXPECT_EQ(second.gpu_address(), first.gpu_address());
  }
  EXPECT_EQ(kfd_->QueryPointerInfo(heap.data()).type, PointerType::kRegisteredUser)
      << "the first owner's registration keeps the pages";
  EXPECT_THAT(std::move(first).Deregister(), IsOk());
  ExpectNothingHeld();
}

TEST_F(KfdRegisterTest, RegistrationOwnerDeregisterReportsADeregistrationByAddressMeanwhile) {
  std::vector<char> heap(kPage.raw());
  ASSERT_OK_AND_ASSIGN(KfdRegistration registration, kfd_->RegisterMemory(heap.data(), Bytes(64)));
  // What hsaKmtDeregisterMemory on the owner's pointer does behind its back.
  ASSERT_THAT(kfd_->DeregisterMemory(heap.data()), IsOk());
  EXPECT_THAT(std::move(registration).Deregister(), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_TRUE(registration.empty());
}

TEST_F(KfdRegisterTest, RegistrationOwnerReleaseLeavesTheRegistrationToItsPointer) {
  std::vector<char> heap(kPage.raw());
  ASSERT_OK_AND_ASSIGN(KfdRegistration registration, kfd_->RegisterMemory(heap.data(), Bytes(64)));
  const DeviceAddress gpu = registration.gpu_address();
  EXPECT_EQ(std::move(registration).Release(), gpu);
  EXPECT_TRUE(registration.empty());
  EXPECT_EQ(kfd_->QueryPointerInfo(heap.data()).type, PointerType::kRegisteredUser);
  EXPECT_THAT(kfd_->DeregisterMemory(heap.data()), IsOk());
  ExpectNothingHeld();
}

TEST_F(KfdRegisterTest, RegistrationOwnerFailedRegistrationHoldsNothing) {
  EXPECT_THAT(kfd_->RegisterMemory(nullptr, Bytes(64)), StatusIs(absl::StatusCode::kInvalidArgument));
  ExpectNothingHeld();
}

}  // namespace
}  // namespace hipmem::thunk
