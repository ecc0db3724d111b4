// libdrm's amdgpu.ids table: PCI device id + revision -> the product's marketing name.
//
// Plays libdrm's amdgpu_get_marketing_name (amdgpu_asic_id.c), which libhsakmt calls to fill
// HsaNodeProperties.MarketingName and ROCr reports as HSA_AMD_AGENT_INFO_PRODUCT_NAME. The file is
// "device_id,<TAB>revision_id,<TAB>name" lines (both ids hex), '#' comments, blank lines and one
// version line ("1.0.0") before the first row.
#ifndef HIPMEM_THUNK_AMDGPU_IDS_H_
#define HIPMEM_THUNK_AMDGPU_IDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hipmem::thunk {

// Where Debian's libdrm-common installs the table.
inline constexpr char kSystemAmdgpuIdsPath[] = "/usr/share/libdrm/amdgpu.ids";

// One parsed amdgpu.ids table. Thread-compatible (immutable after Parse).
class AmdgpuIds {
 public:
  // Parses the text of an amdgpu.ids file. `origin` names it in error messages.
  // Errors: kInvalidArgument, naming origin and line, for a row without three comma-separated fields,
  // an id that is not 1-4 hex digits (device) / 1-2 hex digits (revision), or an empty name.
  static absl::StatusOr<AmdgpuIds> Parse(absl::string_view text, absl::string_view origin);
  // Reads and parses `path`. Errors: kNotFound when it cannot be opened; Parse's.
  static absl::StatusOr<AmdgpuIds> Load(const std::string& path);

  // Returns the name of (device_id, revision), or nullopt when the table has no such row (libdrm
  // matches both ids exactly).
  std::optional<std::string> Find(uint32_t device_id, uint32_t revision) const;
  size_t size() const { return names_.size(); }

 private:
  AmdgpuIds() = default;
  absl::flat_hash_map<uint32_t, std::string> names_;  // key: device_id << 8 | revision
};

// Returns the marketing name of (device_id, revision) as libhsakmt reports it: from the system's
// amdgpu.ids (kSystemAmdgpuIdsPath) when it has the row, else from a copy of the rows compiled into
// this library (amdgpu_ids.cc) for parts newer than Debian bookworm's libdrm 2.4.114, which predates
// MI300X and Navi 31. nullopt when neither knows the part. Thread-safe (the tables load once).
std::optional<std::string> MarketingName(uint32_t device_id, uint32_t revision);

// Reads a PCI function's revision id from a sysfs-style `revision` file ("0xc8\n").
// Errors: kNotFound when it cannot be opened; kInvalidArgument when it does not hold a hex byte.
absl::StatusOr<uint32_t> ReadPciRevision(const std::string& path);

// Parses the first line of a `revision` file already read; `source` names it in the error.
// Errors: kInvalidArgument when the line is not "0x" and one or two hex digits.
absl::StatusOr<uint32_t> ParsePciRevision(absl::string_view text, absl::string_view source);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_AMDGPU_IDS_H_
