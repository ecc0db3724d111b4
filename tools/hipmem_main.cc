// `hipmem`: the command line of the hipmem stack.
//
//   hipmem info   the system and every agent as rocminfo prints them -- each attribute, pools and ISAs
//                 (through the public HSA C API, as rocminfo does); then, on the simulator, what the
//                 simulated kernel holds meanwhile: processes, buffers, queues, events, memory use
//   hipmem tour   allocate, copy, verify and free through the public HIP C API, printing what each
//                 layer did (pools chosen, ioctls issued)
//   hipmem dmesg  the simulated kernel's log (the simulator's dmesg)
//   hipmem run -- CMD ARGS...
//                 runs an unmodified program (AMD's rocminfo, a binary linked to AMD's ROCr...) on a simulated
//                 machine (HIPMEM_SIM_PRESET): execs CMD with libhipmem_kfd.so in LD_PRELOAD, which shows it
//                 /dev/kfd, the render nodes and the KFD sysfs tree (testing/kfd_sim/preload/)
//
// Several commands run in order in one process, on one simulated machine: `hipmem tour dmesg` shows the
// kernel's side of the tour.
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "base/trace.h"
#include "hip/hip_runtime_api.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "tools/agent_report.h"
#include "tools/sim_view.h"

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

// Prints each trace line as it happens, indented by layer depth.
class PrintingSink final : public hipmem::TraceSink {
 public:
  void Record(hipmem::Layer layer, absl::string_view message) override {
    hipmem::ScopedLock lock(&mu_);
    const int depth = static_cast<int>(layer);
    std::printf("%*s[%-5s] %.*s\n", 2 * depth, "", std::string(hipmem::LayerName(layer)).c_str(),
                static_cast<int>(message.size()), message.data());
  }

 private:
  absl::Mutex mu_;
};

#define HIP_OR_DIE(call)                                                                          \
  do {                                                                                            \
    const hipError_t e_ = (call);                                                                 \
    if (e_ != hipSuccess) {                                                                       \
      std::fprintf(stderr, "hipmem tour: %s failed: %s (%s)\n", #call, hipGetErrorName(e_),       \
                   hipGetErrorString(e_));                                                        \
      return 1;                                                                                   \
    }                                                                                             \
  } while (false)

void Step(const char* what) { std::printf("\n== %s\n", what); }

int Tour() {
  PrintingSink sink;
  hipmem::SetTraceSink(&sink);
  constexpr size_t kBytes = 1 << 20;

  Step("hipGetDeviceCount: the first HIP call initialises every layer down to the KFD");
  int count = 0;
  HIP_OR_DIE(hipGetDeviceCount(&count));
  std::printf("%d device(s)\n", count);

  size_t free_before = 0, total = 0;
  HIP_OR_DIE(hipMemGetInfo(&free_before, &total));
  std::printf("hipMemGetInfo: free %zu B of %zu B\n", free_before, total);

  Step("hipMalloc x2 (device memory) and hipHostMalloc (pinned host memory)");
  void* a = nullptr;
  void* b = nullptr;
  void* host = nullptr;
  HIP_OR_DIE(hipMalloc(&a, kBytes));
  HIP_OR_DIE(hipMalloc(&b, kBytes));
  HIP_OR_DIE(hipHostMalloc(&host, kBytes, hipHostMallocDefault));

  std::vector<unsigned char> src(kBytes), dst(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) src[i] = static_cast<unsigned char>(i * 131 + 7);

  Step("hipMemcpy H2D, D2D, D2H (pinned), H2H; direction inferred from the pointer map");
  HIP_OR_DIE(hipMemcpy(a, src.data(), kBytes, hipMemcpyHostToDevice));
  HIP_OR_DIE(hipMemcpy(b, a, kBytes, hipMemcpyDeviceToDevice));
  HIP_OR_DIE(hipMemcpy(host, b, kBytes, hipMemcpyDeviceToHost));
  HIP_OR_DIE(hipMemcpy(dst.data(), host, kBytes, hipMemcpyDefault));
  const bool same = std::memcmp(src.data(), dst.data(), kBytes) == 0;
  std::printf("verify: %s\n", same ? "all bytes match" : "MISMATCH");

  hipPointerAttribute_t attr{};
  HIP_OR_DIE(hipPointerGetAttributes(&attr, static_cast<char*>(a) + 100));
  std::printf("hipPointerGetAttributes(a + 100): type=%s device=%d devicePointer=%p\n",
              attr.type == hipMemoryTypeDevice ? "Device" : "other", attr.device, attr.devicePointer);

  size_t free_during = 0;
  HIP_OR_DIE(hipMemGetInfo(&free_during, &total));
  std::printf("hipMemGetInfo: free dropped by %zu B\n", free_before - free_during);

  Step("hipFree / hipHostFree");
  HIP_OR_DIE(hipFree(a));
  HIP_OR_DIE(hipFree(b));
  HIP_OR_DIE(hipHostFree(host));
  size_t free_after = 0;
  HIP_OR_DIE(hipMemGetInfo(&free_after, &total));
  std::printf("hipMemGetInfo: free %zu B (%s)\n", free_after,
              free_after == free_before ? "back to where it started" : "NOT RESTORED");

  Step("a mistake, answered with upstream's code");
  const hipError_t e = hipFree(a);
  std::printf("hipFree(already freed) = %s\n", hipGetErrorName(e));
  hipmem::SetTraceSink(nullptr);
  return same && free_after == free_before && e == hipErrorInvalidValue ? 0 : 1;
}

// ---- hipmem run ------------------------------------------------------------------------------

// Where libhipmem_kfd.so is: $HIPMEM_KFD_PRELOAD when set; else beside this binary in an install prefix
// (PREFIX/bin/hipmem, PREFIX/lib/libhipmem_kfd.so) or in its Bazel runfiles (`bazel run`, or a test's).
std::string FindPreloadLibrary() {
  if (const char* explicit_path = std::getenv("HIPMEM_KFD_PRELOAD"); explicit_path != nullptr && *explicit_path) {
    return explicit_path;
  }
  constexpr char kRunfile[] = "/hipmem/testing/kfd_sim/preload/libhipmem_kfd.so";
  std::vector<std::string> candidates;
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    exe[n] = '\0';
    const std::string self(exe);
    const std::string dir = self.substr(0, self.rfind('/'));
    candidates.push_back(dir + "/../lib/libhipmem_kfd.so");
    candidates.push_back(self + ".runfiles" + kRunfile);
  }
  for (const char* variable : {"RUNFILES_DIR", "TEST_SRCDIR"}) {  // a binary run by another's runfiles (a test)
    if (const char* runfiles = std::getenv(variable); runfiles != nullptr) {
      candidates.push_back(std::string(runfiles) + kRunfile);
    }
  }
  for (const std::string& path : candidates) {
    char resolved[PATH_MAX];
    if (access(path.c_str(), R_OK) == 0 && realpath(path.c_str(), resolved) != nullptr) return resolved;
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

}  // namespace

int main(int argc, char** argv) {
  constexpr char kUsage[] =
      "usage: hipmem <info | tour | dmesg>...  (commands run in order, in one process)\n"
      "       hipmem run -- CMD ARGS...        (CMD on the simulated machine, through libhipmem_kfd.so)\n";
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (std::string_view(argv[1]) == "run") return RunPreloaded(argc, argv, 2);
  // Checked up front so a typo does not run half a list.
  for (int i = 1; i < argc; ++i) {
    const std::string_view command = argv[i];
    if (command != "info" && command != "tour" && command != "dmesg") {
      std::fprintf(stderr, "hipmem: unknown command '%s'\n%s", argv[i], kUsage);
      return 2;
    }
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view command = argv[i];
    if (i > 1) std::printf("\n");
    const int s = command == "info" ? Info() : command == "tour" ? Tour() : Dmesg();
    if (s != 0) status = s;
  }
  return status;
}
