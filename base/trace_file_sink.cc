#include "base/trace_file_sink.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "base/scoped_lock.h"

namespace hipmem {
namespace {

// Microseconds with nanosecond precision, the unit the format's "ts" and "dur" are in.
std::string Micros(uint64_t ns) { return absl::StrFormat("%d.%03d", ns / 1000, ns % 1000); }

const char* FlowPhase(TraceFlowPhase phase) {
  switch (phase) {
    case TraceFlowPhase::kStart: return "s";
    case TraceFlowPhase::kStep: return "t";
    case TraceFlowPhase::kEnd: return "f";
  }
  return "s";
}

TraceFileSink* g_environment_sink = nullptr;  // leaked: threads may trace while the process exits

void CloseEnvironmentSink() {
  if (g_environment_sink != nullptr) g_environment_sink->Close();
}

}  // namespace

void AppendJsonString(std::string& out, absl::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", static_cast<unsigned char>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

absl::StatusOr<std::unique_ptr<TraceFileSink>> TraceFileSink::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "we");
  if (file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("HIPMEM_TRACE=", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<TraceFileSink> sink(new TraceFileSink(file, static_cast<int>(getpid())));
  std::fputs("[\n", file);
  std::string process = absl::StrCat("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":", sink->pid_,
                                     ",\"tid\":0,\"args\":{\"name\":");
  char exe[256] = {};
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  AppendJsonString(process, n > 0 ? absl::StrCat("hipmem: ", absl::string_view(exe, static_cast<size_t>(n)))
                                  : std::string("hipmem"));
  process += "}}";
  sink->Append(process);
  for (const auto& [thread, name] : TraceThreadNames()) sink->ThreadName(thread, name);
  return sink;
}

TraceFileSink::~TraceFileSink() { Close(); }

void TraceFileSink::Close() {
  ScopedLock lock(&mu_);
  if (file_ == nullptr) return;
  if (static_cast<int>(getpid()) == pid_) {
    // Slices still open (an engine mid-packet, the host inside a call) end here.
    const uint64_t now = trace_internal::NowNs();
    for (const auto& [key, open] : open_) {
      std::vector<std::pair<std::string, std::string>> args;
      if (!open.args.empty()) args.emplace_back("args", open.args);
      AppendLocked(SliceEvent(open.name, open.category, open.begin_ns, std::max(now, open.begin_ns), key.first, args,
                              /*unfinished=*/true));
    }
    std::fputs("\n]\n", file_);
    std::fclose(file_);
  }
  open_.clear();
  file_ = nullptr;
}

void TraceFileSink::Append(const std::string& event) {
  ScopedLock lock(&mu_);
  AppendLocked(event);
}

void TraceFileSink::AppendLocked(const std::string& event) {
  if (file_ == nullptr || static_cast<int>(getpid()) != pid_) return;
  if (!first_) std::fputs(",\n", file_);
  first_ = false;
  std::fwrite(event.data(), 1, event.size(), file_);
}

std::string TraceFileSink::Head(absl::string_view name, absl::string_view category, char phase, uint64_t ns,
                                uint32_t thread) const {
  std::string out = "{\"name\":";
  AppendJsonString(out, name);
  absl::StrAppend(&out, ",\"cat\":\"", std::string(category), "\",\"ph\":\"", std::string(1, phase),
                  "\",\"ts\":", Micros(ns), ",\"pid\":", pid_, ",\"tid\":", thread);
  return out;
}

void TraceFileSink::Record(Layer layer, absl::string_view message) {
  std::string event = Head(message, CategoryName(CategoryOf(layer)), 'i', trace_internal::NowNs(), TraceThreadId());
  event += ",\"s\":\"t\"}";
  Append(event);
}

std::string TraceFileSink::SliceEvent(absl::string_view name, TraceCategory category, uint64_t begin_ns,
                                      uint64_t end_ns, uint32_t thread,
                                      const std::vector<std::pair<std::string, std::string>>& args,
                                      bool unfinished) const {
  std::string event = Head(name, CategoryName(category), 'X', begin_ns, thread);
  absl::StrAppend(&event, ",\"dur\":", Micros(end_ns - begin_ns));
  if (!args.empty() || unfinished) {
    event += ",\"args\":{";
    bool first = true;
    for (const auto& [key, value] : args) {
      if (!first) event.push_back(',');
      first = false;
      AppendJsonString(event, key);
      event.push_back(':');
      AppendJsonString(event, value);
    }
    if (unfinished) absl::StrAppend(&event, first ? "" : ",", "\"unfinished\":\"open when the trace closed\"");
    event.push_back('}');
  }
  event.push_back('}');
  return event;
}

void TraceFileSink::SliceBegin(const TraceSliceBeginRecord& begin) {
  ScopedLock lock(&mu_);
  if (file_ == nullptr) return;
  open_.insert_or_assign(std::pair(begin.thread, begin.depth),
                         OpenSlice{begin.category, std::string(begin.name), std::string(begin.args), begin.ns});
}

void TraceFileSink::Slice(const TraceSliceRecord& slice) {
  const std::string event =
      SliceEvent(slice.name, slice.category, slice.begin_ns, slice.end_ns, slice.thread, *slice.args, false);
  ScopedLock lock(&mu_);
  open_.erase(std::pair(slice.thread, slice.depth));
  AppendLocked(event);
}

void TraceFileSink::Flow(const TraceFlowRecord& flow) {
  std::string event = Head(flow.name, CategoryName(flow.category), FlowPhase(flow.phase)[0], flow.ns, flow.thread);
  absl::StrAppend(&event, ",\"id\":\"0x", absl::Hex(flow.id), "\"");
  // The end binds to the slice enclosing it, as start and step points always do.
  if (flow.phase == TraceFlowPhase::kEnd) event += ",\"bp\":\"e\"";
  event.push_back('}');
  Append(event);
}

void TraceFileSink::ThreadName(uint32_t thread, absl::string_view name) {
  std::string event = absl::StrCat("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":", pid_, ",\"tid\":", thread,
                                   ",\"args\":{\"name\":");
  AppendJsonString(event, name);
  event += "}}";
  Append(event);
}

TraceFileSink* OpenTraceFileSinkFromEnvironment() {
  const char* variable = std::getenv("HIPMEM_TRACE");
  if (variable == nullptr || *variable == '\0') return nullptr;
  // "%p" becomes the process id, so each process of a command that starts several writes its own file.
  const std::string path = absl::StrReplaceAll(variable, {{"%p", absl::StrCat(getpid())}});
  absl::StatusOr<std::unique_ptr<TraceFileSink>> sink = TraceFileSink::Open(path);
  if (!sink.ok()) {
    std::fprintf(stderr, "hipmem: %s; not tracing\n", std::string(sink.status().message()).c_str());
    return nullptr;
  }
  g_environment_sink = sink->release();
  std::atexit(CloseEnvironmentSink);
  return g_environment_sink;
}

bool InstallTraceFileSinkFromEnvironment() {
  TraceFileSink* sink = OpenTraceFileSinkFromEnvironment();
  if (sink == nullptr) return false;
  SetTraceSink(sink);
  return true;
}

}  // namespace hipmem
