// Two copies of base/trace in one process (the executable's, and a library's with its symbols hidden, as our
// libamdhip64 beside the preloaded libhipmem_kfd.so) write one trace file under HIPMEM_TRACE: one JSON array holding
// both copies' records, on the same thread's track. Without the shared sink each copy truncated and wrote the file on
// its own, leaving two arrays in it.
#include "base/trace_shared_sink.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/trace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/chrome_trace_reader.h"

namespace hipmem {
namespace {

using ::testing::HasSubstr;
using ::hipmem::testing::ReadChromeTrace;
using ::hipmem::testing::TraceEvent;

const char* g_copy_library = nullptr;  // argv[1]: the library's runfiles path

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The body of the traced process: the executable's copy installed the file sink before main (HIPMEM_TRACE); the
// library's copy installs its own when it is loaded. Runs only in the child the next test starts.
TEST(TraceSharedSinkTest, ChildProcess) {
  if (std::getenv("HIPMEM_TRACE_SHARED_SINK_CHILD") == nullptr) GTEST_SKIP() << "runs in the child only";
  ASSERT_TRUE(TraceEnabled());
  void* library = dlopen(g_copy_library, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto traced = reinterpret_cast<bool (*)()>(dlsym(library, "hipmem_trace_copy_traced"));
  auto emit = reinterpret_cast<void (*)()>(dlsym(library, "hipmem_trace_copy_emit"));
  ASSERT_NE(traced, nullptr);
  ASSERT_NE(emit, nullptr);
  // Two copies: the library's trace state is its own.
  auto library_table = reinterpret_cast<const HipmemTraceSharedSinkV1* (*)()>(
      dlsym(library, "hipmem_trace_shared_sink_v1"));
  ASSERT_NE(library_table, nullptr);
  ASSERT_NE(library_table(), hipmem_trace_shared_sink_v1());
  ASSERT_TRUE(traced());
  {
    TraceSlice outer(TraceCategory::kHipApi, "slice from the executable");
    emit();
  }
  std::exit(0);  // the owner closes the file at exit
}

TEST(TraceSharedSinkTest, TwoCopiesInOneProcessWriteOneFile) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/shared.json";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("HIPMEM_TRACE", path.c_str(), 1);
    setenv("HIPMEM_TRACE_SHARED_SINK_CHILD", "1", 1);
    const std::string filter = "--gtest_filter=TraceSharedSinkTest.ChildProcess";
    execl("/proc/self/exe", "trace_shared_sink_test", g_copy_library, filter.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const std::string text = ReadFile(path);
  absl::StatusOr<std::vector<TraceEvent>> events =
      ReadChromeTrace(text, {"hip_api", "clr", "hsa_api", "hsakmt", "kfd", "sdma", "compute"});
  ASSERT_TRUE(events.ok()) << events.status() << "\n" << text;
  const TraceEvent* outer = nullptr;
  const TraceEvent* inner = nullptr;
  for (const TraceEvent& e : *events) {
    if (e.name == "slice from the executable") outer = &e;
    if (e.name == "slice from the copy") inner = &e;
  }
  ASSERT_NE(outer, nullptr) << text;
  ASSERT_NE(inner, nullptr) << text;
  // One thread, one track: the copy's slice nests in the executable's.
  EXPECT_EQ(inner->tid, outer->tid);
  EXPECT_GE(inner->ts, outer->ts);
  EXPECT_LE(inner->ts + inner->dur, outer->ts + outer->dur);
  EXPECT_EQ(inner->args.count("copy") ? inner->args.at("copy") : "", "second");
  EXPECT_THAT(text, HasSubstr("line from the copy"));
  EXPECT_THAT(text, HasSubstr("flow from the copy"));
  EXPECT_THAT(text, HasSubstr("named by the copy"));
}

}  // namespace
}  // namespace hipmem

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_shared_sink_test LIBRARY\n");
    return 2;
  }
  hipmem::g_copy_library = argv[1];
  return RUN_ALL_TESTS();
}
