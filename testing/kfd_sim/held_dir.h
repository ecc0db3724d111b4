// A temporary directory for a simulated host's files (the KFD sysfs tree) that a SIGKILLed process cannot leave
// behind for good.
//
// The owner holds an flock on the directory for as long as any descriptor of it is open: its own, or a forked
// child's copy (a child shares the parent's machine files until it makes its own). The kernel drops the lock when
// the last such process dies, however it dies, so a directory of ours whose lock can be taken belongs to nobody:
// making a new one removes every such directory in the same base first. This needs no pid (which another PID
// namespace sharing /tmp would misread, and which the system reuses) and no daemon.
#ifndef HIPMEM_TESTING_KFD_SIM_HELD_DIR_H_
#define HIPMEM_TESTING_KFD_SIM_HELD_DIR_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace hipmem::kfd_sim {

class HeldDir {
 public:
  // Removes the stale directories named `<base>/<prefix>*`, then makes `<base>/<prefix>XXXXXX` and locks it.
  // `base`: $TEST_TMPDIR, else $TMPDIR, else /tmp. Errors: the errno of mkdtemp/open/flock/rename.
  static absl::StatusOr<HeldDir> Create(std::string_view prefix);

  HeldDir(HeldDir&& other) noexcept;
  HeldDir& operator=(HeldDir&& other) noexcept;
  HeldDir(const HeldDir&) = delete;
  HeldDir& operator=(const HeldDir&) = delete;
  // Closes the lock's descriptor; the directory stays (its owner removes it when it is done with it, or the next
  // Create of a later process does).
  ~HeldDir();

  const std::string& path() const { return path_; }

 private:
  HeldDir(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  std::string path_;
  int fd_ = -1;
};

// Removes every `<base>/<prefix>*` directory nobody holds (see above). Returns how many it removed.
int RemoveStaleHeldDirs(const std::string& base, std::string_view prefix);

// $TEST_TMPDIR, else $TMPDIR, else /tmp: where HeldDir::Create makes its directories.
std::string HeldDirBase();

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_HELD_DIR_H_
