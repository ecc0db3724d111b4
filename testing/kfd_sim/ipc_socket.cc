#include "testing/kfd_sim/ipc_socket.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/units.h"
#include "testing/kfd_sim/host/host_thread.h"

namespace hipmem::kfd_sim {
namespace {

// The wire format: one request, one answer (plus the file, SCM_RIGHTS) per connection. Both ends are this
// library of one build, but a process of another build may connect: the magic and version turn that into a
// refusal instead of a misread.
constexpr uint32_t kMagic = 0x4b50494b;  // "KIPK"
constexpr uint32_t kProtocolVersion = 1;
constexpr int kClientTimeoutSeconds = 10;
constexpr int kListenBacklog = 64;

struct Request {
  uint32_t magic;
  uint32_t version;
  uint32_t handle[4];
};
struct Reply {
  int32_t error;  // 0 or -errno
  uint32_t alloc_flags;
  uint32_t flags;
  uint32_t pad;
  uint64_t offset;
  uint64_t size;
};
static_assert(sizeof(Request) == 24 && sizeof(Reply) == 32);

// The abstract (no file system entry, gone with its last descriptor) address of `pid`'s server.
struct Address {
  sockaddr_un addr{};
  socklen_t length = 0;
};
Address ServerAddress(pid_t pid) {
  Address a;
  a.addr.sun_family = AF_UNIX;
  const std::string name = IpcServerName(pid);
  std::memcpy(a.addr.sun_path + 1, name.data(), name.size());  // sun_path[0] == 0: abstract
  a.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

struct Connection {
  uint64_t id = 0;
  ProcessLocalFd fd;
  IpcGrantSource* source = nullptr;  // whose buffer it holds, once answered
  std::shared_ptr<const void> hold;
  bool answered = false;
  bool orphaned = false;  // its source was unregistered: the server closes it
};

// This OS process's server. Lock order: mu, then what a source's Grant / empty and a hold's release take (the
// source's own lock, the simulator's accounting and page-file locks), then the registry's, a leaf.
// Its locks are std::mutex (as the table's, ipc_table.h), which ThreadSanitizer sees; Debian's Abseil is not
// instrumented, and absl::Mutex's deadlock graph, which nesting absl::Mutexes on this thread would update, would
// race under ThreadSanitizer with the ioctl threads' updates.
struct Server {
  std::mutex mu;
  std::vector<IpcGrantSource*> sources;  // guarded by mu
  std::vector<Connection> connections;   // guarded by mu
  uint64_t next_connection = 1;          // guarded by mu
  bool running = false;                  // guarded by mu; the server thread runs while it is set
  bool exiting = false;                  // guarded by mu; the process is exiting: the thread stops for good
  std::thread thread;                    // guarded by mu; the running thread, joined at exit
  ProcessLocalFd listener;               // guarded by mu
  ProcessLocalFd wake;                   // guarded by mu; an eventfd, made once per process
  std::atomic<int> wake_raw{-1};         // its number, for WakeIpcServer without the lock
};

// The descriptors ProcessLocalFd owns, by token: what a forked child closes.
struct Registry {
  std::mutex mu;
  absl::flat_hash_map<uint64_t, int> fds;  // guarded by mu
  uint64_t next_token = 1;                 // guarded by mu
};

Registry* g_registry = nullptr;         // set once, never destroyed
std::atomic<Server*> g_server{nullptr};  // replaced in a forked child; never destroyed (its thread may run to exit)

// fork(): the registry's lock is held across it, so the child inherits the descriptor table consistent, closes
// every descriptor of this module (its parent's listener, connections and imports) and forgets them. The server
// the child inherited -- whose lock another thread may have held at fork(), whose thread does not exist there, whose
// sources are its parent's simulators -- is left behind, never touched again, and the child starts a fresh one.
// Holds on the parent's buffers stay with it, not dropped (dropping would run the parent's simulator code on locks
// other threads may have held). Only the registry's lock is taken before fork: a leaf, taken last (see below).
void LockBeforeFork() { g_registry->mu.lock(); }
void UnlockInParent() { g_registry->mu.unlock(); }
void ResetInChild() {
  for (const auto& [token, fd] : g_registry->fds) close(fd);
  g_registry->fds.clear();
  g_registry->mu.unlock();
  static auto* const left_behind = new std::vector<Server*>();  // reachable for leak checkers
  left_behind->push_back(g_server.exchange(new Server()));
}

void WakeServer(Server& c) {
  const int fd = c.wake_raw.load(std::memory_order_relaxed);
  if (fd >= 0) (void)eventfd_write(fd, 1);
}

// The library's exit handler (StopIpcServerForExit); registered once, inherited by forked children.
void StopServerAtExit() { StopIpcServerForExit(); }

Registry& GetRegistry() {
  static Registry* const registry = [] {
    g_registry = new Registry();
    g_server.store(new Server());
    pthread_atfork(&LockBeforeFork, &UnlockInParent, &ResetInChild);
    std::atexit(&StopServerAtExit);  // inherited by a forked child, where it stops the child's own server
    return g_registry;
  }();
  return *registry;
}

Server& GetServer() {
  GetRegistry();
  return *g_server.load();
}

// The handlers are installed when the program starts, before any other library's can be (libhsakmt's open count,
// shared_kfd.cc, installs its own at the first hsaKmtOpenKFD): prepare handlers run in reverse order, so the
// registry's lock is always the last one taken before fork(), after every lock another prepare handler takes --
// the order every other path takes them in (the registry's lock is a leaf).
[[maybe_unused]] const bool g_fork_handlers_installed = (GetRegistry(), true);

// The caller holds c.mu.
bool ShouldStopLocked(Server& c) {
  if (c.exiting) return true;
  return c.connections.empty() &&
         std::all_of(c.sources.begin(), c.sources.end(), [](const IpcGrantSource* s) { return s->empty(); });
}

// Accepts every pending connection of this user; others are closed unanswered.
// The caller holds c.mu.
void AcceptAllLocked(Server& c) {
  for (;;) {
    const int fd = accept4(c.listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
        HIPMEM_LOG(kWarning, "kfd_sim IPC server: accept failed: errno ", errno);
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    ProcessLocalFd conn(fd);
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid()) {
      HIPMEM_LOG(kWarning, "kfd_sim IPC server: refused a connection from uid ", cred.uid, " (pid ", cred.pid, ")");
      continue;  // closed by `conn`
    }
    Connection accepted;
    accepted.id = c.next_connection++;
    accepted.fd = std::move(conn);
    c.connections.push_back(std::move(accepted));
  }
}

// Answers `conn`'s request: its grant (and keeps the hold) or -EINVAL. Returns false when the connection is done.
// The caller holds c.mu.
bool AnswerLocked(Server& c, Connection& conn) {
  Request request{};
  const ssize_t n = recv(conn.fd.get(), &request, sizeof(request), MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;  // nothing yet
  if (n != sizeof(request) || request.magic != kMagic || request.version != kProtocolVersion) return false;
  ShareHandle handle{};
  std::copy(std::begin(request.handle), std::end(request.handle), handle.begin());
  std::optional<IpcGrant> grant;
  IpcGrantSource* source = nullptr;
  if (handle[kShareHandlePidWord] == static_cast<uint32_t>(getpid())) {
    for (IpcGrantSource* s : c.sources) {
      grant = s->Grant(handle);
      if (grant.has_value()) {
        source = s;
        break;
      }
    }
  }
  Reply reply{};
  reply.error = grant.has_value() ? 0 : -EINVAL;
  if (grant.has_value()) {
    reply.alloc_flags = grant->alloc_flags;
    reply.flags = grant->flags;
    reply.offset = grant->offset;
    reply.size = grant->size;
  }
  iovec iov{.iov_base = &reply, .iov_len = sizeof(reply)};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (grant.has_value()) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &grant->fd, sizeof(int));
  }
  // A fresh connection's buffer takes a 32-byte answer at once; a peer that cannot take it gets nothing.
  const ssize_t sent = sendmsg(conn.fd.get(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
  if (!grant.has_value() || sent != static_cast<ssize_t>(sizeof(reply))) return false;
  conn.answered = true;
  conn.source = source;
  conn.hold = std::move(grant->hold);
  return true;
}

void Serve(Server* c) {
  std::vector<pollfd> polled;
  std::vector<uint64_t> ids;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(c->mu);
      std::erase_if(c->connections, [](const Connection& conn) { return conn.orphaned; });
      if (ShouldStopLocked(*c)) {
        c->listener.Reset();  // the name is free again for the next server
        c->running = false;
        // A thread that stops with nothing left to do touches nothing after this: it lets itself go, so no finished
        // thread waits for a join (ThreadSanitizer counts one as leaked at exit). One StopIpcServerForExit took
        // over is joined there.
        if (c->thread.joinable() && c->thread.get_id() == std::this_thread::get_id()) c->thread.detach();
        return;
      }
      polled.clear();
      ids.clear();
      polled.push_back(pollfd{.fd = c->listener.get(), .events = POLLIN, .revents = 0});
      polled.push_back(pollfd{.fd = c->wake.get(), .events = POLLIN, .revents = 0});
      for (const Connection& conn : c->connections) {
        polled.push_back(pollfd{.fd = conn.fd.get(), .events = POLLIN, .revents = 0});
        ids.push_back(conn.id);
      }
    }
    // Only this thread closes the descriptors polled here, so none can be reused under poll().
    if (poll(polled.data(), polled.size(), -1) < 0) {
      if (errno != EINTR) {
        HIPMEM_LOG(kError, "kfd_sim IPC server: poll failed: errno ", errno);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));  // ENOMEM: try again, without spinning
      }
      continue;
    }
    if ((polled[1].revents & POLLIN) != 0) {
      eventfd_t value;
      (void)eventfd_read(polled[1].fd, &value);
    }
    std::lock_guard<std::mutex> lock(c->mu);
    if ((polled[0].revents & POLLIN) != 0) AcceptAllLocked(*c);
    for (size_t i = 0; i < ids.size(); ++i) {
      const short revents = polled[i + 2].revents;
      if (revents == 0) continue;
      auto it = std::find_if(c->connections.begin(), c->connections.end(),
                             [&](const Connection& conn) { return conn.id == ids[i]; });
      if (it == c->connections.end() || it->orphaned) continue;
      // Before the answer: the request. After it, anything -- EOF when the importer lets go or dies, or stray
      // bytes -- ends the importer's hold. Dropped under the lock: UnregisterIpcSource, which takes it, then knows
      // that no hold of its source is still being dropped (the last one calls the source back).
      if (!it->answered && AnswerLocked(*c, *it)) continue;
      c->connections.erase(it);
    }
  }
}

}  // namespace

std::string IpcServerName(pid_t pid) {
  // Abstract socket names are per network namespace, pids per pid namespace, and containers (or sandboxes) may
  // share the one without the other: the pid namespace's inode makes the name unique where the pid is. A handle's
  // pid means something only to a process of the exporter's pid namespace, which computes the same name.
  struct stat ns {};
  const uint64_t pid_ns = stat("/proc/self/ns/pid", &ns) == 0 ? static_cast<uint64_t>(ns.st_ino) : 0;
  return absl::StrCat("hipmem-kfd-sim-ipc.", pid_ns, ".", pid);
}

// ---- ProcessLocalFd ----

ProcessLocalFd::ProcessLocalFd(int fd) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  token_ = r.next_token++;
  r.fds.emplace(token_, fd);
}

ProcessLocalFd::~ProcessLocalFd() { Reset(); }

ProcessLocalFd::ProcessLocalFd(ProcessLocalFd&& other) noexcept : token_(std::exchange(other.token_, 0)) {}

ProcessLocalFd& ProcessLocalFd::operator=(ProcessLocalFd&& other) noexcept {
  if (this != &other) {
    Reset();
    token_ = std::exchange(other.token_, 0);
  }
  return *this;
}

int ProcessLocalFd::get() const {
  if (token_ == 0) return -1;
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  const auto it = r.fds.find(token_);
  return it == r.fds.end() ? -1 : it->second;
}

void ProcessLocalFd::Reset() {
  if (token_ == 0) return;
  Registry& r = GetRegistry();
  // Closed under the lock: a fork() between forgetting and closing would leave the child a descriptor nobody
  // closes, and one between closing and forgetting would make the child close a reused number.
  std::lock_guard<std::mutex> lock(r.mu);
  if (const auto it = r.fds.find(std::exchange(token_, 0)); it != r.fds.end()) {
    if (close(it->second) != 0) HIPMEM_LOG(kWarning, "close(", it->second, ") failed: errno ", errno);
    r.fds.erase(it);
  }
}

// ---- the server ----

void RegisterIpcSource(IpcGrantSource* source) {
  Server& c = GetServer();
  std::lock_guard<std::mutex> lock(c.mu);
  c.sources.push_back(source);
}

std::vector<std::shared_ptr<const void>> UnregisterIpcSource(IpcGrantSource* source) {
  Server& c = GetServer();
  std::vector<std::shared_ptr<const void>> holds;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    const auto it = std::find(c.sources.begin(), c.sources.end(), source);
    if (it == c.sources.end()) return holds;
    c.sources.erase(it);
    for (Connection& conn : c.connections) {
      if (conn.source != source) continue;
      holds.push_back(std::move(conn.hold));
      conn.source = nullptr;
      conn.orphaned = true;
    }
  }
  WakeIpcServer();
  return holds;
}

absl::Status EnsureIpcServer() {
  Server& c = GetServer();
  std::lock_guard<std::mutex> lock(c.mu);
  // A stopped server thread cleared `running` and closed the listener under the lock, and touches nothing after.
  if (c.running) return absl::OkStatus();
  if (c.exiting) return absl::FailedPreconditionError("kfd_sim IPC server: the process is exiting");
  if (!c.wake.valid()) {
    const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0) return absl::ErrnoToStatus(errno, "kfd_sim IPC server: eventfd");
    c.wake = ProcessLocalFd(fd);
    c.wake_raw.store(fd, std::memory_order_relaxed);
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "kfd_sim IPC server: socket");
  ProcessLocalFd listener(fd);
  const Address address = ServerAddress(getpid());
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address.addr), address.length) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("kfd_sim IPC server: bind(@", IpcServerName(getpid()), ")"));
  }
  if (listen(fd, kListenBacklog) != 0) return absl::ErrnoToStatus(errno, "kfd_sim IPC server: listen");
  c.listener = std::move(listener);
  c.running = true;
  absl::StatusOr<std::thread> thread = StartHostThread([&c] { Serve(&c); });
  if (!thread.ok()) {
    // No server: the share that needed it fails (kThreadStartErrno), and the next one tries again.
    c.running = false;
    c.listener = ProcessLocalFd();
    return thread.status();
  }
  c.thread = *std::move(thread);
  return absl::OkStatus();
}

void WakeIpcServer() { WakeServer(GetServer()); }

void StopIpcServerForExit() {
  Server* c = &GetServer();
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    c->exiting = true;
    thread = std::move(c->thread);
  }
  WakeServer(*c);
  if (thread.joinable()) thread.join();
}

// ---- the client ----

RemoteImport ImportFromProcess(const ShareHandle& handle) {
  RemoteImport result;
  const auto fail = [&result](int error) {
    result.error = error;
    return std::move(result);
  };
  const auto pid = static_cast<pid_t>(handle[kShareHandlePidWord]);
  if (pid <= 0) return fail(-EINVAL);
  const int raw = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (raw < 0) return fail(-errno);
  ProcessLocalFd sock(raw);
  const timeval timeout{.tv_sec = kClientTimeoutSeconds, .tv_usec = 0};
  if (setsockopt(raw, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
      setsockopt(raw, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout)) != 0) {
    return fail(-errno);
  }
  const Address address = ServerAddress(pid);
  if (connect(raw, reinterpret_cast<const sockaddr*>(&address.addr), address.length) != 0) {
    // No such process, or it serves no handles: the name is unknown, as the kernel says of a stale handle.
    if (errno == EAGAIN || errno == EINPROGRESS) return fail(-ETIMEDOUT);
    return fail(errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == EINTR ? -errno : -EINVAL);
  }
  // The peer must be the process the handle names, of this user: a squatter on the name gets no secret.
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(raw, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid() || cred.pid != pid) {
    HIPMEM_LOG(kWarning, "kfd_sim IPC: the server of pid ", pid, " is pid ", cred.pid, ", uid ", cred.uid,
               ": not asked");
    return fail(-EINVAL);
  }
  Request request{.magic = kMagic, .version = kProtocolVersion, .handle = {}};
  std::copy(handle.begin(), handle.end(), std::begin(request.handle));
  ssize_t sent;
  do {
    sent = send(raw, &request, sizeof(request), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return fail(-ETIMEDOUT);
  if (sent != static_cast<ssize_t>(sizeof(request))) return fail(-EIO);

  Reply reply{};
  iovec iov{.iov_base = &reply, .iov_len = sizeof(reply)};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t got;
  do {
    got = recvmsg(raw, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return fail(errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -EIO);
  // Adopt a received descriptor first, so every return below closes it.
  int received = -1;
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg != nullptr; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
      if (received < 0) {
        received = fd;
      } else {
        close(fd);  // one was asked for
      }
    }
  }
  struct stat st {};
  const bool regular = received >= 0 && fstat(received, &st) == 0 && S_ISREG(st.st_mode);
  std::optional<MemFd> file;
  if (received >= 0) file.emplace(MemFd::Adopt(received, Bytes(regular ? static_cast<uint64_t>(st.st_size) : 0)));
  if (got != static_cast<ssize_t>(sizeof(reply)) || (msg.msg_flags & MSG_CTRUNC) != 0) return fail(-EIO);
  if (reply.error != 0) return fail(reply.error < 0 ? reply.error : -EIO);
  // The buffer must lie inside the file it was sent with.
  if (!regular || reply.size > UINT64_MAX - reply.offset || file->size().raw() < reply.offset + reply.size) {
    return fail(-EIO);
  }
  result.file = *std::move(file);
  result.connection = std::move(sock);
  result.offset = reply.offset;
  result.size = reply.size;
  result.alloc_flags = reply.alloc_flags;
  result.flags = reply.flags;
  return result;
}

}  // namespace hipmem::kfd_sim
