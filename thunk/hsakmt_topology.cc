// hsaKmt* C entry points for topology; thin shells over thunk::Kfd.
//
// hsaKmtGetNodeCacheProperties and hsaKmtGetNodeIoLinkProperties answer as libhsakmt's topology.c:
// a null output array is INVALID_PARAMETER (checked before whether the KFD is open), an unknown node
// INVALID_NODE_UNIT, and asking for more entries than the node has INVALID_PARAMETER.
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

// Returns node `node` of the open shared KFD. KERNEL_IO_CHANNEL_NOT_OPENED when it is closed,
// INVALID_NODE_UNIT for an unknown node. The pointer is borrowed until the KFD closes.
absl::StatusOr<const NodeProperties*> SharedNode(HSAuint32 node) {
  ASSIGN_OR_RETURN(Kfd * kfd, SharedKfd());
  return kfd->Node(NodeId(node));
}

void FillIoLink(const IoLink& link, HsaIoLinkProperties& out) {
  std::memset(&out, 0, sizeof(out));
  out.IoLinkType = static_cast<HSA_IOLINKTYPE>(link.type);
  out.VersionMajor = link.version_major;
  out.VersionMinor = link.version_minor;
  out.NodeFrom = link.node_from.raw();
  out.NodeTo = link.node_to.raw();
  out.Weight = link.weight;
  out.MinimumLatency = link.min_latency;
  out.MaximumLatency = link.max_latency;
  out.MinimumBandwidth = link.min_bandwidth;
  out.MaximumBandwidth = link.max_bandwidth;
  out.RecTransferSize = link.recommended_transfer_size;
  out.RecSdmaEngIdMask = link.recommended_sdma_engine_id_mask;
  out.Flags.LinkProperty = link.flags;
}

void FillCache(const Cache& cache, HsaCacheProperties& out) {
  std::memset(&out, 0, sizeof(out));
  out.ProcessorIdLow = cache.processor_id_low;
  out.CacheLevel = cache.level;
  // A GPU cache's size in KiB, as sysfs has it; a CPU cache's (host_cpu.h) in bytes, as libhsakmt reads the host's.
  constexpr uint32_t kCacheTypeCpu = 4;
  out.CacheSize = static_cast<HSAuint32>((cache.type & kCacheTypeCpu) != 0 ? cache.size.raw() : cache.size.raw() / 1024);
  out.CacheLineSize = cache.cache_line_size;
  out.CacheLinesPerTag = cache.cache_lines_per_tag;
  out.CacheAssociativity = cache.association;
  out.CacheLatency = cache.latency;
  out.CacheType.Value = cache.type;
  // libhsakmt keeps the first HSA_CPU_SIBLINGS entries of a longer map.
  const size_t siblings = std::min<size_t>(cache.sibling_map.size(), HSA_CPU_SIBLINGS);
  for (size_t i = 0; i < siblings; ++i) out.SiblingMap[i] = cache.sibling_map[i];
}

}  // namespace
}  // namespace hipmem::thunk

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCacheProperties(HSAuint32 NodeId, HSAuint32 /*ProcessorId*/, HSAuint32 NumCaches,
                                                     HsaCacheProperties* CacheProperties) {
  if (CacheProperties == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  absl::StatusOr<const hipmem::thunk::NodeProperties*> node = hipmem::thunk::SharedNode(NodeId);
  if (!node.ok()) return hipmem::thunk::ToHsakmtStatus(node.status());
  const auto& caches = (*node)->caches;
  if (NumCaches > caches.size()) return HSAKMT_STATUS_INVALID_PARAMETER;
  for (HSAuint32 i = 0; i < NumCaches; ++i) hipmem::thunk::FillCache(caches[i], CacheProperties[i]);
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkProperties(HSAuint32 NodeId, HSAuint32 NumIoLinks,
                                                      HsaIoLinkProperties* IoLinkProperties) {
  if (IoLinkProperties == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  absl::StatusOr<const hipmem::thunk::NodeProperties*> node = hipmem::thunk::SharedNode(NodeId);
  if (!node.ok()) return hipmem::thunk::ToHsakmtStatus(node.status());
  const auto& links = (*node)->io_links;
  if (NumIoLinks > links.size()) return HSAKMT_STATUS_INVALID_PARAMETER;
  for (HSAuint32 i = 0; i < NumIoLinks; ++i) hipmem::thunk::FillIoLink(links[i], IoLinkProperties[i]);
  return HSAKMT_STATUS_SUCCESS;
}

}  // extern "C"
