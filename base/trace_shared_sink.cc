#include "base/trace_shared_sink.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/trace_file_sink.h"

namespace hipmem {
namespace {

// ---- the owner's side: this copy's file sink behind the C table ----

TraceSink* OwnFileSink() {
  // Opened once, by whichever copy first asks: this copy's constructors may not have run yet, so nothing here may
  // depend on them (the once_flag and the pointer are constant-initialised).
  static std::once_flag once;
  static TraceSink* sink = nullptr;
  std::call_once(once, [] { sink = OpenTraceFileSinkFromEnvironment(); });
  return sink;
}

absl::string_view View(const char* text, size_t length) { return absl::string_view(text, length); }

bool OwnerOpen() { return OwnFileSink() != nullptr; }

void OwnerRecord(uint32_t, int layer, const char* message, size_t length) {
  if (TraceSink* sink = OwnFileSink()) sink->Record(static_cast<Layer>(layer), View(message, length));
}

void OwnerSliceBegin(uint32_t thread, int category, const char* name, size_t name_length, uint64_t ns, int depth) {
  if (TraceSink* sink = OwnFileSink()) {
    sink->SliceBegin(
        TraceSliceBeginRecord{static_cast<TraceCategory>(category), View(name, name_length), ns, thread, depth});
  }
}

void OwnerSlice(uint32_t thread, int category, const char* name, size_t name_length, const HipmemTraceArgV1* args,
                size_t arg_count, uint64_t begin_ns, uint64_t end_ns, int depth) {
  TraceSink* sink = OwnFileSink();
  if (sink == nullptr) return;
  std::vector<std::pair<std::string, std::string>> copied;
  copied.reserve(arg_count);
  for (size_t i = 0; i < arg_count; ++i) {
    copied.emplace_back(std::string(args[i].key, args[i].key_length), std::string(args[i].value, args[i].value_length));
  }
  sink->Slice(TraceSliceRecord{static_cast<TraceCategory>(category), View(name, name_length), &copied, begin_ns, end_ns,
                               thread, depth});
}

void OwnerFlow(uint32_t thread, int category, const char* name, size_t name_length, uint64_t id, int phase,
               uint64_t ns) {
  if (TraceSink* sink = OwnFileSink()) {
    sink->Flow(TraceFlowRecord{static_cast<TraceCategory>(category), View(name, name_length), id,
                               static_cast<TraceFlowPhase>(phase), ns, thread});
  }
}

void OwnerThreadName(uint32_t thread, const char* name, size_t name_length) {
  if (TraceSink* sink = OwnFileSink()) sink->ThreadName(thread, View(name, name_length));
}

constexpr HipmemTraceSharedSinkV1 kOwnTable = {
    sizeof(HipmemTraceSharedSinkV1), &OwnerOpen, &OwnerRecord, &OwnerSliceBegin, &OwnerSlice, &OwnerFlow,
    &OwnerThreadName,
};

// ---- another copy's side: records forwarded to the owner ----

class ForwardingSink final : public TraceSink {
 public:
  explicit ForwardingSink(const HipmemTraceSharedSinkV1* owner) : owner_(owner) {}

  // The owner keeps its own clock, thread ids and file; the record's thread is the OS thread id in both copies.
  void Record(Layer layer, absl::string_view message) override {
    owner_->record(TraceThreadId(), static_cast<int>(layer), message.data(), message.size());
  }
  void SliceBegin(const TraceSliceBeginRecord& begin) override {
    owner_->slice_begin(begin.thread, static_cast<int>(begin.category), begin.name.data(), begin.name.size(), begin.ns,
                        begin.depth);
  }
  void Slice(const TraceSliceRecord& slice) override {
    std::vector<HipmemTraceArgV1> args;
    args.reserve(slice.args->size());
    for (const auto& [key, value] : *slice.args) args.push_back({key.data(), key.size(), value.data(), value.size()});
    owner_->slice(slice.thread, static_cast<int>(slice.category), slice.name.data(), slice.name.size(), args.data(),
                  args.size(), slice.begin_ns, slice.end_ns, slice.depth);
  }
  void Flow(const TraceFlowRecord& flow) override {
    owner_->flow(flow.thread, static_cast<int>(flow.category), flow.name.data(), flow.name.size(), flow.id,
                 static_cast<int>(flow.phase), flow.ns);
  }
  void ThreadName(uint32_t thread, absl::string_view name) override {
    owner_->thread_name(thread, name.data(), name.size());
  }

 private:
  const HipmemTraceSharedSinkV1* const owner_;
};

// The owner's table: the first exported definition in the process's lookup order, or this copy's when none is found.
const HipmemTraceSharedSinkV1* OwnerTable() {
  using Getter = const HipmemTraceSharedSinkV1* (*)();
  auto first = reinterpret_cast<Getter>(dlsym(RTLD_DEFAULT, "hipmem_trace_shared_sink_v1"));
  if (first == nullptr) return &kOwnTable;
  const HipmemTraceSharedSinkV1* table = first();
  // A table too small for version 1 is no owner this copy can use: it keeps its own file (and the file is the
  // other copy's too, which only a mismatched install of two hipmem builds can cause).
  if (table == nullptr || table->size < sizeof(HipmemTraceSharedSinkV1)) return &kOwnTable;
  return table;
}

}  // namespace

TraceSink* ProcessTraceFileSink() {
  const HipmemTraceSharedSinkV1* owner = OwnerTable();
  if (owner == &kOwnTable) return OwnFileSink();
  if (!owner->open()) return nullptr;
  auto* sink = new ForwardingSink(owner);
  // Threads this copy named before it installed the forwarder.
  for (const auto& [thread, name] : TraceThreadNames()) sink->ThreadName(thread, name);
  return sink;
}

}  // namespace hipmem

extern "C" __attribute__((visibility("default"))) const HipmemTraceSharedSinkV1* hipmem_trace_shared_sink_v1(void) {
  return &hipmem::kOwnTable;
}
