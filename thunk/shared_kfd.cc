#include "thunk/shared_kfd.h"

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/const_init.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "thunk/hsakmt_status.h"

namespace hipmem::thunk {
namespace {

ABSL_CONST_INIT absl::Mutex g_mu(absl::kConstInit);
// Heap-held so no destructor runs at exit while another thread may still use it. Written under g_mu, read without
// it (SharedKfd): every hsaKmt call reads it, and a lock there would protect nothing, since the caller uses the
// instance after any lock is released (as libhsakmt, whose calls check an open count without a lock).
std::atomic<Kfd*> g_kfd{nullptr};
int g_refcount ABSL_GUARDED_BY(g_mu) = 0;
// In a forked child: the parent's references, inherited as libhsakmt's hsakmt_kfd_open_count is. hsaKmtCloseKFD
// drops them (SUCCESS, closing nothing); hsaKmtOpenKFD forgets them and opens the child's own KFD.
int g_inherited_refcount ABSL_GUARDED_BY(g_mu) = 0;
// Written under g_mu, read without it (SharedKfdVersion, inline in the header).
using shared_kfd_internal::g_version;

std::vector<void (*)(Kfd&)>& CloseHooks() ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_mu) {
  static auto* const hooks = new std::vector<void (*)(Kfd&)>();
  return *hooks;
}

// fork(): the child inherits the parent's state, but not its KFD process (the kernel refuses the parent's /dev/kfd
// from the child with -EBADF, and the simulator's engine threads do not exist there). As libhsakmt's atfork
// handler, the child forgets the instance without tearing it down (its destructor would issue ioctls on the
// parent's process) and answers KERNEL_IO_CHANNEL_NOT_OPENED until it opens its own, except that, as upstream,
// hsaKmtCloseKFD counts down the inherited references with SUCCESS. The parent's instance is left behind in the
// child's copy of the heap: memory only, freed when the child exits.
// g_mu is held across fork() so that the child never inherits it locked by a thread that does not exist there.
void LockBeforeFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { g_mu.Lock(); }
void UnlockInParent() ABSL_NO_THREAD_SAFETY_ANALYSIS { g_mu.Unlock(); }
void ForgetInChild() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // Kept reachable, never destroyed: leak checkers in the child see it as held, not lost.
  static auto* const left_behind = new std::vector<Kfd*>();
  if (Kfd* parents = g_kfd.exchange(nullptr, std::memory_order_acq_rel); parents != nullptr) {
    left_behind->push_back(parents);
  }
  g_inherited_refcount += std::exchange(g_refcount, 0);
  g_version.store(0, std::memory_order_relaxed);
  g_mu.Unlock();
}

void InstallForkHandlers() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(&LockBeforeFork, &UnlockInParent, &ForgetInChild); });
}

absl::Status NotOpened() {
  return WithHsakmtStatus(absl::FailedPreconditionError("KFD is not open (call hsaKmtOpenKFD first)"),
                          HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

}  // namespace

absl::Status OpenSharedKfd() {
  InstallForkHandlers();
  ScopedLock lock(&g_mu);
  if (g_kfd.load(std::memory_order_relaxed) != nullptr) {
    ++g_refcount;
    return KernelAlreadyOpenedError("hsaKmtOpenKFD: already open; reference taken");
  }
  g_inherited_refcount = 0;  // openclose.c's clear_after_fork
  ASSIGN_OR_RETURN(std::unique_ptr<Kfd> kfd, Kfd::Open());
  g_refcount = 1;
  g_version.store(uint64_t{kfd->version().major} << 32 | kfd->version().minor, std::memory_order_relaxed);
  g_kfd.store(kfd.release(), std::memory_order_release);
  return absl::OkStatus();
}

absl::Status CloseSharedKfd() {
  Kfd* to_close = nullptr;
  std::vector<void (*)(Kfd&)> hooks;
  {
    ScopedLock lock(&g_mu);
    const bool open = g_kfd.load(std::memory_order_relaxed) != nullptr;
    if (!open && g_inherited_refcount > 0) {
      --g_inherited_refcount;
      return absl::OkStatus();
    }
    if (!open) return NotOpened();
    if (--g_refcount > 0) return absl::OkStatus();
    to_close = g_kfd.exchange(nullptr, std::memory_order_acq_rel);
    g_version.store(0, std::memory_order_relaxed);
    hooks = CloseHooks();
  }
  // Outside g_mu: a hook may take its own locks; no other caller can reach the instance any more.
  for (void (*hook)(Kfd&) : hooks) hook(*to_close);
  delete to_close;
  return absl::OkStatus();
}

void AddSharedKfdCloseHook(void (*hook)(Kfd& kfd)) {
  ScopedLock lock(&g_mu);
  CloseHooks().push_back(hook);
}

absl::StatusOr<Kfd*> SharedKfd() {
  Kfd* kfd = g_kfd.load(std::memory_order_acquire);
  if (kfd == nullptr) return NotOpened();
  return kfd;
}

}  // namespace hipmem::thunk
