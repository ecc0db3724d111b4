#include "base/trace.h"

namespace hipmem {

namespace trace_internal {
std::atomic<TraceSink*> g_sink{nullptr};
}  // namespace trace_internal

absl::string_view LayerName(Layer layer) {
  switch (layer) {
    case Layer::kHip: return "hip";
    case Layer::kClr: return "clr";
    case Layer::kHsa: return "hsa";
    case Layer::kThunk: return "thunk";
    case Layer::kKfd: return "kfd";
  }
  return "?";
}

TraceSink* SetTraceSink(TraceSink* sink) {
  return trace_internal::g_sink.exchange(sink, std::memory_order_acq_rel);
}

}  // namespace hipmem
