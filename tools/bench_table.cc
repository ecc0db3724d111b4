#include "tools/bench_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "re2/re2.h"

namespace hipmem::tools {
namespace {

// RatioReporter's two line forms (base/bench/ratio_reporter.cc). Benchmark names have no spaces; they may have '/'.
constexpr char kMeasured[] =
    R"(ratio: (\S+) / (\S+) = (\S+) \(cpu (\S+)\)(?: \(goal <= (\S+): (met|MISSED)\))?)";
constexpr char kNotMeasured[] = R"(ratio: (\S+) / (\S+): not measured)";

bool ParseNumber(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

std::string Number(const std::optional<double>& value) {
  if (!value.has_value()) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", *value);
  return buffer;
}

std::string Verdict(const BenchRatio& ratio) {
  if (!ratio.ratio.has_value()) return "not measured";
  if (!ratio.goal.has_value()) return "reported";
  return ratio.met ? "met" : "MISSED";
}

}  // namespace

absl::StatusOr<std::vector<BenchRatio>> ParseRatioLines(absl::string_view program, absl::string_view output) {
  static const RE2* const measured = new RE2(kMeasured);
  static const RE2* const not_measured = new RE2(kNotMeasured);
  std::vector<BenchRatio> ratios;
  static const RE2* const color = new RE2(R"(\x1b\[[0-9;]*m)");
  for (absl::string_view raw : absl::StrSplit(output, '\n')) {
    // The console reporter colours its table when it may, and its last colour reset can open the next line.
    std::string line(raw);
    RE2::GlobalReplace(&line, *color, "");
    if (!absl::StartsWith(line, "ratio: ")) continue;
    BenchRatio ratio;
    ratio.program = std::string(program);
    std::string real, cpu, goal, verdict;
    if (RE2::FullMatch(line, *measured, &ratio.benchmark, &ratio.baseline, &real,
                       &cpu, &goal, &verdict)) {
      double value = 0;
      if (!ParseNumber(real, &value)) return absl::InvalidArgumentError(absl::StrCat("bad ratio in: ", line));
      ratio.ratio = value;
      if (!ParseNumber(cpu, &value)) return absl::InvalidArgumentError(absl::StrCat("bad cpu ratio in: ", line));
      ratio.cpu_ratio = value;
      if (!goal.empty()) {
        if (!ParseNumber(goal, &value)) return absl::InvalidArgumentError(absl::StrCat("bad goal in: ", line));
        ratio.goal = value;
        ratio.met = verdict == "met";
      }
    } else if (!RE2::FullMatch(line, *not_measured, &ratio.benchmark,
                               &ratio.baseline)) {
      return absl::InvalidArgumentError(absl::StrCat("not a ratio line RatioReporter prints: ", line));
    }
    // The means are printed for reference beside the medians; goals are judged on the medians.
    if (absl::EndsWith(ratio.benchmark, "_mean")) continue;
    ratios.push_back(std::move(ratio));
  }
  return ratios;
}

std::string FormatBenchTable(const std::vector<BenchRatio>& ratios) {
  const std::vector<std::string> header = {"program", "ratio", "real", "cpu", "goal", "verdict"};
  std::vector<std::vector<std::string>> rows;
  for (const BenchRatio& r : ratios) {
    rows.push_back({r.program, absl::StrCat(r.benchmark, " / ", r.baseline), Number(r.ratio), Number(r.cpu_ratio),
                    r.goal.has_value() ? absl::StrCat("<= ", Number(r.goal)) : "-", Verdict(r)});
  }
  std::vector<size_t> widths(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    widths[c] = header[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  auto append_row = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      absl::StrAppend(&out, row[c], last ? "" : std::string(widths[c] - row[c].size() + 2, ' '));
    }
    absl::StrAppend(&out, "\n");
  };
  append_row(header);
  for (const auto& row : rows) append_row(row);
  return out;
}

bool AllGoalsMet(const std::vector<BenchRatio>& ratios) {
  for (const BenchRatio& r : ratios) {
    if (!r.ratio.has_value()) return false;
    if (r.goal.has_value() && !r.met) return false;
  }
  return true;
}

}  // namespace hipmem::tools
