// A process-wide trace of what each layer did: for `hipmem tour`, for `HIPMEM_TRACE=FILE` (a Chrome trace-event file
// that Perfetto and chrome://tracing open), and for tests that watch an engine's choices.
//
// Three kinds of record reach the installed sink:
//   - lines, Trace(layer, ...): a point a ROCm engineer would want to see (an ioctl issued, a pool chosen);
//   - slices, TraceSlice: an entry point's whole duration on its thread, with a category named after the layer as
//     ROCm's tools name them (hip_api, clr, hsa_api, hsakmt, kfd) or after the simulated engine (sdma, compute), and
//     arguments formatted only when someone listens;
//   - flows, TraceFlow*: arrows from a host enqueue to the engine work it causes and on to the waiter it wakes,
//     matched by an id both sides can compute (a queue's ring slot, a signal's address).
// Without an installed sink each of them costs one relaxed atomic load. Thread-safe. A sink must stay alive until
// no thread can still be tracing into it (the file sink never dies).
#ifndef HIPMEM_BASE_TRACE_H_
#define HIPMEM_BASE_TRACE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hipmem {

enum class Layer { kHip, kClr, kHsa, kThunk, kKfd };

absl::string_view LayerName(Layer layer);

// The trace categories: the five layers, under the names rocprofiler and the design documents use, and the
// simulated engines, each on its own threads (so their own tracks).
enum class TraceCategory : uint8_t { kHipApi, kClr, kHsaApi, kHsakmt, kKfd, kSdma, kCompute };

absl::string_view CategoryName(TraceCategory category);
TraceCategory CategoryOf(Layer layer);

// One finished slice. Views are valid only during the sink call.
struct TraceSliceRecord {
  TraceCategory category;
  absl::string_view name;
  const std::vector<std::pair<std::string, std::string>>* args;  // never null
  uint64_t begin_ns;  // steady clock
  uint64_t end_ns;
  uint32_t thread;  // TraceThreadId() of the thread it ran on
  int depth;        // slices open on that thread when it began
};

// A slice starting (for sinks that print as things happen, as a log does). Views are valid only during the call.
struct TraceSliceBeginRecord {
  TraceCategory category;
  absl::string_view name;
  uint64_t ns;
  uint32_t thread;
  int depth;
  absl::string_view args = {};  // what the slice started with (TraceSlice's `describe`); empty when none
};

enum class TraceFlowPhase : uint8_t { kStart, kStep, kEnd };

struct TraceFlowRecord {
  TraceCategory category;
  absl::string_view name;
  uint64_t id;
  TraceFlowPhase phase;
  uint64_t ns;
  uint32_t thread;
};

// Receives every record; must be thread-safe. Not owned by the trace.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Record(Layer layer, absl::string_view message) = 0;
  virtual void SliceBegin(const TraceSliceBeginRecord& begin) { (void)begin; }
  virtual void Slice(const TraceSliceRecord& slice) { (void)slice; }
  virtual void Flow(const TraceFlowRecord& flow) { (void)flow; }
  // A thread named itself (SetTraceThreadName); `name` is valid during the call.
  virtual void ThreadName(uint32_t thread, absl::string_view name) {
    (void)thread;
    (void)name;
  }
};

namespace trace_internal {
extern std::atomic<TraceSink*> g_sink;
uint64_t NowNs();
void EmitFlow(TraceCategory category, const char* name, uint64_t id, TraceFlowPhase phase);
}  // namespace trace_internal

// Installs `sink` (nullptr removes it) and returns the previous one. The sink must outlive its
// installation and every slice begun while it was installed.
TraceSink* SetTraceSink(TraceSink* sink);

inline bool TraceEnabled() { return trace_internal::g_sink.load(std::memory_order_relaxed) != nullptr; }

template <typename... Args>
void Trace(Layer layer, const Args&... args) {
  TraceSink* sink = trace_internal::g_sink.load(std::memory_order_acquire);
  if (sink != nullptr) sink->Record(layer, absl::StrCat(args...));
}

// The calling thread's OS thread id, as traces name it.
uint32_t TraceThreadId();
// Names the calling thread's track ("sdma gpu 0x1e6a engine 0"); remembered, and given to sinks installed later.
void SetTraceThreadName(std::string name);
// Every thread name set so far, for a sink that starts late.
std::vector<std::pair<uint32_t, std::string>> TraceThreadNames();

// The duration of one entry point on the calling thread, from construction to destruction. `name` must be a
// string literal or otherwise outlive the slice (__func__ does). Not movable: it lives in one scope.
//
// Untraced, a slice is one pointer: construction is the relaxed load and a store, destruction a test. Everything a
// traced slice keeps lives in a frame of its thread's own stack of frames (reused, so a traced slice allocates
// nothing once its depth has been reached before), which is what keeps the untraced object this small.
class TraceSlice {
 public:
  TraceSlice(TraceCategory category, const char* name)
      : frame_(trace_internal::g_sink.load(std::memory_order_relaxed) != nullptr ? Begin(category, name, std::string())
                                                                                : nullptr) {}
  // A slice that starts with a description (a call's arguments): `describe()` runs only when the slice is traced,
  // and its text is the slice's "args" argument and its start record's `args`.
  template <typename Describe>
  TraceSlice(TraceCategory category, const char* name, const Describe& describe)
      : frame_(trace_internal::g_sink.load(std::memory_order_relaxed) != nullptr
                   ? Begin(category, name, describe())
                   : nullptr) {}
  ~TraceSlice() {
    if (frame_ != nullptr) End(frame_);
  }
  TraceSlice(const TraceSlice&) = delete;
  TraceSlice& operator=(const TraceSlice&) = delete;

  bool active() const { return frame_ != nullptr; }

  // Adds an argument shown with the slice; formatted only when the slice is traced.
  template <typename... Args>
  void Arg(absl::string_view key, const Args&... value) {
    if (frame_ != nullptr) AddArg(frame_, key, absl::StrCat(value...));
  }

  // What a traced slice keeps until it ends (defined in trace.cc).
  struct Frame;

 private:
  static Frame* Begin(TraceCategory category, const char* name, std::string args);
  static void End(Frame* frame);
  static void AddArg(Frame* frame, absl::string_view key, std::string value);

  Frame* const frame_;  // null when the slice is not traced
};

// Flow arrows. Call them inside a slice: a flow point binds to the slice enclosing it on its thread. The same
// `id` on start, steps and end draws one arrow chain; a step or end whose id no start opened is not drawn (so an
// engine may offer one for every packet), and a start of an id still open begins a new chain.
inline void TraceFlowStart(TraceCategory category, const char* name, uint64_t id) {
  if (TraceEnabled()) trace_internal::EmitFlow(category, name, id, TraceFlowPhase::kStart);
}
inline void TraceFlowStep(TraceCategory category, const char* name, uint64_t id) {
  if (TraceEnabled()) trace_internal::EmitFlow(category, name, id, TraceFlowPhase::kStep);
}
inline void TraceFlowEnd(TraceCategory category, const char* name, uint64_t id) {
  if (TraceEnabled()) trace_internal::EmitFlow(category, name, id, TraceFlowPhase::kEnd);
}

// Flow ids both ends can compute from what they share.
inline uint64_t QueueSlotFlowId(uint64_t ring_address, uint64_t write_index) {
  return (ring_address * 0x9e3779b97f4a7c15ull) ^ write_index;
}
inline uint64_t SignalFlowId(uint64_t signal_address, int64_t value) {
  return (signal_address * 0xc2b2ae3d27d4eb4full) ^ static_cast<uint64_t>(value) ^ 0x5349474e414cull;
}

}  // namespace hipmem

#endif  // HIPMEM_BASE_TRACE_H_
