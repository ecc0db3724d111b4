#include "testing/kfd_sim/held_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hipmem::kfd_sim {

std::string HeldDirBase() {
  const char* base = std::getenv("TEST_TMPDIR");
  if (base == nullptr || *base == '\0') base = std::getenv("TMPDIR");
  if (base == nullptr || *base == '\0') base = "/tmp";
  return base;
}

int RemoveStaleHeldDirs(const std::string& base, std::string_view prefix) {
  DIR* dir = opendir(base.c_str());
  if (dir == nullptr) return 0;
  std::vector<std::string> names;
  while (const dirent* entry = readdir(dir)) {
    const std::string_view name(entry->d_name);
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) names.emplace_back(name);
  }
  closedir(dir);
  int removed = 0;
  for (const std::string& name : names) {
    const std::string path = absl::StrCat(base, "/", name);
    const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    // Taken: nobody holds it. Removed while we hold it, so a second reaper racing with us skips it.
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
      if (!ec) ++removed;
    }
    close(fd);
  }
  return removed;
}

absl::StatusOr<HeldDir> HeldDir::Create(std::string_view prefix) {
  const std::string base = HeldDirBase();
  RemoveStaleHeldDirs(base, prefix);
  // Made under another name and renamed once locked: a reaper never sees one of ours before its lock is held.
  std::string fresh = absl::StrCat(base, "/.", std::string(prefix), "new-XXXXXX");
  if (mkdtemp(fresh.data()) == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("mkdtemp(", fresh, ")"));
  }
  const int fd = open(fresh.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (fd >= 0) close(fd);
    rmdir(fresh.c_str());
    return absl::ErrnoToStatus(error, absl::StrCat("locking ", fresh));
  }
  std::string path = absl::StrCat(base, "/", std::string(prefix), fresh.substr(fresh.size() - 6));
  // RENAME_NOREPLACE: a plain rename would put ours over an empty directory of that name.
  if (renameat2(AT_FDCWD, fresh.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0) {
    const int error = errno;
    close(fd);
    rmdir(fresh.c_str());
    return absl::ErrnoToStatus(error, absl::StrCat("renameat2(", fresh, ", ", path, ")"));
  }
  return HeldDir(std::move(path), fd);
}

HeldDir::HeldDir(HeldDir&& other) noexcept : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

HeldDir& HeldDir::operator=(HeldDir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

HeldDir::~HeldDir() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace hipmem::kfd_sim
