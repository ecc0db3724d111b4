// The dispatcher (kfd_ioctl): request decoding, size tolerance, wrong-process calls, GET_VERSION and
// GET_PROCESS_APERTURES_NEW.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::MakeSimulator;

TEST(SimIoctlTest, GetVersionReportsKfd117) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  uapi::GetVersionArgs args{.major_version = 0, .minor_version = 0};
  ASSERT_EQ(Ioctl(*file, uapi::kGetVersion, args), 0);
  EXPECT_EQ(args.major_version, 1u);
  EXPECT_EQ(args.minor_version, 17u);
}

TEST(SimIoctlTest, UnknownOrUnsimulatedNrIsEnotty) {
  struct Row {
    const char* what;
    uint32_t nr;
  };
  constexpr Row kRows[] = {
      {"nr 0, below AMDKFD_COMMAND_START", 0x00},
      {"CRIU_OP, not simulated", 0x22},
      {"AMDKFD_COMMAND_END", 0x27},
      {"DKMS range, not simulated (cross-memory copy)", 0x83},
      {"AMDKFD_COMMAND_END_2", 0x86},
      {"largest nr", 0xff},
  };
  auto sim = MakeSimulator();
  auto file = sim->Open();
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    uint64_t scratch[8] = {};
    EXPECT_EQ(file->Ioctl(uapi::EncodeIoctl(uapi::IoctlDirection::kReadWrite, row.nr, sizeof(scratch)), scratch),
              -ENOTTY);
  }
}

TEST(SimIoctlTest, ForeignTypeByteIsIgnoredLikeTheKernel) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  uapi::GetVersionArgs args{.major_version = 0, .minor_version = 0};
  const unsigned long request = (uapi::kGetVersion.request() & ~0xff00ul) | ('D' << 8);
  EXPECT_EQ(file->Ioctl(request, &args), 0);
  EXPECT_EQ(args.major_version, 1u);
}

TEST(SimIoctlTest, NullArgumentIsEfault) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  EXPECT_EQ(file->Ioctl(uapi::kAvailableMemory.request(), nullptr), -EFAULT);
  EXPECT_EQ(file->Ioctl(uapi::kGetVersion.request(), nullptr), -EFAULT);
}

TEST(SimIoctlTest, ShortStructIsZeroFilledAndOnlyUsizeCopiedBack) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  // An AVAILABLE_MEMORY caller whose struct ends after `available`: the valid gpu_id sitting in the
  // user's memory past usize is not read, the kernel sees gpu_id 0 and refuses it.
  uapi::GetAvailableMemoryArgs args{.available = 0x1111, .gpu_id = sim->topology().gpus[0].gpu_id, .pad = 0};
  const unsigned long request =
      uapi::EncodeIoctl(uapi::kAvailableMemory.direction, uapi::kAvailableMemory.nr, sizeof(args.available));
  EXPECT_EQ(file->Ioctl(request, &args), -EINVAL);
  EXPECT_EQ(args.available, 0x1111u);
  EXPECT_EQ(args.gpu_id, sim->topology().gpus[0].gpu_id);

  // A GET_VERSION caller that only knows major_version gets exactly that back.
  uapi::GetVersionArgs version{.major_version = 0, .minor_version = 0xdead};
  const unsigned long short_version = uapi::EncodeIoctl(uapi::kGetVersion.direction, uapi::kGetVersion.nr, 4);
  EXPECT_EQ(file->Ioctl(short_version, &version), 0);
  EXPECT_EQ(version.major_version, 1u);
  EXPECT_EQ(version.minor_version, 0xdeadu);
}

TEST(SimIoctlTest, LongReadWriteStructPreservesTrailingBytes) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  struct LongArgs {
    uapi::GetAvailableMemoryArgs args;
    uint64_t future_field;
  } long_args{.args = {.available = 0, .gpu_id = sim->topology().gpus[0].gpu_id, .pad = 0},
              .future_field = 0x0123456789abcdef};
  const unsigned long request =
      uapi::EncodeIoctl(uapi::kAvailableMemory.direction, uapi::kAvailableMemory.nr, sizeof(LongArgs));
  ASSERT_EQ(file->Ioctl(request, &long_args), 0);
  EXPECT_EQ(long_args.args.available, sim->topology().gpus[0].vram_bytes);
  EXPECT_EQ(long_args.future_field, 0x0123456789abcdefu);
}

TEST(SimIoctlTest, LongReadOnlyStructGetsTrailingBytesZeroed) {
  // GET_VERSION is IOR: the kernel copies nothing in and zeroes all usize bytes before copying them out.
  auto sim = MakeSimulator();
  auto file = sim->Open();
  struct LongVersion {
    uapi::GetVersionArgs args;
    uint64_t future_field;
  } long_version{.args = {.major_version = 0, .minor_version = 0}, .future_field = 0x55};
  const unsigned long request =
      uapi::EncodeIoctl(uapi::kGetVersion.direction, uapi::kGetVersion.nr, sizeof(LongVersion));
  ASSERT_EQ(file->Ioctl(request, &long_version), 0);
  EXPECT_EQ(long_version.args.minor_version, 17u);
  EXPECT_EQ(long_version.future_field, 0u);
}

TEST(SimIoctlTest, CallFromForkedChildIsEbadf) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    uapi::GetVersionArgs args{.major_version = 0, .minor_version = 0};
    const int ret = file->Ioctl(uapi::kGetVersion.request(), &args);
    _exit(ret == -EBADF && args.major_version == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent still owns the file.
  uapi::GetVersionArgs args{.major_version = 0, .minor_version = 0};
  EXPECT_EQ(Ioctl(*file, uapi::kGetVersion, args), 0);
}

TEST(SimIoctlTest, AperturesWithZeroNodesReportsGpuCount) {
  auto sim = MakeSimulator(Mi300xTopology(3));
  auto file = sim->Open();
  uapi::GetProcessAperturesNewArgs args{.kfd_process_device_apertures_ptr = 0, .num_of_nodes = 0, .pad = 0};
  ASSERT_EQ(Ioctl(*file, uapi::kGetProcessAperturesNew, args), 0);
  EXPECT_EQ(args.num_of_nodes, 3u);
}

TEST(SimIoctlTest, AperturesAreCanonicalGfx9AndCappedByCapacity) {
  auto sim = MakeSimulator(Mi300xTopology(2));
  auto file = sim->Open();
  std::array<uapi::ProcessDeviceApertures, 3> apertures{};
  apertures[1].gpu_id = 0xabcd;  // must stay untouched when the capacity is 1
  uapi::GetProcessAperturesNewArgs args{
      .kfd_process_device_apertures_ptr = reinterpret_cast<uintptr_t>(apertures.data()),
      .num_of_nodes = 1,
      .pad = 0,
  };
  ASSERT_EQ(Ioctl(*file, uapi::kGetProcessAperturesNew, args), 0);
  EXPECT_EQ(args.num_of_nodes, 1u);
  EXPECT_EQ(apertures[0].gpu_id, sim->topology().gpus[0].gpu_id);
  EXPECT_EQ(apertures[1].gpu_id, 0xabcdu);

  args.num_of_nodes = 3;
  ASSERT_EQ(Ioctl(*file, uapi::kGetProcessAperturesNew, args), 0);
  EXPECT_EQ(args.num_of_nodes, 2u);
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const uapi::ProcessDeviceApertures& a = apertures[i];
    EXPECT_EQ(a.gpu_id, sim->topology().gpus[i].gpu_id);
    EXPECT_EQ(a.gpuvm_limit, (uint64_t{1} << 47) - 1);
    EXPECT_GT(a.gpuvm_base, 0u);
    EXPECT_EQ(a.gpuvm_base % 4096, 0u);
    // LDS and scratch sit in the non-canonical hole, above the 48-bit user range.
    EXPECT_GE(a.lds_base, uint64_t{1} << 47);
    EXPECT_GT(a.lds_limit, a.lds_base);
    EXPECT_GE(a.scratch_base, uint64_t{1} << 47);
    EXPECT_GT(a.scratch_limit, a.scratch_base);
  }
  EXPECT_EQ(apertures[2].gpu_id, 0u);
}

TEST(SimIoctlTest, AperturesIntoNullPointerIsEfault) {
  auto sim = MakeSimulator();
  auto file = sim->Open();
  uapi::GetProcessAperturesNewArgs args{.kfd_process_device_apertures_ptr = 0, .num_of_nodes = 1, .pad = 0};
  EXPECT_EQ(Ioctl(*file, uapi::kGetProcessAperturesNew, args), -EFAULT);
}

TEST(SimulatorTest, CreateRejectsInvalidTopologies) {
  struct Row {
    const char* what;
    void (*mutate)(Topology&);
  };
  const Row kRows[] = {
      {"zero gpu_id", [](Topology& t) { t.gpus[0].gpu_id = 0; }},
      {"duplicate gpu_id", [](Topology& t) { t.gpus[1].gpu_id = t.gpus[0].gpu_id; }},
      {"duplicate render minor", [](Topology& t) { t.gpus[1].drm_render_minor = t.gpus[0].drm_render_minor; }},
      {"render minor below 128", [](Topology& t) { t.gpus[0].drm_render_minor = 0; }},
      {"zero VRAM", [](Topology& t) { t.gpus[0].vram_bytes = 0; }},
      {"empty name", [](Topology& t) { t.gpus[0].name.clear(); }},
      {"zero system memory", [](Topology& t) { t.system_memory_bytes = 0; }},
      {"cache of level 0", [](Topology& t) { t.gpus[0].caches[0].level = 0; }},
      {"cache of size 0", [](Topology& t) { t.gpus[0].caches[0].size_kib = 0; }},
      {"cache shared by no CU", [](Topology& t) { t.gpus[0].caches[0].cus_shared = 0; }},
      {"io link to a missing node", [](Topology& t) { t.io_links[0].node_to = 3; }},
      {"io link from a missing node", [](Topology& t) { t.io_links[0].node_from = 7; }},
      {"io link to itself", [](Topology& t) { t.io_links[0].node_to = t.io_links[0].node_from; }},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.what);
    Topology topology = Mi300xTopology(2);
    row.mutate(topology);
    EXPECT_EQ(Simulator::Create(std::move(topology)).status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(SimulatorTest, DefaultTopologyIsOneMi300x) {
  const Topology topology = DefaultTopology();
  ASSERT_EQ(topology.gpus.size(), 1u);
  const GpuConfig& gpu = topology.gpus[0];
  EXPECT_NE(gpu.gpu_id, 0u);
  EXPECT_LT(gpu.gpu_id, 0x10000u);
  EXPECT_EQ(gpu.drm_render_minor, 128u);
  EXPECT_EQ(gpu.name, "gfx942");
  EXPECT_EQ(gpu.gfx_target_version, 90402u);
  EXPECT_EQ(gpu.vram_bytes, (uint64_t{192} << 30) - (uint64_t{16} << 20));  // less amdgpu's 16 MiB
  // The simulated KFD implements AMDKFD_IOC_SVM, so it advertises SVMAPISupported as a GFX9+ dGPU does.
  EXPECT_NE(gpu.capability & (1u << 27), 0u) << "SVMAPISupported";
}

}  // namespace
}  // namespace hipmem::kfd_sim
