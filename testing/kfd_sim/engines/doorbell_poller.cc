#include "testing/kfd_sim/engines/doorbell_poller.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "testing/kfd_sim/host/host_thread.h"

// Debian bookworm's kernel headers (6.1) predate these; the running kernel reports what it has in UFFDIO_API.
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif

namespace hipmem::kfd_sim {
namespace {

std::string ErrnoText(int error) {
  const char* name = strerrorname_np(error);
  return absl::StrCat(name != nullptr ? name : "errno ", name != nullptr ? "" : absl::StrCat(error));
}

// The outcome of setting up the process's userfaultfd: a descriptor, or why there is none.
struct UffdSetup {
  int fd = -1;
  std::string why;  // the fallback's reason, or how the descriptor was made
};

// A descriptor from the first of: userfaultfd(2) (root, or CAP_SYS_PTRACE: faults from kernel mode too),
// /dev/userfaultfd's USERFAULTFD_IOC_NEW (access to the node), userfaultfd(2) with UFFD_USER_MODE_ONLY (what an
// unprivileged process may have when vm.unprivileged_userfaultfd=0). Blocking: the handler sleeps in read().
int OpenUffd(std::string* why) {
  int fd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC));
  if (fd >= 0) return fd;
  const int syscall_error = errno;
  const int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
  int dev_error = errno;
  if (dev >= 0) {
    fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
    dev_error = errno;
    close(dev);
    if (fd >= 0) return fd;
  }
  fd = static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY));
  if (fd >= 0) return fd;
  *why = absl::StrCat("userfaultfd(2): ", ErrnoText(syscall_error), "; /dev/userfaultfd: ", ErrnoText(dev_error),
                      "; userfaultfd(UFFD_USER_MODE_ONLY): ", ErrnoText(errno));
  return -1;
}

UffdSetup SetUpUffd() {
  const char* force = std::getenv("HIPMEM_SIM_DOORBELL_POLL");
  if (force != nullptr && force[0] != '\0' && std::strcmp(force, "0") != 0) {
    return UffdSetup{.why = "HIPMEM_SIM_DOORBELL_POLL is set"};
  }
  UffdSetup setup;
  // UFFDIO_API is a one-time handshake per descriptor, and asking for a feature the kernel lacks fails it: a
  // first descriptor asks which features exist (features = 0), a second one enables the ones we use.
  const int probe = OpenUffd(&setup.why);
  if (probe < 0) return setup;
  uffdio_api api{.api = UFFD_API, .features = 0, .ioctls = 0};
  const bool probed = ioctl(probe, UFFDIO_API, &api) == 0;
  const int probe_error = errno;
  close(probe);
  if (!probed) return UffdSetup{.why = absl::StrCat("UFFDIO_API: ", ErrnoText(probe_error))};
  // Write-protect faults, on shmem (a memfd's pages). WP_UNPOPULATED (6.4+) is not needed for shmem, whose
  // none PTEs get PTE markers anyway, but costs nothing where it exists.
  constexpr uint64_t kRequired = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
  if ((api.features & kRequired) != kRequired) {
    return UffdSetup{.why = absl::StrCat("UFFDIO_API: no write-protect on shmem (features 0x",
                                         absl::Hex(api.features), ")")};
  }
  const uint64_t wanted = UFFD_FEATURE_WP_HUGETLBFS_SHMEM | (api.features & UFFD_FEATURE_WP_UNPOPULATED);
  const int fd = OpenUffd(&setup.why);
  if (fd < 0) return setup;
  uffdio_api enable{.api = UFFD_API, .features = wanted, .ioctls = 0};
  if (ioctl(fd, UFFDIO_API, &enable) != 0) {
    const int error = errno;
    close(fd);
    return UffdSetup{.why = absl::StrCat("UFFDIO_API(features=0x", absl::Hex(wanted), "): ", ErrnoText(error))};
  }
  constexpr uint64_t kIoctls = (uint64_t{1} << _UFFDIO_REGISTER) | (uint64_t{1} << _UFFDIO_UNREGISTER);
  if ((enable.ioctls & kIoctls) != kIoctls) {
    close(fd);
    return UffdSetup{.why = "UFFDIO_API: no UFFDIO_REGISTER"};
  }
  return UffdSetup{.fd = fd, .why = absl::StrCat("features 0x", absl::Hex(wanted))};
}

}  // namespace

// The process's one poller and, where userfaultfd works, its write-protect fault handler. Thread-safe.
//
// Why no bare store is lost in event-driven mode. A store through a watched client mapping lands on a page that
// is either write-protected ("cold") or not ("hot"); the state changes only under mu_, and a page is hot from
// the moment the handler lifts its protection until the poller protects it again.
//  - Cold: the store faults and its thread blocks in the kernel. The handler marks the page hot, then lifts the
//    protection (which wakes the writer; the faulting instruction is retried and the store lands some time
//    later). From then on the page is looked at (by the handler for kFaultSpin, then by the poller every
//    kDoorbellHotPollPeriod) until it is protected again, so the store is seen by a look while hot, or by:
//  - Re-protection: UFFDIO_WRITEPROTECT returns only once no CPU can still write through an old writable TLB
//    entry (it flushes them), so a store either completed before it returns, and the look that follows every
//    re-protection sees it, or it faults and is case "cold" again. A writer preempted for longer than the hot
//    spell simply faults again.
//  - A look wakes a sleeper whose word differs from the value it went to sleep on (DoorbellWatch::Arm), and an
//    engine that read the word before the store but armed only after the last look finds FUTEX_WAIT failing at
//    once (the word no longer reads `seen`). So every store reaches its engine, as in polling mode, and between
//    hot spells nothing runs: the handler sleeps in read() and the poller has no timer unless some doorbell is
//    polled.
// Several doorbells share a page (an 8 KiB slice is 1024 doorbells on two pages) and several client mappings
// may map one page: hotness is per client page, and an engine page is polled while any of its client pages is
// hot. A page some mapping of which could not be registered is polled as in the fallback.
//
// Teardown: the poller and the handler live as long as the process (never destroyed, like the mapping's
// users may be static), so a writer blocked on a fault is always served; DoorbellClientMapping's destructor
// unregisters its range, which lifts the protection and wakes whoever is blocked on it, and a fault message
// still queued for a range that is gone is answered by lifting the protection and waking, which fails
// harmlessly. fork(): the descriptor does not ask for UFFD_FEATURE_EVENT_FORK, so the child's copies of the
// mappings are unregistered (dup_userfaultfd) and its PTEs carry no write-protect bits or markers; a child's
// store is a plain store (no engine in the child is watching anyway).
class DoorbellPoller {
 public:
  using Clock = std::chrono::steady_clock;

  // Never destroyed: engines of static objects may unregister during exit, and the detached threads may still
  // be running when main returns. One per OS process: a forked child has neither the poller nor the fault
  // handler thread and may have inherited mu_ locked by one, so the child gets a fresh poller and leaves the
  // parent's (memory only) untouched.
  static DoorbellPoller& Get() {
    static std::atomic<DoorbellPoller*> current{nullptr};
    static std::mutex create_mu;
    const pid_t pid = getpid();
    DoorbellPoller* poller = current.load(std::memory_order_acquire);
    if (poller != nullptr && poller->pid_ == pid) return *poller;
    std::lock_guard<std::mutex> lock(create_mu);
    poller = current.load(std::memory_order_acquire);
    if (poller == nullptr || poller->pid_ != pid) {
      poller = new DoorbellPoller(pid, poller);
      current.store(poller, std::memory_order_release);
    }
    return *poller;
  }

  void Add(DoorbellWatch* watch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      watch->last_seen_ = Read(watch);
      watches_.push_back(watch);
      // A new queue is the moment a raw client is about to ring: warm at once, even mid idle period.
      last_activity_ = Clock::now();
      watch->polled_ = KickLocked();
    }
    cv_.notify_one();
  }

  void Remove(DoorbellWatch* watch) {
    // The poller reads words only while holding mu_, so once this returns it will not read this one again.
    std::lock_guard<std::mutex> lock(mu_);
    // Absent only for a watch of another process's poller (a parent's engine torn down in a forked child).
    if (auto it = std::find(watches_.begin(), watches_.end(), watch); it != watches_.end()) watches_.erase(it);
  }

  // Registers a client mapping; returns its id and whether stores through it fault.
  std::pair<uint64_t, bool> Watch(void* client, size_t bytes, void* engine_view) {
    const auto client_start = reinterpret_cast<uintptr_t>(client);
    uint64_t id = 0;
    bool registered = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      SetUpLocked();
      // A mapping placed over another (MAP_FIXED) took its place and its registration: forget the old one, and
      // unregister whatever of it survives, so no range is registered without our knowing.
      for (auto it = ranges_.begin(); it != ranges_.end();) {
        const ClientRange& old = it->second;
        if (old.client < client_start + bytes && client_start < old.client + old.pages * page_) {
          if (old.registered) Unregister(old);
          it = ranges_.erase(it);
        } else {
          ++it;
        }
      }
      ClientRange range{.client = client_start,
                        .pages = bytes / page_,
                        .engine = reinterpret_cast<uintptr_t>(engine_view),
                        .registered = false,
                        .hot_until = std::vector<Clock::time_point>(bytes / page_, kProtected)};
      if (uffd_ >= 0 && bytes % page_ == 0 && client_start % page_ == 0) {
        uffdio_register reg{.range = {.start = client_start, .len = bytes}, .mode = UFFDIO_REGISTER_MODE_WP,
                            .ioctls = 0};
        std::string failure;
        if (ioctl(uffd_, UFFDIO_REGISTER, &reg) != 0) {
          failure = absl::StrCat("UFFDIO_REGISTER: ", ErrnoText(errno));
        } else if ((reg.ioctls & (uint64_t{1} << _UFFDIO_WRITEPROTECT)) == 0) {
          failure = "UFFDIO_REGISTER: no UFFDIO_WRITEPROTECT for this mapping";
          Unregister(range);
        } else if (const int error = WriteProtect(client_start, bytes, true); error != 0) {
          failure = absl::StrCat("UFFDIO_WRITEPROTECT: ", ErrnoText(error));
          Unregister(range);
        } else {
          range.registered = true;
        }
        if (!failure.empty()) {
          HIPMEM_LOG(kWarning, "kfd_sim: doorbell mapping at 0x", absl::Hex(client_start), " not write-protected (",
                     failure, "); bare stores to it are noticed by polling");
        }
      }
      registered = range.registered;
      id = next_id_++;
      ranges_.emplace(id, std::move(range));
      KickLocked();
    }
    cv_.notify_one();
    return {id, registered};
  }

  std::vector<const void*> ClientAliases(uintptr_t engine_word) {
    std::vector<const void*> aliases;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, range] : ranges_) {
      if (engine_word < range.engine || engine_word >= range.engine + range.pages * page_) continue;
      aliases.push_back(reinterpret_cast<const void*>(range.client + (engine_word - range.engine)));
    }
    return aliases;
  }

  void Unwatch(uint64_t id) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto it = ranges_.find(id);
      if (it == ranges_.end()) return;  // replaced by a later mapping at the same addresses
      if (it->second.registered) Unregister(it->second);
      ranges_.erase(it);
      KickLocked();
    }
    cv_.notify_one();
  }

  DoorbellPollerStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    const std::optional<std::chrono::microseconds> period = PeriodLocked(Clock::now());
    return DoorbellPollerStats{.looks = looks_,
                               .wakes = wakes_,
                               .watched = watches_.size(),
                               .period = period.value_or(std::chrono::microseconds(0)),
                               .event_driven = uffd_ >= 0,
                               .faults = faults_,
                               .protects = protects_};
  }

 private:
  // How long the handler itself watches a page after lifting its protection, for the store to land: the
  // writer usually runs within microseconds, and its engine is then woken without waiting for the poller.
  static constexpr std::chrono::microseconds kFaultSpin{100};
  static constexpr Clock::time_point kProtected = Clock::time_point::min();

  // A watched client mapping of doorbell pages.
  struct ClientRange {
    uintptr_t client;  // first byte, page-aligned
    size_t pages;
    uintptr_t engine;  // the engines' view of the same first page
    bool registered;   // with the userfaultfd; false: its pages' doorbells are polled
    std::vector<Clock::time_point> hot_until;  // per page: kProtected, or when it may be protected again
  };

  // What a doorbell's engine page is: covered by write-protected client mappings only (cold: nothing to
  // poll), hot (one of them is unprotected), or uncovered (polled as in the fallback).
  enum class PageMode { kCold, kHot, kPolled };

  DoorbellPoller(pid_t pid, DoorbellPoller* parent)
      : pid_(pid), parent_(parent), page_(static_cast<uintptr_t>(sysconf(_SC_PAGESIZE))) {}

  static uint64_t Read(const DoorbellWatch* watch) {
    return std::atomic_ref<uint64_t>(*watch->word_).load(std::memory_order_relaxed);
  }

  uintptr_t EnginePage(const DoorbellWatch* watch) const {
    return reinterpret_cast<uintptr_t>(watch->word_) & ~(page_ - 1);
  }

  // Called with mu_ held.
  PageMode ModeLocked(uintptr_t engine_page) const {
    bool covered = false;
    bool hot = false;
    for (const auto& [id, range] : ranges_) {
      if (engine_page < range.engine || engine_page >= range.engine + range.pages * page_) continue;
      if (!range.registered) return PageMode::kPolled;
      covered = true;
      hot = hot || range.hot_until[(engine_page - range.engine) / page_] != kProtected;
    }
    if (!covered) return PageMode::kPolled;
    return hot ? PageMode::kHot : PageMode::kCold;
  }

  // Starts the poller thread on first need and, once per process, sets up the userfaultfd and its handler.
  // Returns whether the thread runs: a host that refuses it leaves it for the next registration to try again.
  // Called with mu_ held.
  bool KickLocked() {
    kicked_ = true;
    if (!started_) {
      // Started by the first doorbell, so a process that never creates a queue never has the thread.
      absl::StatusOr<std::thread> thread = StartHostThread([this] { Run(); });
      if (!thread.ok()) {
        HIPMEM_LOG(kError, "kfd_sim: the doorbell poller: ", thread.status().message());
        return false;
      }
      started_ = true;
      thread->detach();
    }
    return true;
  }

  void SetUpLocked() {
    if (set_up_) return;
    set_up_ = true;
    UffdSetup setup = SetUpUffd();
    if (setup.fd < 0) {
      HIPMEM_LOG(kWarning, "kfd_sim: doorbell stores are noticed by polling, not userfaultfd (", setup.why, ")");
      return;
    }
    HIPMEM_LOG(kInfo, "kfd_sim: doorbell stores are noticed by userfaultfd write-protect faults (", setup.why, ")");
    uffd_ = setup.fd;
    absl::StatusOr<std::thread> handler = StartHostThread([this] { HandleFaults(); });
    if (!handler.ok()) {
      // Nothing is registered yet: polling serves, as without userfaultfd.
      HIPMEM_LOG(kWarning, "kfd_sim: doorbell stores are noticed by polling: the fault handler: ",
                 handler.status().message());
      uffd_ = -1;
      close(setup.fd);
      return;
    }
    handler->detach();
  }

  // UFFDIO_WRITEPROTECT; lifting the protection also wakes the threads blocked on it. Returns 0 or an errno.
  int WriteProtect(uintptr_t start, size_t bytes, bool protect) const {
    uffdio_writeprotect wp{.range = {.start = start, .len = bytes},
                           .mode = protect ? uint64_t{UFFDIO_WRITEPROTECT_MODE_WP} : uint64_t{0}};
    return ioctl(uffd_, UFFDIO_WRITEPROTECT, &wp) == 0 ? 0 : errno;
  }

  // Lifts the protection and wakes any writer blocked on the range. Errors are ignored: the client may have
  // unmapped or replaced the range, which unregistered it already.
  void Unregister(const ClientRange& range) const {
    uffdio_range r{.start = range.client, .len = range.pages * page_};
    ioctl(uffd_, UFFDIO_UNREGISTER, &r);
  }

  // The poll period while something needs looking at: polled doorbells (adaptive, as in the fallback) or hot
  // pages. nullopt: nothing, no timer. Called with mu_ held.
  std::optional<std::chrono::microseconds> PeriodLocked(Clock::time_point now) const {
    std::optional<std::chrono::microseconds> period;
    for (const DoorbellWatch* watch : watches_) {
      if (ModeLocked(EnginePage(watch)) == PageMode::kPolled) {
        period = now - last_activity_ < kDoorbellPollWarmFor ? kDoorbellPollPeriod : kDoorbellIdlePollPeriod;
        break;
      }
    }
    for (const auto& [id, range] : ranges_) {
      for (const Clock::time_point until : range.hot_until) {
        if (until != kProtected) return std::min(period.value_or(kDoorbellHotPollPeriod), kDoorbellHotPollPeriod);
      }
    }
    return period;
  }

  void Run() {
    pthread_setname_np(pthread_self(), "kfdsim-doorbell");
    // The kernel may fire the timer up to this late, batching it with other wakeups; the default (50 us)
    // would do too, but saying it keeps the latency bound in one place (doorbell_poller.h).
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(
                                 std::chrono::duration_cast<std::chrono::nanoseconds>(kDoorbellPollSlack).count()));
    std::unique_lock<std::mutex> lock(mu_);
    Clock::time_point deadline = Clock::now();
    for (;;) {
      std::optional<std::chrono::microseconds> period = PeriodLocked(Clock::now());
      if (!period) {
        // Nothing to poll: sleep without a timer until a doorbell, a mapping or a fault changes that.
        cv_.wait(lock, [&] { return kicked_; });
        kicked_ = false;
        deadline = Clock::now() + PeriodLocked(Clock::now()).value_or(std::chrono::microseconds(0));
        continue;
      }
      // Absolute deadlines keep the period from drifting by the time each look takes.
      if (cv_.wait_until(lock, deadline, [&] { return kicked_; })) {
        // A registration or a fault: re-plan on the current period (an idle period may have had milliseconds
        // to run).
        kicked_ = false;
        const Clock::time_point now = Clock::now();
        period = PeriodLocked(now);
        if (!period) continue;
        deadline = std::min(deadline, now + *period);
        if (now < deadline) continue;
      }
      const Clock::time_point now = Clock::now();
      Look(now);
      Settle(now);
      period = PeriodLocked(now);
      if (!period) continue;
      deadline += *period;
      // Fell behind (a loaded host): start the period afresh rather than catching up with a burst of looks.
      if (deadline < now) deadline = now + *period;
    }
  }

  // Looks at one doorbell: wakes its sleeper if the word no longer reads what the sleeper saw. Returns whether the
  // word moved since the poller's previous look. Called with mu_ held.
  bool LookAt(DoorbellWatch* watch) {
    const uint64_t value = Read(watch);
    const bool moved = value != watch->last_seen_;
    watch->last_seen_ = value;
    // Acquire pairs with Arm's release: `seen` is this arming's value (or a later arming's; either way a wrong
    // guess costs one spurious wake or one more period, never a lost store, since a sleeper whose word moved
    // stays armed until woken and is looked at again).
    if (!watch->armed_.load(std::memory_order_acquire)) return moved;
    const uint64_t seen = watch->sleeping_on_.load(std::memory_order_relaxed);
    if (value == seen) return moved;
    // A shared futex on the sleeper's own view of the word, exactly where it waits (doorbell.cc); the
    // futex word is the low dword of the little-endian doorbell.
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(watch->word_), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    ++wakes_;
    return moved;
  }

  // Keeps the client pages of `engine_page` hot for kDoorbellHotFor from `now`. Called with mu_ held.
  void ExtendHotLocked(uintptr_t engine_page, Clock::time_point now) {
    for (auto& [id, range] : ranges_) {
      if (engine_page < range.engine || engine_page >= range.engine + range.pages * page_) continue;
      Clock::time_point& until = range.hot_until[(engine_page - range.engine) / page_];
      if (until != kProtected) until = now + kDoorbellHotFor;
    }
  }

  // Looks at every polled doorbell and every doorbell on a hot page; notes whether any moved (a polled doorbell
  // keeps the poller warm, a hot page stays hot). Called with mu_ held.
  void Look(Clock::time_point now) {
    ++looks_;
    for (DoorbellWatch* watch : watches_) {
      const uintptr_t page = EnginePage(watch);
      const PageMode mode = ModeLocked(page);
      if (mode == PageMode::kCold) continue;
      if (!LookAt(watch)) continue;
      if (mode == PageMode::kPolled) {
        last_activity_ = now;
      } else {
        ExtendHotLocked(page, now);
      }
    }
  }

  // Write-protects again the hot pages whose doorbells have been still for kDoorbellHotFor, then looks at their
  // doorbells once more: a store that landed before the protection is seen now, a later one faults. Called with
  // mu_ held.
  void Settle(Clock::time_point now) {
    std::vector<uintptr_t> settled;
    for (auto& [id, range] : ranges_) {
      for (size_t i = 0; i < range.pages; ++i) {
        if (range.hot_until[i] == kProtected || range.hot_until[i] > now) continue;
        if (const int error = WriteProtect(range.client + i * page_, page_, true); error != 0) {
          // The client unmapped or replaced the page: nothing writes through this mapping any more, but poll
          // its pages rather than trust that.
          HIPMEM_LOG(kWarning, "kfd_sim: UFFDIO_WRITEPROTECT(0x", absl::Hex(range.client + i * page_),
                     ") failed: ", ErrnoText(error), "; bare stores to it are noticed by polling");
          Unregister(range);
          range.registered = false;
          break;
        }
        range.hot_until[i] = kProtected;
        ++protects_;
        settled.push_back(range.engine + i * page_);
      }
    }
    if (settled.empty()) return;
    for (DoorbellWatch* watch : watches_) {
      if (std::find(settled.begin(), settled.end(), EnginePage(watch)) != settled.end()) LookAt(watch);
    }
  }

  // The write-protect fault handler: sleeps in read() until a store hits a protected page.
  void HandleFaults() {
    pthread_setname_np(pthread_self(), "kfdsim-uffd");
    for (;;) {
      uffd_msg msg{};
      const ssize_t n = read(uffd_, &msg, sizeof(msg));
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n != static_cast<ssize_t>(sizeof(msg))) {
        // Cannot happen while the descriptor is open (and it is never closed); say so rather than spin.
        HIPMEM_LOG(kError, "kfd_sim: read(userfaultfd) returned ", n, ": ", ErrnoText(errno));
        return;
      }
      if (msg.event != UFFD_EVENT_PAGEFAULT) continue;
      const uintptr_t page = msg.arg.pagefault.address & ~(page_ - 1);
      std::optional<uintptr_t> engine_page;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++faults_;
        for (auto& [id, range] : ranges_) {
          if (!range.registered || page < range.client || page >= range.client + range.pages * page_) continue;
          const size_t index = (page - range.client) / page_;
          // Hot before the protection goes, so that every look from now on covers the page.
          range.hot_until[index] = Clock::now() + kDoorbellHotFor;
          engine_page = range.engine + index * page_;
          break;
        }
        // Lifts the protection, which wakes the writer. On a page that is no longer ours (its mapping was
        // unregistered after the fault was queued) that may fail; wake the writer explicitly then.
        if (WriteProtect(page, page_, false) != 0) {
          uffdio_range r{.start = page, .len = page_};
          ioctl(uffd_, UFFDIO_WAKE, &r);
        }
        KickLocked();
      }
      cv_.notify_one();
      if (!engine_page) continue;
      // The store lands once the writer runs again: watch the page briefly so it wakes its engine now rather
      // than at the poller's next look.
      const Clock::time_point until = Clock::now() + kFaultSpin;
      for (;;) {
        bool moved = false;
        {
          std::lock_guard<std::mutex> lock(mu_);
          for (DoorbellWatch* watch : watches_) {
            if (EnginePage(watch) == *engine_page) moved = LookAt(watch) || moved;
          }
        }
        if (moved || Clock::now() >= until) break;
        std::this_thread::yield();
      }
    }
  }

  const pid_t pid_;                // the process whose thread this is
  [[maybe_unused]] DoorbellPoller* const parent_;  // the parent's, left behind in a forked child; kept reachable (leak checkers)
  const uintptr_t page_;
  std::mutex mu_;
  std::condition_variable cv_;           // kicked_ was set
  std::vector<DoorbellWatch*> watches_ ABSL_GUARDED_BY(mu_);  // not owned, each unregisters before it goes
  std::map<uint64_t, ClientRange> ranges_ ABSL_GUARDED_BY(mu_);  // the watched client mappings by id
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool set_up_ ABSL_GUARDED_BY(mu_) = false;  // userfaultfd set up (or given up)
  int uffd_ = -1;                        // written once under mu_ before the handler starts; never closed
  bool kicked_ ABSL_GUARDED_BY(mu_) = false;  // a registration or a fault since the poller last planned
  Clock::time_point last_activity_ ABSL_GUARDED_BY(mu_);  // the last registration or moved polled doorbell
  uint64_t looks_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t wakes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t faults_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t protects_ ABSL_GUARDED_BY(mu_) = 0;
};

DoorbellWatch::DoorbellWatch(uint64_t* word) : word_(word) { DoorbellPoller::Get().Add(this); }

DoorbellWatch::~DoorbellWatch() { DoorbellPoller::Get().Remove(this); }

void DoorbellWatch::Arm(uint64_t seen) {
  sleeping_on_.store(seen, std::memory_order_relaxed);
  armed_.store(true, std::memory_order_release);
}

void DoorbellWatch::Disarm() { armed_.store(false, std::memory_order_relaxed); }

DoorbellClientMapping DoorbellClientMapping::Watch(void* client, size_t bytes, void* engine_view) {
  const auto [id, registered] = DoorbellPoller::Get().Watch(client, bytes, engine_view);
  return DoorbellClientMapping(id, registered);
}

DoorbellClientMapping::~DoorbellClientMapping() {
  if (id_ != 0) DoorbellPoller::Get().Unwatch(id_);
}

DoorbellClientMapping& DoorbellClientMapping::operator=(DoorbellClientMapping&& other) noexcept {
  if (this != &other) {
    if (id_ != 0) DoorbellPoller::Get().Unwatch(id_);
    id_ = std::exchange(other.id_, 0);
    event_driven_ = std::exchange(other.event_driven_, false);
  }
  return *this;
}

DoorbellPollerStats GetDoorbellPollerStats() { return DoorbellPoller::Get().stats(); }

std::vector<const void*> ClientAliases(const uint64_t* engine_word) {
  return DoorbellPoller::Get().ClientAliases(reinterpret_cast<uintptr_t>(engine_word));
}

}  // namespace hipmem::kfd_sim
