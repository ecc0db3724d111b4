#include "testing/kfd_sim/ipc_table.h"

#include <sys/random.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "testing/kfd_sim/bo_pages.h"

namespace hipmem::kfd_sim {
namespace {

// Fills `words` from the kernel's random pool (get_random_bytes in kfd_ipc_store_insert). 0 or -errno.
int RandomWords(uint32_t* words, size_t count) {
  auto* bytes = reinterpret_cast<char*>(words);
  size_t done = 0;
  while (done < count * sizeof(uint32_t)) {
    const ssize_t n = getrandom(bytes + done, count * sizeof(uint32_t) - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? -errno : -EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

IpcTable::IpcTable() { RegisterIpcSource(this); }

IpcTable::~IpcTable() {
  // Dropped here, while the table (which their objects' last holder calls back) still exists.
  std::vector<std::shared_ptr<const void>> remote_holds = UnregisterIpcSource(this);
  remote_holds.clear();
}

absl::StatusOr<std::shared_ptr<const IpcObject>> IpcTable::Create(std::shared_ptr<const DmaBufObject> dmabuf,
                                                                  uint32_t flags) {
  ShareHandle handle{};
  handle[kShareHandlePidWord] = static_cast<uint32_t>(getpid());
  std::shared_ptr<const IpcObject> object;
  {
    std::lock_guard<std::mutex> lock(mu_);
    do {
      if (const int err = RandomWords(handle.data(), kShareHandlePidWord); err != 0) {
        return absl::ErrnoToStatus(-err, "IpcTable::Create: getrandom");
      }
    } while (objects_.contains(handle));
    // The table holds no reference: the object's last holder takes it out (kfd_ipc_obj's release).
    object = std::shared_ptr<const IpcObject>(
        new IpcObject{.handle = handle, .dmabuf = std::move(dmabuf), .flags = flags}, [this](const IpcObject* o) {
          Forget(o->handle);
          delete o;
        });
    objects_.emplace(handle, object);
  }
  // Outside the table's lock: the server calls the table under its own.
  if (absl::Status s = EnsureIpcServer(); !s.ok()) {
    static std::atomic<bool> logged{false};
    if (!logged.exchange(true)) {
      HIPMEM_LOG(kWarning, "kfd_sim: IPC handles resolve only in this process: ", s.message());
    }
  }
  return object;
}

std::shared_ptr<const IpcObject> IpcTable::Find(const ShareHandle& handle) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = objects_.find(handle);
  return it == objects_.end() ? nullptr : it->second.lock();
}

size_t IpcTable::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return objects_.size();
}

bool IpcTable::empty() const { return size() == 0; }

std::optional<IpcGrant> IpcTable::Grant(const ShareHandle& handle) {
  std::shared_ptr<const IpcObject> object = Find(handle);
  if (object == nullptr) return std::nullopt;
  const DmaBufObject& buffer = *object->dmabuf;
  const absl::StatusOr<BoPages::FileRange> file = buffer.pages->File();
  if (!file.ok()) {
    HIPMEM_LOG(kWarning, "kfd_sim IPC: no page file to send: ", file.status().message());
    return std::nullopt;
  }
  return IpcGrant{.fd = file->fd,
                  .offset = file->offset,
                  .size = buffer.size.raw(),
                  .alloc_flags = buffer.alloc_flags,
                  .flags = object->flags,
                  .hold = std::move(object)};
}

void IpcTable::Forget(const ShareHandle& handle) {
  bool now_empty;
  {
    std::lock_guard<std::mutex> lock(mu_);
    objects_.erase(handle);
    now_empty = objects_.empty();
  }
  // The server may be waiting for nothing but this to stop.
  if (now_empty) WakeIpcServer();
}

}  // namespace hipmem::kfd_sim
