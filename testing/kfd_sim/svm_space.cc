#include "testing/kfd_sim/svm_space.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "testing/kfd_sim/host/host_thread.h"
#include "testing/kfd_sim/user_memory.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;

constexpr uint64_t kPage = 4096;

std::string ErrnoText(int error) {
  const char* name = strerrorname_np(error);
  return absl::StrCat(name != nullptr ? name : "errno", " (", error, ")");
}

std::string RangeText(uint64_t start, uint64_t end) {
  return absl::StrCat("[0x", absl::Hex(start), ", 0x", absl::Hex(end), ")");
}

// Returns whether every page of [start, start + bytes) belongs to a mapping of this process. msync(MS_ASYNC)
// walks the VMAs and fails with ENOMEM on a hole without touching (or writing back) anything.
bool CpuRangeMapped(uint64_t start, uint64_t bytes) {
  if (!UserRangeAllowed(start, bytes)) return false;  // outside a fuzzer's window: unmapped (user_memory.h)
  return msync(reinterpret_cast<void*>(static_cast<uintptr_t>(start)), bytes, MS_ASYNC) == 0 || errno != ENOMEM;
}

// Whether every page of [start, start + bytes) lies in a mapping of this process the CPU may write, read from
// /proc/self/maps: what hmm_range_fault requires before the kernel maps system memory into a GPU. Memory that is
// not (PROT_NONE or read-only) then stays unmapped, so an engine never stores where the process would crash.
// Deliberately, nothing is faulted in here, where the kernel faults the whole range in (and, with XNACK off, at
// SET_ATTR): the pages come when the CPU or an engine first touches them, so a managed allocation costs the
// host only what is used of it, as it would with XNACK and migration (issue #24), and an allocation larger than
// the host's memory does not exhaust it before anyone touches it.
bool WritableForGpu(uint64_t start, uint64_t bytes) {
  if (!UserRangeAllowed(start, bytes)) return false;  // outside a fuzzer's window: unmapped (user_memory.h)
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const uint64_t end = start + bytes;
  uint64_t covered = start;  // [start, covered) is known writable
  std::string pending;
  char buffer[8192];
  bool done = false;
  while (!done) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<size_t>(n));
    size_t line_start = 0;
    for (size_t nl; !done && (nl = pending.find('\n', line_start)) != std::string::npos; line_start = nl + 1) {
      // "lo-hi perms offset dev inode path", addresses in hex, in ascending order.
      const char* line = pending.c_str() + line_start;
      char* after = nullptr;
      const uint64_t lo = std::strtoull(line, &after, 16);
      if (after == nullptr || *after != '-') continue;
      const uint64_t hi = std::strtoull(after + 1, &after, 16);
      if (after == nullptr || *after != ' ' || after[1] == '\0' || after[2] == '\0') continue;
      const bool writable = after[2] == 'w';
      if (hi <= covered) continue;
      // A hole before this mapping, or a mapping the CPU may not write, inside the range: not writable.
      if (lo > covered || !writable) {
        done = true;
        break;
      }
      covered = hi;
      if (covered >= end) done = true;
    }
    pending.erase(0, line_start);
  }
  close(fd);
  return covered >= end;
}

// Returns whether any page of the range is still resident after MADV_DONTNEED: it is then not private anonymous
// memory (a shared mapping keeps its page cache), which MISSING faults cannot bring back. Errors count as resident.
bool AnyResident(uint64_t start, uint64_t bytes) {
  constexpr uint64_t kChunkPages = 1 << 16;
  std::vector<unsigned char> vec(static_cast<size_t>(std::min(bytes / kPage, kChunkPages)));
  for (uint64_t at = start; at < start + bytes; at += kChunkPages * kPage) {
    const uint64_t len = std::min(start + bytes - at, kChunkPages * kPage);
    if (mincore(reinterpret_cast<void*>(static_cast<uintptr_t>(at)), len, vec.data()) != 0) return true;
    for (uint64_t i = 0; i < len / kPage; ++i) {
      if ((vec[i] & 1) != 0) return true;
    }
  }
  return false;
}

// Gives back the pages of `view` (a MAP_SHARED mapping of a VRAM page file, page-aligned) that hold only zeroes,
// which then read as zeroes from the file's holes. A migration to VRAM copies memory the process never wrote as
// zeroes, and kfdtest's KFDSVMEvictTest registers VRAM plus a third of RAM of such ranges: without this the host's
// memory, not the simulated VRAM, runs out first. The scan stops at a page's first non-zero byte, so pages with
// data cost little more than the copy already did.
void DropZeroPages(std::byte* view, uint64_t bytes) {
  static const std::byte kZeroPage[kPage] = {};
  uint64_t run_start = 0;
  uint64_t run_bytes = 0;
  const auto flush = [&] {
    // MADV_REMOVE frees the file's pages behind a shared mapping; a failure only keeps the zeroes resident.
    if (run_bytes != 0) madvise(view + run_start, run_bytes, MADV_REMOVE);
    run_bytes = 0;
  };
  for (uint64_t at = 0; at < bytes; at += kPage) {
    if (std::memcmp(view + at, kZeroPage, kPage) == 0) {
      if (run_bytes == 0) run_start = at;
      run_bytes += kPage;
    } else {
      flush();
    }
  }
  flush();
}

// The process-wide userfaultfd that brings VRAM-resident SVM pages back when the CPU touches them (svm_space.h)
// and reports munmaps of SVM ranges (UFFD_FEATURE_EVENT_UNMAP), and its handler thread, which sleeps in poll()
// until a fault or an event arrives. Made on first use and never destroyed: a fault or an unmap may arrive at any
// time while a registered range exists. Thread-safe.
//
// Why unmap events, and not a look at /proc/self/maps (or msync/mincore probes) at ioctl time: what goes wrong
// after a partial munmap is a *new* mapping in the freed hole (libhsakmt's next allocation, placed there by the
// kernel), which the maps file shows exactly as it showed the old one (anonymous VMAs merge and carry no identity).
// Only the munmap itself tells them apart, and userfaultfd reports it: the kernel makes munmap wait until the event
// has been read, and the handler reads it and notes it to every space under events_mu_, so a thread whose munmap
// has returned and which then calls an ioctl (SyncEvents first) finds the note there.
class CpuFaultHandler {
 public:
  static CpuFaultHandler& Get() {
    static CpuFaultHandler* const handler = new CpuFaultHandler();
    return *handler;
  }

  bool available() const { return uffd_ >= 0; }
  // How the descriptor was obtained, or why there is none.
  const std::string& how() const { return how_; }

  // Whether munmaps of watched ranges are reported (UFFD_FEATURE_EVENT_UNMAP was granted).
  bool unmap_events() const { return unmap_events_; }

  // Watches [start, start + len) for munmap: registration in write-protect mode only, which alone never makes a
  // fault (no page is ever write-protected here) but makes the kernel report the range's munmap. Returns 0 or an
  // errno (EINVAL: not memory userfaultfd can register, such as a file mapping).
  int Watch(uint64_t start, uint64_t len) {
    if (!unmap_events_) return EOPNOTSUPP;
    uffdio_register reg{.range = {.start = start, .len = len}, .mode = UFFDIO_REGISTER_MODE_WP, .ioctls = 0};
    return ioctl(uffd_, UFFDIO_REGISTER, &reg) == 0 ? 0 : errno;
  }

  // Registers [start, start + len) in MISSING mode (and stays watching it). Returns 0 or an errno.
  int Register(uint64_t start, uint64_t len) {
    const uint64_t mode = UFFDIO_REGISTER_MODE_MISSING | (unmap_events_ ? UFFDIO_REGISTER_MODE_WP : 0);
    uffdio_register reg{.range = {.start = start, .len = len}, .mode = mode, .ioctls = 0};
    if (ioctl(uffd_, UFFDIO_REGISTER, &reg) != 0) return errno;
    if ((reg.ioctls & (uint64_t{1} << _UFFDIO_COPY)) == 0) {
      Unregister(start, len);
      return EOPNOTSUPP;
    }
    return 0;
  }

  // Ends MISSING mode over [start, start + len): a range that is watched for munmap stays watched.
  void Unregister(uint64_t start, uint64_t len) {
    uffdio_range range{.start = start, .len = len};
    ioctl(uffd_, UFFDIO_UNREGISTER, &range);
    if (unmap_events_) Watch(start, len);
  }

  // Returns once every unmap event the kernel has handed out has been noted to the spaces: a munmap that returned
  // before this call is in the spaces' notes after it (see the class comment).
  void SyncEvents() {
    if (!unmap_events_) return;
    std::lock_guard<std::mutex> lock(events_mu_);
  }

  // Fills the missing pages of [dst, dst + len) from `src` without waking whoever waits on them (Wake does, once
  // the books agree with the pages). Pages present already are left alone. Returns 0 or an errno (ENOENT: the
  // range is no longer mapped).
  int Copy(uint64_t dst, const std::byte* src, uint64_t len) {
    uint64_t done = 0;
    while (done < len) {
      uffdio_copy copy{.dst = dst + done, .src = reinterpret_cast<uintptr_t>(src + done), .len = len - done,
                       .mode = UFFDIO_COPY_MODE_DONTWAKE, .copy = 0};
      if (ioctl(uffd_, UFFDIO_COPY, &copy) == 0) return 0;
      const int error = errno;
      if (copy.copy > 0) {
        done += static_cast<uint64_t>(copy.copy);
      } else if (error == EEXIST) {
        // Somebody's page is there: keep it, go on with the next one.
        done += kPage;
      } else if (error != EAGAIN && error != EINTR) {
        return error;
      }
    }
    return 0;
  }

  void Wake(uint64_t start, uint64_t len = kPage) {
    uffdio_range range{.start = start, .len = len};
    ioctl(uffd_, UFFDIO_WAKE, &range);
  }

  void Add(SvmSpace* space, std::weak_ptr<SvmSpace> weak) {
    std::lock_guard<std::mutex> lock(mu_);
    spaces_.emplace_back(space, std::move(weak));
  }
  void Remove(SvmSpace* space) {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(spaces_, [&](const auto& entry) { return entry.first == space; });
  }

 private:
  CpuFaultHandler() {
    const char* off = std::getenv("HIPMEM_SIM_SVM_NO_UFFD");
    if (off != nullptr && std::strcmp(off, "1") == 0) {
      how_ = "HIPMEM_SIM_SVM_NO_UFFD=1";
      return;
    }
    // Faults from kernel mode too need the full descriptor (root or CAP_SYS_PTRACE, or the /dev/userfaultfd node);
    // otherwise user-mode faults only.
    int fd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC));
    how_ = "userfaultfd(2)";
#ifdef USERFAULTFD_IOC_NEW
    if (fd < 0) {
      const int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
      if (dev >= 0) {
        fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
        close(dev);
        how_ = "/dev/userfaultfd";
      }
    }
#endif
    if (fd < 0) {
      fd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
      how_ = "userfaultfd(UFFD_USER_MODE_ONLY): system calls touching VRAM-resident ranges fail with EFAULT";
    }
    if (fd < 0) {
      how_ = absl::StrCat("no userfaultfd: ", ErrnoText(errno));
      return;
    }
    // Non-blocking: the handler polls, then reads under events_mu_ (a blocking read would hold it while asleep).
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    uffdio_api api{.api = UFFD_API, .features = UFFD_FEATURE_EVENT_UNMAP, .ioctls = 0};
    unmap_events_ = ioctl(fd, UFFDIO_API, &api) == 0;
    if (!unmap_events_) {
      // A kernel without the feature: faults still work, munmaps of ranges go unnoticed (svm_space.h). A failed
      // handshake leaves the descriptor waiting for one, so the plain one can follow.
      api = uffdio_api{.api = UFFD_API, .features = 0, .ioctls = 0};
      if (ioctl(fd, UFFDIO_API, &api) != 0) {
        how_ = absl::StrCat("UFFDIO_API: ", ErrnoText(errno));
        close(fd);
        return;
      }
      how_ += "; no UFFD_FEATURE_EVENT_UNMAP: munmaps of SVM ranges go unnoticed";
    }
    uffd_ = fd;
    absl::StatusOr<std::thread> thread = StartHostThread([this] { Loop(); });
    if (!thread.ok()) {
      // As without userfaultfd (available() false): the thread never ran, so nothing reads the descriptor.
      how_ = absl::StrCat("no fault handler thread: ", thread.status().message());
      uffd_ = -1;
      close(fd);
      return;
    }
    thread->detach();
  }

  // Tells every space that [start, end) was unmapped. Called with events_mu_ held; returns the spaces, which the
  // caller lets go after releasing it (the last owner of a closing space runs its destructor, which takes mu_).
  std::vector<std::shared_ptr<SvmSpace>> NoteUnmap(uint64_t start, uint64_t end) {
    std::vector<std::shared_ptr<SvmSpace>> spaces = LiveSpaces();
    for (const std::shared_ptr<SvmSpace>& space : spaces) space->NoteUnmap(start, end);
    return spaces;
  }

  std::vector<std::shared_ptr<SvmSpace>> LiveSpaces() {
    std::vector<std::shared_ptr<SvmSpace>> spaces;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [raw, weak] : spaces_) {
      if (std::shared_ptr<SvmSpace> space = weak.lock()) spaces.push_back(std::move(space));
    }
    return spaces;
  }

  void Loop() {
    pthread_setname_np(pthread_self(), "kfdsim-svmfault");
    for (;;) {
      pollfd pfd{.fd = uffd_, .events = POLLIN, .revents = 0};
      if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
        HIPMEM_LOG(kError, "kfd_sim: poll(svm userfaultfd): ", ErrnoText(errno), "; CPU faults go unserved");
        return;
      }
      uffd_msg msg{};
      ssize_t n;
      std::vector<std::shared_ptr<SvmSpace>> noted;
      {
        // The read and the note of an unmap together under events_mu_: the unmapping thread runs on as soon as
        // the read takes the event, and SyncEvents must not slip between the two.
        std::lock_guard<std::mutex> lock(events_mu_);
        n = read(uffd_, &msg, sizeof(msg));
        if (n == sizeof(msg) && msg.event == UFFD_EVENT_UNMAP) {
          noted = NoteUnmap(msg.arg.remove.start, msg.arg.remove.end);
        }
      }
      noted.clear();
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n < 0) {
        HIPMEM_LOG(kError, "kfd_sim: read(svm userfaultfd): ", ErrnoText(errno), "; CPU faults go unserved");
        return;
      }
      if (n != sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT) continue;
      const uint64_t page = msg.arg.pagefault.address & ~(kPage - 1);
      std::vector<std::shared_ptr<SvmSpace>> spaces = LiveSpaces();
      // A space whose lock is taken is asked again after the others: its holder may be the very thread that
      // faulted (an ioctl of one KFD process copying memory another process's range moved to VRAM), which only
      // the owner of the page can release. A holder that did not fault lets go by itself.
      bool handled = false;
      for (;;) {
        bool busy = false;
        for (const std::shared_ptr<SvmSpace>& space : spaces) {
          const SvmSpace::FaultAnswer answer = space->HandleCpuFault(page);
          handled = answer == SvmSpace::FaultAnswer::kHandled;
          if (handled) break;
          busy = busy || answer == SvmSpace::FaultAnswer::kBusy;
        }
        if (handled || !busy) break;
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      }
      spaces.clear();  // may be the last owner of a closing process's space; its destructor needs nothing of ours
      if (!handled) {
        // No range has it in VRAM: it came back already, or this is a stale message for a page since dropped
        // again by another migration (a zero page here would overwrite what that migration keeps). Waking is
        // all it takes: a toucher whose page is still missing faults again and is asked about again. A space
        // brings its ranges back before it goes, so no page stays registered and missing with no one to ask.
        Wake(page);
      }
    }
  }

  int uffd_ = -1;  // written once in the constructor
  bool unmap_events_ = false;  // written once in the constructor
  std::string how_;
  std::mutex events_mu_;  // held by the handler from reading an event to having noted it
  std::mutex mu_;
  std::vector<std::pair<SvmSpace*, std::weak_ptr<SvmSpace>>> spaces_;  // guarded by mu_
};

}  // namespace

std::shared_ptr<SvmSpace> SvmSpace::Create(std::vector<SvmGpu> gpus, SharedResources* shared, SimLog* log,
                                           uint64_t process_id, bool xnack_enabled) {
  return std::shared_ptr<SvmSpace>(new SvmSpace(std::move(gpus), shared, log, process_id, xnack_enabled));
}

SvmSpace::SvmSpace(std::vector<SvmGpu> gpus, SharedResources* shared, SimLog* log, uint64_t process_id, bool xnack)
    : gpus_(std::move(gpus)), shared_(shared), log_(log), process_id_(process_id), xnack_(xnack) {
  for (const SvmGpu& gpu : gpus_) {
    vram_files_.push_back(std::make_shared<PageFile>(absl::StrCat("kfd_sim svm vram gpu_id=0x", absl::Hex(gpu.gpu_id))));
  }
}

SvmSpace::~SvmSpace() {
  Close();
  if (registered_with_handler_) CpuFaultHandler::Get().Remove(this);
}

void SvmSpace::Close() {
  std::unique_lock<std::shared_mutex> lock(mu_);
  for (auto& [start, range] : ranges_) {
    if (range.vram_gpu) MigrateToSystem(start, range, "process closed /dev/kfd");
  }
}

std::optional<size_t> SvmSpace::GpuIndex(uint32_t gpu_id) const {
  for (size_t i = 0; i < gpus_.size(); ++i) {
    if (gpus_[i].gpu_id == gpu_id) return i;
  }
  return std::nullopt;
}

void SvmSpace::Log(const std::string& text) {
  log_->Write(SimLogLevel::kInfo, absl::StrCat("kfd_sim: process ", process_id_, ": svm ", text));
}

int SvmSpace::CheckSetAttrs(std::span<const kfd_uapi::SvmAttribute> attrs) const {
  // svm_range_check_attr: every gpu_id must be one of the process's GPUs.
  for (const kfd_uapi::SvmAttribute& attr : attrs) {
    const uint32_t v = attr.value;
    switch (static_cast<uapi::SvmAttrType>(attr.type)) {
      case uapi::SvmAttrType::kPreferredLoc:
        if (v != uapi::kSvmLocationSysmem && v != uapi::kSvmLocationUndefined && !GpuIndex(v)) return -EINVAL;
        break;
      case uapi::SvmAttrType::kPrefetchLoc:
        if (v != uapi::kSvmLocationSysmem && !GpuIndex(v)) return -EINVAL;
        break;
      case uapi::SvmAttrType::kAccess:
      case uapi::SvmAttrType::kAccessInPlace:
      case uapi::SvmAttrType::kNoAccess:
        if (!GpuIndex(v)) return -EINVAL;
        break;
      case uapi::SvmAttrType::kSetFlags:
      case uapi::SvmAttrType::kClrFlags:
      case uapi::SvmAttrType::kGranularity:
        break;
      default:
        return -EINVAL;
    }
  }
  return 0;
}

int SvmSpace::CheckRange(uint64_t start, uint64_t size) {
  // Deliberate: a range that wraps is -EINVAL (mainline: -EOVERFLOW since 2026, before that it wrapped).
  if (start + size < start) return -EINVAL;
  // svm_range_is_valid: every page must belong to a VMA of the process.
  if (!CpuRangeMapped(start, size)) return -EFAULT;
  return 0;
}

void SvmSpace::SplitAt(uint64_t addr) {
  auto it = ranges_.upper_bound(addr);
  if (it == ranges_.begin()) return;
  --it;
  const uint64_t start = it->first;
  Range& r = it->second;
  if (addr <= start || addr >= r.end) return;
  Range tail = r;
  if (tail.vram_gpu) tail.pages_offset += addr - start;
  r.end = addr;
  ranges_.emplace(addr, std::move(tail));
}

void SvmSpace::FillHoles(uint64_t start, uint64_t end) {
  std::vector<std::pair<uint64_t, uint64_t>> holes;
  uint64_t cursor = start;
  for (auto it = ranges_.lower_bound(start); it != ranges_.end() && it->first < end; ++it) {
    if (it->first > cursor) holes.emplace_back(cursor, it->first);
    cursor = it->second.end;
  }
  if (cursor < end) holes.emplace_back(cursor, end);
  const uint64_t all = (gpus_.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << gpus_.size()) - 1);
  CpuFaultHandler& handler = CpuFaultHandler::Get();
  for (const auto& [hole_start, hole_end] : holes) {
    if (handler.available()) {
      if (!registered_with_handler_) {
        handler.Add(this, weak_from_this());
        registered_with_handler_ = true;
      }
      if (const int error = handler.Watch(hole_start, hole_end - hole_start); error != 0 && !told_no_watch_) {
        told_no_watch_ = true;
        Log(absl::StrCat(RangeText(hole_start, hole_end), ": a munmap of it will go unnoticed (", handler.how(),
                         error != EOPNOTSUPP ? absl::StrCat(", UFFDIO_REGISTER: ", ErrnoText(error)) : "",
                         "); said once"));
      }
    }
    Range fresh;
    fresh.end = hole_end;
    // svm_range_new: under XNACK every GPU of the process may access a new range.
    if (xnack_.load(std::memory_order_relaxed)) fresh.attrs.access = all;
    ranges_.emplace(hole_start, std::move(fresh));
  }
}

void SvmSpace::NoteUnmap(uint64_t start, uint64_t end) {
  std::lock_guard<std::mutex> lock(unmapped_mu_);
  unmapped_.emplace_back(start, end);
}

void SvmSpace::ApplyUnmaps() {
  CpuFaultHandler::Get().SyncEvents();
  std::vector<std::pair<uint64_t, uint64_t>> unmapped;
  {
    std::lock_guard<std::mutex> lock(unmapped_mu_);
    unmapped.swap(unmapped_);
  }
  if (unmapped.empty()) return;
  std::unique_lock<std::shared_mutex> lock(mu_);
  for (const auto& [start, end] : unmapped) {
    SplitAt(start);
    SplitAt(end);
    for (auto it = ranges_.lower_bound(start); it != ranges_.end() && it->first < end;) {
      const Range& r = it->second;
      // svm_range_unmap_from_cpu: the GPUs lose the part and its VRAM is free (the pages of a split range stay
      // with the pieces left, which share them).
      if (r.vram_gpu) shared_->ReleaseVram(*r.vram_gpu, Bytes(r.end - it->first));
      Log(absl::StrCat(RangeText(it->first, r.end), " unmapped by the process: dropped"));
      it = ranges_.erase(it);
    }
  }
}

void SvmSpace::MergeAround(uint64_t start, uint64_t end) {
  auto it = ranges_.upper_bound(start);
  if (it != ranges_.begin()) --it;
  while (it != ranges_.end() && it->first <= end) {
    auto next = std::next(it);
    if (next == ranges_.end() || next->first > end) break;
    Range& a = it->second;
    const Range& b = next->second;
    if (a.end == next->first && !a.vram_gpu && !b.vram_gpu && a.attrs == b.attrs &&
        a.mapped.bits.load(std::memory_order_relaxed) == b.mapped.bits.load(std::memory_order_relaxed)) {
      a.end = b.end;
      const uint64_t kept = it->first;
      ranges_.erase(next);
      it = ranges_.find(kept);  // an erase invalidates every iterator of a btree
    } else {
      it = next;
    }
  }
}

bool SvmSpace::Reaches(size_t gpu, const Range& r) const {
  return !r.vram_gpu || ((gpus_[gpu].reaches >> *r.vram_gpu) & 1) != 0;
}

uint64_t SvmSpace::MappingsFor(const Range& r) const {
  uint64_t bits;
  if (!xnack_.load(std::memory_order_relaxed)) {
    bits = r.attrs.access | r.attrs.in_place;
  } else {
    bits = r.attrs.in_place;
    if (r.vram_gpu && ((r.attrs.access >> *r.vram_gpu) & 1) != 0) bits |= uint64_t{1} << *r.vram_gpu;
    if ((r.attrs.flags & kfd_uapi::ToRaw(kfd_uapi::SvmFlags::kGpuAlwaysMapped)) != 0) bits |= r.attrs.access;
  }
  for (size_t i = 0; i < gpus_.size(); ++i) {
    if (!Reaches(i, r)) bits &= ~(uint64_t{1} << i);
  }
  return bits;
}

bool SvmSpace::MigrateToVram(uint64_t start, Range& r, size_t gpu, const char* why) {
  if (r.vram_gpu == gpu) return false;
  const uint64_t bytes = r.end - start;
  const std::string what = absl::StrCat(RangeText(start, r.end), " -> VRAM of gpu_id=0x", absl::Hex(gpus_[gpu].gpu_id));
  CpuFaultHandler& handler = CpuFaultHandler::Get();
  if (!handler.available()) {
    if (!told_no_migration_) {
      told_no_migration_ = true;
      Log(absl::StrCat("ranges stay in system memory, GPUs map them there (", handler.how(), ")"));
    }
    return false;
  }
  if (!shared_->TryReserveVram(gpu, Bytes(bytes))) {
    Log(absl::StrCat(what, " (", why, "): out of VRAM, the range stays where it is"));
    return false;
  }
  absl::StatusOr<std::shared_ptr<BoPages>> pages = BoPages::Create(vram_files_[gpu], Bytes(bytes));
  std::byte* view = pages.ok() ? (*pages)->EngineView() : nullptr;
  if (view == nullptr) {
    shared_->ReleaseVram(gpu, Bytes(bytes));
    Log(absl::StrCat(what, " (", why, "): no pages for it, the range stays where it is"));
    return false;
  }
  if (r.vram_gpu) {
    std::memcpy(view, r.pages->EngineView() + r.pages_offset, bytes);
    shared_->ReleaseVram(*r.vram_gpu, Bytes(bytes));
  } else {
    if (!registered_with_handler_) {
      handler.Add(this, weak_from_this());
      registered_with_handler_ = true;
    }
    // Copied before registering: reading a page never touched would otherwise be a MISSING fault that only this
    // thread, which holds the ranges, could serve. A store between the copy and the drop is lost (svm_space.h).
    void* cpu = reinterpret_cast<void*>(static_cast<uintptr_t>(start));
    const bool copied = CopyFromUser(view, start, bytes);
    if (copied) DropZeroPages(view, bytes);
    const int error = copied ? handler.Register(start, bytes) : EFAULT;
    if (error != 0 || madvise(cpu, bytes, MADV_DONTNEED) != 0 || AnyResident(start, bytes)) {
      if (error == 0) handler.Unregister(start, bytes);
      shared_->ReleaseVram(gpu, Bytes(bytes));
      Log(absl::StrCat(what, " (", why, "): not private anonymous memory userfaultfd can watch",
                       error != 0 ? absl::StrCat(" (UFFDIO_REGISTER: ", ErrnoText(error), ")") : std::string(),
                       ", the range stays in system memory"));
      return false;
    }
  }
  r.vram_gpu = gpu;
  r.pages = *std::move(pages);
  r.pages_offset = 0;
  r.mapped.bits.store(MappingsFor(r), std::memory_order_relaxed);
  Log(absl::StrCat("migrated ", what, " (", why, ")"));
  return true;
}

bool SvmSpace::MigrateToSystem(uint64_t start, Range& r, const char* why) {
  if (!r.vram_gpu) return false;
  const uint64_t bytes = r.end - start;
  const size_t gpu = *r.vram_gpu;
  CpuFaultHandler& handler = CpuFaultHandler::Get();
  const int error = handler.Copy(start, r.pages->EngineView() + r.pages_offset, bytes);
  // The books first, then the wake: a toucher that runs on sees the range in system memory and its VRAM free.
  shared_->ReleaseVram(gpu, Bytes(bytes));
  r.vram_gpu.reset();
  r.pages.reset();
  r.pages_offset = 0;
  r.mapped.bits.store(MappingsFor(r), std::memory_order_relaxed);
  // Unregistered before the wake (which UFFDIO_WAKE does whether or not the range is still registered): a toucher
  // that runs on may register the same pages again (another KFD process migrating them), which a later
  // unregister of ours would silently undo, leaving its dropped pages to read as zeroes.
  handler.Unregister(start, bytes);
  handler.Wake(start, bytes);
  Log(absl::StrCat("migrated ", RangeText(start, r.end), " -> system memory from VRAM of gpu_id=0x",
                   absl::Hex(gpus_[gpu].gpu_id), " (", why, ")",
                   error != 0 ? absl::StrCat(": its CPU pages are gone (", ErrnoText(error), ")") : std::string()));
  return true;
}

int SvmSpace::SetAttr(uint64_t start, uint64_t size, std::span<const kfd_uapi::SvmAttribute> attrs) {
  ApplyUnmaps();
  const uint64_t end = start + size;
  std::unique_lock<std::shared_mutex> lock(mu_);
  SplitAt(start);
  SplitAt(end);
  FillHoles(start, end);
  bool prefetch = false;
  int result = 0;
  for (auto it = ranges_.lower_bound(start); it != ranges_.end() && it->first < end; ++it) {
    Attributes& a = it->second.attrs;
    for (const kfd_uapi::SvmAttribute& attr : attrs) {
      const uint64_t bit = GpuIndex(attr.value) ? uint64_t{1} << *GpuIndex(attr.value) : 0;
      switch (static_cast<uapi::SvmAttrType>(attr.type)) {
        case uapi::SvmAttrType::kPreferredLoc: a.preferred_loc = attr.value; break;
        case uapi::SvmAttrType::kPrefetchLoc:
          a.prefetch_loc = attr.value;
          prefetch = true;
          break;
        case uapi::SvmAttrType::kAccess:
          a.access |= bit;
          a.in_place &= ~bit;
          break;
        case uapi::SvmAttrType::kAccessInPlace:
          a.access &= ~bit;
          a.in_place |= bit;
          break;
        case uapi::SvmAttrType::kNoAccess:
          a.access &= ~bit;
          a.in_place &= ~bit;
          break;
        case uapi::SvmAttrType::kSetFlags: a.flags |= attr.value; break;
        case uapi::SvmAttrType::kClrFlags: a.flags &= ~attr.value; break;
        case uapi::SvmAttrType::kGranularity: a.granularity = std::min(attr.value, kSvmMaxGranularity); break;
      }
    }
  }
  for (auto it = ranges_.lower_bound(start); it != ranges_.end() && it->first < end; ++it) {
    Range& r = it->second;
    // A prefetch migrates even when the location did not change (svm_range_is_same_attrs never matches it).
    if (prefetch) {
      if (r.attrs.prefetch_loc == kfd_uapi::kSvmLocationSysmem) {
        MigrateToSystem(it->first, r, "prefetch");
      } else if (const std::optional<size_t> gpu = GpuIndex(r.attrs.prefetch_loc)) {
        MigrateToVram(it->first, r, *gpu, "prefetch");
      }
    }
    // GPUs that lost access lose their mapping; the validate-and-map rule adds the rest.
    const uint64_t allowed = r.attrs.access | r.attrs.in_place;
    const uint64_t old_bits = r.mapped.bits.load(std::memory_order_relaxed);
    uint64_t bits = (old_bits & allowed) | MappingsFor(r);
    // svm_range_validate_and_map faults system memory in before mapping it; memory that cannot be is -EFAULT.
    if ((bits & ~old_bits) != 0 && !r.vram_gpu && !WritableForGpu(it->first, r.end - it->first)) {
      bits &= old_bits;
      result = -EFAULT;
    }
    r.mapped.bits.store(bits, std::memory_order_relaxed);
  }
  MergeAround(start, end);
  return result;
}

int SvmSpace::GetAttr(uint64_t start, uint64_t size, std::span<kfd_uapi::SvmAttribute> attrs) {
  bool get_preferred = false;
  bool get_prefetch = false;
  bool get_access = false;
  bool get_flags = false;
  bool get_granularity = false;
  for (const kfd_uapi::SvmAttribute& attr : attrs) {
    switch (static_cast<uapi::SvmAttrType>(attr.type)) {
      case uapi::SvmAttrType::kPreferredLoc: get_preferred = true; break;
      case uapi::SvmAttrType::kPrefetchLoc: get_prefetch = true; break;
      case uapi::SvmAttrType::kAccess: get_access = true; break;
      case uapi::SvmAttrType::kSetFlags:
      case uapi::SvmAttrType::kClrFlags: get_flags = true; break;
      case uapi::SvmAttrType::kGranularity: get_granularity = true; break;
      default: return -EINVAL;  // ACCESS_IN_PLACE and NO_ACCESS are answers, not questions
    }
  }
  ApplyUnmaps();
  const uint64_t end = start + size;
  const uint64_t all = (gpus_.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << gpus_.size()) - 1);
  uint32_t location = kfd_uapi::kSvmLocationUndefined;
  uint32_t prefetch_loc = kfd_uapi::kSvmLocationUndefined;
  uint32_t granularity = 0xff;
  uint32_t flags_and = 0xffffffff;
  uint32_t flags_or = 0;
  uint64_t access = all;
  uint64_t in_place = all;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = ranges_.upper_bound(start);
    if (it != ranges_.begin() && std::prev(it)->second.end > start) --it;
    if (it == ranges_.end() || it->first >= end) {
      // No range there: the defaults a new range would get.
      const Attributes defaults;
      granularity = defaults.granularity;
      flags_and = flags_or = defaults.flags;
      access = xnack_.load(std::memory_order_relaxed) ? all : 0;
      in_place = 0;
    }
    for (; it != ranges_.end() && it->first < end; ++it) {
      const Attributes& a = it->second.attrs;
      if (get_preferred) {
        if (a.preferred_loc == kfd_uapi::kSvmLocationUndefined ||
            (location != kfd_uapi::kSvmLocationUndefined && location != a.preferred_loc)) {
          location = kfd_uapi::kSvmLocationUndefined;
          get_preferred = false;
        } else {
          location = a.preferred_loc;
        }
      }
      if (get_prefetch) {
        if (a.prefetch_loc == kfd_uapi::kSvmLocationUndefined ||
            (prefetch_loc != kfd_uapi::kSvmLocationUndefined && prefetch_loc != a.prefetch_loc)) {
          prefetch_loc = kfd_uapi::kSvmLocationUndefined;
          get_prefetch = false;
        } else {
          prefetch_loc = a.prefetch_loc;
        }
      }
      if (get_access) {
        access &= a.access;
        in_place &= a.in_place;
      }
      if (get_flags) {
        flags_and &= a.flags;
        flags_or |= a.flags;
      }
      if (get_granularity) granularity = std::min(granularity, a.granularity);
    }
  }
  for (kfd_uapi::SvmAttribute& attr : attrs) {
    switch (static_cast<uapi::SvmAttrType>(attr.type)) {
      case uapi::SvmAttrType::kPreferredLoc: attr.value = location; break;
      case uapi::SvmAttrType::kPrefetchLoc: attr.value = prefetch_loc; break;
      case uapi::SvmAttrType::kAccess: {
        const std::optional<size_t> gpu = GpuIndex(attr.value);
        if (!gpu) return -EINVAL;
        const uint64_t bit = uint64_t{1} << *gpu;
        attr.type = kfd_uapi::ToRaw((access & bit) != 0     ? uapi::SvmAttrType::kAccess
                                    : (in_place & bit) != 0 ? uapi::SvmAttrType::kAccessInPlace
                                                            : uapi::SvmAttrType::kNoAccess);
        break;
      }
      case uapi::SvmAttrType::kSetFlags: attr.value = flags_and; break;
      case uapi::SvmAttrType::kClrFlags: attr.value = ~flags_or; break;
      case uapi::SvmAttrType::kGranularity: attr.value = granularity; break;
      default: break;
    }
  }
  return 0;
}

bool SvmSpace::Overlaps(AddressRange range) {
  ApplyUnmaps();
  const uint64_t start = range.base.raw();
  const uint64_t end = start + range.size.raw();
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = ranges_.upper_bound(start);
  if (it != ranges_.begin() && std::prev(it)->second.end > start) return true;
  return it != ranges_.end() && it->first < end;
}

std::vector<SvmRangeInfo> SvmSpace::Ranges() {
  ApplyUnmaps();
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<SvmRangeInfo> out;
  for (const auto& [start, r] : ranges_) {
    out.push_back(SvmRangeInfo{.range = AddressRange{DeviceAddress(start), Bytes(r.end - start)},
                               .vram_gpu = r.vram_gpu,
                               .mapped = r.mapped.bits.load(std::memory_order_relaxed),
                               .preferred_loc = r.attrs.preferred_loc,
                               .prefetch_loc = r.attrs.prefetch_loc});
  }
  return out;
}

SvmSpace::FaultAnswer SvmSpace::HandleCpuFault(uint64_t page) {
  std::unique_lock<std::shared_mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return FaultAnswer::kBusy;
  auto it = ranges_.upper_bound(page);
  if (it == ranges_.begin()) return FaultAnswer::kNotMine;
  --it;
  // In system memory here: brought back already (a prefetch, another thread's fault on the same granule), or the
  // page is another KFD process's range in VRAM. Its owner, or the handler's fallback (which leaves a present page
  // alone and wakes the toucher), answers.
  if (page >= it->second.end || !it->second.vram_gpu) return FaultAnswer::kNotMine;
  // svm_migrate_to_ram: the granule around the address, within the range.
  const uint64_t granule = uint64_t{1} << std::min<uint64_t>(it->second.attrs.granularity + 12, 62);
  const uint64_t block_start = std::max(it->first, page & ~(granule - 1));
  const uint64_t block_end = std::min(it->second.end, (page & ~(granule - 1)) + granule);
  SplitAt(block_start);
  SplitAt(block_end);
  auto block = ranges_.find(block_start);
  MigrateToSystem(block_start, block->second, "CPU fault");
  MergeAround(block_start, block_end);
  return FaultAnswer::kHandled;
}

std::optional<GpuMemory::Span> SvmSpace::TranslateForGpu(size_t gpu, uint64_t va, uint64_t bytes) {
  // The caller's access scope holds mu_ shared.
  auto it = ranges_.upper_bound(va);
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  Range& r = it->second;
  if (va >= r.end || gpu >= gpus_.size()) return std::nullopt;
  const uint64_t bit = uint64_t{1} << gpu;
  if ((r.mapped.bits.load(std::memory_order_acquire) & bit) == 0) {
    // Not in this GPU's page table: under XNACK a retry fault the kernel resolves (svm_range_restore_pages) if the
    // GPU may access the range and reach where it lives; otherwise a VM fault.
    if (!xnack_.load(std::memory_order_relaxed) || ((r.attrs.access | r.attrs.in_place) & bit) == 0 ||
        !Reaches(gpu, r) || (!r.vram_gpu && !WritableForGpu(it->first, r.end - it->first))) {
      return std::nullopt;
    }
    if ((r.mapped.bits.fetch_or(bit, std::memory_order_acq_rel) & bit) == 0) {
      Log(absl::StrCat("gpu_id=0x", absl::Hex(gpus_[gpu].gpu_id), " retry fault at 0x", absl::Hex(va), ": ",
                       RangeText(it->first, r.end), " mapped in ",
                       r.vram_gpu ? absl::StrCat("VRAM of gpu_id=0x", absl::Hex(gpus_[*r.vram_gpu].gpu_id))
                                  : std::string("system memory")));
    }
  }
  const uint64_t offset = va - it->first;
  const uint64_t left = std::min(r.end - va, bytes);
  if (!r.vram_gpu) return GpuMemory::Span{reinterpret_cast<void*>(static_cast<uintptr_t>(va)), left};
  std::byte* view = r.pages->EngineView();
  if (view == nullptr) return std::nullopt;
  return GpuMemory::Span{view + r.pages_offset + offset, left};
}

}  // namespace hipmem::kfd_sim
