// ROCm's log switches through the trace: what prints at which AMD_LOG_LEVEL and AMD_LOG_MASK, HSAKMT_DEBUG_LEVEL's
// ioctl lines, and how the switches are read from the environment.
#include "base/log_sink.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "base/trace.h"

namespace hipmem {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Everything a LogSink with `settings` prints while a hipMalloc-like call runs: a hip_api slice (with its result)
// around a clr slice with an argument, an hsakmt line and a kfd ioctl line.
std::string LogOf(LogSettings settings) {
  std::FILE* out = std::tmpfile();
  EXPECT_NE(out, nullptr);
  LogSink sink(std::move(settings), out);
  TraceSink* previous = SetTraceSink(&sink);
  {
    TraceSlice api(TraceCategory::kHipApi, "hipMalloc");
    {
      TraceSlice clr(TraceCategory::kClr, "Context::AllocDevice");
      clr.Arg("size", 4096);
      Trace(Layer::kThunk, "hsaKmtAllocMemory node 1");
      Trace(Layer::kKfd, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU(va=0x1000) = 0");
    }
    api.Arg("result", "hipSuccess");
  }
  SetTraceSink(previous);
  std::string text;
  std::rewind(out);
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), out)) > 0) text.append(buffer, n);
  std::fclose(out);
  return text;
}

TEST(LogSinkTest, LevelThreePrintsEachHipCallAndItsResultAndNothingBelow) {
  const std::string log = LogOf({.level = kLogInfo});
  EXPECT_THAT(log, testing::ContainsRegex(":3:hip_api *: [0-9]+ us: [0-9]+ : \\[tid:0x[0-9a-f]+\\] hipMalloc\n"));
  EXPECT_THAT(log, HasSubstr("] hipMalloc: Returned hipSuccess\n"));
  // The call's line comes before its result's.
  EXPECT_LT(log.find("] hipMalloc\n"), log.find("hipMalloc: Returned"));
  EXPECT_THAT(log, Not(HasSubstr("AllocDevice")));
  EXPECT_THAT(log, Not(HasSubstr("AMDKFD_IOC")));
}

TEST(LogSinkTest, LevelFourPrintsEveryLayerWithArgumentsUnderTheDefaultMask) {
  const std::string log = LogOf({.level = kLogDebug});
  EXPECT_THAT(log, HasSubstr(":3:hip_api"));
  EXPECT_THAT(log, testing::ContainsRegex(":4:clr *: .*Context::AllocDevice \\(size=4096\\) took [0-9]+ us"));
  EXPECT_THAT(log, HasSubstr(":4:hsakmt  : "));
  EXPECT_THAT(log, HasSubstr(":4:kfd     : "));
  EXPECT_THAT(log, HasSubstr("AMDKFD_IOC_ALLOC_MEMORY_OF_GPU(va=0x1000) = 0"));
}

TEST(LogSinkTest, TheMaskSelectsLayers) {
  const std::string copies = LogOf({.level = kLogDebug, .mask = kLogCopy});
  EXPECT_THAT(copies, HasSubstr("Context::AllocDevice"));
  EXPECT_THAT(copies, Not(HasSubstr("hip_api")));
  EXPECT_THAT(copies, Not(HasSubstr("AMDKFD_IOC")));
  const std::string api = LogOf({.level = kLogDebug, .mask = kLogApi});
  EXPECT_THAT(api, HasSubstr("hipMalloc: Returned hipSuccess"));
  EXPECT_THAT(api, Not(HasSubstr("AllocDevice")));
  EXPECT_EQ(LogOf({.level = kLogDebug, .mask = 0}), "");
}

TEST(LogSinkTest, HsakmtDebugLevelSevenPrintsIoctlsAsLibhsakmtDoesAndNothingElse) {
  const std::string log = LogOf({.hsakmt_level = 7});
  EXPECT_EQ(log, "[hsakmt] AMDKFD_IOC_ALLOC_MEMORY_OF_GPU(va=0x1000) = 0\n");
  EXPECT_EQ(LogOf({.hsakmt_level = 6}), "");
}

TEST(LogSinkTest, ReadsRocmsSwitchesFromTheEnvironment) {
  unsetenv("AMD_LOG_LEVEL");
  unsetenv("AMD_LOG_MASK");
  unsetenv("HIP_TRACE_API");
  unsetenv("HSAKMT_DEBUG_LEVEL");
  unsetenv("AMD_LOG_LEVEL_FILE");
  EXPECT_FALSE(LogSettings::FromEnvironment().any());

  setenv("AMD_LOG_LEVEL", "4", 1);
  setenv("AMD_LOG_MASK", "0x100", 1);
  setenv("AMD_LOG_LEVEL_FILE", "/tmp/log", 1);
  LogSettings settings = LogSettings::FromEnvironment();
  EXPECT_EQ(settings.level, 4);
  EXPECT_EQ(settings.mask, 0x100u);
  EXPECT_EQ(settings.file, "/tmp/log");
  EXPECT_TRUE(settings.any());

  // HIP_TRACE_API raises the level to info and adds LOG_API to whatever mask is set.
  setenv("AMD_LOG_LEVEL", "1", 1);
  setenv("HIP_TRACE_API", "1", 1);
  settings = LogSettings::FromEnvironment();
  EXPECT_EQ(settings.level, kLogInfo);
  EXPECT_EQ(settings.mask, 0x100u | kLogApi);

  // Unparsable numbers count as unset.
  setenv("AMD_LOG_LEVEL", "verbose", 1);
  setenv("AMD_LOG_MASK", "0xZZ", 1);
  unsetenv("HIP_TRACE_API");
  setenv("HSAKMT_DEBUG_LEVEL", "7", 1);
  settings = LogSettings::FromEnvironment();
  EXPECT_EQ(settings.level, kLogNone);
  EXPECT_EQ(settings.mask, kLogDefaultMask);
  EXPECT_EQ(settings.hsakmt_level, 7);
  EXPECT_TRUE(settings.any());
}

}  // namespace
}  // namespace hipmem
