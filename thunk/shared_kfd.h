// The process-wide KFD instance behind the hsaKmt* C API.
//
// Plays libhsakmt's global state in openclose.c: the first hsaKmtOpenKFD opens it, later opens
// only count (and answer KERNEL_ALREADY_OPENED, which ROCr treats as success), and the last
// hsaKmtCloseKFD closes it. C++ users own their own Kfd instead. Thread-safe.
//
// After fork() the child does not share the parent's instance: every call answers KERNEL_IO_CHANNEL_NOT_OPENED
// until the child's own OpenSharedKfd, which opens a new KFD process (openclose.c's atfork handling), on a fresh
// simulated machine when the backend is the simulator (kfd_device_sim.h). As upstream, the child inherits the
// parent's open count: CloseSharedKfd in the child drops one of those references (OK, closing nothing) until
// they are used up or the child opens its own. The parent is unaffected.
#ifndef HIPMEM_THUNK_SHARED_KFD_H_
#define HIPMEM_THUNK_SHARED_KFD_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {

// Opens or references the shared instance. OK on the first open; KernelAlreadyOpenedError
// (kAlreadyExists) on later ones, which still take a reference; else the Kfd::Open error.
absl::Status OpenSharedKfd();

// Drops a reference; the last one closes. kFailedPrecondition (KERNEL_IO_CHANNEL_NOT_OPENED) when
// it is not open.
absl::Status CloseSharedKfd();

// Returns the open shared instance, borrowed until the matching CloseSharedKfd.
// kFailedPrecondition (KERNEL_IO_CHANNEL_NOT_OPENED) when it is not open.
absl::StatusOr<Kfd*> SharedKfd();

namespace shared_kfd_internal {
// The open instance's KFD interface version, packed as major << 32 | minor: 0 while closed (GET_VERSION's major is
// never 0: Kfd::Open refuses any but 1). shared_kfd.cc writes it under its lock at open, at the last close and in a
// forked child's atfork handler; SharedKfdVersion reads it. One word, so a reader never sees half of a version, and
// nothing else is published through it: a relaxed load is enough.
inline constinit std::atomic<uint64_t> g_version{0};
}  // namespace shared_kfd_internal

// Returns the open instance's KFD interface version, cached at open (libhsakmt answers hsaKmtGetVersion from
// its kfd_version_info the same way). nullopt before the first open, after the last close and in a forked child
// until it opens its own. Inline, one relaxed load and no lock: hsaKmtGetVersion costs what a struct copy does.
inline std::optional<KfdVersion> SharedKfdVersion() {
  const uint64_t v = shared_kfd_internal::g_version.load(std::memory_order_relaxed);
  if (v == 0) return std::nullopt;
  return KfdVersion{static_cast<uint32_t>(v >> 32), static_cast<uint32_t>(v)};
}

// Registers `hook` to run, with the instance still usable, just before the last CloseSharedKfd destroys it:
// C shells that keep per-process objects (queues) release them there, so nothing they hold outlives the
// process it belonged to. Registering the same hook twice runs it twice.
void AddSharedKfdCloseHook(void (*hook)(Kfd& kfd));

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_SHARED_KFD_H_
