// The simulated host of one process (simulated_host.h).
#include "testing/kfd_sim/preload/simulated_host.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "absl/base/const_init.h"
#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "testing/kfd_sim/preload/libc_next.h"
#include "testing/kfd_sim/preload/render_node.h"
#include "testing/kfd_sim/presets.h"

namespace hipmem::kfd_preload {
namespace {

constexpr std::string_view kKfdPath = "/dev/kfd";
constexpr std::string_view kRenderPrefix = "/dev/dri/renderD";
constexpr std::string_view kTopologyPaths[] = {"/sys/devices/virtual/kfd/kfd/topology", "/sys/class/kfd/kfd/topology"};
constexpr std::string_view kProcModules = "/proc/modules";
constexpr std::string_view kModuleDir = "/sys/module/amdgpu";
constexpr std::string_view kDevCharPrefix = "/sys/dev/char/";

// amdgpu's line in /proc/modules: name, size, references, dependencies, state, load address (0 without
// CAP_SYSLOG... and shown as such to everyone here). The size is of the order of amdgpu.ko's; only lsmod prints it.
constexpr uint64_t kAmdgpuCoreSize = 11'739'136;

// The rest of `path` after `prefix` when `path` is `prefix` or below it ("" or "/..."); nullopt otherwise.
std::optional<std::string_view> Below(std::string_view path, std::string_view prefix) {
  if (path.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = path.substr(prefix.size());
  if (!rest.empty() && rest.front() != '/') return std::nullopt;
  return rest;
}

// Parses all of `text` as a decimal number.
bool ParseNumber(std::string_view text, uint32_t* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool HasMinor(const kfd_sim::Topology& topology, uint32_t minor) {
  for (const kfd_sim::GpuConfig& gpu : topology.gpus) {
    if (gpu.drm_render_minor == minor || gpu.drm_render_minor - kRenderMinorBase == minor) return true;
  }
  return false;
}

bool WriteFile(const std::string& path, std::string_view content) {
  const int fd = Next().openat(AT_FDCWD, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
  if (fd < 0) return false;
  bool ok = true;
  while (!content.empty()) {
    const ssize_t n = write(fd, content.data(), content.size());
    if (n <= 0) {
      ok = false;
      break;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return Next().close(fd) == 0 && ok;
}

// The host's /proc/modules, or "" when it has none (a container without /proc/modules).
std::string HostModules() {
  std::string text;
  const int fd = Next().openat(AT_FDCWD, std::string(kProcModules).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  Next().close(fd);
  return text;
}

ABSL_CONST_INIT absl::Mutex g_current_mu(absl::kConstInit);
// The host of the process that last asked; replaced (the old one leaked, never touched again) in a forked child.
std::atomic<SimulatedHost*> g_current{nullptr};
// The directory to remove at exit and the process that made it (a forked child inherits the atexit handler).
ABSL_CONST_INIT absl::Mutex g_tree_mu(absl::kConstInit);
std::string* g_tree ABSL_GUARDED_BY(g_tree_mu) = nullptr;
pid_t g_tree_pid ABSL_GUARDED_BY(g_tree_mu) = 0;
// The machine whose kernel log HIPMEM_KFD_DMESG asks for at exit (the process's own: g_tree_pid).
kfd_sim::Simulator* g_dmesg_simulator ABSL_GUARDED_BY(g_tree_mu) = nullptr;

}  // namespace

SimulatedHost::SimulatedHost() : pid_(getpid()), topology_(kfd_sim::TopologyFromEnvironment()) {}

SimulatedHost& SimulatedHost::Current() {
  const pid_t pid = getpid();
  if (SimulatedHost* host = g_current.load(std::memory_order_acquire); host != nullptr && host->pid_ == pid) {
    return *host;
  }
  ScopedLock lock(&g_current_mu);
  SimulatedHost* host = g_current.load(std::memory_order_acquire);
  if (host != nullptr && host->pid_ == pid) return *host;
  host = new SimulatedHost();  // one per process, for the life of the process
  g_current.store(host, std::memory_order_release);
  return *host;
}

bool SimulatedHost::MaybeOurs(const char* path) {
  if (path == nullptr || path[0] != '/') return false;
  switch (path[1]) {
    case 'd':
      return std::string_view(path).substr(0, 5) == "/dev/";
    case 's':
      return std::string_view(path).substr(0, 5) == "/sys/";
    case 'p':
      return std::string_view(path) == kProcModules;
    default:
      return false;
  }
}

PathTarget SimulatedHost::Resolve(std::string_view path) {
  PathTarget target;
  const bool device = path == kKfdPath || path.substr(0, kRenderPrefix.size()) == kRenderPrefix;
  if (device && !topology_.ok()) {
    ScopedLock lock(&mu_);
    Complain(std::string(topology_.status().message()));
    target.kind = PathTarget::Kind::kUnavailable;
    return target;
  }
  if (path == kKfdPath) {
    target.kind = PathTarget::Kind::kKfd;
    return target;
  }
  if (path.substr(0, kRenderPrefix.size()) == kRenderPrefix) {
    uint32_t minor = 0;
    if (ParseNumber(path.substr(kRenderPrefix.size()), &minor) && minor >= kRenderMinorBase &&
               HasMinor(*topology_, minor)) {
      target.kind = PathTarget::Kind::kRenderNode;
      target.render_minor = minor;
    } else {
      target.kind = PathTarget::Kind::kNoDevice;
    }
    return target;
  }
  // Files of the simulated host: made on first use, under the lock.
  enum class Tree { kNone, kTopology, kModules, kModuleDir, kDevChar } tree = Tree::kNone;
  std::string_view rest;
  for (std::string_view prefix : kTopologyPaths) {
    if (std::optional<std::string_view> below = Below(path, prefix)) {
      tree = Tree::kTopology;
      rest = *below;
    }
  }
  if (path == kProcModules) tree = Tree::kModules;
  if (std::optional<std::string_view> below = Below(path, kModuleDir)) {
    tree = Tree::kModuleDir;
    rest = *below;
  }
  if (path.substr(0, kDevCharPrefix.size()) == kDevCharPrefix && topology_.ok()) {
    // 226:<minor>[/...] of a simulated GPU's render or primary node.
    const std::string_view node = path.substr(kDevCharPrefix.size());
    const std::string_view device = node.substr(0, node.find('/'));
    const size_t colon = device.find(':');
    uint32_t major = 0;
    uint32_t minor = 0;
    if (colon != std::string_view::npos && ParseNumber(device.substr(0, colon), &major) && major == kDrmMajor &&
        ParseNumber(device.substr(colon + 1), &minor) && HasMinor(*topology_, minor)) {
      tree = Tree::kDevChar;
      rest = node;
    }
  }
  if (tree == Tree::kNone) return target;

  ScopedLock lock(&mu_);
  bool ready = false;
  std::string base;
  switch (tree) {
    case Tree::kTopology:
      ready = SimulatorLocked() != nullptr;
      base = "/topology";
      break;
    case Tree::kModules:
      ready = WriteModuleFiles();
      base = "/proc_modules";
      break;
    case Tree::kModuleDir:
      ready = WriteModuleFiles();
      base = "/sys_module_amdgpu";
      break;
    case Tree::kDevChar:
      ready = WriteDrmSysfs();
      base = "/dev_char/";
      break;
    case Tree::kNone:
      break;
  }
  if (!ready) {
    target.kind = PathTarget::Kind::kUnavailable;
    return target;
  }
  target.kind = PathTarget::Kind::kRedirect;
  target.path = absl::StrCat(root_, base, std::string(rest));
  return target;
}

kfd_sim::Simulator* SimulatedHost::simulator() {
  ScopedLock lock(&mu_);
  return SimulatorLocked();
}

void SimulatedHost::Complain(const std::string& what) {
  if (complained_) return;
  complained_ = true;
  std::fprintf(stderr, "libhipmem_kfd: %s\n", what.c_str());
}

std::optional<std::string> SimulatedHost::Root() {
  if (!root_.empty()) return root_;
  if (root_failed_) return std::nullopt;
  // A tree a killed process left behind goes first (held_dir.h).
  absl::StatusOr<kfd_sim::HeldDir> held = kfd_sim::HeldDir::Create("hipmem-kfd-");
  if (!held.ok()) {
    root_failed_ = true;
    Complain(absl::StrCat("cannot make the simulated host's directory: ", held.status().ToString()));
    return std::nullopt;
  }
  const std::string dir = held->path();
  root_ = dir;
  held_dir_.emplace(*std::move(held));
  {
    ScopedLock tree_lock(&g_tree_mu);
    if (g_tree == nullptr) {
      g_tree = new std::string(dir);
      static const bool registered = (std::atexit(&RemoveTreeAtExit), true);  // inherited by forked children
      (void)registered;
    } else {
      *g_tree = dir;  // a forked child's own tree; the parent removes its own
    }
    g_tree_pid = pid_;
  }
  return root_;
}

void SimulatedHost::RemoveTreeAtExit() {
  ScopedLock lock(&g_tree_mu);
  if (g_tree == nullptr || g_tree_pid != getpid()) return;
  std::error_code ec;
  std::filesystem::remove_all(*g_tree, ec);
}

bool SimulatedHost::WriteModuleFiles() {
  if (modules_written_) return true;
  const std::optional<std::string> root = Root();
  if (!root) return false;
  std::string modules = HostModules();
  bool listed = false;
  for (size_t at = 0; at < modules.size();) {
    if (modules.compare(at, 7, "amdgpu ") == 0) listed = true;
    const size_t eol = modules.find('\n', at);
    at = eol == std::string::npos ? modules.size() : eol + 1;
  }
  if (!listed) absl::StrAppend(&modules, "amdgpu ", kAmdgpuCoreSize, " 0 - Live 0x0000000000000000\n");
  const std::string dir = absl::StrCat(*root, "/sys_module_amdgpu");
  const bool ok = WriteFile(absl::StrCat(*root, "/proc_modules"), modules) && mkdir(dir.c_str(), 0755) == 0 &&
                  mkdir(absl::StrCat(dir, "/holders").c_str(), 0755) == 0 &&
                  mkdir(absl::StrCat(dir, "/parameters").c_str(), 0755) == 0 &&
                  WriteFile(absl::StrCat(dir, "/initstate"), "live\n") &&
                  WriteFile(absl::StrCat(dir, "/refcnt"), "0\n") &&
                  WriteFile(absl::StrCat(dir, "/coresize"), absl::StrCat(kAmdgpuCoreSize, "\n"));
  if (!ok) {
    Complain(absl::StrCat("cannot write the amdgpu module's files under ", *root, ": ", std::strerror(errno)));
    return false;
  }
  modules_written_ = true;
  return true;
}

bool SimulatedHost::WriteDrmSysfs() {
  if (drm_written_) return true;
  const std::optional<std::string> root = Root();
  if (!root) return false;
  std::error_code ec;
  for (const kfd_sim::GpuConfig& gpu : topology_->gpus) {
    const uint32_t card = gpu.drm_render_minor - kRenderMinorBase;
    // Both nodes' device links lead to the same PCI device, whose drm/ directory names both.
    for (uint32_t minor : {gpu.drm_render_minor, card}) {
      const std::string drm = absl::StrCat(*root, "/dev_char/", kDrmMajor, ":", minor, "/device/drm");
      std::filesystem::create_directories(absl::StrCat(drm, "/card", card), ec);
      if (!ec) std::filesystem::create_directories(absl::StrCat(drm, "/renderD", gpu.drm_render_minor), ec);
      if (!ec && !WriteFile(absl::StrCat(*root, "/dev_char/", kDrmMajor, ":", minor, "/dev"),
                            absl::StrCat(kDrmMajor, ":", minor, "\n"))) {
        ec = std::error_code(errno, std::generic_category());
      }
      if (ec) {
        Complain(absl::StrCat("cannot write the DRM device files under ", *root, ": ", ec.message()));
        return false;
      }
    }
  }
  drm_written_ = true;
  return true;
}

kfd_sim::Simulator* SimulatedHost::SimulatorLocked() {
  if (simulator_ != nullptr || simulator_failed_) return simulator_;
  if (!topology_.ok()) {
    simulator_failed_ = true;
    Complain(std::string(topology_.status().message()));
    return nullptr;
  }
  const std::optional<std::string> root = Root();
  if (!root) {
    simulator_failed_ = true;
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<kfd_sim::Simulator>> simulator = kfd_sim::Simulator::Create(*topology_);
  absl::Status written = simulator.ok() ? (*simulator)->WriteSysfs(absl::StrCat(*root, "/topology"))
                                        : simulator.status();
  if (!written.ok()) {
    simulator_failed_ = true;
    Complain(absl::StrCat("cannot make the simulated machine: ", written.ToString()));
    return nullptr;
  }
  simulator_ = simulator->release();  // deliberately never destroyed (simulated_host.h)
  {
    ScopedLock tree_lock(&g_tree_mu);
    g_dmesg_simulator = simulator_;
    static const bool registered = (std::atexit(&WriteDmesgAtExit), true);  // inherited by forked children
    (void)registered;
  }
  return simulator_;
}

void SimulatedHost::WriteDmesgAtExit() {
  const char* path = std::getenv("HIPMEM_KFD_DMESG");
  if (path == nullptr || *path == '\0') return;
  ScopedLock lock(&g_tree_mu);
  if (g_dmesg_simulator == nullptr || g_tree_pid != getpid()) return;
  // Appends: a process tree (a test's fork, an exec'd child) adds its machines' logs one after the other.
  const int fd = Next().openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = absl::StrCat("=== pid ", getpid(), "\n", g_dmesg_simulator->Dmesg());
  (void)!write(fd, text.data(), text.size());
  Next().close(fd);
}

}  // namespace hipmem::kfd_preload
