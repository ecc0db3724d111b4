// libhipmem_kfd.so's C library interposers: the simulated KFD behind the real file ABI (simulated_host.h says which
// paths; README.md in this directory how to use it).
//
// Each /dev/kfd or render node the process opens is a real descriptor (of /dev/null, so it survives fork, dup and
// exec like any file and close-on-exec works) recorded in a table with what it stands for:
// - /dev/kfd: the KFD process of this OS process. As kfd_create_process does, every open while one is open shares
//   it (one KFD process per mm); it is released (SimFile destroyed, which the simulator models as the kernel's
//   release) when the last descriptor of it closes. ioctl runs SimFile::Ioctl (ACQUIRE_VM's drm_fd translated to the
//   simulator's token for that render file); mmap maps the doorbells (SimFile::MmapKfd).
// - a render node: its GPU. ioctl answers the DRM/amdgpu requests (render_node.h); mmap maps a buffer of the KFD
//   process that acquired its VM through this file (SimFile::MmapBo).
// An mmap without MAP_FIXED first reserves the range (anonymous, PROT_NONE) and maps over it, as the kernel picks
// an address. munmap needs nothing of us: the simulator's mappings are ordinary shared mappings of its page files.
//
// fork: the child inherits the descriptors. Its inherited /dev/kfd behaves as amdkfd's does for a process that is
// not the KFD process's: ioctl answers EBADF (kfd_ioctl's lead-thread check) and mmap EINVAL (kfd_mmap finds no
// process for the child's mm); close only drops the child's reference, and the parent's process is never called
// into from the child (its engine threads do not exist there). An open of /dev/kfd in the child makes the child's
// own KFD process on a machine of its own (simulated_host.h: one machine per OS process).
// Deliberate: a render node inherited by a child still answers its DRM queries, but mmap through it answers
// EINVAL in the child (the kernel would map the parent's buffer through the shared DRM file).
// exec: the table does not survive; the preload follows through LD_PRELOAD in the environment, and a KFD
// descriptor kept open across exec is plain /dev/null in the new image (the kernel's would belong to the old mm).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/preload/libc_next.h"
#include "testing/kfd_sim/preload/render_node.h"
#include "testing/kfd_sim/preload/simulated_host.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_preload {

namespace {

// ---- what a descriptor stands for ----

// One KFD process (kfd_process) of this OS process.
struct KfdProcess {
  KfdProcess(pid_t owner_pid, uint64_t id, std::unique_ptr<kfd_sim::SimFile> sim_file)
      : owner(owner_pid), serial(id), file(std::move(sim_file)) {}
  ~KfdProcess() {
    // The last reference dropped in a forked child: the process is the parent's, whose simulator the child must not
    // enter (its threads and lock holders are not here). The kernel too keeps it for the parent.
    if (getpid() != owner) (void)file.release();
  }
  KfdProcess(const KfdProcess&) = delete;
  KfdProcess& operator=(const KfdProcess&) = delete;

  const pid_t owner;
  const uint64_t serial;  // unique in this OS process's history: names it in RenderFile::tokens
  std::unique_ptr<kfd_sim::SimFile> file;
};

// One open file of a render node (a drm_file).
struct RenderFile {
  explicit RenderFile(uint32_t minor_number) : node_minor(minor_number) {}
  const uint32_t node_minor;
  absl::Mutex mu;
  // The simulator's token for this file in each KFD process that acquired a VM through it, by KfdProcess::serial;
  // the kernel ties the VM to the drm_file the same way.
  absl::flat_hash_map<uint64_t, int> tokens ABSL_GUARDED_BY(mu);
};

using OpenFile = std::variant<std::shared_ptr<KfdProcess>, std::shared_ptr<RenderFile>>;

// Descriptor number -> what it stands for, for this OS process.
class FdTable {
 public:
  std::optional<OpenFile> Find(int fd) {
    if (fd < 0 || count_.load(std::memory_order_acquire) == 0) return std::nullopt;
    ScopedLock lock(&mu_);
    auto it = fds_.find(fd);
    if (it == fds_.end()) return std::nullopt;
    return it->second;
  }
  // Records `fd` (a descriptor number the kernel just handed out), replacing any stale entry.
  void Insert(int fd, OpenFile file) {
    ScopedLock lock(&mu_);
    fds_.insert_or_assign(fd, std::move(file));
    count_.store(fds_.size(), std::memory_order_release);
  }
  // Forgets `fd`; returns what it stood for, to be released outside the lock (releasing a KFD process calls into the
  // simulator, which closes descriptors of its own).
  std::optional<OpenFile> Erase(int fd) {
    if (fd < 0 || count_.load(std::memory_order_acquire) == 0) return std::nullopt;
    ScopedLock lock(&mu_);
    auto it = fds_.find(fd);
    if (it == fds_.end()) return std::nullopt;
    OpenFile file = std::move(it->second);
    fds_.erase(it);
    count_.store(fds_.size(), std::memory_order_release);
    return file;
  }
  void LockForFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { mu_.Lock(); }
  void UnlockAfterFork() ABSL_NO_THREAD_SAFETY_ANALYSIS { mu_.Unlock(); }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<int, OpenFile> fds_ ABSL_GUARDED_BY(mu_);
  std::atomic<size_t> count_{0};
};

FdTable& Table() {
  static FdTable* const table = new FdTable();  // for the life of the process: descriptors outlive statics
  return *table;
}

// The KFD process every open of /dev/kfd in this OS process shares while one is open.
ABSL_CONST_INIT absl::Mutex g_kfd_mu(absl::kConstInit);
std::weak_ptr<KfdProcess>* g_kfd ABSL_GUARDED_BY(g_kfd_mu) = nullptr;
uint64_t g_next_serial ABSL_GUARDED_BY(g_kfd_mu) = 1;

void PrepareFork() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  g_kfd_mu.Lock();
  Table().LockForFork();
}
void AfterFork() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  Table().UnlockAfterFork();
  g_kfd_mu.Unlock();
}

__attribute__((constructor)) void RegisterForkHandlers() {
  (void)Table();
  pthread_atfork(&PrepareFork, &AfterFork, &AfterFork);
}

int Fail(int err) {
  errno = err;
  return -1;
}

// A descriptor standing for a device file: /dev/null with the caller's close-on-exec choice.
int Placeholder(int flags) { return Next().openat(AT_FDCWD, "/dev/null", O_RDWR | (flags & O_CLOEXEC)); }

int OpenKfd(int flags) {
  kfd_sim::Simulator* simulator = SimulatedHost::Current().simulator();
  if (simulator == nullptr) return Fail(ENODEV);
  std::shared_ptr<KfdProcess> process;
  {
    ScopedLock lock(&g_kfd_mu);
    if (g_kfd == nullptr) g_kfd = new std::weak_ptr<KfdProcess>();
    process = g_kfd->lock();
    if (process == nullptr || process->owner != getpid()) {
      process = std::make_shared<KfdProcess>(getpid(), g_next_serial++, simulator->Open());
      *g_kfd = process;
    }
  }
  const int fd = Placeholder(flags);
  if (fd < 0) return -1;
  Table().Insert(fd, std::move(process));
  return fd;
}

int OpenRender(uint32_t minor, int flags) {
  const int fd = Placeholder(flags);
  if (fd < 0) return -1;
  Table().Insert(fd, std::make_shared<RenderFile>(minor));
  return fd;
}

bool UsesHostPath(int dirfd, const char* path) {
  return (dirfd == AT_FDCWD || (path != nullptr && path[0] == '/')) && SimulatedHost::MaybeOurs(path);
}

int OpenAt(int dirfd, const char* path, int flags, mode_t mode) {
  if (!UsesHostPath(dirfd, path)) return Next().openat(dirfd, path, flags, mode);
  PathTarget target = SimulatedHost::Current().Resolve(path);
  switch (target.kind) {
    case PathTarget::Kind::kHost:
      return Next().openat(dirfd, path, flags, mode);
    case PathTarget::Kind::kKfd:
      return OpenKfd(flags);
    case PathTarget::Kind::kRenderNode:
      return OpenRender(target.render_minor, flags);
    case PathTarget::Kind::kNoDevice:
    case PathTarget::Kind::kUnavailable:
      return Fail(ENOENT);
    case PathTarget::Kind::kRedirect:
      return Next().openat(AT_FDCWD, target.path.c_str(), flags, mode);
  }
  return Fail(ENOENT);
}

// ---- stat ----

// What stat says of a device file: /dev/null's owner and times, a character device with `rdev`, rw for owner
// and group as udev's rules make /dev/kfd and the render nodes.
int StatDevice(dev_t rdev, struct stat* st) {
  if (Next().fstatat(AT_FDCWD, "/dev/null", st, 0) != 0) return -1;
  st->st_mode = S_IFCHR | 0660;
  st->st_rdev = rdev;
  st->st_ino = static_cast<ino_t>(0x6b6664000000ULL | rdev);  // a stable inode per device, unlike /dev/null's
  return 0;
}

dev_t KfdRdev() { return makedev(kKfdMajor, 0); }
dev_t RenderRdev(uint32_t minor) { return makedev(kDrmMajor, minor); }

std::optional<dev_t> RdevOf(const OpenFile& file) {
  if (const auto* render = std::get_if<std::shared_ptr<RenderFile>>(&file)) return RenderRdev((*render)->node_minor);
  return KfdRdev();
}

int StatAt(int dirfd, const char* path, struct stat* st, int flags) {
  if ((flags & AT_EMPTY_PATH) != 0 && path != nullptr && path[0] == '\0') {
    if (std::optional<OpenFile> file = Table().Find(dirfd)) return StatDevice(*RdevOf(*file), st);
    return Next().fstatat(dirfd, path, st, flags);
  }
  if (!UsesHostPath(dirfd, path)) return Next().fstatat(dirfd, path, st, flags);
  PathTarget target = SimulatedHost::Current().Resolve(path);
  switch (target.kind) {
    case PathTarget::Kind::kHost:
      return Next().fstatat(dirfd, path, st, flags);
    case PathTarget::Kind::kKfd:
      return StatDevice(KfdRdev(), st);
    case PathTarget::Kind::kRenderNode:
      return StatDevice(RenderRdev(target.render_minor), st);
    case PathTarget::Kind::kNoDevice:
    case PathTarget::Kind::kUnavailable:
      return Fail(ENOENT);
    case PathTarget::Kind::kRedirect:
      return Next().fstatat(AT_FDCWD, target.path.c_str(), st, flags);
  }
  return Fail(ENOENT);
}

int FStat(int fd, struct stat* st) {
  if (std::optional<OpenFile> file = Table().Find(fd)) return StatDevice(*RdevOf(*file), st);
  return Next().fstat(fd, st);
}

void ToStatx(const struct stat& st, struct statx* out) {
  *out = {};
  out->stx_mask = STATX_BASIC_STATS;
  out->stx_blksize = static_cast<uint32_t>(st.st_blksize);
  out->stx_nlink = static_cast<uint32_t>(st.st_nlink);
  out->stx_uid = st.st_uid;
  out->stx_gid = st.st_gid;
  out->stx_mode = static_cast<uint16_t>(st.st_mode);
  out->stx_ino = st.st_ino;
  out->stx_size = static_cast<uint64_t>(st.st_size);
  out->stx_blocks = static_cast<uint64_t>(st.st_blocks);
  // Field by field: the rest of each timestamp (its reserved word) stays as `*out = {}` left it.
  out->stx_atime.tv_sec = st.st_atim.tv_sec;
  out->stx_atime.tv_nsec = static_cast<uint32_t>(st.st_atim.tv_nsec);
  out->stx_mtime.tv_sec = st.st_mtim.tv_sec;
  out->stx_mtime.tv_nsec = static_cast<uint32_t>(st.st_mtim.tv_nsec);
  out->stx_ctime.tv_sec = st.st_ctim.tv_sec;
  out->stx_ctime.tv_nsec = static_cast<uint32_t>(st.st_ctim.tv_nsec);
  out->stx_rdev_major = major(st.st_rdev);
  out->stx_rdev_minor = minor(st.st_rdev);
  out->stx_dev_major = major(st.st_dev);
  out->stx_dev_minor = minor(st.st_dev);
}

int AccessAt(int dirfd, const char* path, int mode, int flags) {
  if (!UsesHostPath(dirfd, path)) return Next().faccessat(dirfd, path, mode, flags);
  PathTarget target = SimulatedHost::Current().Resolve(path);
  switch (target.kind) {
    case PathTarget::Kind::kHost:
      return Next().faccessat(dirfd, path, mode, flags);
    case PathTarget::Kind::kKfd:
    case PathTarget::Kind::kRenderNode:
      // Read and write, as the render group has them; a device file is not executable.
      return (mode & X_OK) != 0 ? Fail(EACCES) : 0;
    case PathTarget::Kind::kNoDevice:
    case PathTarget::Kind::kUnavailable:
      return Fail(ENOENT);
    case PathTarget::Kind::kRedirect:
      return Next().faccessat(AT_FDCWD, target.path.c_str(), mode, flags);
  }
  return Fail(ENOENT);
}

// ---- descriptors ----

// Records that `new_fd` (just made by dup & co from `old_fd`) stands for what `old_fd` does.
int Duplicated(int old_fd, int new_fd) {
  if (new_fd < 0) return new_fd;
  if (std::optional<OpenFile> file = Table().Find(old_fd)) Table().Insert(new_fd, std::move(*file));
  return new_fd;
}

// dup2/dup3 onto a descriptor of ours closes it first, as the kernel does.
int DupOnto(int old_fd, int new_fd, int flags, bool is_dup2) {
  std::optional<OpenFile> replaced;
  if (old_fd != new_fd) replaced = Table().Erase(new_fd);
  const int ret = is_dup2 ? Next().dup2(old_fd, new_fd) : Next().dup3(old_fd, new_fd, flags);
  if (ret < 0) {
    const int err = errno;
    if (replaced) Table().Insert(new_fd, std::move(*replaced));  // nothing happened to it
    errno = err;
    return ret;
  }
  return Duplicated(old_fd, ret);
}

// ---- ioctl ----

int KfdIoctl(KfdProcess& process, unsigned long request, void* arg) {
  // The system call as the trace of an unmodified program sees it (hipmem trace): AMD's libhsakmt issued it.
  TraceSlice slice(TraceCategory::kKfd, kfd_uapi::IoctlName(request));
  // kfd_ioctl: only the process that opened it (its lead thread's group).
  if (process.owner != getpid()) {
    slice.Arg("result", -EBADF);
    return Fail(EBADF);
  }
  int ret;
  if (kfd_uapi::IoctlNr(request) == kfd_uapi::kAcquireVm.nr) {
    // ACQUIRE_VM names a render node by descriptor: give the simulator its token for that file in this process.
    kfd_uapi::AcquireVmArgs args{};
    const uint32_t size = kfd_uapi::IoctlSize(request);
    if (size < sizeof(args)) return Fail(EINVAL);
    if (!kfd_sim::CopyFromUser(&args, reinterpret_cast<uintptr_t>(arg), sizeof(args))) return Fail(EFAULT);
    std::optional<OpenFile> file = Table().Find(static_cast<int>(args.drm_fd));
    const auto* render = file ? std::get_if<std::shared_ptr<RenderFile>>(&*file) : nullptr;
    int token = -1;  // not a render node: the kernel's fget/amdgpu_file_to_fpriv fails
    if (render != nullptr) {
      RenderFile& r = **render;
      ScopedLock lock(&r.mu);
      auto it = r.tokens.find(process.serial);
      if (it != r.tokens.end()) {
        token = it->second;
      } else {
        token = process.file->OpenRenderNode(r.node_minor);
        if (token >= 0) r.tokens.emplace(process.serial, token);
      }
    }
    args.drm_fd = static_cast<uint32_t>(token);
    ret = process.file->Ioctl(
        (request & ~(static_cast<unsigned long>(0x3fff) << 16)) | (static_cast<unsigned long>(sizeof(args)) << 16),
        &args);
  } else {
    ret = process.file->Ioctl(request, arg);
  }
  slice.Arg("result", ret);
  return ret < 0 ? Fail(-ret) : ret;
}

int RenderIoctl(RenderFile& render, unsigned long request, void* arg) {
  SimulatedHost& host = SimulatedHost::Current();
  const kfd_sim::Topology* topology = host.topology();
  if (topology == nullptr) return Fail(ENODEV);
  const kfd_sim::GpuConfig* gpu = nullptr;
  for (const kfd_sim::GpuConfig& g : topology->gpus) {
    if (g.drm_render_minor == render.node_minor) gpu = &g;
  }
  if (gpu == nullptr) return Fail(ENODEV);
  auto usage = [&]() {
    RenderNodeUsage use;
    kfd_sim::Simulator* simulator = host.simulator();
    if (simulator == nullptr) return use;
    const kfd_sim::SimSnapshot snapshot = simulator->Snapshot();
    for (const kfd_sim::SimGpuUsage& g : snapshot.gpus) {
      if (g.gpu_id == gpu->gpu_id) use.vram_used = g.vram_used.raw();
    }
    use.system_used = snapshot.system_used.raw();
    return use;
  };
  const int ret = RenderNodeIoctl(*gpu, topology->system_memory_bytes, usage, request, arg);
  return ret < 0 ? Fail(-ret) : ret;
}

// ---- mmap ----

void* MapFailed(int err) {
  errno = err;
  return MAP_FAILED;
}

// Maps with `map(address)` at `addr` (MAP_FIXED) or over a fresh reservation the size of `length`.
template <typename MapAt>
void* MapDevice(void* addr, size_t length, int flags, MapAt map) {
  if (length == 0) return MapFailed(EINVAL);
  if ((flags & MAP_FIXED) != 0) {
    const int ret = map(addr);
    return ret < 0 ? MapFailed(-ret) : addr;
  }
  void* reserved = Next().mmap(addr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) return MAP_FAILED;
  const int ret = map(reserved);
  if (ret < 0) {
    munmap(reserved, length);
    return MapFailed(-ret);
  }
  return reserved;
}

void* Mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  std::optional<OpenFile> file = (flags & MAP_ANONYMOUS) != 0 ? std::nullopt : Table().Find(fd);
  if (!file) return Next().mmap(addr, length, prot, flags, fd, offset);
  const auto raw_offset = static_cast<uint64_t>(offset);
  if (const auto* kfd = std::get_if<std::shared_ptr<KfdProcess>>(&*file)) {
    KfdProcess& process = **kfd;
    if (process.owner != getpid()) return MapFailed(EINVAL);  // kfd_mmap: no KFD process for this mm
    return MapDevice(addr, length, flags,
                     [&](void* at) { return process.file->MmapKfd(at, length, prot, raw_offset); });
  }
  RenderFile& render = *std::get<std::shared_ptr<RenderFile>>(*file);
  // drm_gem_mmap: the buffer must belong to this file's VM, i.e. the KFD process that acquired it through here.
  std::shared_ptr<KfdProcess> process;
  {
    ScopedLock lock(&g_kfd_mu);
    if (g_kfd != nullptr) process = g_kfd->lock();
  }
  if (process == nullptr || process->owner != getpid()) return MapFailed(EINVAL);
  int token = -1;
  {
    ScopedLock lock(&render.mu);
    auto it = render.tokens.find(process->serial);
    if (it != render.tokens.end()) token = it->second;
  }
  if (token < 0) return MapFailed(EINVAL);
  return MapDevice(addr, length, flags,
                   [&](void* at) { return process->file->MmapBo(token, at, length, prot, raw_offset); });
}

}  // namespace
}  // namespace hipmem::kfd_preload

// ---- the exported interposers (the only symbols libhipmem_kfd.so exports; see libhipmem_kfd.lds) ----

namespace kp = hipmem::kfd_preload;

namespace {

mode_t ModeArg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? static_cast<mode_t>(va_arg(ap, int)) : 0;
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return kp::OpenAt(AT_FDCWD, path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return kp::OpenAt(AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return kp::OpenAt(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const mode_t mode = ModeArg(flags, ap);
  va_end(ap);
  return kp::OpenAt(dirfd, path, flags, mode);
}

// _FORTIFY_SOURCE's checked variants (flags without O_CREAT, so no mode).
int __open_2(const char* path, int flags) { return kp::OpenAt(AT_FDCWD, path, flags, 0); }
int __open64_2(const char* path, int flags) { return kp::OpenAt(AT_FDCWD, path, flags, 0); }
int __openat_2(int dirfd, const char* path, int flags) { return kp::OpenAt(dirfd, path, flags, 0); }
int __openat64_2(int dirfd, const char* path, int flags) { return kp::OpenAt(dirfd, path, flags, 0); }

FILE* fopen(const char* path, const char* mode) {
  if (!kp::SimulatedHost::MaybeOurs(path)) return kp::Next().fopen(path, mode);
  kp::PathTarget target = kp::SimulatedHost::Current().Resolve(path);
  switch (target.kind) {
    case kp::PathTarget::Kind::kHost:
      return kp::Next().fopen(path, mode);
    case kp::PathTarget::Kind::kRedirect:
      return kp::Next().fopen(target.path.c_str(), mode);
    case kp::PathTarget::Kind::kNoDevice:
    case kp::PathTarget::Kind::kUnavailable:
      errno = ENOENT;
      return nullptr;
    case kp::PathTarget::Kind::kKfd:
    case kp::PathTarget::Kind::kRenderNode: {
      const int fd = kp::OpenAt(AT_FDCWD, path, O_RDWR | (std::strchr(mode, 'e') != nullptr ? O_CLOEXEC : 0), 0);
      if (fd < 0) return nullptr;
      FILE* f = fdopen(fd, mode);
      if (f == nullptr) {
        const int err = errno;
        close(fd);
        errno = err;
      }
      return f;
    }
  }
  errno = ENOENT;
  return nullptr;
}

FILE* fopen64(const char* path, const char* mode) { return fopen(path, mode); }

DIR* opendir(const char* path) {
  if (!kp::SimulatedHost::MaybeOurs(path)) return kp::Next().opendir(path);
  kp::PathTarget target = kp::SimulatedHost::Current().Resolve(path);
  switch (target.kind) {
    case kp::PathTarget::Kind::kHost:
      return kp::Next().opendir(path);
    case kp::PathTarget::Kind::kRedirect:
      return kp::Next().opendir(target.path.c_str());
    case kp::PathTarget::Kind::kKfd:
    case kp::PathTarget::Kind::kRenderNode:
      errno = ENOTDIR;
      return nullptr;
    case kp::PathTarget::Kind::kNoDevice:
    case kp::PathTarget::Kind::kUnavailable:
      errno = ENOENT;
      return nullptr;
  }
  errno = ENOENT;
  return nullptr;
}

int stat(const char* path, struct stat* st) { return kp::StatAt(AT_FDCWD, path, st, 0); }
int stat64(const char* path, struct stat64* st) {
  return kp::StatAt(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), 0);
}
int lstat(const char* path, struct stat* st) { return kp::StatAt(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW); }
int lstat64(const char* path, struct stat64* st) {
  return kp::StatAt(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), AT_SYMLINK_NOFOLLOW);
}
int fstat(int fd, struct stat* st) { return kp::FStat(fd, st); }
int fstat64(int fd, struct stat64* st) { return kp::FStat(fd, reinterpret_cast<struct stat*>(st)); }
int fstatat(int dirfd, const char* path, struct stat* st, int flags) { return kp::StatAt(dirfd, path, st, flags); }
int fstatat64(int dirfd, const char* path, struct stat64* st, int flags) {
  return kp::StatAt(dirfd, path, reinterpret_cast<struct stat*>(st), flags);
}
// The versioned entry points binaries built before glibc 2.33 call (x86-64's struct stat is the kernel's for every
// version number, so `ver` changes nothing).
int __xstat(int, const char* path, struct stat* st) { return kp::StatAt(AT_FDCWD, path, st, 0); }
int __xstat64(int, const char* path, struct stat64* st) {
  return kp::StatAt(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), 0);
}
int __lxstat(int, const char* path, struct stat* st) { return kp::StatAt(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW); }
int __lxstat64(int, const char* path, struct stat64* st) {
  return kp::StatAt(AT_FDCWD, path, reinterpret_cast<struct stat*>(st), AT_SYMLINK_NOFOLLOW);
}
int __fxstat(int, int fd, struct stat* st) { return kp::FStat(fd, st); }
int __fxstat64(int, int fd, struct stat64* st) { return kp::FStat(fd, reinterpret_cast<struct stat*>(st)); }
int __fxstatat(int, int dirfd, const char* path, struct stat* st, int flags) {
  return kp::StatAt(dirfd, path, st, flags);
}
int __fxstatat64(int, int dirfd, const char* path, struct stat64* st, int flags) {
  return kp::StatAt(dirfd, path, reinterpret_cast<struct stat*>(st), flags);
}

int statx(int dirfd, const char* path, int flags, unsigned int mask, struct statx* out) {
  const bool by_fd = (flags & AT_EMPTY_PATH) != 0 && path[0] == '\0' && kp::Table().Find(dirfd);
  if (!by_fd && !kp::UsesHostPath(dirfd, path)) return kp::Next().statx(dirfd, path, flags, mask, out);
  if (!by_fd) {
    kp::PathTarget target = kp::SimulatedHost::Current().Resolve(path);
    if (target.kind == kp::PathTarget::Kind::kHost) return kp::Next().statx(dirfd, path, flags, mask, out);
    if (target.kind == kp::PathTarget::Kind::kRedirect) {
      return kp::Next().statx(AT_FDCWD, target.path.c_str(), flags, mask, out);
    }
  }
  struct stat st;
  if (kp::StatAt(dirfd, path, &st, flags) != 0) return -1;
  kp::ToStatx(st, out);
  return 0;
}

int access(const char* path, int mode) { return kp::AccessAt(AT_FDCWD, path, mode, 0); }
int faccessat(int dirfd, const char* path, int mode, int flags) { return kp::AccessAt(dirfd, path, mode, flags); }
int euidaccess(const char* path, int mode) { return kp::AccessAt(AT_FDCWD, path, mode, AT_EACCESS); }
int eaccess(const char* path, int mode) { return kp::AccessAt(AT_FDCWD, path, mode, AT_EACCESS); }

int close(int fd) {
  // Forget first, so the number cannot be handed out again while still recorded; release after the real close.
  std::optional<kp::OpenFile> file = kp::Table().Erase(fd);
  return kp::Next().close(fd);
}

int dup(int fd) { return kp::Duplicated(fd, kp::Next().dup(fd)); }
int dup2(int old_fd, int new_fd) { return kp::DupOnto(old_fd, new_fd, 0, /*is_dup2=*/true); }
int dup3(int old_fd, int new_fd, int flags) { return kp::DupOnto(old_fd, new_fd, flags, /*is_dup2=*/false); }

int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);  // an int or a pointer: both travel in one register on x86-64, as glibc reads them
  va_end(ap);
  const int ret = kp::Next().fcntl(fd, cmd, arg);
  if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) return kp::Duplicated(fd, ret);
  return ret;
}

int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return fcntl(fd, cmd, arg);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  std::optional<kp::OpenFile> file = kp::Table().Find(fd);
  if (!file) return kp::Next().ioctl(fd, request, arg);
  if (auto* kfd = std::get_if<std::shared_ptr<kp::KfdProcess>>(&*file)) return kp::KfdIoctl(**kfd, request, arg);
  return kp::RenderIoctl(*std::get<std::shared_ptr<kp::RenderFile>>(*file), request, arg);
}

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  return kp::Mmap(addr, length, prot, flags, fd, offset);
}

void* mmap64(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
  return kp::Mmap(addr, length, prot, flags, fd, offset);
}

}  // extern "C"
