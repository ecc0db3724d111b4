#include "base/trace.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "base/trace_file_sink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/chrome_trace_reader.h"

namespace hipmem {
namespace {

using ::hipmem::testing::ReadChromeTrace;
using ::hipmem::testing::TraceEvent;
using ::testing::HasSubstr;

const std::set<std::string> kCategories = {"hip_api", "clr", "hsa_api", "hsakmt", "kfd", "sdma", "compute"};

class Recorder final : public TraceSink {
 public:
  struct Slice {
    std::string name;
    TraceCategory category;
    int depth;
    uint64_t begin_ns;
    uint64_t end_ns;
    std::vector<std::pair<std::string, std::string>> args;
  };
  void Record(Layer, absl::string_view message) override {
    ScopedLock lock(&mu);
    lines.emplace_back(message);
  }
  void Slice(const TraceSliceRecord& s) override {
    ScopedLock lock(&mu);
    slices.push_back({std::string(s.name), s.category, s.depth, s.begin_ns, s.end_ns, *s.args});
  }
  absl::Mutex mu;
  std::vector<std::string> lines;
  std::vector<struct Slice> slices;
};

std::string TempPath(const char* stem) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", stem, "_", getpid(), ".json");
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Engine threads name themselves as they start, many at once (every queue of every GPU). Under --config=tsan this
// is the check that the names' lock is one TSan sees (base/scoped_lock.h): with absl::MutexLock it reported a race.
TEST(TraceThreadNamesTest, ThreadsNamingThemselvesAtOnceAreAllKept) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<uint32_t> ids(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([i, &ids] {
      ids[i] = TraceThreadId();
      SetTraceThreadName(absl::StrCat("engine ", i));
    });
  }
  for (std::thread& t : threads) t.join();
  const std::vector<std::pair<uint32_t, std::string>> names = TraceThreadNames();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_THAT(names, ::testing::Contains(std::pair(ids[i], absl::StrCat("engine ", i))));
  }
}

TEST(TraceSliceTest, WithoutASinkNothingIsRecordedOrActive) {
  ASSERT_EQ(SetTraceSink(nullptr), nullptr);
  TraceSlice slice(TraceCategory::kHipApi, "hipMalloc");
  EXPECT_FALSE(slice.active());
  slice.Arg("size", 4096);
  EXPECT_FALSE(TraceEnabled());
}

TEST(TraceSliceTest, NestedSlicesReportDepthTimesAndArguments) {
  Recorder recorder;
  SetTraceSink(&recorder);
  {
    TraceSlice outer(TraceCategory::kHipApi, "hipMemcpy");
    outer.Arg("size", 1 << 20);
    {
      TraceSlice inner(TraceCategory::kClr, "blit");
      inner.Arg("path", "sdma");
      Trace(Layer::kClr, "chose ", "SDMA");
    }
  }
  SetTraceSink(nullptr);
  ASSERT_EQ(recorder.slices.size(), 2u);
  const auto& inner = recorder.slices[0];  // slices are delivered as they end
  const auto& outer = recorder.slices[1];
  EXPECT_EQ(inner.name, "blit");
  EXPECT_EQ(inner.depth, 1);
  EXPECT_EQ(outer.name, "hipMemcpy");
  EXPECT_EQ(outer.depth, 0);
  EXPECT_LE(outer.begin_ns, inner.begin_ns);
  EXPECT_GE(outer.end_ns, inner.end_ns);
  ASSERT_EQ(outer.args.size(), 1u);
  EXPECT_EQ(outer.args[0].second, "1048576");
  EXPECT_EQ(inner.args[0].first, "path");
  EXPECT_EQ(recorder.lines, std::vector<std::string>{"chose SDMA"});
}

TEST(TraceSliceTest, ASliceEndingAfterItsSinkWasRemovedGoesNowhere) {
  Recorder recorder;
  SetTraceSink(&recorder);
  {
    TraceSlice slice(TraceCategory::kHsaApi, "hsa_init");
    SetTraceSink(nullptr);
  }
  EXPECT_TRUE(recorder.slices.empty());
}

// The file a traced run leaves: nested slices on two threads, a named engine thread, a flow from the host's enqueue
// to the engine's work, and lines with characters JSON must escape; a strict reader accepts it and sees the nesting.
TEST(TraceFileSinkTest, WritesAStrictlyValidTraceWithNestingFlowsAndThreadNames) {
  const std::string path = TempPath("trace");
  absl::StatusOr<std::unique_ptr<TraceFileSink>> sink = TraceFileSink::Open(path);
  ASSERT_TRUE(sink.ok()) << sink.status();
  SetTraceSink(sink->get());
  {
    TraceSlice api(TraceCategory::kHipApi, "hipMemcpy");
    api.Arg("note", "a \"quoted\"\nline\\");
    {
      TraceSlice clr(TraceCategory::kClr, "Stream::Copy");
      TraceFlowStart(TraceCategory::kClr, "doorbell", 42);
      Trace(Layer::kClr, "tab\there");
    }
    std::thread engine([] {
      SetTraceThreadName("sdma test engine");
      TraceSlice work(TraceCategory::kSdma, "COPY_LINEAR");
      TraceFlowEnd(TraceCategory::kSdma, "doorbell", 42);
    });
    engine.join();
  }
  SetTraceSink(nullptr);
  (*sink)->Close();

  const std::string text = ReadFile(path);
  absl::StatusOr<std::vector<TraceEvent>> events = ReadChromeTrace(text, kCategories);
  ASSERT_TRUE(events.ok()) << events.status() << "\n" << text;
  const TraceEvent* api = nullptr;
  const TraceEvent* clr = nullptr;
  const TraceEvent* engine = nullptr;
  bool named = false;
  int flow_points = 0;
  for (const TraceEvent& e : *events) {
    if (e.name == "hipMemcpy") api = &e;
    if (e.name == "Stream::Copy") clr = &e;
    if (e.name == "COPY_LINEAR") engine = &e;
    if (e.ph == "M" && e.args.count("name") && e.args.at("name") == "sdma test engine") named = true;
    if (e.ph == "s" || e.ph == "f") ++flow_points;
  }
  ASSERT_TRUE(api != nullptr && clr != nullptr && engine != nullptr) << text;
  EXPECT_EQ(api->cat, "hip_api");
  EXPECT_EQ(api->args.at("note"), "a \"quoted\"\nline\\");
  EXPECT_EQ(::hipmem::testing::Parent(*events, *clr), api);
  EXPECT_NE(engine->tid, api->tid);
  EXPECT_TRUE(named);
  EXPECT_EQ(flow_points, 2);
  EXPECT_THAT(text, HasSubstr("tab\\there"));
}

// A host that waited for an engine's completion may close the trace while the engine is still inside the slice that
// raised it (the completion arrow starts before the slice ends): the slice is written at the close, ending there and
// marked unfinished, so every flow point stays inside a slice of its thread and the file reads strictly.
TEST(TraceFileSinkTest, ASliceStillOpenWhenTheFileClosesEndsThereWithItsFlowPointsInside) {
  const std::string path = TempPath("open_slice_trace");
  absl::StatusOr<std::unique_ptr<TraceFileSink>> sink = TraceFileSink::Open(path);
  ASSERT_TRUE(sink.ok()) << sink.status();
  SetTraceSink(sink->get());
  {
    TraceSlice api(TraceCategory::kHipApi, "hipLaunchKernel");
    TraceFlowStart(TraceCategory::kClr, "enqueue", 7);
  }
  std::atomic<bool> inside{false};
  std::atomic<bool> closed{false};
  std::thread engine([&] {
    TraceSlice work(TraceCategory::kCompute, "kernel dispatch", [] { return std::string("index=3"); });
    TraceFlowEnd(TraceCategory::kCompute, "enqueue", 7);
    TraceFlowStart(TraceCategory::kCompute, "completion", 8);
    inside.store(true);
    while (!closed.load()) std::this_thread::yield();
  });
  while (!inside.load()) std::this_thread::yield();
  SetTraceSink(nullptr);
  (*sink)->Close();
  closed.store(true);
  engine.join();

  const std::string text = ReadFile(path);
  absl::StatusOr<std::vector<TraceEvent>> events = ReadChromeTrace(text, kCategories);
  ASSERT_TRUE(events.ok()) << events.status() << "\n" << text;
  const TraceEvent* dispatch = nullptr;
  int flow_points = 0;
  for (const TraceEvent& e : *events) {
    if (e.ph == "X" && e.name == "kernel dispatch") dispatch = &e;
    if (e.ph == "s" || e.ph == "f") ++flow_points;
  }
  ASSERT_NE(dispatch, nullptr) << text;
  EXPECT_TRUE(dispatch->args.contains("unfinished")) << text;
  EXPECT_EQ(dispatch->args.at("args"), "index=3");
  EXPECT_EQ(flow_points, 3);
}

TEST(TraceFileSinkTest, AForkedChildWritesNothingIntoItsParentsFile) {
  const std::string path = TempPath("fork_trace");
  absl::StatusOr<std::unique_ptr<TraceFileSink>> sink = TraceFileSink::Open(path);
  ASSERT_TRUE(sink.ok()) << sink.status();
  SetTraceSink(sink->get());
  const pid_t child = fork();
  if (child == 0) {
    { TraceSlice slice(TraceCategory::kHipApi, "in the child"); }
    (*sink)->Close();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  { TraceSlice slice(TraceCategory::kHipApi, "in the parent"); }
  SetTraceSink(nullptr);
  (*sink)->Close();
  const std::string text = ReadFile(path);
  ASSERT_TRUE(ReadChromeTrace(text, kCategories).ok()) << text;
  EXPECT_THAT(text, HasSubstr("in the parent"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("in the child")));
}

// HIPMEM_TRACE=FILE, as a process sees it: the sink is installed from the environment and the file is complete at
// exit. Run in a child so the installation does not outlive the test.
TEST(TraceFileSinkTest, HipmemTraceInstallsTheFileSinkAndClosesItAtExit) {
  const std::string path = TempPath("env_trace");
  const pid_t child = fork();
  if (child == 0) {
    setenv("HIPMEM_TRACE", path.c_str(), 1);
    SetTraceSink(nullptr);
    if (!InstallTraceFileSinkFromEnvironment()) _exit(2);
    { TraceSlice slice(TraceCategory::kHsaApi, "hsa_init"); }
    std::exit(0);  // runs the atexit close
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string text = ReadFile(path);
  absl::StatusOr<std::vector<TraceEvent>> events = ReadChromeTrace(text, kCategories);
  ASSERT_TRUE(events.ok()) << events.status() << "\n" << text;
  EXPECT_THAT(text, HasSubstr("\"hsa_init\""));
}

TEST(TraceFileSinkTest, AnUnwritablePathIsAnErrorNotACrash) {
  EXPECT_FALSE(TraceFileSink::Open("/nonexistent-dir/trace.json").ok());
}

// The reader is strict: each rule it checks rejects a file that breaks it.
TEST(ChromeTraceReaderTest, RejectsWhatTheFormatForbids) {
  const char* kSlice = R"({"name":"a","cat":"clr","ph":"X","ts":1,"dur":10,"pid":1,"tid":1})";
  EXPECT_TRUE(ReadChromeTrace(absl::StrCat("[", kSlice, "]"), kCategories).ok());
  struct Case {
    const char* why;
    std::string json;
  } cases[] = {
      {"trailing comma", absl::StrCat("[", kSlice, ",]")},
      {"not an array", kSlice},
      {"unknown category", R"([{"name":"a","cat":"gpu","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}])"},
      {"no dur", R"([{"name":"a","cat":"clr","ph":"X","ts":1,"pid":1,"tid":1}])"},
      {"overlap", absl::StrCat("[", kSlice, R"(,{"name":"b","cat":"clr","ph":"X","ts":5,"dur":10,"pid":1,"tid":1}])")},
      {"flow outside a slice", absl::StrCat("[", kSlice, R"(,{"name":"f","cat":"clr","ph":"s","id":"1","ts":50,"pid":1,"tid":1}])")},
      {"flow ends before it starts",
       absl::StrCat("[", kSlice, R"(,{"name":"f","cat":"clr","ph":"f","id":"1","ts":3,"pid":1,"tid":1,"bp":"e"},)",
                    R"({"name":"f","cat":"clr","ph":"s","id":"1","ts":5,"pid":1,"tid":1}])")},
      {"control character", "[{\"name\":\"a\nb\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1}]"},
      {"leading zero", R"([{"name":"a","ph":"i","ts":01,"pid":1,"tid":1}])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    EXPECT_FALSE(ReadChromeTrace(c.json, kCategories).ok());
  }
}

}  // namespace
}  // namespace hipmem
