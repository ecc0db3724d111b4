#include "hsa/extensions.h"

#include <cstring>

#include "hsa/hsa.h"

namespace hipmem::hsa {
namespace {

struct Extension {
  uint16_t id;
  // nullptr where ROCr's hsa_extension_get_name has no case (it predates PC sampling and was never extended).
  const char* name;
  // The table versions ROCr defines: major 1, minors 0..last_table_minor; -1 for an extension without a table
  // (ROCr keeps the performance-counter, profiling-event and AMD-profiler tables commented out).
  int last_table_minor;
  // Whether hipmem implements every function of the extension. Each `false` says why.
  bool implemented;
};

constexpr Extension kExtensions[] = {
    // HSAIL finalization: there is no HSAIL compiler, and the simulated GPU runs no code objects.
    {HSA_EXTENSION_FINALIZER, "HSA_EXTENSION_FINALIZER", 0, false},
    // Images and samplers: no texture units are modelled (hsa_ext_image_* answer NOT_SUPPORTED).
    {HSA_EXTENSION_IMAGES, "HSA_EXTENSION_IMAGES", 0, false},
    // Neither ROCr nor hipmem implements these two.
    {HSA_EXTENSION_PERFORMANCE_COUNTERS, "HSA_EXTENSION_PERFORMANCE_COUNTERS", -1, false},
    {HSA_EXTENSION_PROFILING_EVENTS, "HSA_EXTENSION_PROFILING_EVENTS", -1, false},
    // The hsa_amd_profiling_* functions: ROCr always sets this bit, but hipmem lacks dispatch timing
    // (hsa_amd_profiling_set_profiler_enabled / _get_dispatch_time), so advertising it would be untrue.
    {HSA_EXTENSION_AMD_PROFILER, "HSA_EXTENSION_AMD_PROFILER", -1, false},
    // The loader queries (tables 1.00..1.03) presuppose loaded code objects, which are not modelled.
    {HSA_EXTENSION_AMD_LOADER, "HSA_EXTENSION_AMD_LOADER", 3, false},
    // aqlprofile is a separate vendor library that drives hardware performance counters; none are simulated.
    {HSA_EXTENSION_AMD_AQLPROFILE, "HSA_EXTENSION_AMD_AQLPROFILE", 0, false},
    // PC sampling needs waves to sample; the simulated GPU runs none.
    {HSA_EXTENSION_AMD_PC_SAMPLING, nullptr, 0, false},
};

const Extension* Find(uint16_t extension) {
  for (const Extension& e : kExtensions) {
    if (e.id == extension) return &e;
  }
  return nullptr;
}

// Every table ROCr defines is version 1.
constexpr uint16_t kTableMajor = 1;

}  // namespace

std::optional<const char*> ExtensionName(uint16_t extension) {
  const Extension* e = Find(extension);
  if (e == nullptr || e->name == nullptr) return std::nullopt;
  return e->name;
}

bool ExtensionInRange(uint16_t extension) {
  return extension <= HSA_EXTENSION_STD_LAST ||
         (extension >= HSA_AMD_FIRST_EXTENSION && extension <= HSA_AMD_LAST_EXTENSION);
}

bool ExtensionTableDefined(uint16_t extension, uint16_t major, uint16_t minor) {
  const Extension* e = Find(extension);
  return e != nullptr && major == kTableMajor && static_cast<int>(minor) <= e->last_table_minor;
}

bool ExtensionImplemented(uint16_t extension, uint16_t major) {
  const Extension* e = Find(extension);
  return e != nullptr && e->implemented && major == kTableMajor;
}

void WriteExtensionMask(void* mask) {
  uint8_t bits[kExtensionMaskBytes] = {};
  for (const Extension& e : kExtensions) {
    if (e.implemented) bits[e.id / 8] |= static_cast<uint8_t>(1u << (e.id % 8));
  }
  std::memcpy(mask, bits, sizeof(bits));
}

}  // namespace hipmem::hsa
