#include "thunk/drm_render_nodes.h"

#include <atomic>
#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/errno_status.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;

constexpr PciAddress kGpu0{.domain = 0, .bus = 0x03, .device = 0, .function = 0};
constexpr PciAddress kGpu1{.domain = 0, .bus = 0x83, .device = 0, .function = 0};

TEST(PciAddressTest, PrintsAsTheKernelDoes) {
  EXPECT_EQ((PciAddress{.domain = 0x10000, .bus = 0xc1, .device = 0x1f, .function = 7}).ToString(), "10000:c1:1f.7");
  EXPECT_EQ(kGpu0.ToString(), "0000:03:00.0");
}

TEST(PciAddressTest, DecodesKfdLocationIdAsPciDevId) {
  // pci_dev_id = bus << 8 | devfn, devfn = device << 3 | function.
  EXPECT_EQ(PciAddressFromKfd(0, 0xc1ff), (PciAddress{.domain = 0, .bus = 0xc1, .device = 0x1f, .function = 7}));
  EXPECT_EQ(PciAddressFromKfd(2, 0x0308), (PciAddress{.domain = 2, .bus = 0x03, .device = 1, .function = 0}));
}

TEST(PciAddressTest, DropsThePartitionNumberKfdAddsToLocationId) {
  // Partition 3 of a GPU at 0000:03:00.0 reports location_id 0x30000300.
  EXPECT_EQ(PciAddressFromKfd(0, (3u << 28) | 0x0300), kGpu0);
}

TEST(PciAddressTest, ComparesDomainsInLibdrmsSixteenBits) {
  // A VMD domain such as 0x10000 reaches libdrm truncated to 0x0000.
  const PciAddress kfd{.domain = 0x10000, .bus = 3, .device = 0, .function = 0};
  EXPECT_TRUE(SamePciFunction(kfd, kGpu0));
  EXPECT_FALSE(SamePciFunction(kfd, kGpu1));
  EXPECT_FALSE(SamePciFunction(kGpu0, PciAddress{.domain = 1, .bus = 3}));
  EXPECT_FALSE(SamePciFunction(kGpu0, PciAddress{.bus = 3, .function = 1}));
}

TEST(RenderMinorFromPathTest, ParsesOnlyRenderNodePaths) {
  struct Row {
    const char* path;
    std::optional<uint32_t> minor;
  };
  const Row kRows[] = {
      {"/dev/dri/renderD128", 128},
      {"/dev/dri/renderD255", 255},
      {"renderD300", 300},
      {"/dev/dri/card0", std::nullopt},
      {"/dev/dri/renderD", std::nullopt},
      {"/dev/dri/renderD12x", std::nullopt},
      {"/dev/dri/renderD+128", std::nullopt},
      {"/dev/dri/renderD99999999999", std::nullopt},
      {"/dev/dri/renderD128/", std::nullopt},
      {"", std::nullopt},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.path);
    EXPECT_EQ(RenderMinorFromPath(row.path), row.minor);
  }
}

NodeProperties GpuNode(uint32_t id, uint32_t minor, std::optional<uint64_t> domain, std::optional<uint64_t> location) {
  NodeProperties node;
  node.id = NodeId(id);
  node.gpu_id = GpuId(0x1000 + id);
  node.properties["drm_render_minor"] = minor;
  if (domain.has_value()) node.properties["domain"] = *domain;
  if (location.has_value()) node.properties["location_id"] = *location;
  return node;
}

TEST(KfdRenderNodeForTest, TakesTheAddressOfTheGpuWithThatMinor) {
  SystemTopology topology;
  topology.nodes.push_back(NodeProperties{});  // node 0, the CPU: no gpu_id, minor 0
  topology.nodes.push_back(GpuNode(1, 128, 0, 0x0300));
  topology.nodes.push_back(GpuNode(2, 129, 0, 0x8300));
  topology.nodes.push_back(GpuNode(3, 130, std::nullopt, 0x4300));

  const KfdRenderNode second = KfdRenderNodeFor(topology, 129);
  EXPECT_EQ(second.render_minor, 129u);
  EXPECT_THAT(second.pci, Optional(kGpu1));
  // Without a domain there is no full address to compare.
  EXPECT_EQ(KfdRenderNodeFor(topology, 130).pci, std::nullopt);
  // A minor no GPU has keeps the minor only; minor 0 of the CPU node is not a GPU's.
  EXPECT_EQ(KfdRenderNodeFor(topology, 131).pci, std::nullopt);
  EXPECT_EQ(KfdRenderNodeFor(topology, 0).pci, std::nullopt);
}

TEST(KfdRenderNodeForTest, ReadsTheAddressesOfASimulatedSysfsTree) {
  ASSERT_OK_AND_ASSIGN(const kfd_sim::Topology machine_topology, kfd_sim::PresetTopology("2xmi250x"));
  ASSERT_OK_AND_ASSIGN(const std::shared_ptr<SimMachine> machine, SimMachine::Create(machine_topology));
  ASSERT_OK_AND_ASSIGN(const SystemTopology topology, ReadTopology(machine->sysfs_root()));

  // libdrm's view of the same machine: each GPU's render node at the PCI address the simulator gave it.
  std::vector<DrmDeviceInfo> drm;
  for (const kfd_sim::GpuConfig& gpu : machine_topology.gpus) {
    drm.push_back({gpu.drm_render_minor, PciAddressFromKfd(gpu.domain, gpu.location_id)});
  }
  ASSERT_EQ(drm.size(), 2u);
  ASSERT_NE(drm[0].pci, drm[1].pci);
  for (const kfd_sim::GpuConfig& gpu : machine_topology.gpus) {
    SCOPED_TRACE(gpu.drm_render_minor);
    const KfdRenderNode claim = KfdRenderNodeFor(topology, gpu.drm_render_minor);
    EXPECT_THAT(claim.pci, Optional(PciAddressFromKfd(gpu.domain, gpu.location_id)));
    EXPECT_THAT(CheckRenderNode(claim, drm), IsOkAndHolds(RenderNodeCheck::kVerified));
  }
}

TEST(CheckRenderNodeTest, VerifiesOrRefusesAgainstLibdrm) {
  const std::vector<DrmDeviceInfo> kTwoGpus = {{128, kGpu0}, {129, kGpu1}};
  struct Row {
    const char* name;
    KfdRenderNode gpu;
    absl::StatusOr<std::vector<DrmDeviceInfo>> drm;
    absl::StatusOr<RenderNodeCheck> want;
  };
  const PciAddress kElsewhere{.domain = 0, .bus = 0xc1};
  const Row kRows[] = {
      {"libdrm lists the minor at the GPU's address", {129, kGpu1}, kTwoGpus, RenderNodeCheck::kVerified},
      {"a card-only device and a device off the PCI bus are skipped",
       {129, kGpu1},
       std::vector<DrmDeviceInfo>{{std::nullopt, kGpu0}, {130, std::nullopt}, {129, kGpu1}},
       RenderNodeCheck::kVerified},
      {"no /dev/dri: libdrm cannot list",
       {128, kGpu0},
       FromErrno(ENOENT, "drmGetDevices2"),
       RenderNodeCheck::kUnverified},
      {"libdrm lists nothing", {128, kGpu0}, std::vector<DrmDeviceInfo>{}, RenderNodeCheck::kUnverified},
      {"the GPU has no location", {128, std::nullopt}, kTwoGpus, RenderNodeCheck::kUnverified},
      {"the minor is a partition node, off the PCI bus",
       {130, kGpu0},
       std::vector<DrmDeviceInfo>{{128, kGpu0}, {130, std::nullopt}},
       RenderNodeCheck::kUnverified},
      {"libdrm lists neither the minor nor the address",
       {140, kElsewhere},
       kTwoGpus,
       RenderNodeCheck::kUnverified},
      {"the minor is another device's",
       {128, kGpu1},
       kTwoGpus,
       absl::FailedPreconditionError("libdrm reports renderD128 at 0000:03:00.0")},
      {"the GPU's address has another render node",
       {140, kGpu1},
       kTwoGpus,
       absl::FailedPreconditionError("libdrm reports that device's render node as renderD129")},
      {"a primary-node minor", {0, kGpu0}, kTwoGpus, absl::InvalidArgumentError("not a render node")},
      {"the minor below the render range, even without libdrm",
       {127, kGpu0},
       FromErrno(ENOENT, "drmGetDevices2"),
       absl::InvalidArgumentError("not a render node")},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.name);
    const absl::StatusOr<RenderNodeCheck> got = CheckRenderNode(row.gpu, row.drm);
    if (row.want.ok()) {
      EXPECT_THAT(got, IsOkAndHolds(*row.want));
    } else {
      EXPECT_THAT(got, StatusIs(row.want.status().code(), HasSubstr(std::string(row.want.status().message()))));
    }
  }
}

TEST(CheckRenderNodeTest, DisagreementNamesBothAddresses) {
  const absl::StatusOr<RenderNodeCheck> got =
      CheckRenderNode({128, kGpu1}, std::vector<DrmDeviceInfo>{{128, kGpu0}, {129, kGpu1}});
  EXPECT_THAT(got, StatusIs(absl::StatusCode::kFailedPrecondition,
                            AllOf(HasSubstr("renderD128"), HasSubstr("0000:83:00.0"), HasSubstr("0000:03:00.0"))));
}

// Records what the fake opener opened and gave back.
struct FakeFiles {
  int next_fd = 10;
  std::vector<uint32_t> opened;  // minors, in order
  std::vector<int> released;     // fds, in order
  std::optional<absl::Status> fail_next;
};

SharedRenderNodes::Opener FakeOpener(FakeFiles* files) {
  return [files](uint32_t minor) -> absl::StatusOr<RenderNodeFile> {
    if (files->fail_next.has_value()) {
      absl::Status status = *std::exchange(files->fail_next, std::nullopt);
      return status;
    }
    files->opened.push_back(minor);
    const int fd = files->next_fd++;
    return RenderNodeFile(fd, [files, fd] { files->released.push_back(fd); });
  };
}

TEST(RenderNodeFileTest, DestructorGivesTheFileBack) {
  std::vector<int> released;
  { RenderNodeFile file(7, [&] { released.push_back(7); }); }
  EXPECT_THAT(released, ElementsAre(7));
}

TEST(RenderNodeFileTest, MoveEmptiesTheSource) {
  std::vector<int> released;
  RenderNodeFile from(7, [&] { released.push_back(7); });
  {
    RenderNodeFile to(std::move(from));
    EXPECT_EQ(to.fd(), 7);
    EXPECT_EQ(from.fd(), -1);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  }
  EXPECT_THAT(released, ElementsAre(7));
}

TEST(RenderNodeFileTest, MoveAssignGivesTheOldFileBack) {
  std::vector<int> released;
  RenderNodeFile a(7, [&] { released.push_back(7); });
  RenderNodeFile b(8, [&] { released.push_back(8); });
  a = std::move(b);
  EXPECT_THAT(released, ElementsAre(7));
  EXPECT_EQ(a.fd(), 8);
}

TEST(RenderNodeFileTest, SelfMoveKeepsTheFile) {
  std::vector<int> released;
  {
    RenderNodeFile a(7, [&] { released.push_back(7); });
    RenderNodeFile& alias = a;
    a = std::move(alias);
    EXPECT_EQ(a.fd(), 7);
    EXPECT_THAT(released, IsEmpty());
  }
  EXPECT_THAT(released, ElementsAre(7));
}

TEST(SharedRenderNodesTest, ReopenersShareOneFilePerMinor) {
  FakeFiles files;
  SharedRenderNodes nodes(FakeOpener(&files));
  ASSERT_OK_AND_ASSIGN(const int first, nodes.Acquire(128));
  ASSERT_OK_AND_ASSIGN(const int again, nodes.Acquire(128));
  ASSERT_OK_AND_ASSIGN(const int other, nodes.Acquire(129));
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  EXPECT_THAT(files.opened, ElementsAre(128u, 129u));
  EXPECT_EQ(nodes.size(), 2u);
}

TEST(SharedRenderNodesTest, LastReleaseClosesAnUnboundFile) {
  FakeFiles files;
  SharedRenderNodes nodes(FakeOpener(&files));
  ASSERT_OK_AND_ASSIGN(const int fd, nodes.Acquire(128));
  ASSERT_THAT(nodes.Acquire(128), IsOkAndHolds(fd));
  nodes.Release(fd);
  EXPECT_THAT(files.released, IsEmpty());
  nodes.Release(fd);
  EXPECT_THAT(files.released, ElementsAre(fd));
  EXPECT_EQ(nodes.size(), 0u);
  // The next user opens the node afresh.
  ASSERT_OK_AND_ASSIGN(const int reopened, nodes.Acquire(128));
  EXPECT_NE(reopened, fd);
  EXPECT_THAT(files.opened, ElementsAre(128u, 128u));
}

TEST(SharedRenderNodesTest, PinnedFileOutlivesItsLastUser) {
  // What a KFD close and reopen in one process needs: ACQUIRE_VM bound the VM to this file.
  FakeFiles files;
  SharedRenderNodes nodes(FakeOpener(&files));
  ASSERT_OK_AND_ASSIGN(const int fd, nodes.Acquire(128));
  nodes.Pin(fd);
  nodes.Release(fd);
  EXPECT_THAT(files.released, IsEmpty());
  EXPECT_THAT(nodes.Acquire(128), IsOkAndHolds(fd));
  EXPECT_THAT(files.opened, ElementsAre(128u));
}

TEST(SharedRenderNodesTest, FailedOpenIsReturnedAndRetried) {
  FakeFiles files;
  files.fail_next = FromErrno(EACCES, "open(/dev/dri/renderD128)");
  SharedRenderNodes nodes(FakeOpener(&files));
  const absl::StatusOr<int> denied = nodes.Acquire(128);
  EXPECT_THAT(denied, StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("renderD128")));
  EXPECT_EQ(ErrnoOf(denied.status()), EACCES);
  EXPECT_EQ(nodes.size(), 0u);
  EXPECT_THAT(nodes.Acquire(128), IsOk());
  EXPECT_THAT(files.opened, ElementsAre(128u));
}

TEST(SharedRenderNodesTest, ForeignAndOverReleasedFdsAreIgnored) {
  FakeFiles files;
  SharedRenderNodes nodes(FakeOpener(&files));
  ASSERT_OK_AND_ASSIGN(const int fd, nodes.Acquire(128));
  nodes.Pin(fd + 100);
  nodes.Release(fd + 100);
  EXPECT_EQ(nodes.size(), 1u);
  nodes.Pin(fd);
  nodes.Release(fd);
  nodes.Release(fd);  // no reference left: must not underflow into a close
  EXPECT_THAT(files.released, IsEmpty());
  EXPECT_EQ(nodes.size(), 1u);
}

TEST(SharedRenderNodesTest, ConcurrentFirstUsersOpenOnce) {
  std::atomic<int> opens{0};
  SharedRenderNodes nodes([&opens](uint32_t) -> absl::StatusOr<RenderNodeFile> {
    ++opens;
    return RenderNodeFile(42, [] {});
  });
  constexpr int kThreads = 8;
  std::vector<int> fds(kThreads, -1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&nodes, &fds, i] {
      absl::StatusOr<int> fd = nodes.Acquire(128);
      fds[static_cast<size_t>(i)] = fd.ok() ? *fd : -1;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(opens.load(), 1);
  for (int fd : fds) EXPECT_EQ(fd, 42);
  for (int i = 0; i < kThreads; ++i) nodes.Release(42);
  EXPECT_EQ(nodes.size(), 0u);
}

}  // namespace
}  // namespace hipmem::thunk
