#include "base/trace.h"

#include <time.h>
#include <unistd.h>

#include <memory>

#include <string>
#include <utility>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "base/trace_environment.h"

namespace hipmem {

namespace trace_internal {
std::atomic<TraceSink*> g_sink{nullptr};

uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {
ABSL_CONST_INIT absl::Mutex g_flows_mu(absl::kConstInit);
// The flows started and not yet ended. A step or end point is drawn only for a started flow, so an engine may offer
// an end for every packet it runs while only the packets a traced host enqueued have arrows. Leaked, as the file sink.
absl::flat_hash_set<uint64_t>* g_open_flows ABSL_GUARDED_BY(g_flows_mu) = nullptr;
}  // namespace

void EmitFlow(TraceCategory category, const char* name, uint64_t id, TraceFlowPhase phase) {
  TraceSink* sink = g_sink.load(std::memory_order_acquire);
  if (sink == nullptr) return;
  {
    ScopedLock lock(&g_flows_mu);
    if (g_open_flows == nullptr) g_open_flows = new absl::flat_hash_set<uint64_t>();
    if (phase == TraceFlowPhase::kStart) {
      g_open_flows->insert(id);
    } else if (phase == TraceFlowPhase::kEnd ? g_open_flows->erase(id) == 0 : !g_open_flows->contains(id)) {
      return;
    }
  }
  sink->Flow(TraceFlowRecord{category, name, id, phase, NowNs(), TraceThreadId()});
}
}  // namespace trace_internal

namespace {

ABSL_CONST_INIT absl::Mutex g_names_mu(absl::kConstInit);
// Leaked: threads may name themselves while the process exits.
std::vector<std::pair<uint32_t, std::string>>* g_names ABSL_GUARDED_BY(g_names_mu) = nullptr;

thread_local uint32_t t_thread = 0;
thread_local int t_depth = 0;

// HIPMEM_TRACE=FILE and the log switches install their sinks before main, so the first hip call is already traced.
const bool g_installed_from_environment = InstallTraceSinksFromEnvironment();

}  // namespace

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

absl::string_view CategoryName(TraceCategory category) {
  switch (category) {
    case TraceCategory::kHipApi: return "hip_api";
    case TraceCategory::kClr: return "clr";
    case TraceCategory::kHsaApi: return "hsa_api";
    case TraceCategory::kHsakmt: return "hsakmt";
    case TraceCategory::kKfd: return "kfd";
    case TraceCategory::kSdma: return "sdma";
    case TraceCategory::kCompute: return "compute";
  }
  return "?";
}

TraceCategory CategoryOf(Layer layer) {
  switch (layer) {
    case Layer::kHip: return TraceCategory::kHipApi;
    case Layer::kClr: return TraceCategory::kClr;
    case Layer::kHsa: return TraceCategory::kHsaApi;
    case Layer::kThunk: return TraceCategory::kHsakmt;
    case Layer::kKfd: return TraceCategory::kKfd;
  }
  return TraceCategory::kHipApi;
}

TraceSink* SetTraceSink(TraceSink* sink) {
  return trace_internal::g_sink.exchange(sink, std::memory_order_acq_rel);
}

uint32_t TraceThreadId() {
  // The OS thread id: the same in every copy of this code a process holds (trace_shared_sink.h), and what other
  // tools show for the thread.
  if (t_thread == 0) t_thread = static_cast<uint32_t>(gettid());
  return t_thread;
}

void SetTraceThreadName(std::string name) {
  const uint32_t thread = TraceThreadId();
  {
    ScopedLock lock(&g_names_mu);
    if (g_names == nullptr) g_names = new std::vector<std::pair<uint32_t, std::string>>();
    g_names->emplace_back(thread, name);
  }
  TraceSink* sink = trace_internal::g_sink.load(std::memory_order_acquire);
  if (sink != nullptr) sink->ThreadName(thread, name);
}

std::vector<std::pair<uint32_t, std::string>> TraceThreadNames() {
  ScopedLock lock(&g_names_mu);
  if (g_names == nullptr) return {};
  return *g_names;
}

struct TraceSlice::Frame {
  TraceCategory category = TraceCategory::kHipApi;
  const char* name = nullptr;
  uint64_t begin_ns = 0;
  int depth = 0;
  std::vector<std::pair<std::string, std::string>> args;
};

namespace {
// The calling thread's traced slices, one frame per nesting depth. Slices end in the reverse order they began, on
// the thread that began them, so the frame at a depth belongs to the one open slice there.
// Destroyed at the thread's exit; for the main thread that is before the static destructors and atexit handlers
// (__hipUnregisterFatBinary frees loaded code objects through traced calls), so it says when it is gone: a slice that
// begins after that is not traced (t_frames_gone, trivially destructible, stays readable).
thread_local bool t_frames_gone = false;
struct ThreadFrames {
  ~ThreadFrames() { t_frames_gone = true; }
  std::vector<std::unique_ptr<TraceSlice::Frame>> frames;
};
thread_local ThreadFrames t_thread_frames;
}  // namespace

TraceSlice::Frame* TraceSlice::Begin(TraceCategory category, const char* name, std::string args) {
  if (t_frames_gone) return nullptr;
  std::vector<std::unique_ptr<Frame>>& frames = t_thread_frames.frames;
  const int depth = t_depth++;
  if (frames.size() <= static_cast<size_t>(depth)) frames.push_back(std::make_unique<Frame>());
  Frame* frame = frames[depth].get();
  frame->category = category;
  frame->name = name;
  frame->depth = depth;
  frame->args.clear();
  if (!args.empty()) frame->args.emplace_back("args", std::move(args));
  frame->begin_ns = trace_internal::NowNs();
  TraceSink* sink = trace_internal::g_sink.load(std::memory_order_acquire);
  if (sink != nullptr) {
    const absl::string_view described = frame->args.empty() ? absl::string_view() : frame->args.front().second;
    sink->SliceBegin(TraceSliceBeginRecord{category, name, frame->begin_ns, TraceThreadId(), depth, described});
  }
  return frame;
}

void TraceSlice::AddArg(Frame* frame, absl::string_view key, std::string value) {
  frame->args.emplace_back(std::string(key), std::move(value));
}

void TraceSlice::End(Frame* frame) {
  const uint64_t end_ns = trace_internal::NowNs();
  --t_depth;
  // The sink in place now: the one this slice began under may have been uninstalled meanwhile.
  TraceSink* sink = trace_internal::g_sink.load(std::memory_order_acquire);
  if (sink == nullptr) return;
  sink->Slice(
      TraceSliceRecord{frame->category, frame->name, &frame->args, frame->begin_ns, end_ns, TraceThreadId(), frame->depth});
}

}  // namespace hipmem
