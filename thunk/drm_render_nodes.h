// DRM render nodes of KFD GPUs: which /dev/dri/renderD<minor> a GPU maps VRAM through, whether libdrm
// agrees, and the process-wide table that shares one open file per render node.
//
// Plays libhsakmt's hsakmt_open_drm_render_device (fmm.c) and its drm_render_fds cache. Nothing here
// calls the kernel: the Linux backend (kfd_device_linux.cc) lists libdrm's devices and supplies the
// function that opens a node, so the matching and sharing rules are tested with fake devices.
//
// The render minor comes from the KFD topology (drm_render_minor), as libhsakmt uses it. libhsakmt
// never asks libdrm which device a minor is; hipmem cross-checks the minor against the PCI address
// libdrm reports for it (drmGetDevices2) before opening, and refuses a node the two sources disagree
// on (CheckRenderNode). When libdrm cannot tell (no /dev/dri, a node off the PCI bus, a GPU without a
// location), the node is opened unverified, exactly as libhsakmt does.
#ifndef HIPMEM_THUNK_DRM_RENDER_NODES_H_
#define HIPMEM_THUNK_DRM_RENDER_NODES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// DRM numbers render nodes from 128 (primary nodes take 0-63); libhsakmt rejects a smaller minor.
inline constexpr uint32_t kFirstRenderMinor = 128;

// A PCI function's address, printed as the kernel does: "dddd:bb:dd.f".
struct PciAddress {
  uint32_t domain = 0;
  uint8_t bus = 0;
  uint8_t device = 0;    // 0-31
  uint8_t function = 0;  // 0-7

  friend bool operator==(const PciAddress&, const PciAddress&) = default;
  std::string ToString() const;
  friend std::ostream& operator<<(std::ostream& os, const PciAddress& a) { return os << a.ToString(); }
};

// Decodes a KFD node's `domain` and `location_id` properties. The kernel sets domain =
// pci_domain_nr(bus) and location_id = pci_dev_id(pdev) = bus << 8 | device << 3 | function; on a GPU
// split into partitions it also ORs the partition number into bits 28-31, which are not part of the
// address and are dropped here.
PciAddress PciAddressFromKfd(uint64_t domain, uint64_t location_id);

// True when `kfd` (from the topology) and `drm` (from libdrm) name the same PCI function. libdrm keeps
// the domain in 16 bits (drmPciBusInfo.domain), so domains are compared in their low 16 bits.
bool SamePciFunction(const PciAddress& kfd, const PciAddress& drm);

// Returns N for a device path ending in "renderD<N>" (libdrm's drmDevice.nodes[DRM_NODE_RENDER]),
// nullopt for anything else.
std::optional<uint32_t> RenderMinorFromPath(absl::string_view path);

// What a KFD GPU node says about its render node.
struct KfdRenderNode {
  uint32_t render_minor = 0;
  std::optional<PciAddress> pci = std::nullopt;  // nullopt when the node has no location_id/domain properties
};

// Returns the claim of the GPU node whose drm_render_minor is `render_minor`; when no GPU node has it,
// the claim carries only the minor.
KfdRenderNode KfdRenderNodeFor(const SystemTopology& topology, uint32_t render_minor);

// One DRM device as libdrm's drmGetDevices2 lists it, reduced to what matching needs.
struct DrmDeviceInfo {
  std::optional<uint32_t> render_minor;  // nullopt: the device has no render node
  // nullopt: the device is not on the PCI bus. A GPU partition's extra render nodes are such devices:
  // amdgpu registers them as "amdgpu_xcp" platform devices.
  std::optional<PciAddress> pci;
};

enum class RenderNodeCheck {
  kVerified,    // libdrm reports the render node at the GPU's PCI address
  kUnverified,  // libdrm has nothing to compare: the node is opened as libhsakmt would
};

// Decides whether render node `gpu.render_minor` may be opened for `gpu`, given libdrm's device list
// (or the error listing it failed with).
//   kVerified    libdrm lists the minor at the GPU's PCI address.
//   kUnverified  the listing failed (no /dev/dri, no libdrm view of sysfs); the GPU has no location;
//                the minor's device is not on the PCI bus; or libdrm lists neither the minor nor the
//                GPU's address. The open itself then decides, as in libhsakmt.
// Errors:
//   kInvalidArgument    the minor is below kFirstRenderMinor (not a render node).
//   kFailedPrecondition libdrm lists the minor at another PCI address, or the GPU's PCI address with
//                       another render minor. drm_render_minor and location_id come from the same
//                       kernel device, so one of the two views is stale (a GPU was hot-plugged between
//                       the reads, a minor reused); neither can be trusted to choose a node, and binding
//                       the GPU's VM to another device's file would last for the whole process. The GPU is
//                       refused; reopening once the system is settled finds it again.
absl::StatusOr<RenderNodeCheck> CheckRenderNode(const KfdRenderNode& gpu,
                                                const absl::StatusOr<std::vector<DrmDeviceInfo>>& drm_devices);

// One open render node file: the fd the thunk passes to AMDKFD_IOC_ACQUIRE_VM and mmap, and how to give
// it back (close(2), or dropping libdrm_amdgpu's device reference when that owns the fd). Move-only;
// the destructor gives the file back once.
class RenderNodeFile {
 public:
  // Adopts `fd`; `release` runs once, when this owner is destroyed or assigned over.
  RenderNodeFile(int fd, absl::AnyInvocable<void()> release) : fd_(fd), release_(std::move(release)) {}
  RenderNodeFile(RenderNodeFile&& other) noexcept;
  RenderNodeFile& operator=(RenderNodeFile&& other) noexcept;
  RenderNodeFile(const RenderNodeFile&) = delete;
  RenderNodeFile& operator=(const RenderNodeFile&) = delete;
  ~RenderNodeFile();

  int fd() const { return fd_; }

 private:
  void Reset();

  int fd_;
  absl::AnyInvocable<void()> release_;  // empty once given back or moved from
};

// The process's render node files, one per minor, shared by every KFD open (libhsakmt's
// drm_render_fds).
//
// KFD binds a GPU's VM to the DRM file AMDKFD_IOC_ACQUIRE_VM names and keeps that file until the process
// exits; ACQUIRE_VM with another file of the same node then fails with EBUSY. So every open of /dev/kfd
// in a process must pass the same file, and a file that has been bound must stay open after its last
// user closes, or a later open could never acquire the GPU again: Pin marks such a file. A file never
// bound is closed with its last user. Thread-safe; the opener runs under the table's lock, so two
// concurrent first users of a minor open it once.
class SharedRenderNodes {
 public:
  // Opens render node `render_minor`.
  using Opener = absl::AnyInvocable<absl::StatusOr<RenderNodeFile>(uint32_t render_minor)>;

  explicit SharedRenderNodes(Opener opener) : opener_(std::move(opener)) {}
  SharedRenderNodes(const SharedRenderNodes&) = delete;
  SharedRenderNodes& operator=(const SharedRenderNodes&) = delete;

  // Returns the fd of render node `render_minor`, opening it on first use, and takes one reference.
  // Errors: the opener's; a failed open is not remembered, so the next call tries again.
  absl::StatusOr<int> Acquire(uint32_t render_minor);

  // Drops one reference Acquire took on `fd`; the file is given back when none remain, unless pinned.
  // An fd this table did not hand out, or one with no reference left, is ignored (logged).
  void Release(int fd);

  // Keeps the file behind `fd` open for the rest of the process: KFD has bound a VM to it. An fd this
  // table did not hand out is ignored.
  void Pin(int fd);

  // The number of files open.
  size_t size() const;

 private:
  struct Entry {
    RenderNodeFile file;
    size_t references = 0;
    bool pinned = false;
  };
  // Returns the minor whose file is `fd`, if any.
  std::optional<uint32_t> MinorOf(int fd) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  Opener opener_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint32_t, Entry> files_ ABSL_GUARDED_BY(mu_);  // by render minor
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_DRM_RENDER_NODES_H_
