// The simulated kernel's IPC share handles (the amdgpu-DKMS amdkfd's kfd_ipc.c; not in mainline).
//
// Plays kfd_ipc_handles, the machine-wide table of kfd_ipc_obj: AMDKFD_IOC_IPC_EXPORT_HANDLE names a buffer with
// 128 random bits, and AMDKFD_IOC_IPC_IMPORT_HANDLE finds it by them in any process. As in the kernel the table
// holds no reference: an object lives as long as a BO holds it (the exporter's, which made it, and every
// importer's) and leaves the table with its last holder, so a handle whose every BO is freed is unknown from
// then on. Each object wraps the buffer's dma-buf object (DmaBufObject), whose pages and accounting every holder
// shares, as the kernel's ipc_obj wraps a dma_buf.
//
// One table per simulator (the simulated machine). Other OS processes reach it through this process's IPC
// server (ipc_socket.h), for which the table is a grant source; a handle's last word is the pid of the process
// that made it. Private to the simulator.
#ifndef HIPMEM_TESTING_KFD_SIM_IPC_TABLE_H_
#define HIPMEM_TESTING_KFD_SIM_IPC_TABLE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/status/statusor.h"
#include "testing/kfd_sim/dmabuf_table.h"
#include "testing/kfd_sim/ipc_socket.h"

namespace hipmem::kfd_sim {

// One IPC-shared buffer (kfd_ipc_obj). Immutable.
struct IpcObject {
  ShareHandle handle;
  std::shared_ptr<const DmaBufObject> dmabuf;  // the pages, their size, domain and GPU, and the accounting
  uint32_t flags = 0;                          // the first export's flags, handed to every importer
};

// Thread-safe.
class IpcTable final : public IpcGrantSource {
 public:
  // Registers the table with this process's IPC server (which starts only once the table has an object).
  IpcTable();
  // Unregisters it and drops the other processes' holds on its objects. Every BO of this table's simulator must
  // be gone already. In a forked child, for a table of its parent's, does nothing (see ipc_socket.h).
  ~IpcTable();
  IpcTable(const IpcTable&) = delete;
  IpcTable& operator=(const IpcTable&) = delete;

  // Names `dmabuf` with a fresh handle (96 random bits and this process's pid) and returns its object; the table
  // keeps it until the last holder lets go. Starts the IPC server for other OS processes; when that fails, only
  // they cannot import (logged once). Errors: getrandom(2)'s errno (the kernel's get_random_bytes cannot fail).
  absl::StatusOr<std::shared_ptr<const IpcObject>> Create(std::shared_ptr<const DmaBufObject> dmabuf,
                                                          uint32_t flags);
  // Returns the live object `handle` names in this table, or null.
  std::shared_ptr<const IpcObject> Find(const ShareHandle& handle) const;
  // The live objects.
  size_t size() const;

  // IpcGrantSource: what the server hands another process (a copy of the page file, offset, size, flags, and a
  // hold on the object).
  std::optional<IpcGrant> Grant(const ShareHandle& handle) override;
  bool empty() const override;

 private:
  // Drops `handle`'s entry (its object's last holder has gone).
  void Forget(const ShareHandle& handle);

  // A std::mutex: the IPC server's thread takes it under its own (ipc_socket.cc says why not absl::Mutex).
  mutable std::mutex mu_;
  absl::btree_map<ShareHandle, std::weak_ptr<const IpcObject>> objects_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_IPC_TABLE_H_
