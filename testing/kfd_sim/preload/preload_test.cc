// Unmodified processes on the simulated KFD through libhipmem_kfd.so: our own C probe of the file semantics, and
// AMD's ROCm 5.2.3 as Debian ships it (rocminfo, ROCr = libhsa-runtime64.so.1, libhsakmt.so.1) on mi250x, mi100 and
// 2xmi250x. Every expectation comes from the preset's topology (kfd_sim::PresetTopology) and libdrm's amdgpu.ids.
// The Debian tests skip, saying why, only where the packages are not installed (tools/quickstart.sh installs them).
//
// usage (from BUILD): preload_test LIBHIPMEM_KFD KFD_PROBE ROCR_COPY HSAKMT_DUMP_OURS HSAKMT_DUMP_DEBIAN HIPMEM
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/presets.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/sanitizer_runtime.h"
#include "thunk/amdgpu_ids.h"

namespace hipmem::kfd_preload {
namespace {

std::string g_preload;     // absolute paths, from argv
std::string g_kfd_probe;
std::string g_rocr_copy;
std::string g_hsakmt_dump_ours;
std::string g_hsakmt_dump_debian;
std::string g_hipmem;
// The sanitizer runtime when this test (and so the preload) is built with ASan or TSan.
std::string g_sanitizer_runtime;


constexpr char kDebianRocminfo[] = "/usr/bin/rocminfo";
constexpr char kDebianRocr[] = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";
constexpr char kDebianThunk[] = "/usr/lib/x86_64-linux-gnu/libhsakmt.so.1";

struct ChildRun {
  int exit_code = -1;  // -1: killed by a signal (see `signal`)
  int signal = 0;
  std::string out;
  std::string err;
  std::string dmesg;  // the simulated kernel's log (HIPMEM_KFD_DMESG)
};

// Runs argv under the preload on `preset`, with `env` added; waits for it and collects its output.
ChildRun RunUnderPreload(const std::vector<std::string>& argv, const std::string& preset,
                    const std::vector<std::string>& env = {}) {
  ChildRun run;
  static int runs = 0;
  const std::string dmesg_path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/dmesg-", ++runs);
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!absl::StartsWith(*e, "LD_PRELOAD=") && !absl::StartsWith(*e, "HIPMEM_SIM_PRESET=")) envs.push_back(*e);
  }
  // Under --config=asan or tsan the preload is instrumented too: the sanitizer's runtime must be the first library
  // of the uninstrumented programs it goes into, and their leaks at exit (and the machine the preload keeps for the
  // life of the process) are not this test's subject.
  envs.push_back(absl::StrCat("LD_PRELOAD=", g_sanitizer_runtime.empty() ? "" : g_sanitizer_runtime + ":",
                              g_preload));
  if (!g_sanitizer_runtime.empty()) {
    std::erase_if(envs, [](const std::string& e) { return absl::StartsWith(e, "ASAN_OPTIONS="); });
    envs.push_back("ASAN_OPTIONS=detect_leaks=0");
  }
  envs.push_back(absl::StrCat("HIPMEM_SIM_PRESET=", preset));
  envs.push_back(absl::StrCat("HIPMEM_KFD_DMESG=", dmesg_path));
  for (const std::string& e : env) envs.push_back(e);
  std::vector<char*> c_argv;
  for (const std::string& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (std::string& e : envs) c_env.push_back(e.data());
  c_env.push_back(nullptr);

  int out[2];
  int err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return run;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    execve(c_argv[0], c_argv.data(), c_env.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  // Both pipes at once, so a child filling one never blocks on the other.
  pollfd fds[2] = {{.fd = out[0], .events = POLLIN, .revents = 0}, {.fd = err[0], .events = POLLIN, .revents = 0}};
  std::string* sinks[2] = {&run.out, &run.err};
  int open_pipes = 2;
  while (open_pipes > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[8192];
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  std::ifstream dmesg(dmesg_path);
  std::stringstream text;
  text << dmesg.rdbuf();
  run.dmesg = text.str();
  return run;
}

std::string Describe(const ChildRun& run) {
  return absl::StrCat("exit ", run.exit_code, " signal ", run.signal, "\n--- stdout\n", run.out, "\n--- stderr\n",
                      run.err, "\n--- simulated dmesg\n", run.dmesg);
}

kfd_sim::Topology Topology(const std::string& preset) {
  absl::StatusOr<kfd_sim::Topology> topology = kfd_sim::PresetTopology(preset);
  EXPECT_TRUE(topology.ok()) << topology.status();
  return *topology;
}

// The name libdrm gives the part: its amdgpu.ids row, as libhsakmt and rocminfo print it.
std::string MarketingName(const kfd_sim::GpuConfig& gpu) {
  std::optional<std::string> name = thunk::MarketingName(gpu.device_id, gpu.pci_revision);
  return name.value_or(gpu.marketing_name);
}

bool DebianRocmInstalled(std::string* missing) {
  for (const char* path : {kDebianRocminfo, kDebianRocr, kDebianThunk}) {
    if (access(path, R_OK) != 0) {
      *missing = path;
      return false;
    }
  }
  return true;
}

#define SKIP_WITHOUT_DEBIAN_ROCM()                                                                        \
  do {                                                                                                    \
    std::string missing;                                                                                  \
    if (!DebianRocmInstalled(&missing)) {                                                                 \
      GTEST_SKIP() << missing << " is not installed (Debian packages rocminfo, libhsa-runtime64-1, "       \
                   << "libhsakmt1; tools/quickstart.sh installs them)";                                   \
    }                                                                                                     \
  } while (false)

class PresetTest : public ::testing::TestWithParam<std::string> {};

// ---- our probe of the file semantics ----

TEST_P(PresetTest, FileSemanticsAndLibdrmHoldForAPlainCProgram) {
  const kfd_sim::Topology topology = Topology(GetParam());
  const ChildRun run = RunUnderPreload({g_kfd_probe, std::to_string(topology.gpus.size())}, GetParam());
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_FALSE(absl::StrContains(run.out, "FAIL")) << Describe(run);
  // One line per GPU from libdrm's own queries of the render node.
  for (size_t g = 0; g < topology.gpus.size(); ++g) {
    const kfd_sim::GpuConfig& gpu = topology.gpus[g];
    // The KMS interface major libdrm insists on.
    EXPECT_TRUE(absl::StrContains(run.out, absl::StrCat("gpu ", g, " drm 3."))) << Describe(run);
    EXPECT_TRUE(absl::StrContains(run.out, absl::StrCat("device_id 0x", absl::Hex(gpu.device_id))));
    EXPECT_TRUE(absl::StrContains(run.out, absl::StrCat("mec_fw ", gpu.fw_version, " cus ",
                                                        gpu.simd_count / gpu.simd_per_cu,
                                                        " marketing ", MarketingName(gpu), "\n")))
        << Describe(run);
  }
  EXPECT_TRUE(absl::StrContains(run.out, "ok exec: the exec'd image sees the simulated KFD")) << Describe(run);
}

// ---- Debian's rocminfo ----

struct RocminfoPool {
  std::string segment;
  uint64_t size_kb = 0;
};

struct RocminfoAgent {
  std::map<std::string, std::string> fields;  // first occurrence of each "  Key: value" line of the agent
  std::vector<RocminfoPool> pools;
};

// Splits rocminfo's agent sections ("Agent N" headers) into fields and pools.
std::vector<RocminfoAgent> ParseRocminfo(const std::string& text) {
  std::vector<RocminfoAgent> agents;
  bool after_agents = false;  // a top-level section after the agents (rocminfo's "*** Done", hipmem's simulator)
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    const absl::string_view line = absl::StripTrailingAsciiWhitespace(raw);
    if (!agents.empty() && (absl::StartsWith(line, "=====") || absl::StartsWith(line, "*** Done"))) after_agents = true;
    if (after_agents) continue;
    if (absl::StartsWith(line, "Agent ")) {
      agents.emplace_back();
      continue;
    }
    if (agents.empty()) continue;
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    const std::string key(absl::StripAsciiWhitespace(line.substr(0, colon)));
    const std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    RocminfoAgent& agent = agents.back();
    if (key == "Segment") {
      agent.pools.push_back({.segment = value});
    } else if (key == "Size" && !agent.pools.empty()) {
      uint64_t kb = 0;
      EXPECT_TRUE(absl::SimpleAtoi(value.substr(0, value.find('(')), &kb)) << line;
      agent.pools.back().size_kb = kb;
    } else {
      agent.fields.emplace(key, value);
    }
  }
  return agents;
}

TEST_P(PresetTest, DebianRocminfoShowsThePresetsAgents) {
  SKIP_WITHOUT_DEBIAN_ROCM();
  const kfd_sim::Topology topology = Topology(GetParam());
  const ChildRun run = RunUnderPreload({kDebianRocminfo}, GetParam());
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  EXPECT_TRUE(absl::StrContains(run.out, "ROCk module is loaded")) << Describe(run);
  const std::vector<RocminfoAgent> agents = ParseRocminfo(run.out);
  ASSERT_EQ(agents.size(), topology.gpus.size() + 1) << Describe(run);

  const RocminfoAgent& cpu = agents[0];
  EXPECT_EQ(cpu.fields.at("Device Type"), "CPU");
  EXPECT_EQ(cpu.fields.at("Node"), "0");
  ASSERT_FALSE(cpu.pools.empty());
  EXPECT_EQ(cpu.pools[0].segment, "GLOBAL; FLAGS: FINE GRAINED");
  EXPECT_EQ(cpu.pools[0].size_kb, topology.system_memory_bytes / 1024);

  for (size_t g = 0; g < topology.gpus.size(); ++g) {
    SCOPED_TRACE(absl::StrCat("GPU ", g));
    const kfd_sim::GpuConfig& gpu = topology.gpus[g];
    const RocminfoAgent& agent = agents[g + 1];
    EXPECT_EQ(agent.fields.at("Device Type"), "GPU");
    EXPECT_EQ(agent.fields.at("Name"), gpu.name);
    EXPECT_EQ(agent.fields.at("Marketing Name"), MarketingName(gpu));
    EXPECT_EQ(agent.fields.at("Node"), std::to_string(g + 1));
    EXPECT_EQ(agent.fields.at("Chip ID"), absl::StrCat(gpu.device_id, "(0x", absl::Hex(gpu.device_id), ")"));
    EXPECT_EQ(agent.fields.at("Compute Unit"), std::to_string(gpu.simd_count / gpu.simd_per_cu));
    EXPECT_EQ(agent.fields.at("SIMDs per CU"), std::to_string(gpu.simd_per_cu));
    EXPECT_EQ(agent.fields.at("Max Clock Freq. (MHz)"), std::to_string(gpu.max_engine_clk_fcompute));
    // VRAM coarse-grained; ROCr adds the same VRAM fine-grained for a GPU in an XGMI hive; then the LDS.
    const bool in_hive = gpu.hive_id != 0;
    ASSERT_EQ(agent.pools.size(), in_hive ? 3u : 2u) << Describe(run);
    EXPECT_EQ(agent.pools[0].segment, "GLOBAL; FLAGS: COARSE GRAINED");
    EXPECT_EQ(agent.pools[0].size_kb, gpu.vram_bytes / 1024);
    if (in_hive) {
      EXPECT_EQ(agent.pools[1].segment, "GLOBAL; FLAGS: FINE GRAINED");
      EXPECT_EQ(agent.pools[1].size_kb, gpu.vram_bytes / 1024);
    }
    EXPECT_EQ(agent.pools.back().segment, "GROUP");
    EXPECT_EQ(agent.pools.back().size_kb, gpu.lds_size_in_kb);
  }
}

// ---- AMD's rocminfo against ours (`hipmem info`) on the same KFD ----

// Agent fields where rocminfo 5.2.3 on AMD's ROCr and `hipmem info` on ours differ by design, and why.
struct KnownRocminfoDifference {
  bool gpu;           // which agents it applies to
  const char* field;  // the rocminfo key
  const char* reason;
};
constexpr KnownRocminfoDifference kKnownRocminfoDifferences[] = {
    {true, "Cacheline Size",
     "ROCr 5.2.3 hard-codes 64; current ROCr, and ours, report the L2 cache line (128 on gfx908 and gfx90a)"},
    {false, "L1",
     "ROCr 5.2.3 takes libhsakmt's CPU cache sizes, which are bytes, for KiB (a 32 KiB L1 prints as 32768 KB), and "
     "shows no CPU L2 or L3; ours reports the host's caches in bytes"},
};
// Fields current rocminfo prints that rocminfo 5.2.3 does not know.
constexpr const char* kNewerRocminfoFields[] = {"ASIC Revision",       "Coherent Host Access", "Packet Processor uCode",
                                                "SDMA engine uCode",   "IOMMU Support",        "L2",
                                                "L3",                  "Memory Properties",    "Alloc Recommended Granule"};

uint64_t LeadingNumber(const std::string& value) {
  uint64_t n = 0;
  (void)absl::SimpleAtoi(value.substr(0, value.find('(')), &n);
  return n;
}

TEST_P(PresetTest, OurRocminfoMatchesAmdsOnTheSameKfd) {
  SKIP_WITHOUT_DEBIAN_ROCM();
  const ChildRun amd = RunUnderPreload({kDebianRocminfo}, GetParam());
  ASSERT_EQ(amd.exit_code, 0) << Describe(amd);
  const ChildRun ours = RunUnderPreload({g_hipmem, "info"}, GetParam(), {"HIPMEM_KFD_BACKEND=linux"});
  ASSERT_EQ(ours.exit_code, 0) << Describe(ours);
  const std::vector<RocminfoAgent> theirs = ParseRocminfo(amd.out);
  const std::vector<RocminfoAgent> our_agents = ParseRocminfo(ours.out);
  ASSERT_EQ(theirs.size(), our_agents.size()) << amd.out << "\n---\n" << ours.out;
  for (size_t a = 0; a < theirs.size(); ++a) {
    SCOPED_TRACE(absl::StrCat("agent ", a + 1));
    const bool gpu = theirs[a].fields.at("Device Type") == "GPU";
    for (const auto& [key, value] : theirs[a].fields) {
      auto it = our_agents[a].fields.find(key);
      const KnownRocminfoDifference* known = nullptr;
      for (const KnownRocminfoDifference& d : kKnownRocminfoDifferences) {
        if (d.gpu == gpu && key == d.field) known = &d;
      }
      if (known != nullptr && !gpu) {
        // The CPU's L1, which AMD's shows 1024 times too large.
        ASSERT_NE(it, our_agents[a].fields.end()) << key;
        EXPECT_EQ(LeadingNumber(value), LeadingNumber(it->second) * 1024) << key << ": " << known->reason;
        continue;
      }
      if (known != nullptr) {
        std::printf("known difference agent %zu %s: AMD %s, ours %s (%s)\n", a + 1, key.c_str(), value.c_str(),
                    it == our_agents[a].fields.end() ? "-" : it->second.c_str(), known->reason);
        continue;
      }
      ASSERT_NE(it, our_agents[a].fields.end()) << "AMD's rocminfo prints `" << key << "`; ours does not";
      EXPECT_EQ(it->second, value) << key;
    }
    for (const auto& [key, value] : our_agents[a].fields) {
      if (theirs[a].fields.contains(key)) continue;
      bool newer = false;
      for (const char* f : kNewerRocminfoFields) newer |= key == f;
      EXPECT_TRUE(newer) << "ours prints `" << key << ": " << value << "`; AMD's rocminfo does not";
    }
    // Current ROCr adds an extended-scope fine-grained pool, which ROCr 5.2.3 predates; every other pool matches.
    std::vector<std::pair<std::string, uint64_t>> amd_pools;
    std::vector<std::pair<std::string, uint64_t>> our_pools;
    for (const RocminfoPool& p : theirs[a].pools) amd_pools.emplace_back(p.segment, p.size_kb);
    for (const RocminfoPool& p : our_agents[a].pools) {
      if (!absl::StrContains(p.segment, "EXTENDED FINE GRAINED")) our_pools.emplace_back(p.segment, p.size_kb);
    }
    EXPECT_EQ(amd_pools, our_pools);
  }
}

// ---- AMD's ROCr copying through our KFD ----

// The "destroyed <type> queue <id> at read pointer <n>" lines of the simulated kernel's log: type -> pointers.
std::multimap<std::string, uint64_t> DestroyedQueues(const std::string& dmesg) {
  std::multimap<std::string, uint64_t> queues;
  for (absl::string_view line : absl::StrSplit(dmesg, '\n')) {
    const size_t at = line.find(": destroyed ");
    if (at == absl::string_view::npos) continue;
    const std::vector<absl::string_view> words = absl::StrSplit(line.substr(at + 12), ' ');
    uint64_t pointer = 0;
    if (words.size() >= 7 && absl::SimpleAtoi(words[6], &pointer)) queues.emplace(std::string(words[0]), pointer);
  }
  return queues;
}

std::string QueueErrors(const std::string& dmesg) {
  std::string errors;
  for (absl::string_view line : absl::StrSplit(dmesg, '\n')) {
    if (absl::StrContains(line, "halted") || absl::StrContains(line, "fault")) absl::StrAppend(&errors, line, "\n");
  }
  return errors;
}

void ExpectCopiesIntact(const ChildRun& run, size_t gpus) {
  ASSERT_EQ(run.exit_code, 0) << "queue errors:\n" << QueueErrors(run.dmesg) << Describe(run);
  size_t intact = 0;
  for (absl::string_view line : absl::StrSplit(run.out, '\n')) intact += absl::EndsWith(line, "bytes ok");
  EXPECT_EQ(intact, gpus * gpus) << Describe(run);  // host -> GPU g -> GPU h -> host, every (g, h)
  EXPECT_TRUE(absl::StrContains(run.out, "all copies intact")) << Describe(run);
}

TEST_P(PresetTest, DebianRocrCopiesThroughSdmaAndBlitKernels) {
  SKIP_WITHOUT_DEBIAN_ROCM();
  if (hipmem::testing::UnderThreadSanitizer()) {
    GTEST_SKIP() << "AMD's ROCr is not instrumented: TSan cannot see its ordering of ring writes and doorbells "
                    "(testing/sanitizer_runtime.h); this case runs in the plain and ASan builds";
  }
  const kfd_sim::Topology topology = Topology(GetParam());
  const ChildRun run = RunUnderPreload({g_rocr_copy, kDebianRocr}, GetParam());
  ExpectCopiesIntact(run, topology.gpus.size());
  // ROCr 5.2 copies host <-> device on the SDMA engines (and copies within one GPU with its blit kernel).
  const std::multimap<std::string, uint64_t> queues = DestroyedQueues(run.dmesg);
  uint64_t sdma_progress = 0;
  for (const auto& [type, pointer] : queues) {
    if (absl::StartsWith(type, "SDMA")) sdma_progress += pointer;
  }
  EXPECT_GT(sdma_progress, 0u) << run.dmesg;
}

TEST_P(PresetTest, DebianRocrBlitKernelsRunOnTheGfx9Engine) {
  SKIP_WITHOUT_DEBIAN_ROCM();
  if (hipmem::testing::UnderThreadSanitizer()) {
    GTEST_SKIP() << "AMD's ROCr is not instrumented: TSan cannot see its ordering of ring writes and doorbells "
                    "(testing/sanitizer_runtime.h); this case runs in the plain and ASan builds";
  }
  const kfd_sim::Topology topology = Topology(GetParam());
  // Without SDMA every copy is a dispatch of ROCr's own blit kernels (AMD's GFX9 code) on the compute engine.
  const ChildRun run = RunUnderPreload({g_rocr_copy, kDebianRocr}, GetParam(), {"HSA_ENABLE_SDMA=0"});
  ExpectCopiesIntact(run, topology.gpus.size());
  const std::multimap<std::string, uint64_t> queues = DestroyedQueues(run.dmesg);
  uint64_t dispatches = 0;
  for (const auto& [type, pointer] : queues) {
    EXPECT_FALSE(absl::StartsWith(type, "SDMA")) << run.dmesg;
    if (type == "COMPUTE_AQL") dispatches += pointer;
  }
  // Three copies per (g, h) pair, each at least one dispatch.
  EXPECT_GE(dispatches, 3 * topology.gpus.size() * topology.gpus.size()) << run.dmesg;
}

// ---- the two thunks on the same KFD ----

// "node 1 bank 2 HeapType 5" -> {"node 1 bank 2 HeapType", "5"}: what hsakmt_dump prints, keyed by fact.
std::map<std::string, std::string> ParseDump(const std::string& text) {
  std::map<std::string, std::string> facts;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
    // system <Field> v | node N <Field> v | node N {bank,cache,link} J <Field> v
    size_t key_words = words[0] == "system" ? 2 : 3;
    if (words.size() > 3 && (words[2] == "bank" || words[2] == "cache" || words[2] == "link")) key_words = 5;
    if (words.size() < key_words) continue;
    std::vector<absl::string_view> key(words.begin(), words.begin() + key_words);
    std::vector<absl::string_view> value(words.begin() + key_words, words.end());
    facts[absl::StrJoin(key, " ")] = absl::StrJoin(value, " ");
  }
  return facts;
}

// Where AMD's libhsakmt 5.2.3 and this thunk may differ on the same KFD, and why. Every other fact must be equal.
struct KnownDifference {
  const char* field;  // the last word of the key, on a GPU node
  const char* reason;
};
constexpr KnownDifference kKnownThunkDifferences[] = {
    {"LocalMemSize",
     "libhsakmt 5.2.3 copies sysfs local_mem_size, which kernels since 5.x write as 0; current libhsakmt, and this "
     "thunk, sum the node's frame-buffer banks"},
    {"AMDName",
     "libhsakmt 5.2.3 names a GPU from its compiled-in device table (Aldebaran, Arcturus); this thunk takes the "
     "node's sysfs name (gfx90a, gfx908)"},
};

TEST_P(PresetTest, OurThunkReportsWhatAmdsLibhsakmtReportsOnTheSameKfd) {
  SKIP_WITHOUT_DEBIAN_ROCM();
  const ChildRun amd = RunUnderPreload({g_hsakmt_dump_debian, kDebianThunk}, GetParam());
  ASSERT_EQ(amd.exit_code, 0) << Describe(amd);
  // Ours through the same preloaded /dev/kfd (the Linux backend), not its in-process simulator.
  const ChildRun ours = RunUnderPreload({g_hsakmt_dump_ours}, GetParam(), {"HIPMEM_KFD_BACKEND=linux"});
  ASSERT_EQ(ours.exit_code, 0) << Describe(ours);
  const std::map<std::string, std::string> theirs_facts = ParseDump(amd.out);
  const std::map<std::string, std::string> our_facts = ParseDump(ours.out);
  ASSERT_FALSE(theirs_facts.empty());
  const kfd_sim::Topology topology = Topology(GetParam());
  for (const auto& [key, value] : theirs_facts) {
    auto it = our_facts.find(key);
    if (it == our_facts.end()) {
      ADD_FAILURE() << "AMD's libhsakmt reports `" << key << " " << value << "`; ours has no such fact";
      continue;
    }
    if (it->second == value) continue;
    const std::vector<absl::string_view> words = absl::StrSplit(key, ' ');
    uint32_t node = 0;
    const bool gpu_node = words[0] == "node" && absl::SimpleAtoi(words[1], &node) && node >= 1 &&
                          node <= topology.gpus.size() && words.size() == 3;
    const char* reason = nullptr;
    for (const KnownDifference& d : kKnownThunkDifferences) {
      if (gpu_node && words[2] == d.field) reason = d.reason;
    }
    if (reason != nullptr) {
      std::printf("known difference %s: AMD %s, ours %s (%s)\n", key.c_str(), value.c_str(), it->second.c_str(),
                  reason);
    } else {
      ADD_FAILURE() << key << ": AMD's libhsakmt reports " << value << ", ours " << it->second;
    }
  }
  for (const auto& [key, value] : our_facts) {
    EXPECT_TRUE(theirs_facts.contains(key)) << "ours reports `" << key << " " << value << "`; AMD's does not";
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, PresetTest, ::testing::Values("mi250x", "mi100", "2xmi250x"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "2xmi250x" ? std::string("two_mi250x") : info.param;
                         });

// A bad preset is refused at /dev/kfd with the reason, not a crash.
TEST(PreloadTest, UnknownPresetFailsTheOpenWithAMessage) {
  const ChildRun run = RunUnderPreload({g_kfd_probe, "1"}, "no-such-gpu");
  EXPECT_EQ(run.exit_code, 1) << Describe(run);
  EXPECT_TRUE(absl::StrContains(run.err, "HIPMEM_SIM_PRESET=no-such-gpu")) << Describe(run);
  EXPECT_TRUE(absl::StrContains(run.out, "FAIL stat /dev/kfd")) << Describe(run);
}

// HIPMEM_SIM_NUM_GWS makes the same machine under the preload as in process: every GPU node's sysfs num_gws is the
// setting (0: no cooperative queues), and a setting that is no number is refused at /dev/kfd with the reason.
TEST(PreloadTest, NumGwsSettingReachesTheGpuNodes) {
  for (const std::string gws : {"0", "7"}) {
    const ChildRun run = RunUnderPreload({"/bin/cat", "/sys/devices/virtual/kfd/kfd/topology/nodes/1/properties",
                                          "/sys/devices/virtual/kfd/kfd/topology/nodes/2/properties"},
                                         "2xmi250x", {absl::StrCat("HIPMEM_SIM_NUM_GWS=", gws)});
    ASSERT_EQ(run.exit_code, 0) << Describe(run);
    std::vector<std::string> lines;
    for (absl::string_view line : absl::StrSplit(run.out, '\n')) {
      if (absl::StartsWith(line, "num_gws ")) lines.emplace_back(line);
    }
    EXPECT_THAT(lines, ::testing::ElementsAre("num_gws " + gws, "num_gws " + gws)) << Describe(run);
  }
  const ChildRun bad = RunUnderPreload({g_kfd_probe, "1"}, "mi250x", {"HIPMEM_SIM_NUM_GWS=many"});
  EXPECT_EQ(bad.exit_code, 1) << Describe(bad);
  EXPECT_TRUE(absl::StrContains(bad.err, "HIPMEM_SIM_NUM_GWS=many")) << Describe(bad);
}

}  // namespace
}  // namespace hipmem::kfd_preload

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: preload_test LIBHIPMEM_KFD KFD_PROBE ROCR_COPY HSAKMT_DUMP_OURS HSAKMT_DUMP_DEBIAN HIPMEM\n");
    return 2;
  }
  char resolved[PATH_MAX];
  std::string* paths[] = {&hipmem::kfd_preload::g_preload, &hipmem::kfd_preload::g_kfd_probe,
                          &hipmem::kfd_preload::g_rocr_copy, &hipmem::kfd_preload::g_hsakmt_dump_ours,
                          &hipmem::kfd_preload::g_hsakmt_dump_debian, &hipmem::kfd_preload::g_hipmem};
  for (int i = 0; i < 6; ++i) {
    if (realpath(argv[i + 1], resolved) == nullptr) {
      std::fprintf(stderr, "preload_test: %s not found\n", argv[i + 1]);
      return 2;
    }
    *paths[i] = resolved;
  }
  hipmem::kfd_preload::g_sanitizer_runtime = hipmem::testing::LoadedSanitizerRuntime();
  return RUN_ALL_TESTS();
}
