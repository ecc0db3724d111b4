#include "tools/trace_merge.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hipmem::tools {

namespace {

// The whole events of one file, one per element, without separators.
std::vector<std::string> EventsOf(const std::string& text) {
  std::vector<std::string> events;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripSuffix(line, ",");
    // The brackets, and a last line the process did not finish writing.
    if (!absl::StartsWith(line, "{") || !absl::EndsWith(line, "}")) continue;
    events.emplace_back(line);
  }
  return events;
}

// Whether the process recorded anything but names ("ph":"M" metadata).
bool HasWork(const std::vector<std::string>& events) {
  for (const std::string& event : events) {
    if (!absl::StrContains(event, "\"ph\":\"M\"")) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<TraceMergeSummary> MergeTraceFiles(const std::vector<std::string>& inputs, const std::string& output) {
  TraceMergeSummary summary;
  std::string merged = "[\n";
  for (const std::string& input : inputs) {
    std::ifstream in(input);
    if (!in) return absl::NotFoundError(absl::StrCat(input, ": ", std::strerror(errno)));
    std::stringstream text;
    text << in.rdbuf();
    const std::vector<std::string> events = EventsOf(text.str());
    if (!HasWork(events)) continue;
    ++summary.processes;
    for (const std::string& event : events) {
      if (summary.events++ > 0) merged += ",\n";
      merged += event;
    }
  }
  merged += "\n]\n";
  std::ofstream out(output, std::ios::trunc);
  if (!out) return absl::PermissionDeniedError(absl::StrCat(output, ": ", std::strerror(errno)));
  out << merged;
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat(output, ": write failed"));
  return summary;
}

}  // namespace hipmem::tools
