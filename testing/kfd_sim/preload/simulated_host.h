// What a process under libhipmem_kfd.so sees of the host instead of the real one: one simulated machine per OS
// process (HIPMEM_SIM_PRESET, else the simulator's default), its device files and the files in /sys and /proc that
// describe it. The paths it takes over:
//   /dev/kfd                                   the simulator's KFD (a character device, kKfdMajor:0)
//   /dev/dri/renderD<minor>                    the render node of the preset's GPU with that minor (226:minor); a
//                                              minor no simulated GPU has does not exist (the host's are hidden)
//   /sys/devices/virtual/kfd/kfd/topology/...  the simulator's sysfs tree (Simulator::WriteSysfs)
//   /sys/class/kfd/kfd/topology/...            the same tree (on Linux a symlink to the former)
//   /sys/dev/char/226:<minor>/...              device/drm/{card<n>,renderD<minor>}: what libdrm stats to tell a DRM
//                                              node's type from its device number
//   /proc/modules                              the host's list (when it has one) plus an amdgpu line
//   /sys/module/amdgpu/...                     the loaded module as libkmod reads it (initstate, refcnt, coresize,
//                                              holders/)
// Files are real files in a per-process directory under $TEST_TMPDIR, $TMPDIR or /tmp, written on first use and
// removed when the process that made them exits. With HIPMEM_KFD_DMESG=FILE, a process that made a machine appends
// its simulated kernel log (Simulator::Dmesg) to FILE at exit. Only absolute paths (or paths relative to AT_FDCWD that are
// absolute) are recognised, spelled as above: no "..", doubled slashes or symlinks into them.
#ifndef HIPMEM_TESTING_KFD_SIM_PRELOAD_SIMULATED_HOST_H_
#define HIPMEM_TESTING_KFD_SIM_PRELOAD_SIMULATED_HOST_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "testing/kfd_sim/held_dir.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_preload {

// /dev/kfd's major. The kernel takes a free one at module load (register_chrdev(0, ...)); the highest dynamic
// majors below 255 go first, and this is one /dev/kfd commonly gets. Nothing in ROCm looks at it.
inline constexpr uint32_t kKfdMajor = 235;

// Where a path the process names leads.
struct PathTarget {
  enum class Kind {
    kHost,        // not ours: the host's own file
    kKfd,         // /dev/kfd
    kRenderNode,  // /dev/dri/renderD<render_minor> of a simulated GPU
    kNoDevice,    // a render node no simulated GPU has: ENOENT
    kRedirect,    // a file of the simulated host, at `path`
    kUnavailable, // ours, but the simulated machine could not be made (the reason was printed once)
  };
  Kind kind = Kind::kHost;
  uint32_t render_minor = 0;
  std::string path;
};

class SimulatedHost {
 public:
  // The calling OS process's host, made on first use (a forked child gets its own, the parent's is left untouched
  // and never called into). Never null. Thread-safe.
  static SimulatedHost& Current();

  SimulatedHost(const SimulatedHost&) = delete;
  SimulatedHost& operator=(const SimulatedHost&) = delete;

  // Where `path` leads; creates the files it needs on first use. Cheap for paths that cannot be ours.
  PathTarget Resolve(std::string_view path);

  // True when `path` may be one of ours: Resolve is needed. Reads nothing, allocates nothing.
  static bool MaybeOurs(const char* path);

  // The machine: the topology (nullptr when HIPMEM_SIM_PRESET names no preset) and the simulator, created on first
  // use with its sysfs tree (nullptr when that failed; the reason goes to stderr once).
  const kfd_sim::Topology* topology() const { return topology_.ok() ? &*topology_ : nullptr; }
  kfd_sim::Simulator* simulator();

  pid_t pid() const { return pid_; }

 private:
  SimulatedHost();

  // The per-process directory, made on first use; nullopt (reason printed once) when it cannot be.
  std::optional<std::string> Root() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool WriteModuleFiles() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool WriteDrmSysfs() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  kfd_sim::Simulator* SimulatorLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Complain(const std::string& what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static void RemoveTreeAtExit();
  static void WriteDmesgAtExit();

  const pid_t pid_;
  const absl::StatusOr<kfd_sim::Topology> topology_;

  absl::Mutex mu_;
  std::string root_ ABSL_GUARDED_BY(mu_);
  std::optional<kfd_sim::HeldDir> held_dir_ ABSL_GUARDED_BY(mu_);  // holds root_ while this process lives
  bool root_failed_ ABSL_GUARDED_BY(mu_) = false;
  bool modules_written_ ABSL_GUARDED_BY(mu_) = false;
  bool drm_written_ ABSL_GUARDED_BY(mu_) = false;
  bool complained_ ABSL_GUARDED_BY(mu_) = false;
  // Never destroyed: at exit, engine threads may still run and /dev/kfd files may still be open (the kernel keeps a
  // KFD process until the process's memory goes; so does this). In a forked child the parent's stays behind unused.
  kfd_sim::Simulator* simulator_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool simulator_failed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace hipmem::kfd_preload

#endif  // HIPMEM_TESTING_KFD_SIM_PRELOAD_SIMULATED_HOST_H_
