// `hipmem trace -o FILE -- CMD`: an unmodified program's KFD ioctls, as the preload sees them, in one Chrome trace
// file with one pid per process that did GPU work; and the merge of the per-process files on its own.
// Arguments: the hipmem binary, then kfd_probe (a C program issuing KFD ioctls through libdrm and /dev/kfd).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/chrome_trace_reader.h"
#include "testing/sanitizer_runtime.h"
#include "tools/trace_merge.h"

namespace {

using ::hipmem::testing::ReadChromeTrace;
using ::testing::HasSubstr;
using ::testing::Not;
using ::hipmem::testing::TraceEvent;

std::string g_hipmem;
std::string g_probe;

const std::set<std::string> kCategories = {"hip_api", "clr", "hsa_api", "hsakmt", "kfd", "sdma", "compute"};

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Runs `command` with /bin/sh; returns its exit status.
int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TraceMergeTest, KeepsProcessesThatDidWorkAndTheWholeEventsOfACutFile) {
  const std::string names_only = TempPath("names_only.json");
  const std::string worker = TempPath("worker.json");
  const std::string cut = TempPath("cut.json");
  WriteFile(names_only, "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"sh\"}}\n]\n");
  WriteFile(worker,
            "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":8,\"tid\":0,\"args\":{\"name\":\"w\"}},\n"
            "{\"name\":\"AMDKFD_IOC_GET_VERSION\",\"cat\":\"kfd\",\"ph\":\"X\",\"ts\":1.000,\"dur\":2.000,\"pid\":8,"
            "\"tid\":1}\n]\n");
  // Killed mid-write: no closing bracket, the last event half written.
  WriteFile(cut,
            "[\n{\"name\":\"AMDKFD_IOC_ACQUIRE_VM\",\"cat\":\"kfd\",\"ph\":\"X\",\"ts\":5.000,\"dur\":1.000,\"pid\":9,"
            "\"tid\":1},\n{\"name\":\"AMDKFD_IOC_ALLOC_MEM");
  const std::string out = TempPath("merged.json");
  absl::StatusOr<hipmem::tools::TraceMergeSummary> summary =
      hipmem::tools::MergeTraceFiles({names_only, worker, cut}, out);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->processes, 2);
  EXPECT_EQ(summary->events, 3);
  absl::StatusOr<std::vector<TraceEvent>> events = ReadChromeTrace(ReadFile(out), kCategories);
  ASSERT_TRUE(events.ok()) << events.status() << "\n" << ReadFile(out);
  std::set<int64_t> pids;
  for (const TraceEvent& e : *events) pids.insert(e.pid);
  EXPECT_EQ(pids, (std::set<int64_t>{8, 9}));
  EXPECT_FALSE(hipmem::tools::MergeTraceFiles({TempPath("missing.json")}, out).ok());
}

TEST(HipmemTraceTest, AnUnmodifiedProgramsIoctlsLandInOneFileUnderItsOwnPid) {
  if (hipmem::testing::UnderThreadSanitizer()) {
    GTEST_SKIP() << "a shell with libtsan preloaded crashes at start (testing/sanitizer_runtime.h); this case runs "
                    "in the plain and ASan builds";
  }
  const std::string out = TempPath("probe_trace.json");
  // Through a shell: the shell runs under the preload too but does no GPU work, so only the probe's processes appear
  // (the probe and the child it forks to check that a child's inherited KFD descriptor is dead).
  ASSERT_EQ(Shell(absl::StrCat("HIPMEM_SIM_PRESET=mi100 '", g_hipmem, "' trace -o '", out, "' -- /bin/sh -c \"'",
                               g_probe, "' 1 >/dev/null\"")),
            0);
  const std::string text = ReadFile(out);
  absl::StatusOr<std::vector<TraceEvent>> events = ReadChromeTrace(text, kCategories);
  ASSERT_TRUE(events.ok()) << events.status() << "\n" << text;
  std::set<std::string> ioctls;
  int processes = 0;
  for (const TraceEvent& e : *events) {
    if (e.ph == "X" && e.cat == "kfd") ioctls.insert(e.name);
    if (e.ph == "M" && e.name == "process_name") ++processes;
  }
  EXPECT_GE(processes, 1);
  EXPECT_THAT(text, Not(HasSubstr("/bin/sh"))) << text;
  EXPECT_THAT(text, Not(HasSubstr("/bin/dash"))) << text;
  EXPECT_TRUE(ioctls.count("AMDKFD_IOC_GET_VERSION")) << text;
  EXPECT_TRUE(ioctls.count("AMDKFD_IOC_ACQUIRE_VM")) << text;
  EXPECT_TRUE(ioctls.count("AMDKFD_IOC_ALLOC_MEMORY_OF_GPU")) << text;
}

TEST(HipmemTraceTest, TheCommandsExitStatusIsHipmemsAndUsageErrorsAreTwo) {
  if (hipmem::testing::UnderThreadSanitizer()) {
    GTEST_SKIP() << "a shell with libtsan preloaded crashes at start (testing/sanitizer_runtime.h); this case runs "
                    "in the plain and ASan builds";
  }
  const std::string out = TempPath("status_trace.json");
  EXPECT_EQ(Shell(absl::StrCat("'", g_hipmem, "' trace -o '", out, "' -- /bin/sh -c 'exit 3'")), 3);
  // Nothing did GPU work: the file is an empty trace, still a valid one.
  absl::StatusOr<std::vector<TraceEvent>> events = ReadChromeTrace(ReadFile(out), kCategories);
  ASSERT_TRUE(events.ok()) << events.status();
  EXPECT_TRUE(events->empty());
  EXPECT_EQ(Shell(absl::StrCat("'", g_hipmem, "' trace 2>/dev/null")), 2);
  EXPECT_EQ(Shell(absl::StrCat("'", g_hipmem, "' trace -o '", out, "' 2>/dev/null")), 2);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: hipmem_trace_test HIPMEM KFD_PROBE\n");
    return 2;
  }
  g_hipmem = argv[1];
  g_probe = argv[2];
  unsetenv("HIPMEM_TRACE");
  // `hipmem trace` preloads our library into /bin/sh and the probe, which are not instrumented: under --config=asan
  // or tsan the sanitizer's runtime goes first (hipmem keeps a preload it finds in front of its own), and their leaks at
  // exit are not this test's subject.
  if (const std::string runtime = hipmem::testing::LoadedSanitizerRuntime(); !runtime.empty()) {
    setenv("LD_PRELOAD", runtime.c_str(), 1);
    setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  } else {
    unsetenv("LD_PRELOAD");
  }
  return RUN_ALL_TESTS();
}
