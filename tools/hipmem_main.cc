// `hipmem`: the command line of the hipmem stack.
//
//   hipmem info   the system and every agent as rocminfo prints them -- each attribute, pools and ISAs
//                 (through the public HSA C API, as rocminfo does); then, on the simulator, what the
//                 simulated kernel holds meanwhile: processes, buffers, queues, events, memory use
//   hipmem tour   allocate, copy, verify and free through the public HIP C API, drawing each step as a
//                 sequence chart through the five layers, caller first, and measuring each layer's own cost;
//                 `tour --trace FILE` also writes the run as a Chrome trace-event file (Perfetto)
//   hipmem dmesg  the simulated kernel's log (the simulator's dmesg)
//   hipmem run -- CMD ARGS...
//                 runs an unmodified program (AMD's rocminfo, a binary linked to AMD's ROCr...) on a simulated
//                 machine (HIPMEM_SIM_PRESET): execs CMD with libhipmem_kfd.so in LD_PRELOAD, which shows it
//                 /dev/kfd, the render nodes and the KFD sysfs tree (testing/kfd_sim/preload/)
//   hipmem bench [--repetitions N] [--only SUBSTRING]... [-- BENCHMARK_ARGS...]
//                 runs every benchmark program built with hipmem (interleaved repetitions, 3 by default) and prints
//                 the performance goals of all of them as one table: each same-run ratio, its goal, met or MISSED
//   hipmem trace -o FILE -- CMD ARGS...
//                 `run`, traced: every process of CMD writes its trace (HIPMEM_TRACE=DIR/trace.%p.json: our layers'
//                 slices where it uses hipmem's libraries, and for AMD's own libraries the KFD ioctls they issue
//                 and the simulated engines' work), merged into FILE when CMD exits (tools/trace_merge.h)
//
// Several commands run in order in one process, on one simulated machine: `hipmem tour dmesg` shows the
// kernel's side of the tour.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/trace.h"
#include "base/trace_file_sink.h"
#include "hip/hip_runtime_api.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "tools/agent_report.h"
#include "tools/bench_table.h"
#include "tools/sim_view.h"
#include "tools/tour_chart.h"
#include "tools/trace_merge.h"

namespace {

// ---- hipmem info ----------------------------------------------------------------------------

int Info() {
  if (hsa_init() != HSA_STATUS_SUCCESS) {
    std::fprintf(stderr, "hipmem info: hsa_init failed\n");
    return 1;
  }
  const absl::StatusOr<std::string> system = hipmem::tools::SystemReport();
  const absl::StatusOr<std::string> agents = hipmem::tools::AgentReport();
  // Taken while the runtime is open, so its own KFD process is in the picture.
  const absl::StatusOr<std::string> simulator = hipmem::tools::SimulatorSection();
  hsa_shut_down();
  if (!simulator.ok()) {
    std::fprintf(stderr, "hipmem info: %s\n", std::string(simulator.status().message()).c_str());
    return 1;
  }
  for (const absl::StatusOr<std::string>* section : {&system, &agents}) {
    if (!section->ok()) {
      std::fprintf(stderr, "hipmem info: %s\n", std::string(section->status().message()).c_str());
      return 1;
    }
  }
  std::printf("=====================\nHSA System Attributes\n=====================\n%s\n", system->c_str());
  std::printf("==========\nHSA Agents\n==========\n%s", agents->c_str());
  std::printf("%s", simulator->c_str());
  return 0;
}

// ---- hipmem dmesg ---------------------------------------------------------------------------

int Dmesg() {
  const absl::StatusOr<std::string> log = hipmem::tools::SimulatorDmesg();
  if (!log.ok()) {
    std::fprintf(stderr, "hipmem dmesg: %s\n", std::string(log.status().message()).c_str());
    return 1;
  }
  std::printf("%s", log->c_str());
  return 0;
}

// ---- hipmem tour ----------------------------------------------------------------------------

#define HIP_OR_DIE(call)                                                                          \
  do {                                                                                            \
    const hipError_t e_ = (call);                                                                 \
    if (e_ != hipSuccess) {                                                                       \
      std::fprintf(stderr, "hipmem tour: %s failed: %s (%s)\n", #call, hipGetErrorName(e_),       \
                   hipGetErrorString(e_));                                                        \
      return 1;                                                                                   \
    }                                                                                             \
  } while (false)

// The cost table's rows: each layer's own time per call, beside the design documents' figures.
void PrintCosts(const char* what, const std::vector<hipmem::tools::TourChart::LayerCost>& costs) {
  std::printf("\n%s\n  %-8s %14s   %s\n", what, "layer", "median self", "design figure");
  for (const auto& cost : costs) {
    std::printf("  %-8s %11.0f ns   %s\n", cost.category.c_str(), cost.median_ns,
                std::string(hipmem::tools::DesignFigure(cost.category)).c_str());
  }
}

int Tour(const std::string& trace_path) {
  // With --trace FILE the chart's records also go to a Chrome trace-event file (as HIPMEM_TRACE=FILE writes).
  std::unique_ptr<hipmem::TraceFileSink> file;
  if (!trace_path.empty()) {
    absl::StatusOr<std::unique_ptr<hipmem::TraceFileSink>> opened = hipmem::TraceFileSink::Open(trace_path);
    if (!opened.ok()) {
      std::fprintf(stderr, "hipmem tour: %s\n", std::string(opened.status().message()).c_str());
      return 1;
    }
    file = std::move(*opened);
  }
  hipmem::TraceSink* const previous = hipmem::SetTraceSink(nullptr);
  hipmem::tools::TourChart chart(file != nullptr ? file.get() : previous);
  hipmem::SetTraceSink(&chart);
  auto step = [&](const char* what) { std::printf("\n== %s\n", what); };
  auto show = [&](size_t max_lines) { chart.Print(stdout, max_lines); };
  constexpr size_t kBytes = 1 << 20;
  constexpr size_t kAll = ~size_t{0};

  step("hipGetDeviceCount: the first HIP call initialises every layer down to the KFD");
  int count = 0;
  HIP_OR_DIE(hipGetDeviceCount(&count));
  show(40);
  std::printf("%d device(s)\n", count);
  size_t free_before = 0, total = 0;
  HIP_OR_DIE(hipMemGetInfo(&free_before, &total));
  chart.Discard();
  std::printf("hipMemGetInfo: free %zu B of %zu B\n", free_before, total);

  step("hipMalloc x2 (device memory) and hipHostMalloc (pinned host memory)");
  void* a = nullptr;
  void* b = nullptr;
  void* host = nullptr;
  HIP_OR_DIE(hipMalloc(&a, kBytes));
  HIP_OR_DIE(hipMalloc(&b, kBytes));
  HIP_OR_DIE(hipHostMalloc(&host, kBytes, hipHostMallocDefault));
  show(kAll);

  std::vector<unsigned char> src(kBytes), dst(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);

  step("hipMemcpy from pageable memory (pinned for the copy, or staged), then pinned to device");
  HIP_OR_DIE(hipMemcpy(a, src.data(), kBytes, hipMemcpyHostToDevice));
  std::memcpy(host, src.data(), kBytes);
  HIP_OR_DIE(hipMemcpy(b, host, kBytes, hipMemcpyHostToDevice));
  show(kAll);
  step("hipMemcpy device to device (a blit kernel on the compute engine), device to pinned host, host to host");
  HIP_OR_DIE(hipMemcpy(b, a, kBytes, hipMemcpyDeviceToDevice));
  HIP_OR_DIE(hipMemcpy(host, b, kBytes, hipMemcpyDeviceToHost));
  HIP_OR_DIE(hipMemcpy(dst.data(), host, kBytes, hipMemcpyDefault));
  show(kAll);
  const bool same = std::memcmp(src.data(), dst.data(), kBytes) == 0;
  std::printf("verify: %s\n", same ? "all bytes match" : "MISMATCH");

  if (count >= 2) {
    step("hipMemcpyPeer: device 0 to device 1");
    void* peer = nullptr;
    HIP_OR_DIE(hipSetDevice(1));
    HIP_OR_DIE(hipMalloc(&peer, kBytes));
    HIP_OR_DIE(hipSetDevice(0));
    chart.Discard();
    HIP_OR_DIE(hipMemcpyPeer(peer, 1, a, 0, kBytes));
    show(kAll);
    HIP_OR_DIE(hipFree(peer));
    chart.Discard();
  }

  step("hipMallocAsync: a miss goes down to the KFD; after hipFreeAsync the same size is a pool hit");
  hipStream_t stream = nullptr;
  HIP_OR_DIE(hipStreamCreate(&stream));
  chart.Discard();
  void* pooled = nullptr;
  HIP_OR_DIE(hipMallocAsync(&pooled, kBytes, stream));
  HIP_OR_DIE(hipFreeAsync(pooled, stream));
  HIP_OR_DIE(hipMallocAsync(&pooled, kBytes, stream));
  HIP_OR_DIE(hipFreeAsync(pooled, stream));
  HIP_OR_DIE(hipStreamSynchronize(stream));
  show(kAll);
  HIP_OR_DIE(hipStreamDestroy(stream));
  chart.Discard();

  hipPointerAttribute_t attr{};
  HIP_OR_DIE(hipPointerGetAttributes(&attr, static_cast<char*>(a) + 100));
  std::printf("hipPointerGetAttributes(a + 100): type=%s device=%d devicePointer=%p\n",
              attr.type == hipMemoryTypeDevice ? "Device" : "other", attr.device, attr.devicePointer);
  size_t free_during = 0;
  HIP_OR_DIE(hipMemGetInfo(&free_during, &total));
  std::printf("hipMemGetInfo: free dropped by %zu B\n", free_before - free_during);

  step("hipFree / hipHostFree");
  chart.Discard();
  HIP_OR_DIE(hipFree(a));
  HIP_OR_DIE(hipFree(b));
  HIP_OR_DIE(hipHostFree(host));
  show(kAll);
  size_t free_after = 0;
  HIP_OR_DIE(hipMemGetInfo(&free_after, &total));
  std::printf("hipMemGetInfo: free %zu B (%s)\n", free_after,
              free_after == free_before ? "back to where it started" : "NOT RESTORED");

  step("a mistake, answered with upstream's code");
  chart.Discard();
  const hipError_t e = hipFree(a);
  show(kAll);
  std::printf("hipFree(already freed) = %s\n", hipGetErrorName(e));

  step("what each layer costs, measured here from the trace (tracing on: each slice adds its own recording cost)");
  constexpr int kRepetitions = 101;
  void* small = nullptr;
  HIP_OR_DIE(hipMalloc(&small, 4096));  // warm: the allocation below comes from the runtime's cache
  HIP_OR_DIE(hipFree(small));
  chart.Discard();
  for (int i = 0; i < kRepetitions; ++i) {
    HIP_OR_DIE(hipMalloc(&small, 4096));
    HIP_OR_DIE(hipFree(small));
  }
  const auto malloc_costs = chart.TakeCosts("hipMalloc");
  PrintCosts("hipMalloc (4 KiB, cached), median of 101:", malloc_costs);
  void* pinned = nullptr;
  void* device = nullptr;
  HIP_OR_DIE(hipHostMalloc(&pinned, 4096, hipHostMallocDefault));
  HIP_OR_DIE(hipMalloc(&device, 4096));
  HIP_OR_DIE(hipMemcpy(device, pinned, 4096, hipMemcpyHostToDevice));
  chart.Discard();
  for (int i = 0; i < kRepetitions; ++i) HIP_OR_DIE(hipMemcpy(device, pinned, 4096, hipMemcpyHostToDevice));
  PrintCosts("hipMemcpy (4 KiB, pinned to device: wait included), median of 101:", chart.TakeCosts("hipMemcpy"));
  HIP_OR_DIE(hipFree(device));
  HIP_OR_DIE(hipHostFree(pinned));
  std::printf("  (design figures: the first allocation of a process takes 15-105 us; see the first step)\n");

  hipmem::SetTraceSink(previous);
  if (file != nullptr) {
    file->Close();
    std::printf("\ntrace written to %s (open it in https://ui.perfetto.dev or chrome://tracing)\n",
                trace_path.c_str());
  }
  return same && free_after == free_before && e == hipErrorInvalidValue && !malloc_costs.empty() ? 0 : 1;
}

// ---- hipmem run ------------------------------------------------------------------------------

// A file of this binary's Bazel runfiles (`bazel run`, or a binary run from a test's runfiles), by its path in the
// workspace; "" when there is none.
std::string FindRunfile(const std::string& workspace_path) {
  const std::string suffix = "/hipmem/" + workspace_path;
  std::vector<std::string> candidates;
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    candidates.push_back(std::string(exe) + ".runfiles" + suffix);
  }
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {  // a binary run by another's runfiles (a test)
    if (const char* runfiles = std::getenv(variable); runfiles != nullptr) {
      candidates.push_back(std::string(runfiles) + suffix);
    }
  }
  for (const std::string& path : candidates) {
    if (access(path.c_str(), R_OK) == 0) return path;
  }
  return "";
}

// Where libhipmem_kfd.so is: $HIPMEM_KFD_PRELOAD when set; else beside this binary in an install prefix
// (PREFIX/bin/hipmem, PREFIX/lib/libhipmem_kfd.so) or in its Bazel runfiles.
std::string FindPreloadLibrary() {
  if (const char* explicit_path = std::getenv("HIPMEM_KFD_PRELOAD"); explicit_path != nullptr && *explicit_path) {
    return explicit_path;
  }
  std::vector<std::string> candidates;
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    const std::string self(exe);
    candidates.push_back(self.substr(0, self.rfind('/')) + "/../lib/libhipmem_kfd.so");
  }
  candidates.push_back(FindRunfile("testing/kfd_sim/preload/libhipmem_kfd.so"));
  for (const std::string& path : candidates) {
    char resolved[PATH_MAX];
    if (!path.empty() && access(path.c_str(), R_OK) == 0 && realpath(path.c_str(), resolved) != nullptr) {
      return resolved;
    }
  }
  return "";
}

// Execs argv[first..] with the preload; returns only on failure (126/127 as a shell does, 2 for usage).
int RunPreloaded(int argc, char** argv, int first) {
  if (first < argc && std::string_view(argv[first]) == "--") ++first;
  if (first >= argc) {
    std::fputs("usage: hipmem run -- CMD ARGS...\n", stderr);
    return 2;
  }
  const std::string library = FindPreloadLibrary();
  if (library.empty()) {
    std::fputs("hipmem run: libhipmem_kfd.so not found (beside hipmem in ../lib, in its runfiles, or set "
               "HIPMEM_KFD_PRELOAD)\n",
               stderr);
    return 2;
  }
  // A preload the caller already had stays in front of ours: a sanitizer's runtime must come first, and an
  // interposer of the caller's sees each call before ours and reaches us through RTLD_NEXT.
  std::string preload = library;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0') {
    preload = std::string(existing) + ":" + library;
  }
  setenv("LD_PRELOAD", preload.c_str(), 1);
  execvp(argv[first], argv + first);
  const int err = errno;
  std::fprintf(stderr, "hipmem run: %s: %s\n", argv[first], std::strerror(err));
  return err == ENOENT ? 127 : 126;
}

// `hipmem trace -o FILE -- CMD ARGS...`: runs CMD as `run` does in a child, each of its processes tracing into a
// temporary directory, then merges what they wrote into FILE. Returns CMD's exit status (128 + signal when it was
// killed, as a shell reports it), or 2 for usage and merge failures.
int TracePreloaded(int argc, char** argv, int first) {
  constexpr char kTraceUsage[] = "usage: hipmem trace -o FILE -- CMD ARGS...\n";
  if (first + 1 >= argc || std::string_view(argv[first]) != "-o") {
    std::fputs(kTraceUsage, stderr);
    return 2;
  }
  const std::string output = argv[first + 1];
  first += 2;
  if (first < argc && std::string_view(argv[first]) == "--") ++first;
  if (first >= argc) {
    std::fputs(kTraceUsage, stderr);
    return 2;
  }
  char dir_template[] = "/tmp/hipmem_trace_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) {
    std::fprintf(stderr, "hipmem trace: mkdtemp: %s\n", std::strerror(errno));
    return 2;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "hipmem trace: fork: %s\n", std::strerror(errno));
    rmdir(dir);
    return 2;
  }
  if (child == 0) {
    setenv("HIPMEM_TRACE", (std::string(dir) + "/trace.%p.json").c_str(), 1);
    _exit(RunPreloaded(argc, argv, first));
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  // The files in name order; a process still running in the background writes on into its unlinked file.
  std::vector<std::string> files;
  if (DIR* d = opendir(dir); d != nullptr) {
    while (const dirent* entry = readdir(d)) {
      if (entry->d_name[0] != '.') files.push_back(std::string(dir) + "/" + entry->d_name);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  absl::StatusOr<hipmem::tools::TraceMergeSummary> summary = hipmem::tools::MergeTraceFiles(files, output);
  for (const std::string& file : files) unlink(file.c_str());
  rmdir(dir);
  if (!summary.ok()) {
    std::fprintf(stderr, "hipmem trace: %s\n", std::string(summary.status().message()).c_str());
    return 2;
  }
  std::fprintf(stderr, "hipmem trace: %d events from %d process%s written to %s\n", summary->events,
               summary->processes, summary->processes == 1 ? "" : "es", output.c_str());
  return code;
}

// ---- hipmem bench -----------------------------------------------------------------------------

// Runs `path` with `args`, returning what it printed on stdout (its stderr stays ours) and its exit status (128 +
// signal when it was killed).
absl::StatusOr<std::pair<std::string, int>> RunCapturingStdout(const std::string& path,
                                                                const std::vector<std::string>& args) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe2");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) {
    const int err = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return absl::ErrnoToStatus(err, "fork");
  }
  if (child == 0) {
    dup2(pipe_fds[1], STDOUT_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(path.c_str()));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(path.c_str(), argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return std::make_pair(std::move(output), code);
}

// `hipmem bench [--repetitions N] [--only SUBSTRING]... [-- BENCHMARK_ARGS...]`: runs every benchmark program
// built with hipmem (tools/BUILD's HIPMEM_BENCHMARKS, listed in bench_programs.txt in the runfiles), each with
// interleaved repetitions, and prints their same-run ratios and goals as one table (tools/bench_table.h). Returns 0
// when every goal was met, 1 when one was missed or not measured, 2 when a program could not run or failed.
int Bench(int argc, char** argv, int first) {
  constexpr char kBenchUsage[] = "usage: hipmem bench [--repetitions N] [--only SUBSTRING]... [-- BENCHMARK_ARGS...]\n";
  int repetitions = 3;
  std::vector<std::string> only;
  std::vector<std::string> extra;
  for (int i = first; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      extra.assign(argv + i + 1, argv + argc);
      break;
    }
    if ((arg == "--repetitions" || arg == "--only") && i + 1 < argc) {
      if (arg == "--only") {
        only.emplace_back(argv[++i]);
        continue;
      }
      char* end = nullptr;
      const long n = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || n < 1 || n > 1000) {
        std::fputs(kBenchUsage, stderr);
        return 2;
      }
      repetitions = static_cast<int>(n);
      continue;
    }
    std::fputs(kBenchUsage, stderr);
    return 2;
  }
  const std::string manifest = FindRunfile("tools/bench_programs.txt");
  if (manifest.empty()) {
    std::fputs("hipmem bench: the benchmark programs are not here (they ship in hipmem's Bazel runfiles: "
               "bazel run -c opt //tools:hipmem_bench)\n",
               stderr);
    return 2;
  }
#ifndef NDEBUG
  std::fputs("hipmem bench: this is not an optimised build; ratios from it say little (bazel run -c opt)\n", stderr);
#endif
  std::vector<std::string> programs;
  if (FILE* f = std::fopen(manifest.c_str(), "r"); f != nullptr) {
    char line[PATH_MAX];
    while (std::fgets(line, sizeof(line), f) != nullptr) {
      std::string program(line);
      while (!program.empty() && (program.back() == '\n' || program.back() == ' ')) program.pop_back();
      if (program.empty()) continue;
      bool wanted = only.empty();
      for (const std::string& s : only) wanted = wanted || program.find(s) != std::string::npos;
      if (wanted) programs.push_back(program);
    }
    std::fclose(f);
  }
  if (programs.empty()) {
    std::fputs("hipmem bench: no benchmark program matches\n", stderr);
    return 2;
  }
  std::vector<std::string> args = {"--benchmark_repetitions=" + std::to_string(repetitions),
                                   "--benchmark_enable_random_interleaving=true"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<hipmem::tools::BenchRatio> ratios;
  bool failed = false;
  for (size_t i = 0; i < programs.size(); ++i) {
    std::fprintf(stderr, "hipmem bench: [%zu/%zu] %s\n", i + 1, programs.size(), programs[i].c_str());
    const std::string path = FindRunfile(programs[i]);
    absl::StatusOr<std::pair<std::string, int>> run =
        path.empty() ? absl::NotFoundError("not in the runfiles") : RunCapturingStdout(path, args);
    if (!run.ok()) {
      std::fprintf(stderr, "hipmem bench: %s: %s\n", programs[i].c_str(), std::string(run.status().message()).c_str());
      failed = true;
      continue;
    }
    // RatioReporter's exit statuses: 0 goals met, 1 a goal missed, 2 a benchmark failed.
    if (run->second != 0 && run->second != 1) {
      std::fprintf(stderr, "hipmem bench: %s exited with status %d\n", programs[i].c_str(), run->second);
      failed = true;
    }
    absl::StatusOr<std::vector<hipmem::tools::BenchRatio>> parsed =
        hipmem::tools::ParseRatioLines(programs[i], run->first);
    if (!parsed.ok()) {
      std::fprintf(stderr, "hipmem bench: %s: %s\n", programs[i].c_str(),
                   std::string(parsed.status().message()).c_str());
      failed = true;
      continue;
    }
    ratios.insert(ratios.end(), parsed->begin(), parsed->end());
  }
  std::fputs(hipmem::tools::FormatBenchTable(ratios).c_str(), stdout);
  if (failed) return 2;
  return hipmem::tools::AllGoalsMet(ratios) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr char kUsage[] =
      "usage: hipmem <info | tour [--trace FILE] | dmesg>...  (commands run in order, in one process)\n"
      "       hipmem run -- CMD ARGS...        (CMD on the simulated machine, through libhipmem_kfd.so)\n"
      "       hipmem trace -o FILE -- CMD ARGS...   (run, writing every process's trace into FILE)\n"
      "       hipmem bench [--repetitions N] [--only SUBSTRING]... [-- BENCHMARK_ARGS...]\n"
      "                                        (every benchmark program's ratios and goals, as one table)\n";
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (std::string_view(argv[1]) == "run") return RunPreloaded(argc, argv, 2);
  if (std::string_view(argv[1]) == "trace") return TracePreloaded(argc, argv, 2);
  if (std::string_view(argv[1]) == "bench") return Bench(argc, argv, 2);
  // Parsed up front so a typo does not run half a list.
  std::vector<std::pair<std::string_view, std::string>> commands;
  for (int i = 1; i < argc; ++i) {
    const std::string_view command = argv[i];
    if (command != "info" && command != "tour" && command != "dmesg") {
      std::fprintf(stderr, "hipmem: unknown command '%s'\n%s", argv[i], kUsage);
      return 2;
    }
    std::string trace;
    if (command == "tour" && i + 1 < argc && std::string_view(argv[i + 1]) == "--trace") {
      if (i + 2 >= argc) {
        std::fprintf(stderr, "hipmem: tour --trace needs a file\n%s", kUsage);
        return 2;
      }
      trace = argv[i + 2];
      i += 2;
    }
    commands.emplace_back(command, std::move(trace));
  }
  int status = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    const auto& [command, trace] = commands[i];
    if (i > 0) std::printf("\n");
    const int s = command == "info" ? Info() : command == "tour" ? Tour(trace) : Dmesg();
    if (s != 0) status = s;
  }
  return status;
}
