#include "thunk/drm_render_nodes.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "base/log.h"
#include "base/scoped_lock.h"

namespace hipmem::thunk {
namespace {

std::string RenderNodeName(uint32_t minor) { return absl::StrCat("renderD", minor); }

}  // namespace

std::string PciAddress::ToString() const {
  return absl::StrFormat("%04x:%02x:%02x.%x", domain, bus, device, function);
}

PciAddress PciAddressFromKfd(uint64_t domain, uint64_t location_id) {
  return PciAddress{
      .domain = static_cast<uint32_t>(domain),
      .bus = static_cast<uint8_t>((location_id >> 8) & 0xff),
      .device = static_cast<uint8_t>((location_id >> 3) & 0x1f),
      .function = static_cast<uint8_t>(location_id & 0x7),
  };
}

bool SamePciFunction(const PciAddress& kfd, const PciAddress& drm) {
  return (kfd.domain & 0xffff) == (drm.domain & 0xffff) && kfd.bus == drm.bus && kfd.device == drm.device &&
         kfd.function == drm.function;
}

std::optional<uint32_t> RenderMinorFromPath(absl::string_view path) {
  constexpr absl::string_view kPrefix = "renderD";
  const size_t slash = path.rfind('/');
  absl::string_view name = slash == absl::string_view::npos ? path : path.substr(slash + 1);
  if (!absl::ConsumePrefix(&name, kPrefix) || name.empty()) return std::nullopt;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;  // SimpleAtoi would accept a sign or spaces
  }
  uint32_t minor = 0;
  if (!absl::SimpleAtoi(name, &minor)) return std::nullopt;
  return minor;
}

KfdRenderNode KfdRenderNodeFor(const SystemTopology& topology, uint32_t render_minor) {
  for (const NodeProperties& node : topology.nodes) {
    if (!node.is_gpu() || node.Get("drm_render_minor") != render_minor) continue;
    const auto domain = node.properties.find("domain");
    const auto location = node.properties.find("location_id");
    // Older kernels report location_id without `domain`; without both there is no full address.
    if (domain == node.properties.end() || location == node.properties.end()) return {render_minor, std::nullopt};
    return {render_minor, PciAddressFromKfd(domain->second, location->second)};
  }
  return {render_minor, std::nullopt};
}

absl::StatusOr<RenderNodeCheck> CheckRenderNode(const KfdRenderNode& gpu,
                                                const absl::StatusOr<std::vector<DrmDeviceInfo>>& drm_devices) {
  const std::string node = RenderNodeName(gpu.render_minor);
  if (gpu.render_minor < kFirstRenderMinor) {
    return absl::InvalidArgumentError(
        absl::StrCat("CheckRenderNode(", node, "): minor ", gpu.render_minor, " is not a render node (below ",
                     kFirstRenderMinor, ")"));
  }
  if (!drm_devices.ok() || !gpu.pci.has_value()) return RenderNodeCheck::kUnverified;
  const PciAddress& want = *gpu.pci;
  const auto context = [&] { return absl::StrCat("CheckRenderNode(", node, ", KFD GPU at ", want.ToString(), "): "); };

  for (const DrmDeviceInfo& device : *drm_devices) {
    if (device.render_minor != gpu.render_minor) continue;
    if (!device.pci.has_value()) return RenderNodeCheck::kUnverified;
    if (SamePciFunction(want, *device.pci)) return RenderNodeCheck::kVerified;
    return absl::FailedPreconditionError(absl::StrCat(context(), "libdrm reports ", node, " at ",
                                                      device.pci->ToString(),
                                                      "; the KFD topology and DRM disagree"));
  }
  for (const DrmDeviceInfo& device : *drm_devices) {
    if (!device.pci.has_value() || !device.render_minor.has_value() || !SamePciFunction(want, *device.pci)) continue;
    return absl::FailedPreconditionError(absl::StrCat(context(), "libdrm reports that device's render node as ",
                                                      RenderNodeName(*device.render_minor),
                                                      "; the KFD topology and DRM disagree"));
  }
  return RenderNodeCheck::kUnverified;
}

RenderNodeFile::RenderNodeFile(RenderNodeFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), release_(std::move(other.release_)) {
  other.release_ = nullptr;
}

RenderNodeFile& RenderNodeFile::operator=(RenderNodeFile&& other) noexcept {
  if (this != &other) {
    Reset();
    fd_ = std::exchange(other.fd_, -1);
    release_ = std::move(other.release_);
    other.release_ = nullptr;
  }
  return *this;
}

RenderNodeFile::~RenderNodeFile() { Reset(); }

void RenderNodeFile::Reset() {
  if (release_) std::exchange(release_, nullptr)();
  fd_ = -1;
}

absl::StatusOr<int> SharedRenderNodes::Acquire(uint32_t render_minor) {
  ScopedLock lock(&mu_);
  auto it = files_.find(render_minor);
  if (it == files_.end()) {
    absl::StatusOr<RenderNodeFile> file = opener_(render_minor);
    if (!file.ok()) return file.status();
    it = files_.emplace(render_minor, Entry{std::move(*file)}).first;
  }
  ++it->second.references;
  return it->second.file.fd();
}

void SharedRenderNodes::Release(int fd) {
  ScopedLock lock(&mu_);
  const std::optional<uint32_t> minor = MinorOf(fd);
  if (!minor.has_value()) {
    HIPMEM_LOG(kWarning, "releasing render node fd ", fd, ": not opened by the thunk");
    return;
  }
  Entry& entry = files_.find(*minor)->second;
  if (entry.references == 0) {
    HIPMEM_LOG(kWarning, "releasing ", RenderNodeName(*minor), " (fd ", fd, "): no reference left");
    return;
  }
  if (--entry.references == 0 && !entry.pinned) files_.erase(*minor);
}

void SharedRenderNodes::Pin(int fd) {
  ScopedLock lock(&mu_);
  if (const std::optional<uint32_t> minor = MinorOf(fd)) files_.find(*minor)->second.pinned = true;
}

size_t SharedRenderNodes::size() const {
  ScopedLock lock(&mu_);
  return files_.size();
}

std::optional<uint32_t> SharedRenderNodes::MinorOf(int fd) const {
  // A handful of GPUs per machine: a scan is cheaper than keeping a second index in step.
  for (const auto& [minor, entry] : files_) {
    if (entry.file.fd() == fd) return minor;
  }
  return std::nullopt;
}

}  // namespace hipmem::thunk
