// The judge of kfd_benchmark: AMD's own libhsakmt, built in model mode (tools/judge), loaded into the
// benchmark process so its ALLOC+MAP+UNMAP+FREE cycle can be timed next to ours on the same machine, with the
// same topology, in the same run. See tools/judge/README.md for how to build it and what the numbers mean.
#ifndef HIPMEM_THUNK_KFD_BENCHMARK_JUDGE_H_
#define HIPMEM_THUNK_KFD_BENCHMARK_JUDGE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hsakmt/hsakmt.h"

namespace hipmem::thunk {

// The file name of the null emulator that tools/judge/build_libhsakmt_model.sh puts next to the judge.
inline constexpr char kNullModelFileName[] = "libnull_hsakmt_model.so";

// Copies the sysfs topology tree at `sim_root` (a SimMachine's) to a new directory under `parent` and
// returns its path. Model mode wants GPU node N's gpu_id to be N + 1 (it derives the node from the gpu_id
// the thunk passes in each ioctl), so every non-zero gpu_id is rewritten that way; everything else is kept.
// Errors: kNotFound when `sim_root` has no nodes/ directory; the errno of a failing copy or write.
absl::StatusOr<std::string> CopyTopologyForModel(const std::string& sim_root, const std::string& parent);

// libhsakmt (model mode) opened in this process. One per process: libhsakmt keeps its state in globals.
class LibhsakmtJudge {
 public:
  // Points HSA_MODEL_TOPOLOGY at a copy of `sim_root` (CopyTopologyForModel, under $TMPDIR or /tmp) and, unless
  // HSA_MODEL_LIB is already set, HSA_MODEL_LIB at kNullModelFileName next to `library`; dlopens `library` with
  // RTLD_DEEPBIND, because its hsaKmt* names are also ours and it must bind to its own; opens KFD and acquires
  // the system properties through it.
  // Errors: kNotFound for a library or emulator that is not there; kFailedPrecondition when dlopen or a symbol
  // lookup fails, or when hsaKmtOpenKFD / hsaKmtAcquireSystemProperties does not succeed (its status in the
  // message); whatever CopyTopologyForModel returns.
  static absl::StatusOr<std::unique_ptr<LibhsakmtJudge>> Open(const std::string& library,
                                                             const std::string& sim_root);

  ~LibhsakmtJudge();
  LibhsakmtJudge(const LibhsakmtJudge&) = delete;
  LibhsakmtJudge& operator=(const LibhsakmtJudge&) = delete;

  // One hsaKmtAllocMemory + hsaKmtMapMemoryToGPU + hsaKmtUnmapMemoryToGPU + hsaKmtFreeMemory of `size` bytes
  // of VRAM on node `node`: NonPaged, CoarseGrain, NoSubstitute, plus HostAccess when `host_visible` (the flags
  // of kfd_benchmark's own cycles). Errors: kInternal naming the call and its HSAKMT_STATUS; the buffer is freed
  // on the way out when a later step fails.
  absl::Status Cycle(uint32_t node, uint64_t size, bool host_visible);

  const std::string& topology_dir() const { return topology_dir_; }
  uint32_t num_nodes() const { return num_nodes_; }

 private:
  using OpenFn = HSAKMT_STATUS (*)();
  using CloseFn = HSAKMT_STATUS (*)();
  using AcquireFn = HSAKMT_STATUS (*)(HsaSystemProperties*);
  using ReleaseFn = HSAKMT_STATUS (*)();
  using AllocFn = HSAKMT_STATUS (*)(HSAuint32, HSAuint64, HsaMemFlags, void**);
  using FreeFn = HSAKMT_STATUS (*)(void*, HSAuint64);
  using MapFn = HSAKMT_STATUS (*)(void*, HSAuint64, HSAuint64*);
  using UnmapFn = HSAKMT_STATUS (*)(void*);

  LibhsakmtJudge() = default;

  void* handle_ = nullptr;  // dlopen handle; never dlclosed, see the destructor
  std::string topology_dir_;
  uint32_t num_nodes_ = 0;
  bool opened_ = false;
  OpenFn open_ = nullptr;
  CloseFn close_ = nullptr;
  AcquireFn acquire_ = nullptr;
  ReleaseFn release_ = nullptr;
  AllocFn alloc_ = nullptr;
  FreeFn free_ = nullptr;
  MapFn map_ = nullptr;
  UnmapFn unmap_ = nullptr;
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_KFD_BENCHMARK_JUDGE_H_
