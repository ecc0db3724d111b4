// The hsa_extension_t catalogue: which extensions exist, what ROCr calls them, which function-table versions
// ROCr defines for them, and which of them this runtime implements.
//
// Answers the facts behind hsa_extension_get_name, hsa_system/agent_(major_)extension_supported,
// hsa_system_get_(major_)extension_table and the HSA_SYSTEM_INFO_EXTENSIONS / HSA_AGENT_INFO_EXTENSIONS
// bitmasks, so that those all agree. Stateless; thread-safe.
#ifndef HIPMEM_HSA_EXTENSIONS_H_
#define HIPMEM_HSA_EXTENSIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>

namespace hipmem::hsa {

// Size in bytes of the extension bitmasks (hsa.h: uint8_t[128], bit N = hsa_extension_t value N).
inline constexpr size_t kExtensionMaskBytes = 128;

// ROCr's name for `extension` ("HSA_EXTENSION_IMAGES"), or nullopt where hsa_extension_get_name answers
// INVALID_ARGUMENT.
std::optional<const char*> ExtensionName(uint16_t extension);

// Whether `extension` lies in hsa_extension_t's ranges (standard 0..HSA_EXTENSION_STD_LAST, vendor
// HSA_AMD_FIRST_EXTENSION..HSA_AMD_LAST_EXTENSION): ROCr's support queries reject anything else.
bool ExtensionInRange(uint16_t extension);

// Whether ROCr defines a function table for `extension` at version `major`.`minor` (the versions
// hsa_system_get_extension_table can size). Defined is not implemented: see ExtensionImplemented.
bool ExtensionTableDefined(uint16_t extension, uint16_t major, uint16_t minor);

// Whether this runtime implements `extension` at major version `major`, on the system and on every GPU agent.
bool ExtensionImplemented(uint16_t extension, uint16_t major);

// Writes the kExtensionMaskBytes-byte bitmask of implemented extensions into `mask`.
void WriteExtensionMask(void* mask);

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_EXTENSIONS_H_
