// hsa_amd_svm_attributes_set / _get and hsa_amd_svm_prefetch_async: thin shells over the shared Svm (svm.h).
// They turn the attribute pair lists into svm.h's typed requests and back, with ROCr's answers: an attribute given
// twice, or two access attributes for one agent, INCOMPATIBLE_ARGUMENTS; an attribute that cannot be set (or read)
// or a bad value INVALID_ARGUMENT; an unknown agent INVALID_AGENT; a KFD refusal HSA_STATUS_ERROR. Every entry
// is checked before anything is written or queued.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "hsa/c_abi.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/signal.h"
#include "hsa/signal_runtime.h"
#include "hsa/svm.h"

namespace hipmem::hsa {
namespace {

absl::Status Incompatible(absl::string_view what) {
  return WithHsaStatus(absl::InvalidArgumentError(what), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
}

absl::Status BadAttribute(absl::string_view op, uint64_t attribute) {
  return absl::InvalidArgumentError(
      absl::StrCat(op, ": attribute 0x", absl::Hex(attribute), " cannot be used here"));
}

absl::StatusOr<SvmAttributes> ParseSet(const hsa_amd_svm_attribute_pair_t* list, size_t count) {
  constexpr absl::string_view kOp = "hsa_amd_svm_attributes_set";
  if (count > 0 && list == nullptr) return absl::InvalidArgumentError(absl::StrCat(kOp, ": null attribute list"));
  SvmAttributes out;
  absl::flat_hash_set<uint64_t> seen;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t attribute = list[i].attribute;
    const uint64_t value = list[i].value;
    const bool per_agent = attribute >= HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE &&
                           attribute <= HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS;
    if (!per_agent && attribute <= HSA_AMD_SVM_ATTRIB_GPU_EXEC && !seen.insert(attribute).second) {
      return Incompatible(absl::StrCat(kOp, ": attribute ", attribute, " given twice"));
    }
    switch (attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
        if (value != HSA_AMD_SVM_GLOBAL_FLAG_FINE_GRAINED && value != HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED) {
          return absl::InvalidArgumentError(absl::StrCat(kOp, ": GLOBAL_FLAG value ", value, " is not a grain"));
        }
        out.grain = static_cast<SvmGrain>(value);
        break;
      case HSA_AMD_SVM_ATTRIB_READ_ONLY: out.read_only = value != 0; break;
      case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL: out.hive_local = value != 0; break;
      case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY: out.migration_granularity = value; break;
      case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:
        // Handle 0 (no agent) clears the preference.
        out.preferred_location = value == 0 ? std::optional<AgentId>() : std::optional<AgentId>(AgentId(value));
        break;
      case HSA_AMD_SVM_ATTRIB_READ_MOSTLY: out.read_mostly = value != 0; break;
      case HSA_AMD_SVM_ATTRIB_GPU_EXEC: out.gpu_exec = value != 0; break;
      case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE: out.access.push_back({AgentId(value), SvmAccess::kAccessible}); break;
      case HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE:
        out.access.push_back({AgentId(value), SvmAccess::kAccessibleInPlace});
        break;
      case HSA_AMD_SVM_ATTRIB_AGENT_NO_ACCESS: out.access.push_back({AgentId(value), SvmAccess::kNoAccess}); break;
      default: return BadAttribute(kOp, attribute);  // PREFETCH_LOCATION and ACCESS_QUERY are query only
    }
  }
  return out;
}

absl::Status GetAttributes(void* ptr, size_t size, hsa_amd_svm_attribute_pair_t* list, size_t count) {
  constexpr absl::string_view kOp = "hsa_amd_svm_attributes_get";
  ASSIGN_OR_RETURN(Svm * svm, SharedSvm());
  if (count > 0 && list == nullptr) return absl::InvalidArgumentError(absl::StrCat(kOp, ": null attribute list"));
  std::vector<AgentId> queries;
  for (size_t i = 0; i < count; ++i) {
    switch (list[i].attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG:
      case HSA_AMD_SVM_ATTRIB_READ_ONLY:
      case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL:
      case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY:
      case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION:
      case HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION:
      case HSA_AMD_SVM_ATTRIB_READ_MOSTLY: break;
      case HSA_AMD_SVM_ATTRIB_ACCESS_QUERY: queries.push_back(AgentId(list[i].value)); break;
      default: return BadAttribute(kOp, list[i].attribute);  // GPU_EXEC and the per-agent ones are set only
    }
  }
  ASSIGN_OR_RETURN(const SvmRangeAttributes got,
                   svm->GetAttributes(DeviceAddress::FromPointer(ptr), Bytes(size), queries));
  size_t query = 0;
  auto agent_handle = [](const std::optional<AgentId>& agent) { return agent.has_value() ? agent->raw() : 0; };
  for (size_t i = 0; i < count; ++i) {
    uint64_t& value = list[i].value;
    switch (list[i].attribute) {
      case HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG: value = static_cast<uint64_t>(got.grain); break;
      case HSA_AMD_SVM_ATTRIB_READ_ONLY: value = got.read_only; break;
      case HSA_AMD_SVM_ATTRIB_HIVE_LOCAL: value = got.hive_local; break;
      case HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY: value = got.migration_granularity; break;
      case HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION: value = agent_handle(got.preferred_location); break;
      case HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION: value = agent_handle(got.prefetch_location); break;
      case HSA_AMD_SVM_ATTRIB_READ_MOSTLY: value = got.read_mostly; break;
      case HSA_AMD_SVM_ATTRIB_ACCESS_QUERY:
        // The attribute becomes the access the agent has; the value keeps naming the agent.
        list[i].attribute = static_cast<uint64_t>(got.access[query++].access);
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status Prefetch(void* ptr, size_t size, hsa_agent_t agent, uint32_t num_dep_signals,
                      const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  ASSIGN_OR_RETURN(Svm * svm, SharedSvm());
  ASSIGN_OR_RETURN(SignalRuntime * signals, SharedSignals());
  if (num_dep_signals > 0 && dep_signals == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("hsa_amd_svm_prefetch_async: ", num_dep_signals, " dependency signals but no array"));
  }
  std::vector<SignalRef> deps;
  for (uint32_t i = 0; i < num_dep_signals; ++i) {
    ASSIGN_OR_RETURN(SignalRef dep, signals->Find(SignalHandle(dep_signals[i].handle)));
    deps.push_back(std::move(dep));
  }
  std::optional<SignalRef> completion;
  if (completion_signal.handle != 0) {  // hsa_ext_amd.h: "may be null"
    ASSIGN_OR_RETURN(SignalRef ref, signals->Find(SignalHandle(completion_signal.handle)));
    completion = std::move(ref);
  }
  return svm->PrefetchAsync(DeviceAddress::FromPointer(ptr), Bytes(size), AgentId(agent.handle), deps,
                            std::move(completion));
}

}  // namespace
}  // namespace hipmem::hsa

using hipmem::hsa::ToHsaStatus;

extern "C" {

hsa_status_t hsa_amd_svm_attributes_set(void* ptr, size_t size, hsa_amd_svm_attribute_pair_t* attribute_list,
                                        size_t attribute_count) {
  absl::StatusOr<hipmem::hsa::Svm*> svm = hipmem::hsa::SharedSvm();
  if (!svm.ok()) return ToHsaStatus(svm.status());
  absl::StatusOr<hipmem::hsa::SvmAttributes> attributes = hipmem::hsa::ParseSet(attribute_list, attribute_count);
  if (!attributes.ok()) return ToHsaStatus(attributes.status());
  return ToHsaStatus(
      (*svm)->SetAttributes(hipmem::DeviceAddress::FromPointer(ptr), hipmem::Bytes(size), *attributes));
}

hsa_status_t hsa_amd_svm_attributes_get(void* ptr, size_t size, hsa_amd_svm_attribute_pair_t* attribute_list,
                                        size_t attribute_count) {
  return ToHsaStatus(hipmem::hsa::GetAttributes(ptr, size, attribute_list, attribute_count));
}

hsa_status_t hsa_amd_svm_prefetch_async(void* ptr, size_t size, hsa_agent_t agent, uint32_t num_dep_signals,
                                        const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  return ToHsaStatus(hipmem::hsa::Prefetch(ptr, size, agent, num_dep_signals, dep_signals, completion_signal));
}

}  // extern "C"
