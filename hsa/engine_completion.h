// Waiting for a simulated or real GPU engine to finish a command: ROCr's interrupt signal wait plus its
// memory-exception handler, for the runtime's copy engines.
#ifndef HIPMEM_HSA_ENGINE_COMPLETION_H_
#define HIPMEM_HSA_ENGINE_COMPLETION_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "thunk/events.h"

namespace hipmem::hsa {

// Sleeps until `done` fires (the engine's completion interrupt) or `faults` (a MEMORY event) reports a VM
// fault. Errors: kDataLoss naming the faulting GPU node and address (`what` says which copy), after which the
// engine's queue is halted and must be replaced; kDeadlineExceeded after `timeout`; the thunk's wait errors.
absl::Status WaitForEngine(const thunk::Event& done, const thunk::Event& faults, absl::string_view what,
                           absl::Duration timeout = absl::Minutes(1));

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_ENGINE_COMPLETION_H_
