// Happens-before across two mappings of one memory, for ThreadSanitizer.
//
// The simulated GPU's engines reach a buffer through their own mapping of its pages while the client uses its
// mapping (testing/kfd_sim/bo_pages.h), as a real GPU and CPU reach one physical page. An engine's release store
// and a client's acquire load of the same word then pair on the hardware, but ThreadSanitizer keys atomics by
// virtual address and sees two unrelated words: a client that reads a completion signal (signal memory is such
// a buffer) and then the data the engine wrote before it gets a false race report, and so does an engine that
// waits on a signal the host set. So both sides publish on one process-wide token before they write a signal
// (engines before a completion, the host before a signal store) and observe it after they read one. The edge is
// coarser than the hardware's (any signal orders everything done before it), which can hide a race between
// unrelated work; the doorbell path does the same (testing/kfd_sim/engines/doorbell.cc). No-ops without
// ThreadSanitizer.
#ifndef HIPMEM_BASE_ALIASED_MEMORY_SYNC_H_
#define HIPMEM_BASE_ALIASED_MEMORY_SYNC_H_

#include "absl/base/config.h"

#ifdef ABSL_HAVE_THREAD_SANITIZER
#include <sanitizer/tsan_interface.h>
#endif

namespace hipmem {

#ifdef ABSL_HAVE_THREAD_SANITIZER
inline char g_aliased_memory_token;
// Before writing a signal: what this thread did so far is visible to whoever observes a signal.
inline void PublishThroughAliases() { __tsan_release(&g_aliased_memory_token); }
// After reading a signal (possibly written through another mapping).
inline void ObserveThroughAliases() { __tsan_acquire(&g_aliased_memory_token); }
#else
inline void PublishThroughAliases() {}
inline void ObserveThroughAliases() {}
#endif

}  // namespace hipmem

#endif  // HIPMEM_BASE_ALIASED_MEMORY_SYNC_H_
