// `hipmem tour`'s view of the trace: each step drawn as a sequence chart, caller first, with one column per layer
// (hip_api, clr, hsa_api, hsakmt, kfd) and the simulated engines' work beside them; and the cost table, each layer's
// own time per call (its slice's duration less the slices it called), as medians over repetitions.
//
// It is a TraceSink: install it, run a step, then Print the step. Records are also forwarded to another sink (the
// `--trace FILE` writer), so the chart and the file show the same run. Thread-safe.
#ifndef HIPMEM_TOOLS_TOUR_CHART_H_
#define HIPMEM_TOOLS_TOUR_CHART_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/trace.h"

namespace hipmem::tools {

class TourChart final : public TraceSink {
 public:
  // `forward` (may be null) receives every record too; not owned, must outlive this.
  explicit TourChart(TraceSink* forward) : forward_(forward) {}

  void Record(Layer layer, absl::string_view message) override;
  void Slice(const TraceSliceRecord& slice) override;
  void Flow(const TraceFlowRecord& flow) override;
  void ThreadName(uint32_t thread, absl::string_view name) override;

  // Draws what the calling thread (and the engines) did since the last Print or Discard, caller first, at most
  // `max_lines` lines (then how many more there were), and forgets it.
  void Print(std::FILE* out, size_t max_lines);
  // Forgets what was recorded (a warm-up the chart should not show).
  void Discard();

  // Per-layer self time of each slice named `name` recorded since the last call, on the calling thread: for each
  // category, the median over the calls of the time spent in that layer's own code during one call.
  struct LayerCost {
    std::string category;
    double median_ns = 0;
    size_t calls = 0;  // calls in which the layer ran
  };
  std::vector<LayerCost> TakeCosts(absl::string_view name);

 private:
  struct Event {
    uint32_t thread = 0;
    uint64_t begin_ns = 0;
    uint64_t end_ns = 0;  // == begin_ns for a line
    int depth = 0;
    TraceCategory category = TraceCategory::kHipApi;
    std::string name;
    std::string detail;  // a kfd slice's decoded arguments; a line's text
    bool line = false;
  };

  TraceSink* const forward_;
  absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
};

// The design documents' figures for one layer's own cost, to print beside the measured ones.
absl::string_view DesignFigure(absl::string_view category);

}  // namespace hipmem::tools

#endif  // HIPMEM_TOOLS_TOUR_CHART_H_
