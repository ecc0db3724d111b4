// hsaKmt* C entry points: thin shells over the shared thunk::Kfd (shared_kfd.h). They convert
// arguments and structs, call the C++ API, and return ToHsakmtStatus(status).
#include <cstring>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "hsakmt/hsakmt.h"
#include "thunk/amdgpu_ids.h"
#include "thunk/hsakmt_node_array.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"

namespace hipmem::thunk {
namespace {

// libhsakmt's SGPR_SIZE_PER_CU, and hsakmt_get_vgpr_size_per_cu by gfx version (major << 16 | minor << 8 |
// stepping): the register file a CU has, which the kernel does not report.
constexpr HSAuint32 kSgprSizePerCu = 0x4000;
HSAuint32 VgprSizePerCu(uint32_t gfx_full) {
  if (gfx_full == 0x090500 || (gfx_full & ~0xffu) == 0x090400 || gfx_full == 0x09000a || gfx_full == 0x090008) {
    return 0x80000;  // gfx950, gfx94x, gfx90a, gfx908
  }
  if (gfx_full == 0x0b0000 || gfx_full == 0x0b0001 || gfx_full == 0x0c0000 || gfx_full == 0x0c0001) {
    return 0x60000;  // gfx1100, gfx1101, gfx1200, gfx1201
  }
  return 0x40000;
}

// Fills libhsakmt's HsaNodeProperties from the sysfs keys it is read from (topology.c
// topology_sysfs_get_node_props): every key the kernel writes reaches a field.
void FillNodeProperties(const NodeProperties& n, HsaNodeProperties& out) {
  std::memset(&out, 0, sizeof(out));
  auto u32 = [&](const char* key) { return static_cast<HSAuint32>(n.Get(key)); };
  out.NumCPUCores = u32("cpu_cores_count");
  out.NumFComputeCores = u32("simd_count");
  out.NumMemoryBanks = static_cast<HSAuint32>(n.mem_banks.size());
  // What hsaKmtGetNodeCacheProperties/IoLinkProperties can return: the entries the snapshot read.
  out.NumCaches = static_cast<HSAuint32>(n.caches.size());
  out.NumIOLinks = static_cast<HSAuint32>(n.io_links.size());
  out.CComputeIdLo = u32("cpu_core_id_base");
  out.FComputeIdLo = u32("simd_id_base");
  // As written: this thunk reports the kernel's bits unchanged (libhsakmt clears SVMAPISupported when a GPU lacks
  // it; the kernel's bit already says so).
  out.Capability.Value = u32("capability");
  out.DebugProperties.Value = n.Get("debug_prop");
  out.MaxWavesPerSIMD = u32("max_waves_per_simd");
  out.LDSSizeInKB = u32("lds_size_in_kb");
  out.GDSSizeInKB = u32("gds_size_in_kb");
  out.WaveFrontSize = u32("wave_front_size");
  out.NumShaderBanks = u32("simd_arrays_per_engine") == 0 ? 0 : u32("array_count") / u32("simd_arrays_per_engine");
  out.NumArrays = u32("simd_arrays_per_engine");
  out.NumCUPerArray = u32("cu_per_simd_array");
  out.NumSIMDPerCU = u32("simd_per_cu");
  out.MaxSlotsScratchCU = u32("max_slots_scratch_cu");
  // fw_version is the CP microcode version: EngineId's low 10 bits (uCode); gfx_target_version the rest.
  out.EngineId.Value = u32("fw_version") & 0x3ff;
  out.uCodeEngineVersions.Value = u32("sdma_fw_version") & 0x3ff;
  if (out.NumFComputeCores != 0) {
    out.EngineId.ui32.Major = n.gfx_major() & 0x3f;
    out.EngineId.ui32.Minor = n.gfx_minor() & 0xff;
    out.EngineId.ui32.Stepping = n.gfx_stepping() & 0xff;
    out.SGPRSizePerCU = kSgprSizePerCu;
    out.VGPRSizePerCU = VgprSizePerCu(n.gfx_major() << 16 | n.gfx_minor() << 8 | n.gfx_stepping());
  }
  out.OverrideEngineId = out.EngineId;
  out.VendorId = static_cast<HSAuint16>(n.Get("vendor_id"));
  out.DeviceId = static_cast<HSAuint16>(n.Get("device_id"));
  out.LocationId = u32("location_id");
  out.Domain = u32("domain");
  out.FamilyID = u32("family_id");
  out.LocalMemSize = n.Get("local_mem_size");
  for (const MemoryBank& bank : n.mem_banks) {
    // Current kernels report local_mem_size 0; libhsakmt sums the frame-buffer banks instead.
    if (bank.heap_type == HeapType::kFrameBufferPublic || bank.heap_type == HeapType::kFrameBufferPrivate) {
      if (n.Get("local_mem_size") == 0) out.LocalMemSize += bank.size.raw();
    }
  }
  out.MaxEngineClockMhzFCompute = u32("max_engine_clk_fcompute");
  out.MaxEngineClockMhzCCompute = u32("max_engine_clk_ccompute");
  out.DrmRenderMinor = static_cast<HSAint32>(n.Get("drm_render_minor"));
  // MarketingName is libdrm's amdgpu.ids name for the device and revision when there is one, the node name
  // otherwise.
  std::optional<std::string> marketing;
  if (n.pci_revision.has_value()) marketing = hipmem::thunk::MarketingName(static_cast<uint32_t>(n.Get("device_id")), *n.pci_revision);
  const std::string& product = marketing.has_value() ? *marketing : n.name;
  for (size_t i = 0; i < n.name.size() && i + 1 < HSA_PUBLIC_NAME_SIZE; ++i) {
    out.AMDName[i] = static_cast<HSAuint8>(n.name[i]);
  }
  for (size_t i = 0; i < product.size() && i + 1 < HSA_PUBLIC_NAME_SIZE; ++i) {
    out.MarketingName[i] = static_cast<HSAuint16>(product[i]);
  }
  out.HiveID = n.Get("hive_id");
  out.UniqueID = n.Get("unique_id");
  out.NumSdmaEngines = u32("num_sdma_engines");
  out.NumSdmaXgmiEngines = u32("num_sdma_xgmi_engines");
  out.NumSdmaQueuesPerEngine = static_cast<HSAuint8>(n.Get("num_sdma_queues_per_engine"));
  out.NumCpQueues = static_cast<HSAuint8>(n.Get("num_cp_queues"));
  out.NumGws = static_cast<HSAuint8>(n.Get("num_gws"));
  // Older kernels do not report num_xcc; libhsakmt then assumes one on a GPU node (a CPU node keeps 0).
  out.NumXcc = u32("num_xcc") == 0 && out.NumFComputeCores != 0 ? 1 : u32("num_xcc");
  out.KFDGpuID = n.gpu_id.has_value() ? n.gpu_id->raw() : 0;
}

HSAKMT_STATUS Done(const absl::Status& status) { return ToHsakmtStatus(status); }

// Returns a pointer to a copy of `nodes` that lives until the process exits, or null for none: HsaPointerInfo
// hands out node arrays the caller does not free. Equal lists share one copy, so the storage is bounded by the
// distinct node lists ever reported, a handful on any machine.
const HSAuint32* InternNodeList(const std::vector<NodeId>& nodes) {
  if (nodes.empty()) return nullptr;
  std::vector<HSAuint32> raw;
  for (NodeId node : nodes) raw.push_back(node.raw());
  static absl::Mutex mu(absl::kConstInit);
  static auto* lists = new std::set<std::vector<HSAuint32>>();  // never destroyed: pointers into it escape
  ScopedLock lock(&mu);
  return lists->insert(std::move(raw)).first->data();
}

// Fills libhsakmt's HsaPointerInfo from the C++ PointerInfo.
void FillPointerInfo(const PointerInfo& in, HsaPointerInfo& out) {
  std::memset(&out, 0, sizeof(out));
  out.Type = static_cast<HSA_POINTER_TYPE>(in.type);
  out.Node = in.node.raw();
  out.MemFlags.Value = ToRaw(in.flags);
  out.CPUAddress = in.cpu_address.ToPointer();
  out.GPUAddress = in.gpu_address.raw();
  out.SizeInBytes = in.size.raw();
  out.NRegisteredNodes = static_cast<HSAuint32>(in.registered_nodes.size());
  out.NMappedNodes = static_cast<HSAuint32>(in.mapped_nodes.size());
  out.RegisteredNodes = InternNodeList(in.registered_nodes);
  out.MappedNodes = InternNodeList(in.mapped_nodes);
  out.UserData = in.user_data;
}

// The banks libhsakmt reports for a GPU node beyond the kernel's (topology.c hsaKmtGetNodeMemoryProperties), in its
// order: the LDS (LDSSizeInKB at the LDS aperture), the scratch aperture and the SVM aperture, each only where its
// aperture is valid, then the MMIO_REMAP page where Kfd mapped one (its HDP flush registers).
std::vector<HsaMemoryProperties> ApertureBanks(const Kfd& kfd, const NodeProperties& node) {
  std::vector<HsaMemoryProperties> banks;
  if (!node.gpu_id.has_value()) return banks;
  const std::optional<kfd_uapi::ProcessDeviceApertures> a = kfd.ProcessApertures(*node.gpu_id);
  if (!a.has_value()) return banks;
  const auto add = [&](HSA_HEAPTYPE type, uint64_t base, uint64_t limit, uint64_t size) {
    if (base == 0 || limit < base) return;
    HsaMemoryProperties bank;
    std::memset(&bank, 0, sizeof(bank));
    bank.HeapType = type;
    bank.SizeInBytes = size;
    bank.VirtualBaseAddress = base;
    banks.push_back(bank);
  };
  add(HSA_HEAPTYPE_GPU_LDS, a->lds_base, a->lds_limit, node.Get("lds_size_in_kb") * 1024);
  add(HSA_HEAPTYPE_GPU_SCRATCH, a->scratch_base, a->scratch_limit, a->scratch_limit - a->scratch_base + 1);
  const uint64_t svm_base = kfd.svm_base().raw();
  const uint64_t svm_limit = kfd.svm_limit().raw();
  add(HSA_HEAPTYPE_DEVICE_SVM, svm_base, svm_limit, svm_limit - svm_base + 1);
  if (const std::optional<DeviceAddress> mmio = kfd.MmioPage(node.id); mmio.has_value()) {
    add(HSA_HEAPTYPE_MMIO_REMAP, mmio->raw(), mmio->raw() + kPageSize.raw() - 1, kPageSize.raw());
  }
  return banks;
}

// hsaKmtRegisterMemory*'s caller deregisters by pointer (hsaKmtDeregisterMemory): the registration is handed out,
// not owned here.
absl::Status HandOut(absl::StatusOr<KfdRegistration> registration) {
  if (!registration.ok()) return registration.status();
  (void)std::move(*registration).Release();
  return absl::OkStatus();
}

}  // namespace
}  // namespace hipmem::thunk

using hipmem::Bytes;
using hipmem::DeviceAddress;
using hipmem::thunk::Done;
using hipmem::thunk::HandOut;
using hipmem::thunk::Kfd;
using hipmem::thunk::NodeId;

#define HSAKMT_KFD_OR_RETURN(kfd)                                  \
  absl::StatusOr<Kfd*> kfd##_or = hipmem::thunk::SharedKfd();      \
  if (!kfd##_or.ok()) return Done(kfd##_or.status());              \
  Kfd& kfd = **kfd##_or

#define HSAKMT_NONNULL_OR_RETURN(p) \
  if ((p) == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void) { return Done(hipmem::thunk::OpenSharedKfd()); }

HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void) { return Done(hipmem::thunk::CloseSharedKfd()); }

HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo* VersionInfo) {
  // The version cached at open (openclose.c's kfd_version_info): no lock and no status on the way.
  const std::optional<hipmem::thunk::KfdVersion> version = hipmem::thunk::SharedKfdVersion();
  if (!version.has_value()) return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
  HSAKMT_NONNULL_OR_RETURN(VersionInfo);
  VersionInfo->KernelInterfaceMajorVersion = version->major;
  VersionInfo->KernelInterfaceMinorVersion = version->minor;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemProperties(HsaSystemProperties* SystemProperties) {
  HSAKMT_KFD_OR_RETURN(kfd);
  HSAKMT_NONNULL_OR_RETURN(SystemProperties);
  const hipmem::thunk::SystemTopology& t = kfd.topology();
  SystemProperties->NumNodes = static_cast<HSAuint32>(t.nodes.size());
  SystemProperties->PlatformOem = static_cast<HSAuint32>(t.platform_oem);
  SystemProperties->PlatformId = static_cast<HSAuint32>(t.platform_id);
  SystemProperties->PlatformRev = static_cast<HSAuint32>(t.platform_rev);
  return HSAKMT_STATUS_SUCCESS;
}

// The snapshot lives as long as the KFD is open; there is nothing to release early.
// As upstream (topology.c), no open check: it only drops the topology snapshot, so it answers SUCCESS even
// without an open KFD, e.g. in a forked child before its own hsaKmtOpenKFD.
HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemProperties(void) { return HSAKMT_STATUS_SUCCESS; }

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeProperties(HSAuint32 NodeId, HsaNodeProperties* NodeProperties) {
  HSAKMT_KFD_OR_RETURN(kfd);
  HSAKMT_NONNULL_OR_RETURN(NodeProperties);
  absl::StatusOr<const hipmem::thunk::NodeProperties*> node = kfd.Node(::NodeId(NodeId));
  if (!node.ok()) return Done(node.status());
  hipmem::thunk::FillNodeProperties(**node, *NodeProperties);
  NodeProperties->NumMemoryBanks += static_cast<HSAuint32>(hipmem::thunk::ApertureBanks(kfd, **node).size());
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryProperties(HSAuint32 NodeId, HSAuint32 NumBanks,
                                                      HsaMemoryProperties* MemoryProperties) {
  HSAKMT_KFD_OR_RETURN(kfd);
  HSAKMT_NONNULL_OR_RETURN(MemoryProperties);
  absl::StatusOr<const hipmem::thunk::NodeProperties*> node = kfd.Node(::NodeId(NodeId));
  if (!node.ok()) return Done(node.status());
  const auto& banks = (*node)->mem_banks;
  HSAuint32 i = 0;
  for (; i < NumBanks && i < banks.size(); ++i) {
    HsaMemoryProperties& out = MemoryProperties[i];
    std::memset(&out, 0, sizeof(out));
    out.HeapType = static_cast<HSA_HEAPTYPE>(banks[i].heap_type);
    out.SizeInBytes = banks[i].size.raw();
    out.Flags.MemoryProperty = banks[i].flags;
    out.Width = banks[i].width;
    out.MemoryClockMax = banks[i].mem_clk_max;
  }
  for (const HsaMemoryProperties& bank : hipmem::thunk::ApertureBanks(kfd, **node)) {
    if (i >= NumBanks) break;
    MemoryProperties[i++] = bank;
  }
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemoryAlign(HSAuint32 PreferredNode, HSAuint64 SizeInBytes, HSAuint64 Alignment,
                                               HsaMemFlags MemFlags, void** MemoryAddress) {
  HSAKMT_KFD_OR_RETURN(kfd);
  HSAKMT_NONNULL_OR_RETURN(MemoryAddress);
  // FixedAddress makes *MemoryAddress an input; otherwise it is output only.
  std::optional<DeviceAddress> fixed;
  if (MemFlags.ui32.FixedAddress) fixed = DeviceAddress::FromPointer(*MemoryAddress);
  absl::StatusOr<hipmem::thunk::KfdAllocation> allocation =
      kfd.AllocMemory(::NodeId(PreferredNode), Bytes(SizeInBytes), hipmem::thunk::MemFlagsFromRaw(MemFlags.Value),
                      Bytes(Alignment), fixed);
  if (!allocation.ok()) return Done(allocation.status());
  // The caller owns it from here; hsaKmtFreeMemory frees it.
  *MemoryAddress = std::move(*allocation).Release().ToPointer();
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAllocMemory(HSAuint32 PreferredNode, HSAuint64 SizeInBytes, HsaMemFlags MemFlags,
                                          void** MemoryAddress) {
  return hsaKmtAllocMemoryAlign(PreferredNode, SizeInBytes, 0, MemFlags, MemoryAddress);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtFreeMemory(void* MemoryAddress, HSAuint64 /*SizeInBytes*/) {
  HSAKMT_KFD_OR_RETURN(kfd);
  return Done(kfd.FreeMemory(DeviceAddress::FromPointer(MemoryAddress)));
}

// AlternateVAGPU: GPU VA == CPU VA for allocations on every aperture this thunk uses; registered memory has a
// GPU VA of its own.
HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPU(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                             HSAuint64* AlternateVAGPU) {
  HSAKMT_KFD_OR_RETURN(kfd);
  // memory.c hsaKmtMapMemoryToGPU: a null address is an ERROR ("mapping NULL pointer").
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_ERROR;
  const DeviceAddress address = DeviceAddress::FromPointer(MemoryAddress);
  const absl::Status status = kfd.MapMemoryToGpu(address, {}, Bytes(MemorySizeInBytes));
  if (status.ok() && AlternateVAGPU != nullptr) {
    *AlternateVAGPU = kfd.GpuAddressOf(address, Bytes(MemorySizeInBytes)).value_or(DeviceAddress(0)).raw();
  }
  return Done(status);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtMapMemoryToGPUNodes(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                                  HSAuint64* AlternateVAGPU, HsaMemMapFlags /*MemMapFlags*/,
                                                  HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  HSAKMT_KFD_OR_RETURN(kfd);
  // memory.c hsaKmtMapMemoryToGPUNodes: a null address is an ERROR before the node list is looked at.
  if (MemoryAddress == nullptr) return HSAKMT_STATUS_ERROR;
  const std::optional<std::vector<NodeId>> nodes = hipmem::thunk::RequiredNodeArray(NumberOfNodes, NodeArray);
  if (!nodes.has_value()) return HSAKMT_STATUS_INVALID_PARAMETER;
  const DeviceAddress address = DeviceAddress::FromPointer(MemoryAddress);
  const absl::Status status = kfd.MapMemoryToGpu(address, *nodes, Bytes(MemorySizeInBytes));
  if (status.ok() && AlternateVAGPU != nullptr) {
    *AlternateVAGPU = kfd.GpuAddressOf(address, Bytes(MemorySizeInBytes)).value_or(DeviceAddress(0)).raw();
  }
  return Done(status);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtUnmapMemoryToGPU(void* MemoryAddress) {
  HSAKMT_KFD_OR_RETURN(kfd);
  return Done(kfd.UnmapMemoryFromGpu(DeviceAddress::FromPointer(MemoryAddress)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemory(void* MemoryAddress, HSAuint64 MemorySizeInBytes) {
  HSAKMT_KFD_OR_RETURN(kfd);
  return Done(HandOut(kfd.RegisterMemory(MemoryAddress, Bytes(MemorySizeInBytes))));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryToNodes(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                                    HSAuint64 NumberOfNodes, HSAuint32* NodeArray) {
  HSAKMT_KFD_OR_RETURN(kfd);
  const std::optional<std::vector<NodeId>> nodes = hipmem::thunk::RequiredNodeArray(NumberOfNodes, NodeArray);
  if (!nodes.has_value()) return HSAKMT_STATUS_INVALID_PARAMETER;
  return Done(HandOut(kfd.RegisterMemory(MemoryAddress, Bytes(MemorySizeInBytes), *nodes)));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtRegisterMemoryWithFlags(void* MemoryAddress, HSAuint64 MemorySizeInBytes,
                                                      HsaMemFlags MemFlags) {
  HSAKMT_KFD_OR_RETURN(kfd);
  return Done(HandOut(
      kfd.RegisterMemory(MemoryAddress, Bytes(MemorySizeInBytes), {}, hipmem::thunk::MemFlagsFromRaw(MemFlags.Value))));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDeregisterMemory(void* MemoryAddress) {
  HSAKMT_KFD_OR_RETURN(kfd);
  return Done(kfd.DeregisterMemory(MemoryAddress));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtQueryPointerInfo(const void* Pointer, HsaPointerInfo* PointerInfo) {
  HSAKMT_KFD_OR_RETURN(kfd);
  HSAKMT_NONNULL_OR_RETURN(PointerInfo);
  const hipmem::thunk::PointerInfo info = kfd.QueryPointerInfo(Pointer);
  hipmem::thunk::FillPointerInfo(info, *PointerInfo);
  // hsakmt_fmm_get_mem_info: an unknown pointer is reported as such and fails.
  return info.type == hipmem::thunk::PointerType::kUnknown ? HSAKMT_STATUS_ERROR : HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetMemoryUserData(const void* Pointer, void* UserData) {
  HSAKMT_KFD_OR_RETURN(kfd);
  return Done(kfd.SetMemoryUserData(Pointer, UserData));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAvailableMemory(HSAuint32 Node, HSAuint64* AvailableBytes) {
  HSAKMT_KFD_OR_RETURN(kfd);
  HSAKMT_NONNULL_OR_RETURN(AvailableBytes);
  absl::StatusOr<Bytes> available = kfd.AvailableMemory(::NodeId(Node));
  if (!available.ok()) return Done(available.status());
  *AvailableBytes = available->raw();
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
