#include "base/lock_count.h"

#include <cstdint>

namespace hipmem {
namespace lock_count_internal {

// Defined here, not inline in the header, so that every library linked into one binary shares the one counter.
constinit thread_local uint64_t t_locks = 0;

}  // namespace lock_count_internal

uint64_t LockAcquisitionsOnThisThread() { return lock_count_internal::t_locks; }

}  // namespace hipmem
