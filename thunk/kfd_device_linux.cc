// The Linux /dev/kfd backend: the one file in the stack that calls ioctl(2)/mmap(2) on the kernel
// driver, opens DRM render nodes through libdrm, and reads errno.
#include "thunk/kfd_device_linux.h"

#include <amdgpu.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd_device.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

constexpr char kKfdPath[] = "/dev/kfd";
constexpr char kSysfsTopology[] = "/sys/devices/virtual/kfd/kfd/topology";

// Opens render node `minor` the way libhsakmt's hsakmt_open_drm_render_device does.
absl::StatusOr<RenderNodeFile> OpenRenderNodeFile(uint32_t minor) {
  const std::string path = absl::StrCat("/dev/dri/renderD", minor);
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return FromErrno(errno, absl::StrCat("open(", path, ")"));
  RenderNodeFile opened(fd, [fd] { close(fd); });

  // libdrm_amdgpu keeps one device per GPU per process, holding a dup of the first file it was given.
  // Using that file makes KFD's VM the one libdrm_amdgpu users in this process (Mesa, interop) see. A
  // node libdrm_amdgpu refuses (not amdgpu) is used as opened, as libhsakmt does.
  amdgpu_device_handle amdgpu = nullptr;
  uint32_t drm_major = 0;
  uint32_t drm_minor = 0;
  if (amdgpu_device_initialize(fd, &drm_major, &drm_minor, &amdgpu) != 0) return opened;
  const int shared_fd = amdgpu_device_get_fd(amdgpu);
  if (shared_fd < 0) {
    amdgpu_device_deinitialize(amdgpu);
    return opened;
  }
  // `opened` closes our own descriptor on return; libdrm's stays until its device is deinitialized.
  return RenderNodeFile(shared_fd, [amdgpu] { amdgpu_device_deinitialize(amdgpu); });
}

// The process's render node files. Never destroyed: a file KFD bound a VM to must outlive every
// KfdDevice, and closing at exit would race other static destructors for nothing.
SharedRenderNodes& RenderNodes() {
  static SharedRenderNodes* const nodes = new SharedRenderNodes(&OpenRenderNodeFile);
  return *nodes;
}

// Returns libdrm's view of `device`.
DrmDeviceInfo Describe(const drmDevice& device) {
  DrmDeviceInfo info;
  if ((device.available_nodes & (1 << DRM_NODE_RENDER)) != 0 && device.nodes[DRM_NODE_RENDER] != nullptr) {
    info.render_minor = RenderMinorFromPath(device.nodes[DRM_NODE_RENDER]);
  }
  if (device.bustype == DRM_BUS_PCI && device.businfo.pci != nullptr) {
    const drmPciBusInfo& pci = *device.businfo.pci;
    info.pci = PciAddress{.domain = pci.domain, .bus = pci.bus, .device = pci.dev, .function = pci.func};
  }
  return info;
}

class LinuxKfdDevice final : public KfdDevice {
 public:
  // `topology` and `drm_devices` are what OpenRenderNode checks render minors against, read at open.
  LinuxKfdDevice(int fd, std::optional<SystemTopology> topology,
                 absl::StatusOr<std::vector<DrmDeviceInfo>> drm_devices)
      : fd_(fd), sysfs_root_(kSysfsTopology), topology_(std::move(topology)), drm_devices_(std::move(drm_devices)) {}
  ~LinuxKfdDevice() override { close(fd_); }

  absl::string_view backend_name() const override { return "linux"; }
  const std::string& sysfs_topology_root() const override { return sysfs_root_; }

  int Ioctl(unsigned long request, void* arg) override {
    int ret;
    // Like libhsakmt's kmtIoctl: a signal may interrupt the ioctl; the kernel expects a retry.
    do {
      ret = ioctl(fd_, request, arg);
    } while (ret == -1 && (errno == EINTR || errno == EAGAIN));
    if (ret == -1) return errno;
    // KFD now holds the render node file for the process's lifetime and accepts no other file of that
    // node; keep ours open so a later open of /dev/kfd passes the same one.
    if (request == kfd_uapi::kAcquireVm.request()) {
      RenderNodes().Pin(static_cast<int>(static_cast<const kfd_uapi::AcquireVmArgs*>(arg)->drm_fd));
    }
    return 0;
  }

  absl::StatusOr<int> OpenRenderNode(uint32_t drm_render_minor) override {
    const KfdRenderNode gpu =
        topology_.has_value() ? KfdRenderNodeFor(*topology_, drm_render_minor) : KfdRenderNode{.render_minor = drm_render_minor};
    return AcquireRenderNode(gpu, drm_devices_);
  }

  void CloseRenderNode(int render_fd) override { ReleaseRenderNode(render_fd); }

  absl::Status MapBoForCpu(int render_fd, void* addr, Bytes size, int prot, uint64_t mmap_offset) override {
    void* p = mmap(addr, size.raw(), prot, MAP_SHARED | MAP_FIXED, render_fd, static_cast<off_t>(mmap_offset));
    if (p == MAP_FAILED) return FromErrno(errno, absl::StrCat("mmap(render fd, offset=0x", absl::Hex(mmap_offset), ")"));
    return absl::OkStatus();
  }
  absl::Status MapKfdPagesForCpu(void* addr, Bytes size, uint64_t mmap_offset) override {
    void* p = mmap(addr, size.raw(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd_, static_cast<off_t>(mmap_offset));
    if (p == MAP_FAILED) return FromErrno(errno, absl::StrCat("mmap(/dev/kfd, offset=0x", absl::Hex(mmap_offset), ")"));
    return absl::OkStatus();
  }

  // The doorbell is MMIO: the store itself notifies the engine.
  void RingDoorbell(uint64_t* doorbell, uint64_t value) override {
    std::atomic_ref<uint64_t>(*doorbell).store(value, std::memory_order_release);
  }


 private:
  const int fd_;
  const std::string sysfs_root_;
  const std::optional<SystemTopology> topology_;  // nullopt when it could not be read
  const absl::StatusOr<std::vector<DrmDeviceInfo>> drm_devices_;
};

}  // namespace

absl::StatusOr<std::vector<DrmDeviceInfo>> ListDrmDevices() {
  // Flags 0: no PCI revision, which libdrm would read from config space and so wake sleeping GPUs.
  const int count = drmGetDevices2(0, nullptr, 0);
  if (count < 0) return FromErrno(-count, "drmGetDevices2");
  std::vector<drmDevicePtr> devices(static_cast<size_t>(count));
  // Devices may come or go between the two calls; libdrm fills at most `count` and says how many.
  const int filled = count == 0 ? 0 : drmGetDevices2(0, devices.data(), count);
  if (filled < 0) return FromErrno(-filled, "drmGetDevices2");
  absl::Cleanup free_devices = [&] { drmFreeDevices(devices.data(), filled); };
  std::vector<DrmDeviceInfo> infos;
  infos.reserve(static_cast<size_t>(filled));
  for (int i = 0; i < filled; ++i) infos.push_back(Describe(*devices[static_cast<size_t>(i)]));
  return infos;
}

absl::StatusOr<int> AcquireRenderNode(const KfdRenderNode& gpu,
                                      const absl::StatusOr<std::vector<DrmDeviceInfo>>& drm_devices) {
  ASSIGN_OR_RETURN(const RenderNodeCheck check, CheckRenderNode(gpu, drm_devices));
  if (TraceEnabled()) {
    Trace(Layer::kThunk, "renderD", gpu.render_minor,
          check == RenderNodeCheck::kVerified ? ": libdrm agrees" : ": unverified", " (KFD GPU at ",
          gpu.pci.has_value() ? gpu.pci->ToString() : "unknown PCI address",
          drm_devices.ok() ? "" : absl::StrCat("; libdrm: ", drm_devices.status().message()), ")");
  }
  return RenderNodes().Acquire(gpu.render_minor);
}

void ReleaseRenderNode(int fd) { RenderNodes().Release(fd); }

bool LinuxKfdPresent() { return access(kKfdPath, F_OK) == 0; }

absl::StatusOr<std::unique_ptr<KfdDevice>> OpenLinuxKfdDevice() {
  const int fd = open(kKfdPath, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return WithHsakmtStatus(FromErrno(errno, "open(/dev/kfd)"), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  }
  // Read once here rather than per render node: a large GPU node has hundreds of cache files. A topology
  // that cannot be read leaves render nodes unverified; the thunk's own read reports the error.
  absl::StatusOr<SystemTopology> topology = ReadTopology(kSysfsTopology);
  std::optional<SystemTopology> known;
  if (topology.ok()) known = *std::move(topology);
  return std::make_unique<LinuxKfdDevice>(fd, std::move(known), ListDrmDevices());
}

}  // namespace hipmem::thunk
