// The cross-OS-process half of the simulated kernel's IPC share handles.
//
// Plays what one global kernel gives the DKMS amdkfd for free: a share handle made in one process resolves in
// every other process of the machine. Here every OS process runs its own simulator, so a handle carries its
// exporter's pid (the last of its four words) and the exporter's process serves its handles to the others:
//  - the server: one per OS process, started on demand, a thread asleep in poll() on an abstract unix socket
//    named after the pid (IpcServerName). It accepts connections only from the same user
//    (SO_PEERCRED), answers one request per connection (a share handle) with the buffer's page file (SCM_RIGHTS),
//    its offset, size and flags, and then keeps the buffer alive for as long as the importer keeps the connection
//    open -- the importer's reference of the kernel's ipc_obj refcount, which a crash or exit also drops. It stops
//    when no simulator of the process has an IPC object left and no connection is open.
//  - the client (ImportFromProcess): connects to the exporter's socket, checks that the server is that pid and
//    the same user, sends the handle, receives the file.
// Safe inside a library: no signal handlers, every descriptor close-on-exec, MSG_NOSIGNAL, timeouts on the
// client's socket, and fork-aware: a forked child closes every descriptor of this module it inherited (an
// atfork handler) and starts from nothing, so it neither serves nor holds its parent's buffers.
//
// Weaker than the kernel (stated where it matters): the importer receives a descriptor of the exporter's whole
// page file (all buffers of that kind of that KFD process and GPU), not of the one buffer; only the simulator's
// bookkeeping (the importer's BO and GPU page table cover just the buffer's range) keeps it to that range. A
// process of the same user can already ptrace the exporter, so no boundary the OS enforces is crossed.
// Private to the simulator.
#ifndef HIPMEM_TESTING_KFD_SIM_IPC_SOCKET_H_
#define HIPMEM_TESTING_KFD_SIM_IPC_SOCKET_H_

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "testing/kfd_sim/memfd.h"

namespace hipmem::kfd_sim {

// The 128 bits AMDKFD_IOC_IPC_EXPORT_HANDLE returns: words 0-2 are random (96 bits nobody can guess), word 3 is
// the exporting OS process's pid (where to ask for it).
using ShareHandle = std::array<uint32_t, 4>;
inline constexpr size_t kShareHandlePidWord = 3;

// One descriptor of this OS process, closed by the destructor -- and in a forked child at fork() (by an atfork
// handler), so a child never keeps a socket of its parent's open. Move-only. Thread-compatible.
class ProcessLocalFd {
 public:
  ProcessLocalFd() = default;
  // Takes ownership of `fd` (>= 0).
  explicit ProcessLocalFd(int fd);
  ~ProcessLocalFd();
  ProcessLocalFd(ProcessLocalFd&& other) noexcept;
  ProcessLocalFd& operator=(ProcessLocalFd&& other) noexcept;
  ProcessLocalFd(const ProcessLocalFd&) = delete;
  ProcessLocalFd& operator=(const ProcessLocalFd&) = delete;

  // The descriptor, or -1 when empty. In a forked child an inherited one is already closed: -1 there too.
  int get() const;
  bool valid() const { return get() >= 0; }
  // Closes it now (nothing when empty or closed at fork).
  void Reset();

 private:
  uint64_t token_ = 0;  // the registry's key; 0 when empty
};

// What an exporter grants another process for one handle.
struct IpcGrant {
  int fd = -1;                        // the page file the buffer is in; borrowed, the server sends a copy
  uint64_t offset = 0;                // the buffer's first byte in it
  uint64_t size = 0;
  uint32_t alloc_flags = 0;           // KFD_IOC_ALLOC_MEM_FLAGS_: VRAM or GTT, PUBLIC when CPU-visible
  uint32_t flags = 0;                 // the exporter's opaque export flags
  std::shared_ptr<const void> hold;  // keeps the buffer (and `fd`) alive while the importer holds it
};

// Where the server finds handles: one simulator's IPC table. Called with the server's lock held, as are the
// releases of its holds, so neither may take a lock that anyone holds while calling into the server.
class IpcGrantSource {
 public:
  // Returns the grant for `handle`, or nullopt when this source has no live buffer of that name.
  virtual std::optional<IpcGrant> Grant(const ShareHandle& handle) = 0;
  // Returns whether this source has no live buffer (the server may then stop).
  virtual bool empty() const = 0;

 protected:
  ~IpcGrantSource() = default;
};

// The abstract socket name (without the leading NUL) under which OS process `pid` of this process's pid namespace
// serves its handles: "hipmem-kfd-sim-ipc.<pid namespace inode>.<pid>".
std::string IpcServerName(pid_t pid);

// Adds `source` to what this process's server serves. `source` must stay valid until UnregisterIpcSource.
void RegisterIpcSource(IpcGrantSource* source);
// Removes `source`; the server never calls it again once this returns. Returns the holds remote importers had
// on its buffers (their connections are closed by the server): the caller drops them while `source` still
// exists. A no-op, returning nothing, in a forked child for a source of its parent's.
std::vector<std::shared_ptr<const void>> UnregisterIpcSource(IpcGrantSource* source);
// Starts this process's server unless it runs. Errors: the errno of eventfd, socket or bind
// (kResourceExhausted, kAlreadyExists for a name in use, ...); then only other OS processes cannot import.
absl::Status EnsureIpcServer();
// Asks the server to look again whether it should stop (a source became empty). Lock-free; any thread.
void WakeIpcServer();

// exit(): this process's server thread stops for good and is joined, before the process goes (the library
// registers this with atexit). A thread still running while exit handlers and static destructors run may use what
// they free, and LeakSanitizer, which runs last, cannot suspend it and misses what it holds (issue #24). The
// connections' holds stay where they are (the server is never destroyed). A forked child's server is its own: the
// one it inherited has no thread there and is never joined. EnsureIpcServer fails (kFailedPrecondition) after.
void StopIpcServerForExit();

// What a remote export gives this process.
struct RemoteImport {
  int error = 0;              // 0 or -errno; the fields below are set only on 0
  MemFd file;                 // a copy of the exporter's page file descriptor
  ProcessLocalFd connection;  // the open connection: this process's hold on the buffer
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t alloc_flags = 0;
  uint32_t flags = 0;
};
// Asks OS process `handle[kShareHandlePidWord]` for the buffer `handle` names. Errors: -EINVAL when no such
// process serves handles, it is not of this user, or it has no live buffer of that name (the kernel's answer to
// an unknown handle); -ETIMEDOUT when it does not answer within 10 s; -EIO for a malformed answer; socket(2)'s
// errno (-EMFILE, ...). Blocks for one round trip.
RemoteImport ImportFromProcess(const ShareHandle& handle);

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_IPC_SOCKET_H_
