#include "thunk/shared_kfd.h"

#include <memory>
#include <utility>

#include "absl/base/const_init.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "thunk/hsakmt_status.h"

namespace hipmem::thunk {
namespace {

ABSL_CONST_INIT absl::Mutex g_mu(absl::kConstInit);
// Heap-held so no destructor runs at exit while another thread may still use it.
Kfd* g_kfd ABSL_GUARDED_BY(g_mu) = nullptr;
int g_refcount ABSL_GUARDED_BY(g_mu) = 0;

absl::Status NotOpened() {
  return WithHsakmtStatus(absl::FailedPreconditionError("KFD is not open (call hsaKmtOpenKFD first)"),
                          HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

}  // namespace

absl::Status OpenSharedKfd() {
  ScopedLock lock(&g_mu);
  if (g_kfd != nullptr) {
    ++g_refcount;
    return KernelAlreadyOpenedError("hsaKmtOpenKFD: already open; reference taken");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Kfd> kfd, Kfd::Open());
  g_kfd = kfd.release();
  g_refcount = 1;
  return absl::OkStatus();
}

absl::Status CloseSharedKfd() {
  Kfd* to_close = nullptr;
  {
    ScopedLock lock(&g_mu);
    if (g_kfd == nullptr) return NotOpened();
    if (--g_refcount > 0) return absl::OkStatus();
    to_close = std::exchange(g_kfd, nullptr);
  }
  delete to_close;
  return absl::OkStatus();
}

absl::StatusOr<Kfd*> SharedKfd() {
  ScopedLock lock(&g_mu);
  if (g_kfd == nullptr) return NotOpened();
  return g_kfd;
}

}  // namespace hipmem::thunk
