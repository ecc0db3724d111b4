// Node capability bits, as hsaKmtGetNodeProperties reports them, promise nothing hipmem lacks: on every
// simulated machine no node advertises debugger support or RAS event notification, and every GPU node advertises
// the SVM API, which the simulated KFD implements. kfdtest and ROCr decide on these bits whether to run SVM,
// debugger and RAS paths.
//
// The simulated machine is chosen once per process (HIPMEM_SIM_PRESET, read by the first hsaKmtOpenKFD),
// so the test re-runs this binary once per preset, each child checking the machine it was given.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "testing/kfd_sim/presets.h"

extern char** environ;

namespace {

constexpr char kChildEnv[] = "HIPMEM_CAPABILITY_TEST_CHILD";

// The bits hipmem cannot back, with the reason the simulated KFD clears them (testing/kfd_sim/presets.cc).
void ExpectNoUnsupportedCapability(HSAuint32 node, const HsaNodeProperties& p) {
  SCOPED_TRACE(testing::Message() << "node " << node << ", capability 0x" << std::hex << p.Capability.Value);
  // AMDKFD_IOC_SVM works on every GPU (hsaKmtSVMSetAttr/GetAttr); the CPU node has no such bit.
  EXPECT_EQ(p.Capability.ui32.SVMAPISupported, p.NumFComputeCores != 0 ? 1u : 0u) << "AMDKFD_IOC_SVM on GPUs";
  EXPECT_EQ(p.Capability.ui32.DebugTrapSupported, 0u) << "no AMDKFD_IOC_DBG_TRAP";
  EXPECT_EQ(p.Capability.ui32.DebugSupportedFirmware, 0u) << "no debugger firmware";
  EXPECT_EQ(p.Capability.ui32.WaveLaunchTrapOverrideSupported, 0u) << "no debugger";
  EXPECT_EQ(p.Capability.ui32.WaveLaunchModeSupported, 0u) << "no debugger";
  EXPECT_EQ(p.Capability.ui32.PreciseMemoryOperationsSupported, 0u) << "no debugger";
  EXPECT_EQ(p.Capability.ui32.PreciseALUOperationsSupported, 0u) << "no debugger";
  // Address watch points describe the hardware, as kfd_topology.c node_show sets them for every GPU (log2 of the
  // 4 watch points every GFX9+ part has); only a debugger sets them, and it first needs DebugTrapSupported, clear
  // above. rocminfo: "Watch Pts on Addr. Ranges: 4" on real MI300X and MI250X.
  const bool gpu = p.NumFComputeCores != 0;
  EXPECT_EQ(p.Capability.ui32.WatchPointsSupported, gpu ? 1u : 0u) << "the kernel's count of address watch points";
  EXPECT_EQ(p.Capability.ui32.WatchPointsTotalBits, gpu ? 2u : 0u) << "4 address watch points on every GPU";
  EXPECT_EQ(p.Capability.ui32.RASEventNotify, 0u) << "no RAS events";
  EXPECT_EQ(p.Capability.ui32.PerQueueResetSupported, 0u) << "no queue reset";
  EXPECT_EQ(p.Capability2.Value, 0u) << "no capability2 feature";
  EXPECT_EQ(p.DebugProperties.Value, 0u) << "no debugger";
}

// Runs in a child: checks every node of the machine HIPMEM_SIM_PRESET chose.
TEST(HsakmtCapabilityTest, DefaultMachineAdvertisesOnlyWhatHipmemImplements) {
  if (std::getenv(kChildEnv) == nullptr) GTEST_SKIP() << "run per preset by PresetsAdvertise...";
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sys{};
  ASSERT_EQ(hsaKmtAcquireSystemProperties(&sys), HSAKMT_STATUS_SUCCESS);
  int gpus = 0;
  for (HSAuint32 n = 0; n < sys.NumNodes; ++n) {
    HsaNodeProperties props{};
    ASSERT_EQ(hsaKmtGetNodeProperties(n, &props), HSAKMT_STATUS_SUCCESS);
    if (props.KFDGpuID != 0) {
      ++gpus;
      // What the simulator does implement stays advertised: GFX9+ doorbells and the AQL double map.
      EXPECT_EQ(props.Capability.ui32.DoorbellType, 2u) << "node " << n;
      EXPECT_EQ(props.Capability.ui32.AQLQueueDoubleMap, 1u) << "node " << n;
    }
    ExpectNoUnsupportedCapability(n, props);
  }
  EXPECT_GT(gpus, 0);
  EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
}

// Re-runs this binary with HIPMEM_SIM_PRESET=<preset> for each preset; returns the child's exit status.
int RunChild(const std::string& preset) {
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    if (entry.rfind("HIPMEM_SIM_PRESET=", 0) == 0 || entry.rfind("GTEST_", 0) == 0 ||
        entry.rfind("XML_OUTPUT_FILE=", 0) == 0) {
      continue;  // the child writes no test.xml of its own over ours
    }
    env_storage.push_back(entry);
  }
  env_storage.push_back("HIPMEM_SIM_PRESET=" + preset);
  env_storage.push_back(std::string(kChildEnv) + "=1");
  std::vector<char*> envp;
  for (std::string& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  std::string self = "/proc/self/exe";
  std::string filter = "--gtest_filter=HsakmtCapabilityTest.DefaultMachineAdvertisesOnlyWhatHipmemImplements";
  char* argv[] = {self.data(), filter.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, envp.data()) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(HsakmtCapabilityTest, PresetsAdvertiseOnlyWhatHipmemImplements) {
  if (std::getenv(kChildEnv) != nullptr) GTEST_SKIP() << "the child checks one preset";
  const std::vector<std::string> presets = hipmem::kfd_sim::PresetNames();
  ASSERT_GE(presets.size(), 6u);
  for (const std::string& preset : presets) {
    SCOPED_TRACE(preset);
    EXPECT_EQ(RunChild(preset), 0) << "the child's output above says which bit";
  }
}

}  // namespace
