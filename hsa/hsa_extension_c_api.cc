// hsa_* extension queries: thin shells over extensions.h, with ROCr's argument checks in ROCr's order
// (NOT_INITIALIZED first; the outputs a failing call leaves are the ones ROCr leaves).
//
// hipmem implements none of the hsa_extension_t extensions (extensions.cc says why for each), so every
// support query answers SUCCESS with false, and every table request fails the way ROCr's does for a table it
// cannot fill: INVALID_ARGUMENT for a table version it does not define, HSA_STATUS_ERROR otherwise.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "hsa/c_abi.h"
#include "hsa/extensions.h"
#include "hsa/hsa.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"

using hipmem::hsa::AgentId;
using hipmem::hsa::DeviceType;
using hipmem::hsa::ExtensionImplemented;
using hipmem::hsa::ExtensionInRange;
using hipmem::hsa::ToHsaStatus;

namespace {

// The agent half of hsa_agent_(major_)extension_supported, after ROCr's range and null checks: `*result` is
// false before the agent is looked up (so an invalid agent still leaves it false), then true only on a GPU
// agent for an implemented extension.
hsa_status_t AgentSupports(hipmem::hsa::Runtime& rt, uint16_t extension, hsa_agent_t agent, uint16_t version_major,
                           bool* result) {
  *result = false;
  absl::StatusOr<const hipmem::hsa::Agent*> a = rt.GetAgent(AgentId(agent.handle));
  if (!a.ok()) return ToHsaStatus(a.status());
  *result = (*a)->type == DeviceType::kGpu && ExtensionImplemented(extension, version_major);
  return HSA_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

hsa_status_t HSA_API hsa_extension_get_name(uint16_t extension, const char** name) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (name == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const std::optional<const char*> known = hipmem::hsa::ExtensionName(extension);
  // ROCr names an unknown extension too, and still fails.
  *name = known.value_or("HSA_EXTENSION_INVALID");
  return known.has_value() ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_system_extension_supported(uint16_t extension, uint16_t version_major,
                                                                   uint16_t version_minor, bool* result) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (!ExtensionInRange(extension) || result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = ExtensionImplemented(extension, version_major) && version_minor == 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_system_major_extension_supported(uint16_t extension, uint16_t version_major,
                                                          uint16_t* version_minor, bool* result) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  // No range check here, as in ROCr: an unknown extension is simply unsupported.
  if (version_minor == nullptr || result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = ExtensionImplemented(extension, version_major);
  if (*result) *version_minor = 0;  // written only on support, as ROCr does
  return HSA_STATUS_SUCCESS;
}

hsa_status_t HSA_API hsa_system_get_major_extension_table(uint16_t extension, uint16_t version_major,
                                                          size_t table_length, void* table) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  if (table == nullptr || table_length == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  // ROCr's answer for an extension or major version it has no table for. An implemented extension would copy
  // min(table_length, its table size) bytes here; there is none yet, so nothing is ever written.
  (void)extension;
  (void)version_major;
  return HSA_STATUS_ERROR;
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_system_get_extension_table(uint16_t extension, uint16_t version_major,
                                                                   uint16_t version_minor, void* table) {
  HSA_RUNTIME_OR_RETURN(rt);
  (void)rt;
  // ROCr turns the minor version into a table length and forwards; a version it does not define has length 0,
  // which the major-version call rejects as INVALID_ARGUMENT.
  const size_t defined = hipmem::hsa::ExtensionTableDefined(extension, version_major, version_minor) ? 1 : 0;
  return hsa_system_get_major_extension_table(extension, version_major, defined, table);
}

hsa_status_t HSA_API HSA_DEPRECATED hsa_agent_extension_supported(uint16_t extension, hsa_agent_t agent,
                                                                  uint16_t version_major, uint16_t version_minor,
                                                                  bool* result) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (!ExtensionInRange(extension) || result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const hsa_status_t status = AgentSupports(rt, extension, agent, version_major, result);
  if (version_minor != 0) *result = false;
  return status;
}

hsa_status_t HSA_API hsa_agent_major_extension_supported(uint16_t extension, hsa_agent_t agent,
                                                         uint16_t version_major, uint16_t* version_minor,
                                                         bool* result) {
  HSA_RUNTIME_OR_RETURN(rt);
  if (!ExtensionInRange(extension) || result == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const hsa_status_t status = AgentSupports(rt, extension, agent, version_major, result);
  // ROCr does not check version_minor for null; writing it only on support keeps a null harmless here.
  if (*result && version_minor != nullptr) *version_minor = 0;
  return status;
}

}  // extern "C"
