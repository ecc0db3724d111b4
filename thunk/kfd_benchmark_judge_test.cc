// The parts of kfd_benchmark's judge that run without the judge: the topology copy model mode reads, and the
// errors a user gets for a judge that is not there.
#include "thunk/kfd_benchmark_judge.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

namespace fs = std::filesystem;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class CopyTopologyForModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::DefaultTopology()));
    parent_ = fs::path(::testing::TempDir()) / "copy_topology_for_model_test";
    fs::create_directories(parent_);
  }
  void TearDown() override { fs::remove_all(parent_); }

  std::shared_ptr<SimMachine> machine_;
  fs::path parent_;
};

TEST_F(CopyTopologyForModelTest, RenumbersGpuIdsAndKeepsEverythingElse) {
  ASSERT_OK_AND_ASSIGN(const std::string copy, CopyTopologyForModel(machine_->sysfs_root(), parent_.string()));
  const fs::path source(machine_->sysfs_root());
  const size_t gpus = machine_->simulator().topology().gpus.size();
  ASSERT_GE(gpus, 1u);

  // Node 0 is the CPU and keeps gpu_id 0; GPU node N gets N + 1, which model mode checks.
  EXPECT_EQ(ReadFile(fs::path(copy) / "nodes/0/gpu_id"), "0\n");
  for (size_t node = 1; node <= gpus; ++node) {
    const fs::path gpu_id = fs::path("nodes") / std::to_string(node) / "gpu_id";
    EXPECT_EQ(ReadFile(fs::path(copy) / gpu_id), std::to_string(node + 1) + "\n") << gpu_id;
    // The simulator's own tree is left as it was: its gpu_ids are the kernel-style hashes.
    EXPECT_NE(ReadFile(source / gpu_id), std::to_string(node + 1) + "\n") << gpu_id;
  }
  // Everything libhsakmt parses besides gpu_id is copied byte for byte.
  for (const char* file : {"system_properties", "generation_id", "nodes/1/properties",
                           "nodes/1/mem_banks/0/properties", "nodes/0/properties"}) {
    EXPECT_EQ(ReadFile(fs::path(copy) / file), ReadFile(source / file)) << file;
    EXPECT_FALSE(ReadFile(source / file).empty()) << file;
  }
  EXPECT_EQ(fs::path(copy).parent_path(), parent_);
}

TEST_F(CopyTopologyForModelTest, EachCallMakesItsOwnCopy) {
  ASSERT_OK_AND_ASSIGN(const std::string first, CopyTopologyForModel(machine_->sysfs_root(), parent_.string()));
  ASSERT_OK_AND_ASSIGN(const std::string second, CopyTopologyForModel(machine_->sysfs_root(), parent_.string()));
  EXPECT_NE(first, second);
}

TEST_F(CopyTopologyForModelTest, ADirectoryWithoutNodesIsNotATopology) {
  EXPECT_THAT(CopyTopologyForModel(parent_.string(), parent_.string()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no nodes/ directory")));
}

TEST(LibhsakmtJudgeTest, AMissingLibrarySaysHowToBuildIt) {
  EXPECT_THAT(LibhsakmtJudge::Open("/nonexistent/libhsakmt.so", "/nonexistent"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("build_libhsakmt_model.sh")));
}

TEST(LibhsakmtJudgeTest, ALibraryWithoutTheNullEmulatorBesideItIsRefused) {
  // Any readable file stands for the library: the emulator check comes before dlopen.
  const fs::path dir = fs::path(::testing::TempDir()) / "judge_without_emulator";
  fs::create_directories(dir);
  std::ofstream(dir / "libhsakmt.so") << "not a library";
  unsetenv("HSA_MODEL_LIB");
  EXPECT_THAT(LibhsakmtJudge::Open((dir / "libhsakmt.so").string(), "/nonexistent"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(kNullModelFileName)));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hipmem::thunk
