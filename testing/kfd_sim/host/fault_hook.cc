#include "testing/kfd_sim/host/fault_hook.h"

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/scoped_lock.h"

namespace hipmem::kfd_sim {
namespace {

// Serialises the injector's calls and its removal, so a call never runs into an injector being destroyed. Only
// armed runs pay for it.
ABSL_CONST_INIT absl::Mutex g_mu(absl::kConstInit);
FaultInjector* g_injector ABSL_GUARDED_BY(g_mu) = nullptr;

}  // namespace

namespace fault_hook_internal {

int SlowPath(KernelEntry entry, uint32_t nr) {
  ScopedLock lock(&g_mu);
  return g_injector != nullptr ? g_injector->OnEntry(entry, nr) : 0;
}

}  // namespace fault_hook_internal

void InstallFaultInjector(FaultInjector* injector) {
  ScopedLock lock(&g_mu);
  HIPMEM_CHECK(injector == nullptr || g_injector == nullptr, "a fault injector is already installed");
  g_injector = injector;
  fault_hook_internal::g_armed.store(injector != nullptr, std::memory_order_relaxed);
}

}  // namespace hipmem::kfd_sim
