#include "thunk/amdgpu_ids.h"

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace hipmem::thunk {
namespace {

// The rows the simulator presets need that Debian bookworm's libdrm-common (2.4.114) lacks, in the file's
// syntax, values from upstream libdrm's data/amdgpu.ids. MI100 and MI250X are in the system table already;
// they are repeated so a machine without libdrm-common still names every preset.
constexpr absl::string_view kBuiltinRows =
    "1.0.0\n"
    "738C,\t01,\tAMD Instinct MI100\n"
    "740C,\t01,\tAMD Instinct MI250X / MI250\n"
    "744C,\tC8,\tAMD Radeon RX 7900 XTX\n"
    "744C,\tCC,\tAMD Radeon RX 7900 XT\n"
    "74A1,\t00,\tAMD Instinct MI300X\n";

absl::StatusOr<uint32_t> ParseHex(absl::string_view field, size_t max_digits) {
  field = absl::StripAsciiWhitespace(field);
  uint32_t value = 0;
  if (field.empty() || field.size() > max_digits || !absl::SimpleHexAtoi(field, &value)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", field, "\" is not a hex id of at most ", max_digits, " digits"));
  }
  return value;
}

uint32_t Key(uint32_t device_id, uint32_t revision) { return device_id << 8 | revision; }

}  // namespace

absl::StatusOr<AmdgpuIds> AmdgpuIds::Parse(absl::string_view text, absl::string_view origin) {
  AmdgpuIds ids;
  const std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  bool saw_version = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
    if (line.empty() || line.front() == '#') continue;
    auto bad = [&](absl::string_view cause) {
      return absl::InvalidArgumentError(absl::StrCat("amdgpu.ids(", origin, ":", i + 1, "): ", cause));
    };
    // libdrm skips the first non-comment line: the table's version.
    if (!saw_version) {
      saw_version = true;
      if (line.find(',') == absl::string_view::npos) continue;
    }
    const std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(',', 2));
    if (fields.size() != 3) return bad("expected \"device_id, revision_id, product_name\"");
    absl::StatusOr<uint32_t> device = ParseHex(fields[0], 4);
    if (!device.ok()) return bad(absl::StrCat("device id ", device.status().message()));
    absl::StatusOr<uint32_t> revision = ParseHex(fields[1], 2);
    if (!revision.ok()) return bad(absl::StrCat("revision id ", revision.status().message()));
    const absl::string_view name = absl::StripAsciiWhitespace(fields[2]);
    if (name.empty()) return bad("empty product name");
    // The first row for a pair wins, as libdrm stops at the first match.
    ids.names_.try_emplace(Key(*device, *revision), std::string(name));
  }
  return ids;
}

absl::StatusOr<AmdgpuIds> AmdgpuIds::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("amdgpu.ids(", path, "): cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return Parse(buffer.str(), path);
}

std::optional<std::string> AmdgpuIds::Find(uint32_t device_id, uint32_t revision) const {
  if (device_id > 0xffff || revision > 0xff) return std::nullopt;
  auto it = names_.find(Key(device_id, revision));
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> MarketingName(uint32_t device_id, uint32_t revision) {
  // Loaded once per process, as libdrm caches its parse; a missing or malformed system file leaves only the
  // built-in rows.
  static const std::optional<AmdgpuIds>* const kSystem = [] {
    absl::StatusOr<AmdgpuIds> ids = AmdgpuIds::Load(kSystemAmdgpuIdsPath);
    return new std::optional<AmdgpuIds>(ids.ok() ? std::optional<AmdgpuIds>(*std::move(ids)) : std::nullopt);
  }();
  // The built-in rows parse (amdgpu_ids_test proves it); a failure would only lose the fallback.
  static const std::optional<AmdgpuIds>* const kBuiltin = [] {
    absl::StatusOr<AmdgpuIds> ids = AmdgpuIds::Parse(kBuiltinRows, "built-in rows");
    return new std::optional<AmdgpuIds>(ids.ok() ? std::optional<AmdgpuIds>(*std::move(ids)) : std::nullopt);
  }();
  for (const std::optional<AmdgpuIds>* table : {kSystem, kBuiltin}) {
    if (!table->has_value()) continue;
    if (std::optional<std::string> name = (*table)->Find(device_id, revision)) return name;
  }
  return std::nullopt;
}

absl::StatusOr<uint32_t> ParsePciRevision(absl::string_view text, absl::string_view source) {
  const absl::string_view line = text.substr(0, text.find('\n'));
  absl::string_view value = absl::StripAsciiWhitespace(line);
  uint32_t revision = 0;
  if (!absl::ConsumePrefix(&value, "0x") || value.empty() || value.size() > 2 ||
      !absl::SimpleHexAtoi(value, &revision)) {
    return absl::InvalidArgumentError(absl::StrCat("ReadPciRevision(", source, "): \"", line, "\" is not 0x<hex byte>"));
  }
  return revision;
}

absl::StatusOr<uint32_t> ReadPciRevision(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("ReadPciRevision(", path, "): cannot open"));
  std::string text;
  std::getline(in, text);
  return ParsePciRevision(text, path);
}

}  // namespace hipmem::thunk
