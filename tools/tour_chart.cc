#include "tools/tour_chart.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/scoped_lock.h"

namespace hipmem::tools {
namespace {

constexpr int kColumn = 14;  // characters per layer column

// Host layers take columns 0-4; the engines share column 5.
int ColumnOf(TraceCategory category) {
  switch (category) {
    case TraceCategory::kHipApi: return 0;
    case TraceCategory::kClr: return 1;
    case TraceCategory::kHsaApi: return 2;
    case TraceCategory::kHsakmt: return 3;
    case TraceCategory::kKfd: return 4;
    case TraceCategory::kSdma:
    case TraceCategory::kCompute: return 5;
  }
  return 0;
}

std::string Duration(uint64_t ns) {
  if (ns < 10'000) return absl::StrFormat("%d ns", ns);
  if (ns < 10'000'000) return absl::StrFormat("%.1f us", ns / 1e3);
  return absl::StrFormat("%.1f ms", ns / 1e6);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

absl::string_view DesignFigure(absl::string_view category) {
  if (category == "hip_api") return "~10 ns";
  if (category == "clr") return "~50 ns";
  if (category == "hsa_api") return "~100 ns";
  if (category == "hsakmt") return "~50 ns";
  if (category == "kfd") return "1-2 us per ioctl";
  return "";
}

void TourChart::Record(Layer layer, absl::string_view message) {
  if (forward_ != nullptr) forward_->Record(layer, message);
  if (layer == Layer::kKfd) return;  // each ioctl is its kfd slice, drawn with its decoded arguments
  const uint64_t now = trace_internal::NowNs();
  ScopedLock lock(&mu_);
  events_.push_back(Event{TraceThreadId(), now, now, 0, CategoryOf(layer), "", std::string(message), true});
}

void TourChart::Slice(const TraceSliceRecord& slice) {
  if (forward_ != nullptr) forward_->Slice(slice);
  std::string detail;
  for (const auto& [key, value] : *slice.args) {
    if (key == "args") absl::StrAppend(&detail, "(", value, ")");
    if (key == "result") absl::StrAppend(&detail, " = ", value);
  }
  ScopedLock lock(&mu_);
  events_.push_back(Event{slice.thread, slice.begin_ns, slice.end_ns, slice.depth, slice.category,
                          std::string(slice.name), std::move(detail), false});
}

void TourChart::Flow(const TraceFlowRecord& flow) {
  if (forward_ != nullptr) forward_->Flow(flow);
}

void TourChart::ThreadName(uint32_t thread, absl::string_view name) {
  if (forward_ != nullptr) forward_->ThreadName(thread, name);
}

void TourChart::Discard() {
  ScopedLock lock(&mu_);
  events_.clear();
}

void TourChart::Print(std::FILE* out, size_t max_lines) {
  std::vector<Event> events;
  {
    ScopedLock lock(&mu_);
    events.swap(events_);
  }
  const uint32_t self = TraceThreadId();
  // Caller first: by start time; a slice before the slices and lines it contains.
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.begin_ns != b.begin_ns) return a.begin_ns < b.begin_ns;
    return a.depth < b.depth;
  });
  std::string header;
  for (const char* column : {"hip_api", "clr", "hsa_api", "hsakmt", "kfd", "engines"}) {
    absl::StrAppend(&header, absl::StrFormat("%-*s", kColumn, column));
  }
  std::fprintf(out, "%s\n", header.c_str());
  // The column of the innermost open slice on this thread, to draw each call's arrow from its caller.
  std::vector<std::pair<uint64_t, int>> open;  // (end_ns, column)
  size_t printed = 0;
  size_t left_out = 0;
  auto emit = [&](const std::string& line) {
    if (printed < max_lines) {
      std::fprintf(out, "%s\n", line.c_str());
      ++printed;
    } else {
      ++left_out;
    }
  };
  for (const Event& e : events) {
    const bool engine = e.category == TraceCategory::kSdma || e.category == TraceCategory::kCompute;
    if (e.thread != self && !engine) continue;  // other host threads (the runtime's helpers) are left out
    if (engine && e.depth > 0) continue;
    const int column = ColumnOf(e.category);
    std::string text;
    if (engine) {
      // Asynchronous: the engine's own thread picks the work up.
      text = absl::StrCat(std::string(static_cast<size_t>(column * kColumn), ' '), "~ ", CategoryName(e.category),
                          ": ", e.name, "  ", Duration(e.end_ns - e.begin_ns));
      emit(text);
      continue;
    }
    while (!open.empty() && open.back().first < e.begin_ns) open.pop_back();
    if (e.line) {
      text = absl::StrCat(std::string(static_cast<size_t>(column * kColumn), ' '), "| ", e.detail);
      emit(text);
      continue;
    }
    if (open.empty() || open.back().second >= column) {
      text = absl::StrCat(std::string(static_cast<size_t>(column * kColumn), ' '), e.name);
    } else {
      const int from = open.back().second;
      const int dashes = std::max(1, (column - from) * kColumn - 3);
      text = absl::StrCat(std::string(static_cast<size_t>(from * kColumn), ' '), "+",
                          std::string(static_cast<size_t>(dashes), '-'), "> ", e.name);
    }
    absl::StrAppend(&text, e.detail, "  ", Duration(e.end_ns - e.begin_ns));
    emit(text);
    open.emplace_back(e.end_ns, column);
  }
  if (left_out > 0) std::fprintf(out, "... and %zu more\n", left_out);
}

std::vector<TourChart::LayerCost> TourChart::TakeCosts(absl::string_view name) {
  std::vector<Event> events;
  {
    ScopedLock lock(&mu_);
    events.swap(events_);
  }
  const uint32_t self = TraceThreadId();
  std::vector<const Event*> slices;
  for (const Event& e : events) {
    if (!e.line && e.thread == self) slices.push_back(&e);
  }
  std::sort(slices.begin(), slices.end(), [](const Event* a, const Event* b) {
    return a->begin_ns != b->begin_ns ? a->begin_ns < b->begin_ns : a->depth < b->depth;
  });
  // Self time of each slice: its duration less its direct children's.
  std::map<const Event*, uint64_t> self_ns;
  std::vector<const Event*> open;
  for (const Event* e : slices) {
    while (!open.empty() && open.back()->end_ns < e->begin_ns) open.pop_back();
    self_ns[e] = e->end_ns - e->begin_ns;
    if (!open.empty()) {
      uint64_t& parent = self_ns[open.back()];
      parent -= std::min(parent, e->end_ns - e->begin_ns);
    }
    open.push_back(e);
  }
  // Per call of `name` (a top-level slice), each layer's self time summed over the slices inside it.
  std::map<std::string, std::vector<double>> per_layer;
  for (const Event* call : slices) {
    if (call->depth != 0 || call->name != name) continue;
    std::map<std::string, double> sums;
    for (const Event* e : slices) {
      if (e->begin_ns >= call->begin_ns && e->end_ns <= call->end_ns) {
        sums[std::string(CategoryName(e->category))] += static_cast<double>(self_ns[e]);
      }
    }
    for (const auto& [category, ns] : sums) per_layer[category].push_back(ns);
  }
  std::vector<LayerCost> out;
  for (const char* category : {"hip_api", "clr", "hsa_api", "hsakmt", "kfd"}) {
    auto it = per_layer.find(category);
    if (it == per_layer.end()) continue;
    out.push_back(LayerCost{category, Median(it->second), it->second.size()});
  }
  return out;
}

}  // namespace hipmem::tools
