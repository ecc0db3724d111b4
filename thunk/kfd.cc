// Kfd, the process side: opening the KFD (openclose.c), the topology snapshot and the GPUs it names
// (topology.c), and the apertures set up at open (fmm.c hsakmt_fmm_init_process_apertures). Memory is in
// kfd_memory.cc, the event page in kfd_events.cc and doorbells in kfd_doorbells.cc.
#include <algorithm>
#include <cerrno>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/default_kfd_device.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/host_cpu.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"

namespace hipmem::thunk {
namespace {

// The handle aperture is one 2^47-byte window of the non-canonical hole, the first from 2^47 up that no GPU's LDS
// or scratch aperture overlaps (fmm.c init_mem_handle_aperture).
constexpr uint64_t kHandleApertureStep = uint64_t{1} << 47;
constexpr uint64_t kNonCanonicalEnd = uint64_t{0xffff8} << 44;  // 0xFFFF800000000000, where canonical resumes

std::unique_ptr<HandleAperture> MakeHandleAperture(std::span<const kfd_uapi::ProcessDeviceApertures> apertures,
                                                   uint64_t guard_pages) {
  for (uint64_t base = kHandleApertureStep; base < kNonCanonicalEnd - kHandleApertureStep;
       base += kHandleApertureStep) {
    const AddressRange window{DeviceAddress(base), Bytes(kHandleApertureStep)};
    const auto overlaps = [&](uint64_t lo, uint64_t hi) {
      return lo != 0 && hi >= lo && window.Overlaps(AddressRange{DeviceAddress(lo), Bytes(hi - lo + 1)});
    };
    if (std::none_of(apertures.begin(), apertures.end(), [&](const kfd_uapi::ProcessDeviceApertures& a) {
          return overlaps(a.lds_base, a.lds_limit) || overlaps(a.scratch_base, a.scratch_limit);
        })) {
      return std::make_unique<HandleAperture>(window.base, window.size, guard_pages);
    }
  }
  // libhsakmt leaves the aperture invalid then, so every NoAddress allocation fails; so does an empty one here.
  return std::make_unique<HandleAperture>(DeviceAddress(kHandleApertureStep), Bytes(0), guard_pages);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kfd>> Kfd::Open() {
  ASSIGN_OR_RETURN(std::unique_ptr<KfdDevice> device, OpenDefaultKfdDevice());
  return Open(std::move(device));
}

namespace {

// libhsakmt answers ERROR for a setup call of the open that the kernel refused, whatever the errno
// (version.c hsakmt_init_kfd_version, topology.c's render nodes, fmm.c's apertures and ACQUIRE_VM): an ENOMEM there
// is not NO_MEMORY.
absl::Status OpenSetupStatus(absl::Status status) {
  return status.ok() ? status : WithHsakmtStatus(std::move(status), HSAKMT_STATUS_ERROR);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kfd>> Kfd::Open(std::unique_ptr<KfdDevice> device) {
  kfd_uapi::GetVersionArgs version{};
  RETURN_IF_ERROR(OpenSetupStatus(Ioctl(*device, kfd_uapi::kGetVersion, version)));
  if (version.major_version != kfd_uapi::kIoctlMajorVersion) {
    return WithHsakmtStatus(absl::FailedPreconditionError(absl::StrCat("KFD ioctl version ", version.major_version, ".",
                                                                       version.minor_version, ": need major 1")),
                            HSAKMT_STATUS_DRIVER_MISMATCH);
  }
  ASSIGN_OR_RETURN(SystemTopology topology, ReadTopology(device->sysfs_topology_root()));
  AddHostCpuDetails(topology);  // the CPU nodes' caches and name, which libhsakmt reads from the host itself

  std::vector<Gpu> gpus;
  absl::Cleanup close_render_nodes = [&] {
    for (const Gpu& gpu : gpus) device->CloseRenderNode(gpu.render_fd);
  };
  std::vector<NodeId> skipped;
  for (const NodeProperties& node : topology.nodes) {
    if (!node.is_gpu()) continue;
    const auto minor = static_cast<uint32_t>(node.Get("drm_render_minor"));
    // Like libhsakmt (topology.c topology_sysfs_check_node_supported), a GPU whose render node is absent or not ours
    // (ENOENT, EPERM) is skipped; any other failure (ENOMEM, EMFILE) fails the open with ERROR.
    absl::StatusOr<int> fd = device->OpenRenderNode(minor);
    if (!fd.ok()) {
      const int err = ToErrno(fd.status());
      if (err != ENOENT && err != EPERM) return OpenSetupStatus(fd.status());
      HIPMEM_LOG(kWarning, "skipping node ", node.id.raw(), ": ", fd.status().message());
      skipped.push_back(node.id);
      continue;
    }
    gpus.push_back(Gpu{node.id, *node.gpu_id, *fd});
  }
  if (!skipped.empty()) {
    // libhsakmt's topology leaves a skipped GPU out altogether (its NumNodes counts supported nodes only), so no
    // client sees a GPU it could not use; the others are numbered again, and each GPU's node follows its gpu_id.
    topology = WithoutNodes(std::move(topology), skipped);
    for (Gpu& gpu : gpus) {
      for (const NodeProperties& node : topology.nodes) {
        if (node.gpu_id == gpu.gpu_id) gpu.node = node.id;
      }
    }
  }

  // GPUVM apertures: on GFX9+ every GPU's range is canonical; the SVM aperture is their intersection.
  DeviceAddress svm_base(kPageSize.raw());
  DeviceAddress svm_limit((1ull << 47) - 1);
  std::vector<kfd_uapi::ProcessDeviceApertures> apertures(gpus.size());
  if (!gpus.empty()) {
    kfd_uapi::GetProcessAperturesNewArgs args{};
    args.kfd_process_device_apertures_ptr = reinterpret_cast<uintptr_t>(apertures.data());
    args.num_of_nodes = static_cast<uint32_t>(apertures.size());
    RETURN_IF_ERROR(OpenSetupStatus(Ioctl(*device, kfd_uapi::kGetProcessAperturesNew, args)));
    apertures.resize(std::min<size_t>(args.num_of_nodes, apertures.size()));
    for (const kfd_uapi::ProcessDeviceApertures& a : apertures) {
      svm_base = std::max(svm_base, DeviceAddress(a.gpuvm_base));
      svm_limit = std::min(svm_limit, DeviceAddress(a.gpuvm_limit));
    }
  }
  for (const Gpu& gpu : gpus) {
    kfd_uapi::AcquireVmArgs args{static_cast<uint32_t>(gpu.render_fd), gpu.gpu_id.raw()};
    RETURN_IF_ERROR(OpenSetupStatus(
        Annotate(Ioctl(*device, kfd_uapi::kAcquireVm, args), absl::StrCat("gpu_id=", gpu.gpu_id.raw()))));
  }
  const Bytes max_align(kPageSize.raw() << EnvUint64("HSA_MAX_VA_ALIGN", 9));
  const uint64_t guard_pages = EnvUint64("HSA_SVM_GUARD_PAGES", 1);
  auto aperture = std::make_unique<SvmAperture>(svm_base, svm_limit, max_align, guard_pages);
  const bool disable_cache = EnvUint64("HSA_DISABLE_CACHE", 0) != 0;
  std::move(close_render_nodes).Cancel();
  const KfdVersion v{version.major_version, version.minor_version};
  Trace(Layer::kThunk, "hsaKmtOpenKFD: backend=", device->backend_name(), ", KFD ", v.major, ".", v.minor, ", ",
        topology.nodes.size(), " nodes, ", gpus.size(), " GPUs");
  std::unique_ptr<Kfd> kfd(new Kfd(std::move(device), v, std::move(topology), std::move(gpus), std::move(aperture),
                                   MakeHandleAperture(apertures, guard_pages), disable_cache, apertures));
  kfd->MapMmioPages();
  return kfd;
}

Kfd::Kfd(std::unique_ptr<KfdDevice> device, KfdVersion version, SystemTopology topology, std::vector<Gpu> gpus,
         std::unique_ptr<SvmAperture> aperture, std::unique_ptr<HandleAperture> handle_aperture, bool disable_cache,
         std::vector<kfd_uapi::ProcessDeviceApertures> apertures)
    : device_(std::move(device)),
      version_(version),
      topology_(std::move(topology)),
      gpus_(std::move(gpus)),
      apertures_(std::move(apertures)),
      aperture_(std::move(aperture)),
      handle_aperture_(std::move(handle_aperture)),
      disable_cache_(disable_cache) {}

std::optional<kfd_uapi::ProcessDeviceApertures> Kfd::ProcessApertures(GpuId gpu) const {
  for (const kfd_uapi::ProcessDeviceApertures& a : apertures_) {
    if (a.gpu_id == gpu.raw()) return a;
  }
  return std::nullopt;
}

DeviceAddress Kfd::svm_base() const { return aperture_->base(); }
DeviceAddress Kfd::svm_limit() const { return aperture_->limit(); }

Kfd::~Kfd() {
  {
    ScopedLock lock(&mu_);
    for (auto& [start, entry] : allocations_) {
      Allocation& allocation = entry.value;
      // The event page is the kernel's (FREE would answer -EPERM); closing the device releases it.
      if (allocation.kernel_owned && allocation.bo.has_value()) (void)std::move(*allocation.bo).Release();
    }
    // Each allocation's owners free its buffers, then its VA.
    allocations_.clear();
    scratch_starts_.clear();
    user_ranges_.clear();
  }
  for (const Gpu& gpu : gpus_) device_->CloseRenderNode(gpu.render_fd);
}

absl::StatusOr<const NodeProperties*> Kfd::Node(NodeId node) const {
  if (node.raw() >= topology_.nodes.size()) {
    return InvalidNodeUnitError(absl::StrCat("node ", node.raw(), ": only ", topology_.nodes.size(), " nodes"));
  }
  return &topology_.nodes[node.raw()];
}

bool Kfd::svm_api_supported() const {
  constexpr uint64_t kCapSvmApiSupported = uint64_t{1} << 27;
  bool any_gpu = false;
  for (const NodeProperties& node : topology_.nodes) {
    if (!node.is_gpu()) continue;
    any_gpu = true;
    if ((node.Get("capability") & kCapSvmApiSupported) == 0) return false;
  }
  return any_gpu;
}

const Kfd::Gpu* Kfd::GpuOfNode(NodeId node) const {
  for (const Gpu& gpu : gpus_) {
    if (gpu.node == node) return &gpu;
  }
  return nullptr;
}

// libhsakmt's hsakmt_validate_nodeid_array: an unknown node is INVALID_NODE_UNIT; a node without a GPU has no
// gpu_id to hand the kernel.
absl::StatusOr<Kfd::GpuIdList> Kfd::GpuIdsOfNodes(std::span<const NodeId> nodes, absl::string_view context) const {
  GpuIdList gpu_ids;
  for (NodeId node : nodes) {
    RETURN_IF_ERROR(Annotate(Node(node).status(), context));
    const Gpu* gpu = GpuOfNode(node);
    if (gpu == nullptr) {
      return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context, ": node ", node.raw(), " has no GPU")),
                              HSAKMT_STATUS_INVALID_PARAMETER);
    }
    gpu_ids.push_back(gpu->gpu_id.raw());
  }
  return gpu_ids;
}

std::vector<NodeId> Kfd::NodesOfGpus(const std::vector<GpuId>& gpu_ids) const {
  std::vector<NodeId> nodes;
  for (GpuId id : gpu_ids) {
    for (const Gpu& gpu : gpus_) {
      if (gpu.gpu_id == id) nodes.push_back(gpu.node);
    }
  }
  return nodes;
}

}  // namespace hipmem::thunk
