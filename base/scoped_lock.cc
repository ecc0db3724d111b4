#include "base/scoped_lock.h"

#include "absl/base/config.h"
#include "absl/synchronization/mutex.h"

namespace hipmem {
namespace {

// Debian's libabsl_synchronization is built without NDEBUG, so Abseil's debug-only deadlock detector runs in
// every build of ours: each absl::Mutex::Lock records the locks held in a process-wide graph under a global
// spinlock, which costs several times the lock itself (a third of a small allocation's path through the thunk
// and the simulator). An Abseil built with NDEBUG leaves it off; our optimised builds (NDEBUG) ask for the same.
// Debug and fastbuild builds, which run the tests, keep it, except under ThreadSanitizer: the detector's graph
// is guarded by Abseil's own uninstrumented spinlock, so TSan reports its bookkeeping (GraphCycles::InsertEdge)
// as a race whenever two threads lock mutexes for the first time together. The plain and ASan test runs still
// check lock order.
#if defined(NDEBUG) || defined(ABSL_HAVE_THREAD_SANITIZER)
[[maybe_unused]] const bool kDeadlockDetectionOff =
    (absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore), true);
#endif

}  // namespace
}  // namespace hipmem
