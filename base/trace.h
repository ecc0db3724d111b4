// A process-wide trace of what each layer did, for `hipmem tour` now and the five-layer trace later.
//
// Layers call Trace(layer, ...) at the points a ROCm engineer would want to see (an ioctl issued,
// a pool chosen). Without an installed sink that is one relaxed atomic load: the message is not
// even formatted. Thread-safe.
#ifndef HIPMEM_BASE_TRACE_H_
#define HIPMEM_BASE_TRACE_H_

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hipmem {

enum class Layer { kHip, kClr, kHsa, kThunk, kKfd };

absl::string_view LayerName(Layer layer);

// Receives every trace line; must be thread-safe. Not owned by the trace.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Record(Layer layer, absl::string_view message) = 0;
};

namespace trace_internal {
extern std::atomic<TraceSink*> g_sink;
}  // namespace trace_internal

// Installs `sink` (nullptr removes it) and returns the previous one. The sink must outlive its
// installation.
TraceSink* SetTraceSink(TraceSink* sink);

inline bool TraceEnabled() { return trace_internal::g_sink.load(std::memory_order_relaxed) != nullptr; }

template <typename... Args>
void Trace(Layer layer, const Args&... args) {
  TraceSink* sink = trace_internal::g_sink.load(std::memory_order_acquire);
  if (sink != nullptr) sink->Record(layer, absl::StrCat(args...));
}

}  // namespace hipmem

#endif  // HIPMEM_BASE_TRACE_H_
