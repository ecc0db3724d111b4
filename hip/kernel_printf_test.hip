// printf from device code end to end: kernels compiled by clang++-19 against hipmem's headers print from many
// work-items; the stream prints their records on the host once the dispatch completes, which every check here waits
// for by synchronising (no timing). The expected text is what the host's own printf makes of the same format and
// values. Built twice: with clang's default lowering (-mprintf-kind=hostcall) and with -mprintf-kind=buffered
// (HIPMEM_PRINTF_BUFFERED defined), which cannot carry a null %s (amd_device_printf.h).
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
std::string Host(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char out[1024];
  std::vsnprintf(out, sizeof(out), format, args);
  va_end(args);
  return out;
}
#pragma GCC diagnostic pop

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every work-item prints its coordinates.
__global__ void print_ids() {
  printf("block %u thread %u of %u\n", blockIdx.x, threadIdx.x, blockDim.x);
}

struct Values {
  int i;
  unsigned u;
  long long ll;
  unsigned long long ull;
  short h;
  signed char hh;
  size_t z;
  double d;
  float f;
  char c;
  const char* s;  // device memory
  const void* p;
};

#define FORMAT_INTS "[%d|%i|%u|%x|%X|%o|%5d|%-5d|%05d|%+d|% d|%.3d|%#x|%#o]\n"
#define FORMAT_LENGTHS "[%lld|%llu|%llx|%ld|%lu|%hd|%hu|%hhd|%hhu|%zu|%zd]\n"
#define FORMAT_FLOATS "[%f|%.2f|%10.3e|%E|%g|%G|%a|%A|%-9.1f|%F|%f]\n"
#define FORMAT_OTHERS "[%c|%3c|%-3c|%s|%8s|%-8s|%.2s|%s|%p|%%|%*d|%-*d|%.*f]\n"

__global__ void print_formats(Values v) {
  printf(FORMAT_INTS, v.i, v.i, v.u, v.u, v.u, v.u, v.i, v.i, v.i, v.i, v.i, v.i, v.u, v.u);
  printf(FORMAT_LENGTHS, v.ll, v.ull, v.ull, static_cast<long>(v.ll), static_cast<unsigned long>(v.ull), v.h,
         static_cast<unsigned short>(v.h), v.hh, static_cast<unsigned char>(v.hh), v.z, static_cast<ptrdiff_t>(v.z));
  printf(FORMAT_FLOATS, v.d, v.d, v.d, v.d, v.d, v.d, v.d, v.d, v.d, v.f, static_cast<double>(-v.f));
  printf(FORMAT_OTHERS, v.c, v.c, v.c, v.s, "lit", v.s, v.s, "", v.p, 7, v.i, 6, v.i, 3, v.d);
}

__global__ void print_null_string(const char* null) { printf("[%s|%d]\n", null, 5); }

// One work-item prints a numbered sequence: its records keep program order.
__global__ void print_sequence(int count, int tag) {
  for (int k = 0; k < count; ++k) printf("%d:%d\n", tag, k);
}

// Prints through a device function: printf is reached from a callee, not the kernel itself.
__device__ __noinline__ void say(const char* what, int n) { printf("say %s %d\n", what, n); }
__global__ void print_from_callee(const char* what) { say(what, static_cast<int>(threadIdx.x)); }

// Prints far more than one dispatch's buffer holds; counts the printfs that returned -1 (dropped records).
__global__ void flood(unsigned* dropped, int per_thread) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < per_thread; ++k) {
    const int printed = printf("flood %u %d: %s\n", id, k, "the quick brown fox jumps over the lazy dog");
    if (printed < 0) atomicAdd(dropped, 1u);
  }
}

__global__ void no_printf(int* p) { p[threadIdx.x] = static_cast<int>(threadIdx.x); }

class KernelPrintfTest : public ::testing::Test {
 protected:
  void SetUp() override { ::testing::internal::CaptureStdout(); }
  void TearDown() override {
    if (capturing_) (void)::testing::internal::GetCapturedStdout();
  }
  // What the kernels printed so far (after the caller synchronised).
  std::string Captured() {
    fflush(stdout);
    capturing_ = false;
    return ::testing::internal::GetCapturedStdout();
  }
  bool capturing_ = true;
};

TEST_F(KernelPrintfTest, EveryWorkItemsLineArrivesOnceAfterTheDeviceSynchronises) {
  constexpr unsigned kBlocks = 3, kThreads = 96;  // a partial second wave per block
  print_ids<<<kBlocks, kThreads>>>();
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipDeviceSynchronize());
  const std::vector<std::string> lines = Lines(Captured());
  std::multiset<std::string> got(lines.begin(), lines.end());
  ASSERT_EQ(lines.size(), kBlocks * kThreads);
  for (unsigned b = 0; b < kBlocks; ++b) {
    for (unsigned t = 0; t < kThreads; ++t) {
      EXPECT_EQ(got.count(Host("block %u thread %u of %u", b, t, kThreads)), 1u) << b << " " << t;
    }
  }
}

TEST_F(KernelPrintfTest, ConversionsFlagsWidthsAndLengthsAreTheHostsPrintf) {
  const char text[] = "device string";
  char* ds = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&ds), sizeof(text)));
  ASSERT_HIP(hipMemcpy(ds, text, sizeof(text), hipMemcpyHostToDevice));
  Values v{-1234, 0xdeadbeefu, -9000000000123LL, 0xfedcba9876543210ULL, -321, -7, size_t{1} << 40, 3.14159265358979,
           -2.5f, 'Q', ds, reinterpret_cast<const void*>(uintptr_t{0x7fab12345678})};
  print_formats<<<1, 1>>>(v);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipDeviceSynchronize());
  const std::string expected =
      Host(FORMAT_INTS, v.i, v.i, v.u, v.u, v.u, v.u, v.i, v.i, v.i, v.i, v.i, v.i, v.u, v.u) +
      Host(FORMAT_LENGTHS, v.ll, v.ull, v.ull, static_cast<long>(v.ll), static_cast<unsigned long>(v.ull), v.h,
           static_cast<unsigned short>(v.h), v.hh, static_cast<unsigned char>(v.hh), v.z,
           static_cast<ptrdiff_t>(v.z)) +
      Host(FORMAT_FLOATS, v.d, v.d, v.d, v.d, v.d, v.d, v.d, v.d, v.d, static_cast<double>(v.f),
           static_cast<double>(-v.f)) +
      Host(FORMAT_OTHERS, v.c, v.c, v.c, text, "lit", text, text, "", v.p, 7, v.i, 6, v.i, 3, v.d);
  EXPECT_EQ(Captured(), expected);
  ASSERT_HIP(hipFree(ds));
}

#ifndef HIPMEM_PRINTF_BUFFERED
TEST_F(KernelPrintfTest, ANullStringPrintsAsGlibcPrintsIt) {
  print_null_string<<<1, 1>>>(nullptr);
  ASSERT_HIP(hipDeviceSynchronize());
  EXPECT_EQ(Captured(), "[(null)|5]\n");
}
#endif

TEST_F(KernelPrintfTest, DispatchesPrintInStreamOrderAndRecordsInProgramOrder) {
  hipStream_t stream;
  ASSERT_HIP(hipStreamCreate(&stream));
  int* dp = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&dp), 64 * sizeof(int)));
  print_sequence<<<1, 1, 0, stream>>>(5, 1);
  no_printf<<<1, 64, 0, stream>>>(dp);
  print_sequence<<<1, 1, 0, stream>>>(3, 2);
  ASSERT_HIP(hipStreamSynchronize(stream));
  EXPECT_EQ(Captured(), "1:0\n1:1\n1:2\n1:3\n1:4\n2:0\n2:1\n2:2\n");
  std::vector<int> back(64, -1);
  ASSERT_HIP(hipMemcpy(back.data(), dp, back.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(back[i], i);
  ASSERT_HIP(hipFree(dp));
  ASSERT_HIP(hipStreamDestroy(stream));
}

TEST_F(KernelPrintfTest, ABlockingCopyAfterTheKernelShowsItsOutput) {
  char* what = nullptr;
  const char word[] = "hi";
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&what), sizeof(word)));
  ASSERT_HIP(hipMemcpy(what, word, sizeof(word), hipMemcpyHostToDevice));
  print_from_callee<<<1, 4>>>(what);
  char back[sizeof(word)] = {};
  ASSERT_HIP(hipMemcpy(back, what, sizeof(word), hipMemcpyDeviceToHost));
  const std::vector<std::string> lines = Lines(Captured());
  const std::multiset<std::string> got(lines.begin(), lines.end());
  EXPECT_EQ(got, (std::multiset<std::string>{"say hi 0", "say hi 1", "say hi 2", "say hi 3"}));
  ASSERT_HIP(hipFree(what));
}

TEST_F(KernelPrintfTest, AFullBufferDropsWholeRecordsAndTheNextDispatchPrintsAgain) {
  unsigned* dropped = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&dropped), sizeof(unsigned)));
  ASSERT_HIP(hipMemset(dropped, 0, sizeof(unsigned)));
  // 256 work-items x 64 records of ~100 bytes each: about 1.6 MiB of records for a 1 MiB buffer.
  constexpr unsigned kThreads = 256;
  constexpr int kPerThread = 64;
  flood<<<1, kThreads>>>(dropped, kPerThread);
  print_sequence<<<1, 1>>>(2, 9);
  ASSERT_HIP(hipDeviceSynchronize());
  unsigned dropped_count = 0;
  ASSERT_HIP(hipMemcpy(&dropped_count, dropped, sizeof(dropped_count), hipMemcpyDeviceToHost));
  const std::vector<std::string> lines = Lines(Captured());
  ASSERT_GT(dropped_count, 0u);
  ASSERT_LT(dropped_count, kThreads * kPerThread);
  // Every record printf kept is printed whole, once; the dropped ones not at all; the next dispatch is untouched.
  ASSERT_EQ(lines.size(), kThreads * kPerThread - dropped_count + 2);
  std::set<std::string> seen;
  for (size_t k = 0; k + 2 < lines.size(); ++k) {
    unsigned id = 0;
    int n = 0;
    char rest[64] = {};
    ASSERT_EQ(std::sscanf(lines[k].c_str(), "flood %u %d: %63[^\n]", &id, &n, rest), 3) << lines[k];
    EXPECT_STREQ(rest, "the quick brown fox jumps over the lazy dog");
    EXPECT_TRUE(seen.insert(lines[k]).second) << lines[k];
  }
  EXPECT_EQ(lines[lines.size() - 2], "9:0");
  EXPECT_EQ(lines.back(), "9:1");
  ASSERT_HIP(hipFree(dropped));
}

// A cooperative launch runs on the device's cooperative queue, which belongs to no user stream: its records still
// print by the time the launching stream's synchronise returns, in that stream's order with its other launches.
TEST_F(KernelPrintfTest, ACooperativeLaunchPrintsByItsStreamsSynchronise) {
  hipStream_t stream;
  ASSERT_HIP(hipStreamCreate(&stream));
  int count = 3, tag = 7;
  void* args[] = {&count, &tag};
  print_sequence<<<1, 1, 0, stream>>>(2, 6);
  ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(print_sequence), dim3(1), dim3(1), args, 0,
                                        stream));
  print_sequence<<<1, 1, 0, stream>>>(1, 8);
  ASSERT_HIP(hipStreamSynchronize(stream));
  EXPECT_EQ(Captured(), "6:0\n6:1\n7:0\n7:1\n7:2\n8:0\n");
  ASSERT_HIP(hipStreamDestroy(stream));
}

// The same on the null stream, seen by hipDeviceSynchronize; the last launch is the cooperative one.
TEST_F(KernelPrintfTest, ACooperativeLaunchPrintsByTheDevicesSynchronise) {
  int count = 2, tag = 4;
  void* args[] = {&count, &tag};
  ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(print_sequence), dim3(1), dim3(1), args, 0,
                                        nullptr));
  ASSERT_HIP(hipDeviceSynchronize());
  EXPECT_EQ(Captured(), "4:0\n4:1\n");
}

}  // namespace
