#include "testing/kfd_sim/dmabuf_table.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <vector>

#include "base/log.h"
#include "base/scoped_lock.h"

namespace hipmem::kfd_sim {

DmaBufTable::~DmaBufTable() {
  ScopedLock lock(&mu_);
  for (const auto& [key, entry] : entries_) close(entry.own_end);
}

int DmaBufTable::Export(std::shared_ptr<const DmaBufObject> object, bool cloexec) {
  Sweep();
  int ends[2];
  // The table's end is always close-on-exec; the caller's only when asked (dma_buf_fd's flags).
  if (pipe2(ends, O_CLOEXEC) != 0) return -errno;
  const int user_end = ends[1];
  if (!cloexec && fcntl(user_end, F_SETFD, 0) != 0) {
    const int err = errno;
    close(ends[0]);
    close(ends[1]);
    return -err;
  }
  struct stat st {};
  if (fstat(ends[0], &st) != 0) {
    const int err = errno;
    close(ends[0]);
    close(ends[1]);
    return -err;
  }
  ScopedLock lock(&mu_);
  entries_.emplace(Key{st.st_dev, st.st_ino}, Entry{.own_end = ends[0], .object = std::move(object)});
  return user_end;
}

DmaBufTable::Found DmaBufTable::Find(int fd) {
  Sweep();
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return Found{.error = -EBADF, .object = nullptr};
  ScopedLock lock(&mu_);
  const auto it = entries_.find(Key{st.st_dev, st.st_ino});
  // Any other file, a pipe of someone else's included, is not a dma-buf (dma_buf_get: -EINVAL).
  if (it == entries_.end()) return Found{.error = -EINVAL, .object = nullptr};
  return Found{.error = 0, .object = it->second.object};
}

void DmaBufTable::Sweep() {
  std::vector<std::shared_ptr<const DmaBufObject>> dropped;  // released after the lock: they take other locks
  {
    ScopedLock lock(&mu_);
    if (entries_.empty()) return;
    std::vector<pollfd> fds;
    fds.reserve(entries_.size());
    for (const auto& [key, entry] : entries_) fds.push_back(pollfd{.fd = entry.own_end, .events = 0, .revents = 0});
    if (poll(fds.data(), fds.size(), 0) < 0) {
      HIPMEM_LOG(kWarning, "poll(dma-buf ends) failed: errno ", errno);
      return;
    }
    size_t i = 0;
    for (auto it = entries_.begin(); it != entries_.end(); ++i) {
      if ((fds[i].revents & POLLHUP) == 0) {
        ++it;
        continue;
      }
      close(it->second.own_end);
      dropped.push_back(std::move(it->second.object));
      it = entries_.erase(it);
    }
  }
}

size_t DmaBufTable::size() const {
  ScopedLock lock(&mu_);
  return entries_.size();
}

}  // namespace hipmem::kfd_sim
