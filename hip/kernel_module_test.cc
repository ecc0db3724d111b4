// Modules: a code object bundle built apart from the program (hip:module_kernels_bundle) and one bare ELF code object
// (gfx90a only), loaded from a file and from memory, their kernels launched with hipModuleLaunchKernel (argument
// pointers and a packed argument buffer) and their variables reached through hipModuleGetGlobal.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

constexpr char kBundle[] = "hip/module_kernels.hipfb";
constexpr char kGfx90aObject[] = "hip/module_kernels_gfx90a.co";

std::vector<char> ReadFile(const char* path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

std::string Arch() {
  hipDeviceProp_t props{};
  EXPECT_EQ(hipGetDeviceProperties(&props, 0), hipSuccess);
  return std::string(props.gcnArchName).substr(0, 6);
}

// Runs module_axpy of `module` over n elements and checks y = a x + y * scale[i % 4].
void CheckAxpy(hipModule_t module) {
  hipFunction_t axpy = nullptr;
  ASSERT_HIP(hipModuleGetFunction(&axpy, module, "module_axpy"));
  hipDeviceptr_t scale = nullptr;
  size_t scale_bytes = 0;
  ASSERT_HIP(hipModuleGetGlobal(&scale, &scale_bytes, module, "module_scale"));
  ASSERT_EQ(scale_bytes, 4 * sizeof(float));
  const float scales[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  ASSERT_HIP(hipMemcpyHtoD(scale, scales, sizeof(scales)));
  constexpr int kN = 1000;
  std::vector<float> x(kN), y(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 3.0f;
  }
  float *dx = nullptr, *dy = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&dx), kN * sizeof(float)));
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&dy), kN * sizeof(float)));
  ASSERT_HIP(hipMemcpy(dx, x.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  ASSERT_HIP(hipMemcpy(dy, y.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  float a = 2.0f;
  int n = kN;
  void* params[] = {&a, &dx, &dy, &n};
  ASSERT_HIP(hipModuleLaunchKernel(axpy, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  ASSERT_HIP(hipMemcpy(y.data(), dy, kN * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(y[i], 2.0f * i + 3.0f * scales[i % 4]) << i;
  ASSERT_HIP(hipFree(dx));
  ASSERT_HIP(hipFree(dy));
}

// Adds through module_count with a packed argument buffer; returns the module's counter.
int CountBy(hipModule_t module, int by, unsigned blocks) {
  hipFunction_t count = nullptr;
  EXPECT_EQ(hipModuleGetFunction(&count, module, "module_count"), hipSuccess);
  struct {
    int by;
  } args{by};
  size_t size = sizeof(args);
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  EXPECT_EQ(hipModuleLaunchKernel(count, blocks, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra), hipSuccess);
  hipDeviceptr_t counter = nullptr;
  size_t bytes = 0;
  EXPECT_EQ(hipModuleGetGlobal(&counter, &bytes, module, "module_counter"), hipSuccess);
  EXPECT_EQ(bytes, sizeof(int));
  int value = -1;
  EXPECT_EQ(hipMemcpyDtoH(&value, counter, sizeof(value)), hipSuccess);
  return value;
}

TEST(Modules, ABundleLoadedFromAFileRunsItsKernels) {
  hipModule_t module = nullptr;
  ASSERT_HIP(hipModuleLoad(&module, kBundle));
  CheckAxpy(module);
  EXPECT_EQ(CountBy(module, 2, 3), 2 * 3 * 64);
  EXPECT_EQ(CountBy(module, 1, 1), 2 * 3 * 64 + 64);
  // The occupancy of a module kernel: few registers, the SPI's 32 waves per CU.
  hipFunction_t axpy = nullptr;
  ASSERT_HIP(hipModuleGetFunction(&axpy, module, "module_axpy"));
  int blocks = 0;
  ASSERT_HIP(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 64, 0));
  EXPECT_EQ(blocks, 32);
  int value = 0;
  ASSERT_HIP(hipFuncGetAttribute(&value, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, axpy));
  EXPECT_EQ(value, 1024);
  ASSERT_HIP(hipModuleUnload(module));
}

TEST(Modules, EachLoadFromMemoryHasItsOwnVariables) {
  const std::vector<char> image = ReadFile(kBundle);
  ASSERT_FALSE(image.empty());
  hipModule_t first = nullptr, second = nullptr;
  ASSERT_HIP(hipModuleLoadData(&first, image.data()));
  ASSERT_HIP(hipModuleLoadDataEx(&second, image.data(), 0, nullptr, nullptr));
  EXPECT_NE(first, second);
  EXPECT_EQ(CountBy(first, 5, 1), 5 * 64);
  EXPECT_EQ(CountBy(second, 1, 2), 2 * 64);
  hipDeviceptr_t a = nullptr, b = nullptr;
  ASSERT_HIP(hipModuleGetGlobal(&a, nullptr, first, "module_counter"));
  ASSERT_HIP(hipModuleGetGlobal(&b, nullptr, second, "module_counter"));
  EXPECT_NE(a, b);
  CheckAxpy(second);
  ASSERT_HIP(hipModuleUnload(first));
  ASSERT_HIP(hipModuleUnload(second));
}

TEST(Modules, ABareCodeObjectRunsOnlyOnItsIsa) {
  const std::vector<char> image = ReadFile(kGfx90aObject);
  ASSERT_FALSE(image.empty());
  hipModule_t module = nullptr;
  ASSERT_HIP(hipModuleLoadData(&module, image.data()));
  hipFunction_t axpy = nullptr;
  if (Arch() == "gfx90a") {
    CheckAxpy(module);
  } else {
    // Loaded lazily per device: the device without a code object for it finds out at the lookup.
    EXPECT_EQ(hipModuleGetFunction(&axpy, module, "module_axpy"), hipErrorNoBinaryForGpu);
  }
  ASSERT_HIP(hipModuleUnload(module));
}

TEST(Modules, BadArgumentsAreClrs) {
  hipModule_t module = nullptr;
  EXPECT_EQ(hipModuleLoad(&module, "hip/no_such_code_object.hipfb"), hipErrorFileNotFound);
  const char garbage[64] = "not a code object";
  EXPECT_EQ(hipModuleLoadData(&module, garbage), hipErrorInvalidImage);
  EXPECT_EQ(hipModuleLoadData(nullptr, garbage), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleUnload(nullptr), hipErrorInvalidHandle);
  ASSERT_HIP(hipModuleLoad(&module, kBundle));
  hipFunction_t f = nullptr;
  EXPECT_EQ(hipModuleGetFunction(&f, module, "no_such_kernel"), hipErrorNotFound);
  EXPECT_EQ(hipModuleGetFunction(nullptr, module, "module_axpy"), hipErrorInvalidValue);
  hipDeviceptr_t p = nullptr;
  size_t bytes = 0;
  EXPECT_EQ(hipModuleGetGlobal(&p, &bytes, module, "no_such_variable"), hipErrorNotFound);
  EXPECT_EQ(hipModuleGetGlobal(nullptr, nullptr, module, "module_counter"), hipErrorInvalidValue);
  ASSERT_HIP(hipModuleGetFunction(&f, module, "module_count"));
  int by = 1;
  void* params[] = {&by};
  size_t size = sizeof(by);
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &by, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  EXPECT_EQ(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, params, extra), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchKernel(f, 1, 1, 1, 0, 1, 1, 0, nullptr, params, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchKernel(nullptr, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr), hipErrorInvalidHandle);
  ASSERT_HIP(hipModuleUnload(module));
  EXPECT_EQ(hipModuleUnload(module), hipErrorInvalidHandle);
}

// hipModuleLaunchCooperativeKernel (the single-device module form): a 2D grid of blocks synchronised by the GWS
// barrier only a cooperative launch's queue has, in stream order between an async fill and an async copy; then the
// argument checks hip-tests make, with CLR's codes.
TEST(Modules, ACooperativeLaunchOfAModuleKernelSynchronisesItsWholeGrid) {
  hipModule_t module = nullptr;
  ASSERT_HIP(hipModuleLoad(&module, kBundle));
  hipFunction_t rounds = nullptr;
  ASSERT_HIP(hipModuleGetFunction(&rounds, module, "module_grid_rounds"));
  hipDeviceProp_t props{};
  ASSERT_HIP(hipGetDeviceProperties(&props, 0));
  const unsigned columns = static_cast<unsigned>(props.multiProcessorCount), rows = 2, blocks = columns * rows;
  int *slots = nullptr, *seen = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&slots), blocks * sizeof(int)));
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&seen), 2 * blocks * sizeof(int)));
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  ASSERT_HIP(hipMemsetAsync(slots, 0, blocks * sizeof(int), stream));
  void* params[] = {&slots, &seen};
  ASSERT_HIP(hipModuleLaunchCooperativeKernel(rounds, columns, rows, 1, 64, 1, 1, 0, stream, params));
  std::vector<int> got(2 * blocks, -1);
  ASSERT_HIP(hipMemcpyAsync(got.data(), seen, got.size() * sizeof(int), hipMemcpyDeviceToHost, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  for (unsigned r = 0; r < 2; ++r) {
    for (unsigned b = 0; b < blocks; ++b) {
      ASSERT_EQ(got[r * blocks + b], static_cast<int>((r + 1) * 10000 + (b + 1) % blocks)) << r << " " << b;
    }
  }
  // On the null stream too.
  ASSERT_HIP(hipModuleLaunchCooperativeKernel(rounds, blocks, 1, 1, 64, 1, 1, 0, nullptr, params));
  ASSERT_HIP(hipMemcpy(got.data(), seen, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (unsigned b = 0; b < blocks; ++b) ASSERT_EQ(got[blocks + b], static_cast<int>(20000 + (b + 1) % blocks)) << b;

  hipFunction_t count = nullptr;
  ASSERT_HIP(hipModuleGetFunction(&count, module, "module_count"));
  hipDeviceptr_t counter = nullptr;
  size_t bytes = 0;
  ASSERT_HIP(hipModuleGetGlobal(&counter, &bytes, module, "module_counter"));
  const int zero = 0;
  ASSERT_HIP(hipMemcpyHtoD(counter, &zero, sizeof(zero)));
  int by = 1;
  void* count_params[] = {&by};
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, count_params),
            hipErrorInvalidResourceHandle);
  const unsigned dims[6] = {1, 1, 1, 1, 1, 1};
  for (int zero = 0; zero < 6; ++zero) {
    unsigned d[6];
    for (int k = 0; k < 6; ++k) d[k] = k == zero ? 0 : dims[k];
    EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, d[0], d[1], d[2], d[3], d[4], d[5], 0, nullptr, count_params),
              hipErrorInvalidValue)
        << "dimension " << zero << " is 0";
  }
  int max_threads = 0, max_shared = 0;
  ASSERT_HIP(hipDeviceGetAttribute(&max_threads, hipDeviceAttributeMaxThreadsPerBlock, 0));
  ASSERT_HIP(hipDeviceGetAttribute(&max_shared, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  const unsigned over = static_cast<unsigned>(max_threads) + 1;
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, 1, 1, 1, over, 1, 1, 0, nullptr, count_params),
            hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, 1, 1, 1, 1, over, 1, 0, nullptr, count_params),
            hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, 1, 1, 1, 16, 16, 8, 0, nullptr, count_params),
            hipErrorInvalidValue);  // 2048 work-items
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, 1, 1, 1, 1, 1, 1, static_cast<unsigned>(max_shared) + 1, nullptr,
                                             count_params),
            hipErrorInvalidValue);
  // More blocks than can be resident at once.
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, 1u << 20, 1, 1, 64, 1, 1, 0, nullptr, count_params),
            hipErrorCooperativeLaunchTooLarge);
  hipStream_t gone = nullptr;
  ASSERT_HIP(hipStreamCreate(&gone));
  ASSERT_HIP(hipStreamDestroy(gone));
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, 1, 1, 1, 1, 1, 1, 0, gone, count_params),
            hipErrorContextIsDestroyed);
  EXPECT_EQ(hipModuleLaunchKernel(count, 1, 1, 1, 1, 1, 1, 0, gone, count_params, nullptr), hipErrorContextIsDestroyed);
  // The stream is checked first (CLR's order): a destroyed stream with a bad block is still a destroyed stream.
  EXPECT_EQ(hipModuleLaunchCooperativeKernel(count, 1, 1, 1, 0, 1, 1, 0, gone, count_params),
            hipErrorContextIsDestroyed);
  // None of the refused launches ran: module_counter holds only what the valid launch below adds.
  by = 5;
  ASSERT_HIP(hipModuleLaunchCooperativeKernel(count, 3, 1, 1, 32, 1, 1, 0, nullptr, count_params));
  int value = -1;
  ASSERT_HIP(hipMemcpyDtoH(&value, counter, sizeof(value)));
  EXPECT_EQ(value, 5 * 3 * 32);

  ASSERT_HIP(hipStreamDestroy(stream));
  ASSERT_HIP(hipFree(slots));
  ASSERT_HIP(hipFree(seen));
  ASSERT_HIP(hipModuleUnload(module));
}

// hipModuleLaunchCooperativeKernelMultiDevice: one grid per listed stream's device, each entry with its own function
// (here one per device, from one module loaded per device, as hip-tests do), each counting into its device's copy of
// module_counter; then the argument checks, in CLR's order and with its codes.
TEST(Modules, ACooperativeLaunchOnSeveralDevicesRunsEveryGridAndAnswersClrsErrors) {
  int devices = 0;
  ASSERT_HIP(hipGetDeviceCount(&devices));
  std::vector<hipModule_t> modules(devices);
  std::vector<hipStream_t> streams(devices);
  std::vector<hipFunctionLaunchParams> list(devices);
  int by = 3;
  void* params[] = {&by};
  for (int d = 0; d < devices; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipModuleLoad(&modules[d], kBundle));
    ASSERT_HIP(hipStreamCreate(&streams[d]));
    hipFunction_t count = nullptr;
    ASSERT_HIP(hipModuleGetFunction(&count, modules[d], "module_count"));
    list[d] = hipFunctionLaunchParams{count, 2, 1, 1, 64, 1, 1, 0, streams[d], params};
  }
  ASSERT_HIP(hipSetDevice(0));
  ASSERT_HIP(hipModuleLaunchCooperativeKernelMultiDevice(list.data(), devices, 0));  // synchronised after (flags 0)
  for (int d = 0; d < devices; ++d) {
    SCOPED_TRACE(d);
    ASSERT_HIP(hipSetDevice(d));
    hipDeviceptr_t counter = nullptr;
    size_t bytes = 0;
    ASSERT_HIP(hipModuleGetGlobal(&counter, &bytes, modules[d], "module_counter"));
    int value = -1;
    ASSERT_HIP(hipMemcpyDtoH(&value, counter, sizeof(value)));
    EXPECT_EQ(value, 3 * 2 * 64);
  }
  ASSERT_HIP(hipSetDevice(0));

  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(nullptr, 1, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(list.data(), 0, 0), hipErrorInvalidValue);
  // More devices than there are: hipErrorInvalidValue here (the hipLaunchParams form answers hipErrorInvalidDevice).
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(list.data(), devices + 1, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(list.data(), devices, 4), hipErrorInvalidValue);
  hipFunctionLaunchParams bad = list[0];
  bad.hStream = nullptr;
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidResourceHandle);
  bad = list[0];
  bad.blockDimY = 0;
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidConfiguration);
  bad.hStream = nullptr;  // the block is checked first
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidConfiguration);
  bad = list[0];
  bad.function = nullptr;
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidResourceHandle);
  hipStream_t gone = nullptr;
  ASSERT_HIP(hipStreamCreate(&gone));
  ASSERT_HIP(hipStreamDestroy(gone));
  bad = list[0];
  bad.hStream = gone;
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidValue);
  // Too many blocks to be resident at once: the single-device cooperative launch's error.
  bad = list[0];
  bad.gridDimX = 1u << 20;
  EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorCooperativeLaunchTooLarge);
  if (devices >= 2) {
    std::vector<hipFunctionLaunchParams> twice = {list[0], list[0]};
    EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(twice.data(), 2, 0), hipErrorInvalidDevice);
    std::vector<hipFunctionLaunchParams> uneven = {list[0], list[1]};
    uneven[1].gridDimX = 1;
    EXPECT_EQ(hipModuleLaunchCooperativeKernelMultiDevice(uneven.data(), 2, 0), hipErrorInvalidValue);
  }
  for (int d = 0; d < devices; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipStreamDestroy(streams[d]));
    ASSERT_HIP(hipModuleUnload(modules[d]));
  }
  ASSERT_HIP(hipSetDevice(0));
}

}  // namespace
