// The hsaKmt* queue registry (hsakmt_queues.cc), for the C shells of other files that take an HSA_QUEUEID.
// Internal to //thunk:hsakmt.
#ifndef HIPMEM_THUNK_HSAKMT_LIVE_QUEUES_H_
#define HIPMEM_THUNK_HSAKMT_LIVE_QUEUES_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hsakmt/hsakmt.h"
#include "thunk/queues.h"

namespace hipmem::thunk {

// Runs `fn` on the live queue `id` (one hsaKmtCreateQueue handed out and hsaKmtDestroyQueue has not ended),
// holding the registry lock so the queue cannot be destroyed meanwhile; returns what `fn` returns. Without
// dereferencing `id`, answers INVALID_PARAMETER (kNotFound) for anything else: a stranger, a destroyed queue, one
// of a closed KFD.
absl::Status WithLiveQueue(HSA_QUEUEID id, absl::FunctionRef<absl::Status(Queue&)> fn);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_HSAKMT_LIVE_QUEUES_H_
