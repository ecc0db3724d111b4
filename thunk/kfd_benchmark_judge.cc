#include "thunk/kfd_benchmark_judge.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hipmem::thunk {
namespace {

namespace fs = std::filesystem;

absl::Status FromErrorCode(const std::error_code& error, const std::string& what) {
  return absl::ErrnoToStatus(error.value(), absl::StrCat(what, ": ", error.message()));
}

// The directory holding `path`, or "." for a bare file name.
std::string DirName(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

absl::StatusOr<std::string> CopyTopologyForModel(const std::string& sim_root, const std::string& parent) {
  std::error_code error;
  const fs::path nodes = fs::path(sim_root) / "nodes";
  if (!fs::is_directory(nodes, error)) {
    return absl::NotFoundError(absl::StrCat("CopyTopologyForModel(", sim_root, "): no nodes/ directory"));
  }
  std::string dir = (fs::path(parent) / "hipmem_judge_topology_XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("CopyTopologyForModel: mkdtemp(", dir, ")"));
  }
  fs::copy(sim_root, dir, fs::copy_options::recursive, error);
  if (error) return FromErrorCode(error, absl::StrCat("CopyTopologyForModel: copy ", sim_root, " to ", dir));

  for (const fs::directory_entry& node : fs::directory_iterator(fs::path(dir) / "nodes", error)) {
    uint32_t index = 0;
    const std::string name = node.path().filename().string();
    if (std::from_chars(name.data(), name.data() + name.size(), index).ec != std::errc()) continue;
    const fs::path gpu_id_file = node.path() / "gpu_id";
    std::ifstream in(gpu_id_file);
    uint64_t gpu_id = 0;
    if (!(in >> gpu_id)) {
      return absl::DataLossError(absl::StrCat("CopyTopologyForModel: ", gpu_id_file.string(), " holds no number"));
    }
    in.close();
    if (gpu_id == 0) continue;  // a CPU node keeps gpu_id 0
    std::ofstream out(gpu_id_file, std::ios::trunc);
    out << (index + 1) << "\n";
    if (!out.flush()) {
      return absl::InternalError(absl::StrCat("CopyTopologyForModel: cannot rewrite ", gpu_id_file.string()));
    }
  }
  if (error) return FromErrorCode(error, absl::StrCat("CopyTopologyForModel: list ", dir, "/nodes"));
  return dir;
}

absl::StatusOr<std::unique_ptr<LibhsakmtJudge>> LibhsakmtJudge::Open(const std::string& library,
                                                                     const std::string& sim_root) {
  if (access(library.c_str(), R_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("judge ", library, ": ", std::strerror(errno),
                                            " (build it with tools/judge/build_libhsakmt_model.sh)"));
  }
  if (getenv("HSA_MODEL_LIB") == nullptr) {
    const std::string model = (fs::path(DirName(library)) / kNullModelFileName).string();
    if (access(model.c_str(), R_OK) != 0) {
      return absl::NotFoundError(absl::StrCat("judge emulator ", model, ": ", std::strerror(errno),
                                              " (set HSA_MODEL_LIB or rebuild with build_libhsakmt_model.sh)"));
    }
    setenv("HSA_MODEL_LIB", model.c_str(), /*overwrite=*/1);
  }
  const char* tmp = getenv("TMPDIR");
  absl::StatusOr<std::string> topology = CopyTopologyForModel(sim_root, tmp != nullptr ? tmp : "/tmp");
  if (!topology.ok()) return topology.status();

  std::unique_ptr<LibhsakmtJudge> judge(new LibhsakmtJudge());
  judge->topology_dir_ = *std::move(topology);
  // libhsakmt reads these when it opens KFD, not at load time.
  setenv("HSA_MODEL_TOPOLOGY", judge->topology_dir_.c_str(), /*overwrite=*/1);

  judge->handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (judge->handle_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("dlopen(", library, "): ", dlerror()));
  }
  struct Symbol {
    const char* name;
    void** slot;
  };
  const Symbol symbols[] = {
      {"hsaKmtOpenKFD", reinterpret_cast<void**>(&judge->open_)},
      {"hsaKmtCloseKFD", reinterpret_cast<void**>(&judge->close_)},
      {"hsaKmtAcquireSystemProperties", reinterpret_cast<void**>(&judge->acquire_)},
      {"hsaKmtReleaseSystemProperties", reinterpret_cast<void**>(&judge->release_)},
      {"hsaKmtAllocMemory", reinterpret_cast<void**>(&judge->alloc_)},
      {"hsaKmtFreeMemory", reinterpret_cast<void**>(&judge->free_)},
      {"hsaKmtMapMemoryToGPU", reinterpret_cast<void**>(&judge->map_)},
      {"hsaKmtUnmapMemoryToGPU", reinterpret_cast<void**>(&judge->unmap_)},
  };
  for (const Symbol& symbol : symbols) {
    *symbol.slot = dlsym(judge->handle_, symbol.name);
    if (*symbol.slot == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat("dlsym(", library, ", ", symbol.name, "): not found"));
    }
  }

  if (const HSAKMT_STATUS status = judge->open_(); status != HSAKMT_STATUS_SUCCESS) {
    return absl::FailedPreconditionError(absl::StrCat("judge hsaKmtOpenKFD: HSAKMT_STATUS ", status));
  }
  judge->opened_ = true;
  HsaSystemProperties properties{};
  if (const HSAKMT_STATUS status = judge->acquire_(&properties); status != HSAKMT_STATUS_SUCCESS) {
    return absl::FailedPreconditionError(
        absl::StrCat("judge hsaKmtAcquireSystemProperties: HSAKMT_STATUS ", status, " (topology ",
                     judge->topology_dir_, ")"));
  }
  judge->num_nodes_ = properties.NumNodes;
  return judge;
}

LibhsakmtJudge::~LibhsakmtJudge() {
  if (opened_) {
    release_();
    close_();
  }
  // The library stays loaded: the model's memfd, apertures and emulator live in its globals for the life of
  // the process, and libhsakmt was never written to be unloaded.
  std::error_code error;
  if (!topology_dir_.empty()) fs::remove_all(topology_dir_, error);
}

absl::Status LibhsakmtJudge::Cycle(uint32_t node, uint64_t size, bool host_visible) {
  HsaMemFlags flags{};
  flags.ui32.NonPaged = 1;
  flags.ui32.CoarseGrain = 1;
  flags.ui32.NoSubstitute = 1;
  flags.ui32.HostAccess = host_visible ? 1 : 0;
  void* address = nullptr;
  if (const HSAKMT_STATUS status = alloc_(node, size, flags, &address); status != HSAKMT_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat("judge hsaKmtAllocMemory(node=", node, ", size=", size,
                                            "): HSAKMT_STATUS ", status));
  }
  HSAuint64 alternate = 0;
  if (const HSAKMT_STATUS status = map_(address, size, &alternate); status != HSAKMT_STATUS_SUCCESS) {
    free_(address, size);
    return absl::InternalError(absl::StrCat("judge hsaKmtMapMemoryToGPU(size=", size, "): HSAKMT_STATUS ", status));
  }
  if (const HSAKMT_STATUS status = unmap_(address); status != HSAKMT_STATUS_SUCCESS) {
    free_(address, size);
    return absl::InternalError(absl::StrCat("judge hsaKmtUnmapMemoryToGPU: HSAKMT_STATUS ", status));
  }
  if (const HSAKMT_STATUS status = free_(address, size); status != HSAKMT_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat("judge hsaKmtFreeMemory: HSAKMT_STATUS ", status));
  }
  return absl::OkStatus();
}

}  // namespace hipmem::thunk
