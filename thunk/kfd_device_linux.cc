// The Linux /dev/kfd backend: the one file in the stack that calls ioctl(2)/mmap(2) on the kernel
// driver and reads errno.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd_device.h"

namespace hipmem::thunk {
namespace {

constexpr char kKfdPath[] = "/dev/kfd";
constexpr char kSysfsTopology[] = "/sys/devices/virtual/kfd/kfd/topology";

class LinuxKfdDevice final : public KfdDevice {
 public:
  explicit LinuxKfdDevice(int fd) : fd_(fd), sysfs_root_(kSysfsTopology) {}
  ~LinuxKfdDevice() override { close(fd_); }

  absl::string_view backend_name() const override { return "linux"; }
  const std::string& sysfs_topology_root() const override { return sysfs_root_; }

  int Ioctl(unsigned long request, void* arg) override {
    int ret;
    // Like libhsakmt's kmtIoctl: a signal may interrupt the ioctl; the kernel expects a retry.
    do {
      ret = ioctl(fd_, request, arg);
    } while (ret == -1 && (errno == EINTR || errno == EAGAIN));
    return ret == -1 ? errno : 0;
  }

  absl::StatusOr<int> OpenRenderNode(uint32_t drm_render_minor) override {
    const std::string path = absl::StrCat("/dev/dri/renderD", drm_render_minor);
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return FromErrno(errno, absl::StrCat("open(", path, ")"));
    return fd;
  }

  void CloseRenderNode(int render_fd) override { close(render_fd); }

  absl::Status MapBoForCpu(int render_fd, void* addr, Bytes size, int prot, uint64_t mmap_offset) override {
    void* p = mmap(addr, size.raw(), prot, MAP_SHARED | MAP_FIXED, render_fd, static_cast<off_t>(mmap_offset));
    if (p == MAP_FAILED) return FromErrno(errno, absl::StrCat("mmap(render fd, offset=0x", absl::Hex(mmap_offset), ")"));
    return absl::OkStatus();
  }
  absl::Status MapDoorbellsForCpu(void* addr, Bytes size, uint64_t mmap_offset) override {
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
};

}  // namespace

bool LinuxKfdPresent() { return access(kKfdPath, F_OK) == 0; }

absl::StatusOr<std::unique_ptr<KfdDevice>> OpenLinuxKfdDevice() {
  const int fd = open(kKfdPath, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return WithHsakmtStatus(FromErrno(errno, "open(/dev/kfd)"), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  }
  return std::make_unique<LinuxKfdDevice>(fd);
}

}  // namespace hipmem::thunk
