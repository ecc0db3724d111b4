// The pages behind simulated VRAM, GTT and doorbell buffers, and the engines' view of them.
//
// Plays the memory a BO's TTM pages live in. A PageFile is one sparse memory file (memfd) that many buffers
// share, each at its own range of offsets, as a GPU's VRAM holds many BOs: allocating a buffer's pages is a
// counter bump and costs no system call, where a file per buffer cost four (memfd_create, ftruncate, and
// close, on top of the CPU mapping). The CPU reaches a buffer through its own MAP_SHARED mappings of its range
// (SimFile::MmapBo / MmapKfd); the simulated engines through one more mapping of just that range.
//
// Offsets are never handed out twice. The kernel keeps a freed BO alive as long as a CPU mapping of it
// exists (the mapping holds a GEM reference), so its VRAM is not given to the next BO while a stale mapping
// could still read or write it. The simulator cannot see user space unmap, so it gets the same guarantee by
// never reusing a range: a stale mapping of a freed buffer can never reach another buffer's pages. A freed
// range's pages are given back to the system by punching a hole in the file (a stale mapping then reads
// zeroes), in batches, so that the common alloc/free cycle costs no system call for it either, and only from
// the range's first page of data on (SEEK_DATA): a range nobody wrote has nothing to give back. A fresh range
// is a hole, hence zero-filled, as amdgpu zero-fills VRAM it hands to user space.
#ifndef HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_
#define HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/units.h"
#include "testing/kfd_sim/memfd.h"

namespace hipmem::kfd_sim {

// One sparse memory file, created on first use, whose offsets are handed out to buffers. Thread-safe.
class PageFile {
 public:
  // The file's size: its offset space. Sparse, so it costs nothing; 2^62 bytes last ~10^7 allocations of a
  // whole 192 GiB GPU, ~10^15 of 4 KiB ones.
  static constexpr Bytes kSpan = Bytes(uint64_t{1} << 62);
  // Freed ranges wait for a hole punch until this many bytes or this many separate ranges are pending. Sized
  // so that the pages a process has freed but not yet returned stay small next to what tests allocate.
  static constexpr Bytes kDiscardBatch = Bytes::MiB(16);
  static constexpr size_t kMaxPendingRanges = 64;

  // `name` is what /proc/self/fd shows for the file once it exists. Makes no file yet.
  explicit PageFile(std::string name) : name_(std::move(name)) {}
  // A file of someone else's pages: another OS process's simulator owns `file` (a copy of its descriptor) and
  // its accounting. Nothing is taken from it (Take answers nullopt; BoPages::Borrow names a range) and nothing
  // is ever punched (Discard does nothing), since the owner decides when its pages go. `keepalive` is released
  // with the file: what tells the owner that this process no longer uses them.
  static std::shared_ptr<PageFile> Borrow(std::string name, MemFd file, std::shared_ptr<const void> keepalive);
  // Gives back the pages of ranges still pending a punch (a stale CPU mapping keeps the file open).
  ~PageFile();
  PageFile(const PageFile&) = delete;
  PageFile& operator=(const PageFile&) = delete;

  // Returns the start of `size` bytes of offsets never handed out before, or nullopt once the offset space is
  // used up. `size` must be page-aligned. No system call.
  std::optional<uint64_t> Take(Bytes size);

  // Returns the file's descriptor, creating the file on the first call. Errors: MemFd::Create's
  // (kResourceExhausted when out of descriptors or memory, ...); a later call tries again.
  absl::StatusOr<int> fd();
  // Returns whether the file exists, i.e. whether anything has asked for pages of it.
  bool has_file() const;

  // Drops the pages of [offset, offset + size), a range Take handed out whose buffer is gone: now when the
  // batch is full (fallocate PUNCH_HOLE over each merged pending range), else with a later batch.
  void Discard(uint64_t offset, Bytes size);
  // The bytes freed but not punched yet.
  Bytes pending_discard() const;

 private:
  void PunchLocked();

  const std::string name_;
  bool borrowed_ = false;                           // set once by Borrow, before the file is shared
  std::shared_ptr<const void> keepalive_;           // Borrow's
  mutable std::mutex mu_;
  std::optional<MemFd> file_ ABSL_GUARDED_BY(mu_);
  uint64_t next_offset_ ABSL_GUARDED_BY(mu_) = 0;
  absl::btree_map<uint64_t, uint64_t> pending_ ABSL_GUARDED_BY(mu_);  // start -> end of freed ranges, merged
  uint64_t pending_bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

// One buffer's range of a PageFile. Shared (std::shared_ptr) by the buffer, every GPU page-table entry that
// maps it and, for an exported buffer, its importers, so pages an engine is using never disappear under it;
// the last owner gives the range back (PageFile::Discard). Thread-safe.
class BoPages {
 public:
  // Where the pages are: a descriptor of the shared file and the buffer's first byte in it.
  struct FileRange {
    int fd = -1;
    uint64_t offset = 0;
  };

  // Takes `size` (page-aligned) bytes of zeroed pages from `file`. No system call.
  // Errors: kResourceExhausted when the file's offset space is used up.
  static absl::StatusOr<std::shared_ptr<BoPages>> Create(std::shared_ptr<PageFile> file, Bytes size);
  // Names the `size` (page-aligned) bytes at `offset` of a borrowed file (PageFile::Borrow): pages someone else
  // allocated. No system call.
  static std::shared_ptr<BoPages> Borrow(std::shared_ptr<PageFile> file, uint64_t offset, Bytes size);

  ~BoPages();
  BoPages(const BoPages&) = delete;
  BoPages& operator=(const BoPages&) = delete;

  Bytes size() const { return size_; }
  uint64_t offset() const { return offset_; }

  // Returns the file and offset to map the pages from, creating the file on first use. Errors: PageFile::fd's;
  // a later call tries again.
  absl::StatusOr<FileRange> File();

  // Returns whether anything has asked for the pages (File or EngineView succeeded): only such a range can
  // hold data, so only it is punched when the buffer goes.
  bool touched() const;

  // The engines' view: the first byte of a MAP_SHARED read-write mapping of exactly this buffer's range, made
  // on the first call (with the file, if need be). Null when that fails (descriptor or address-space
  // exhaustion); the caller treats it as a fault.
  std::byte* EngineView();

 private:
  struct Key {};  // Create only

 public:
  BoPages(Key, std::shared_ptr<PageFile> file, uint64_t offset, Bytes size)
      : file_(std::move(file)), offset_(offset), size_(size) {}

 private:
  const std::shared_ptr<PageFile> file_;
  const uint64_t offset_;
  const Bytes size_;
  mutable std::mutex mu_;
  bool touched_ ABSL_GUARDED_BY(mu_) = false;
  // Written once, under mu_; read without it (an engine translates on every access, and the pointer never
  // changes once set, so the hot path takes no lock).
  std::atomic<std::byte*> view_{nullptr};
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_BO_PAGES_H_
