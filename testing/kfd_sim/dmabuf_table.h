// The simulated kernel's dma-bufs: exported buffer objects, each reachable through file descriptors.
//
// Plays struct dma_buf and its file. An export is a real descriptor user space holds, may dup, pass on and
// close: the write end of a pipe whose read end the table keeps. The table finds the buffer from the
// descriptor's inode (as dma_buf_get finds the dma_buf from the file), and learns that every copy of the
// descriptor is closed when its own end reports a hangup (poll, at the next Sweep), since the simulator
// cannot see close(). Private to the simulator.
#ifndef HIPMEM_TESTING_KFD_SIM_DMABUF_TABLE_H_
#define HIPMEM_TESTING_KFD_SIM_DMABUF_TABLE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "testing/kfd_sim/bo_pages.h"

namespace hipmem::kfd_sim {

// One exported buffer (the amdgpu_bo behind a dma_buf): what every importer shares. Immutable.
struct DmaBufObject {
  std::shared_ptr<BoPages> pages;
  Bytes size;
  uint32_t alloc_flags = 0;  // KFD_IOC_ALLOC_MEM_FLAGS_: VRAM or GTT, and PUBLIC when CPU-visible
  size_t gpu_index = 0;      // the GPU whose memory it is
  // The exporter's memory accounting, moved here at export: given back when the last holder (exporter BO,
  // importer BO, descriptor) lets go. Opaque to the table.
  std::shared_ptr<void> charge;
};

// Thread-safe.
class DmaBufTable {
 public:
  DmaBufTable() = default;
  DmaBufTable(const DmaBufTable&) = delete;
  DmaBufTable& operator=(const DmaBufTable&) = delete;
  // Closes the table's ends; objects whose descriptors are still open elsewhere are dropped all the same.
  ~DmaBufTable();

  // Returns a new descriptor for `object`, close-on-exec when `cloexec`, or -errno (pipe2's: -EMFILE, ...).
  int Export(std::shared_ptr<const DmaBufObject> object, bool cloexec);

  struct Found {
    int error = 0;  // 0, -EBADF (not an open descriptor) or -EINVAL (not a dma-buf of this table)
    std::shared_ptr<const DmaBufObject> object;
  };
  // Returns the object behind descriptor `fd` of the calling process.
  Found Find(int fd);

  // Forgets the exports whose every user descriptor is closed, dropping their hold on the object.
  void Sweep();

  // The exports not yet seen closed.
  size_t size() const;

 private:
  struct Entry {
    int own_end;  // the pipe's read end: POLLHUP once every write end is closed
    std::shared_ptr<const DmaBufObject> object;
  };
  using Key = std::pair<dev_t, ino_t>;

  mutable absl::Mutex mu_;
  absl::btree_map<Key, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_DMABUF_TABLE_H_
