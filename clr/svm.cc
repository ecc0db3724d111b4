#include "clr/svm.h"

#include <sys/mman.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "base/units.h"
#include "clr/memory.h"

namespace hipmem::clr {
namespace {

constexpr Bytes kPage = Bytes::KiB(4);

}  // namespace

ManagedMemory::ManagedMemory(Context& context) : context_(context), svm_(hsa::Svm::Create(context.runtime())) {}

absl::StatusOr<DeviceAddress> ManagedMemory::Allocate(const Device& current, Bytes size, uint32_t user_flags) {
  if (size.is_zero()) return absl::InvalidArgumentError("hipMallocManaged: size 0");
  const std::optional<Bytes> rounded = AlignUp(size, kPage);
  // hip_hmm.cpp ihipMallocManaged: a size no memory can hold fails the allocation (hipErrorMemoryAllocation),
  // it is not a bad argument.
  if (!rounded.has_value()) return absl::ResourceExhaustedError("hipMallocManaged: size overflows");
  // A managed buffer lives in system memory until it migrates, and its pages come on first touch (as with HMM): a
  // size larger than all of the host's memory could never be backed, and would be found out only when a touch
  // fails (an OOM kill), so it is refused now, with the code ihipMallocManaged gives a failed SvmBuffer::malloc
  // (hipErrorMemoryAllocation). Deliberately the whole system pool, not what is free now: free memory changes,
  // and an untouched buffer costs nothing.
  ASSIGN_OR_RETURN(const hsa::MemoryPool* host, context_.runtime().GetPool(current.host_pool));
  if (*rounded > host->size) {
    return absl::ResourceExhaustedError(absl::StrCat("hipMallocManaged(", size.raw(), "): larger than the host's ",
                                                     host->size.raw(), " B of system memory"));
  }
  // Private anonymous memory: what HMM can migrate (a shared mapping keeps its page cache) and what the CPU can
  // always touch. MAP_NORESERVE: like malloc, pages come on first touch.
  void* p = mmap(nullptr, rounded->raw(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat("hipMallocManaged(", size.raw(), "): cannot map that much"));
  }
  const DeviceAddress base = DeviceAddress::FromPointer(p);
  auto memory = std::make_unique<Memory>(&context_.runtime(),
                                         MemoryDesc{{base, *rounded}, base, MemoryKind::kManaged, current.ordinal,
                                                    user_flags, current.host_pool});
  // From here the Memory owns the mapping: an early return releases it.
  hsa::SvmAttributes attributes;
  for (const Device& device : context_.devices()) attributes.access.push_back({device.agent, hsa::SvmAccess::kAccessible});
  RETURN_IF_ERROR(svm_->SetAttributes(base, *rounded, attributes));
  RETURN_IF_ERROR(context_.Adopt(std::move(memory)));
  Trace(Layer::kClr, "hipMallocManaged: ", rounded->raw(), " B at ", AddressText(base));
  return base;
}

absl::Status ManagedMemory::CheckRange(absl::string_view op, DeviceAddress ptr, Bytes size) const {
  if (ptr.raw() == 0 || size.is_zero()) {
    return absl::InvalidArgumentError(absl::StrCat(op, "(", AddressText(ptr), ", ", size.raw(), "): null or empty"));
  }
  const std::optional<MemObjRef> ref = context_.Find(ptr);
  if (!ref.has_value() || ref->desc.kind != MemoryKind::kManaged) {
    return absl::InvalidArgumentError(absl::StrCat(op, "(", AddressText(ptr), "): not managed memory"));
  }
  if (size > ref->desc.range.size - ref->offset) {
    return absl::InvalidArgumentError(absl::StrCat(op, "(", AddressText(ptr), ", ", size.raw(), "): runs past the ",
                                                   ref->desc.range.size.raw(), " B managed buffer"));
  }
  return absl::OkStatus();
}

absl::StatusOr<hsa::AgentId> ManagedMemory::AgentOf(int location) const {
  if (location == kCpuDeviceId) return context_.host_agent();
  ASSIGN_OR_RETURN(const Device* device, context_.GetDevice(location));
  return device->agent;
}

std::optional<int> ManagedMemory::LocationOf(std::optional<hsa::AgentId> agent) const {
  if (!agent.has_value()) return std::nullopt;
  for (const Device& device : context_.devices()) {
    if (device.agent == *agent) return device.ordinal;
  }
  // Any CPU agent is system memory.
  return kCpuDeviceId;
}

absl::Status ManagedMemory::Advise(DeviceAddress ptr, Bytes size, MemoryAdvice advice, int location) {
  RETURN_IF_ERROR(CheckRange("hipMemAdvise", ptr, size));
  hsa::SvmAttributes a;
  switch (advice) {
    case MemoryAdvice::kSetReadMostly: a.read_mostly = true; break;
    case MemoryAdvice::kUnsetReadMostly: a.read_mostly = false; break;
    case MemoryAdvice::kSetPreferredLocation: {
      ASSIGN_OR_RETURN(const hsa::AgentId agent, AgentOf(location));
      a.preferred_location = std::optional<hsa::AgentId>(agent);
      break;
    }
    case MemoryAdvice::kUnsetPreferredLocation: a.preferred_location = std::optional<hsa::AgentId>(); break;
    case MemoryAdvice::kSetAccessedBy: {
      // Mapped where it lies, never migrated for this device's sake (CUDA's "accessed by": the mapping stays).
      ASSIGN_OR_RETURN(const hsa::AgentId agent, AgentOf(location));
      a.access.push_back({agent, hsa::SvmAccess::kAccessibleInPlace});
      break;
    }
    case MemoryAdvice::kUnsetAccessedBy: {
      // Back to the access every GPU gets at allocation: reachable, migrating as the runtime likes.
      ASSIGN_OR_RETURN(const hsa::AgentId agent, AgentOf(location));
      a.access.push_back({agent, hsa::SvmAccess::kAccessible});
      break;
    }
    case MemoryAdvice::kSetCoarseGrain: a.grain = hsa::SvmGrain::kCoarseGrained; break;
    case MemoryAdvice::kUnsetCoarseGrain: a.grain = hsa::SvmGrain::kFineGrained; break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("hipMemAdvise: advice ", static_cast<uint32_t>(advice), " is not a hipMemoryAdvise"));
  }
  return svm_->SetAttributes(ptr, size, a);
}

absl::Status ManagedMemory::Prefetch(DeviceAddress ptr, Bytes size, int location, Stream& stream) {
  RETURN_IF_ERROR(CheckRange("hipMemPrefetchAsync", ptr, size));
  ASSIGN_OR_RETURN(const hsa::AgentId agent, AgentOf(location));
  // A host function is ordered both ways on the stream: it runs after the earlier work, and later work waits for
  // it to return (ROCclr's SvmPrefetchAsyncCommand on the queue).
  hsa::Svm* svm = svm_.get();
  return stream.HostFunction([svm, ptr, size, agent] {
    if (absl::Status s = svm->Prefetch(ptr, size, agent); !s.ok()) {
      HIPMEM_LOG(kError, "hipMemPrefetchAsync(", AddressText(ptr), "): ", s.message());
    }
  });
}

absl::StatusOr<ManagedRangeAttributes> ManagedMemory::GetAttributes(DeviceAddress ptr, Bytes size) {
  RETURN_IF_ERROR(CheckRange("hipMemRangeGetAttribute", ptr, size));
  std::vector<hsa::AgentId> queries;
  for (const Device& device : context_.devices()) queries.push_back(device.agent);
  ASSIGN_OR_RETURN(const hsa::SvmRangeAttributes got, svm_->GetAttributes(ptr, size, queries));
  ManagedRangeAttributes out{got.read_mostly, LocationOf(got.preferred_location), LocationOf(got.prefetch_location),
                             {}, got.grain};
  for (size_t i = 0; i < got.access.size(); ++i) {
    if (got.access[i].access == hsa::SvmAccess::kAccessibleInPlace) out.accessed_by.push_back(context_.devices()[i].ordinal);
  }
  return out;
}

}  // namespace hipmem::clr
