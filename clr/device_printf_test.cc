// The host side of device printf: FormatPrintf against the host's own snprintf on the same format and values, and
// DecodePrintfBuffer over buffers laid out as the device functions of amd_device_printf.h write them.
#include "clr/device_printf.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

// What the host's printf prints for a literal format.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
std::string Host(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char out[512];
  std::vsnprintf(out, sizeof(out), format, args);
  va_end(args);
  return out;
}
#pragma GCC diagnostic pop

// A value as clang's lowering widens it: 32-bit integers zero-extended, 64-bit ones as they are.
PrintfArg I32(int32_t v) { return PrintfArg::Value(static_cast<uint32_t>(v)); }
PrintfArg I64(int64_t v) { return PrintfArg::Value(static_cast<uint64_t>(v)); }
PrintfArg F64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return PrintfArg::Value(bits);
}
PrintfArg Str(const char* s) { return PrintfArg::String(s == nullptr ? std::nullopt : std::optional<std::string>(s)); }

std::string Format(const char* format, std::vector<PrintfArg> args) { return FormatPrintf(format, args); }

TEST(FormatPrintfTest, IntegersWithFlagsWidthsAndPrecisions) {
  EXPECT_EQ(Format("%d %i %u %x %X %o", {I32(-42), I32(7), I32(-1), I32(0xbeef), I32(0xbeef), I32(8)}),
            Host("%d %i %u %x %X %o", -42, 7, -1u, 0xbeef, 0xbeef, 8));
  EXPECT_EQ(Format("[%5d|%-5d|%05d|%+d|% d|%.3d|%#x|%#o|%8.4x]",
                   {I32(42), I32(42), I32(-42), I32(42), I32(42), I32(7), I32(255), I32(8), I32(0xab)}),
            Host("[%5d|%-5d|%05d|%+d|% d|%.3d|%#x|%#o|%8.4x]", 42, 42, -42, 42, 42, 7, 255, 8, 0xab));
  // "%.0d" of 0 prints nothing.
  EXPECT_EQ(Format("<%.0d>", {I32(0)}), Host("<%.0d>", 0));
}

TEST(FormatPrintfTest, LengthModifiersCutTheWidenedValue) {
  // A char -1 and a short -2 reach the host zero-extended from int; the modifier says how much of them counts.
  EXPECT_EQ(Format("%hhd %hd %hhu %hu %hx", {I32(-1), I32(-2), I32(-1), I32(-2), I32(0x12345)}),
            Host("%hhd %hd %hhu %hu %hx", -1, -2, -1, -2, 0x12345));
  EXPECT_EQ(Format("%ld %lld %lu %llx %zu %zd %jd %td",
                   {I64(-5000000000), I64(INT64_MIN), I64(-1), I64(0x123456789abcdef), I64(123456789012),
                    I64(-3), I64(-4), I64(-6)}),
            Host("%ld %lld %lu %llx %zu %zd %jd %td", -5000000000L, INT64_MIN, static_cast<unsigned long>(-1),
                 0x123456789abcdefULL, size_t{123456789012}, static_cast<ssize_t>(-3), intmax_t{-4},
                 ptrdiff_t{-6}));
  // Without a modifier only the low 32 bits count.
  EXPECT_EQ(Format("%d", {I64(0x1fffffffe)}), Host("%d", -2));
}

TEST(FormatPrintfTest, FloatingPoint) {
  EXPECT_EQ(Format("%f %.2f %10.3e %g %G %a %E %F %-9.1f|",
                   {F64(3.14159), F64(2.71828), F64(12345.678), F64(0.0001), F64(1e-20), F64(1.0), F64(-0.5),
                    F64(INFINITY), F64(9.99)}),
            Host("%f %.2f %10.3e %g %G %a %E %F %-9.1f|", 3.14159, 2.71828, 12345.678, 0.0001, 1e-20, 1.0, -0.5,
                 INFINITY, 9.99));
  // float arguments arrive promoted to double, so %lf and %f agree.
  EXPECT_EQ(Format("%lf", {F64(1.5)}), Host("%f", 1.5));
  EXPECT_EQ(Format("%f", {F64(NAN)}), Host("%f", NAN));
}

TEST(FormatPrintfTest, CharactersStringsAndPointers) {
  EXPECT_EQ(Format("%c%c %3c|%-3c|", {I32('o'), I32('k'), I32('x'), I32('y')}),
            Host("%c%c %3c|%-3c|", 'o', 'k', 'x', 'y'));
  EXPECT_EQ(Format("%s|%8s|%-8s|%.3s|%s", {Str("abc"), Str("right"), Str("left"), Str("truncate"), Str("")}),
            Host("%s|%8s|%-8s|%.3s|%s", "abc", "right", "left", "truncate", ""));
  // A null pointer's %s prints as glibc prints it.
  EXPECT_EQ(Format("[%s]", {Str(nullptr)}), "[(null)]");
  const void* p = reinterpret_cast<const void*>(uintptr_t{0x7f0012345678});
  EXPECT_EQ(Format("%p %p", {I64(0x7f0012345678), I64(0)}), Host("%p %p", p, nullptr));
}

TEST(FormatPrintfTest, StarWidthsAndPrecisionsComeFromTheArguments) {
  EXPECT_EQ(Format("[%*d|%-*d|%*d|%.*f|%.*f|%*.*s]",
                   {I32(6), I32(1), I32(4), I32(2), I32(-4), I32(3), I32(2), F64(3.14159), I32(-1), F64(2.5),
                    I32(5), I32(2), Str("abcdef")}),
            Host("[%*d|%-*d|%*d|%.*f|%.*f|%*.*s]", 6, 1, 4, 2, -4, 3, 2, 3.14159, -1, 2.5, 5, 2, "abcdef"));
}

TEST(FormatPrintfTest, PercentUnknownAndMissing) {
  EXPECT_EQ(Format("100%% done %%d", {}), Host("100%% done %%d"));
  // A malformed conversion, a missing argument and a string where a value is due print as their text.
  EXPECT_EQ(Format("%y %d", {I32(1)}), "%y 1");
  EXPECT_EQ(Format("a=%d b=%d", {I32(1)}), "a=1 b=%d");
  EXPECT_EQ(Format("%d then %s", {Str("x"), Str("y")}), "%d then x");
  EXPECT_EQ(Format("trailing %", {}), "trailing %");
  EXPECT_EQ(Format("%5", {}), "%5");
  // %n prints nothing and takes its argument.
  EXPECT_EQ(Format("a%nb%d", {I64(0), I32(3)}), "ab3");
}

TEST(FormatPrintfTest, HugeDeviceWidthsAreBounded) {
  const std::string out = Format("%*d", {I32(2000000000), I32(1)});
  EXPECT_EQ(out.size(), size_t{1} << 20);
  EXPECT_EQ(out.back(), '1');
}

// A buffer as the device functions of amd_device_printf.h fill it.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(uint64_t capacity) : bytes_(kPrintfHeaderBytes + capacity, 0) { Put<uint64_t>(8, capacity); }

  // __ockl_printf_begin: the record's number + 1, or 0 when none.
  uint32_t Begin() { return ++records_, Put<uint32_t>(16, records_), records_; }
  // __ockl_fprintf_stderr_begin: the same, every chunk of the record flagged for stderr.
  uint32_t BeginStderr() { return to_stderr_.push_back(Begin()), records_; }
  bool String(uint32_t record, uint16_t index, const char* s, bool last) {
    const uint32_t length = s == nullptr ? 0 : static_cast<uint32_t>(std::strlen(s) + 1);
    return Chunk(record, index, 1, length, 0, last, s);
  }
  // __printf_alloc and the stores clang emits after it (-mprintf-kind=buffered).
  bool Frame(const std::vector<uint8_t>& frame) {
    const uint32_t record = Begin();
    return Chunk(record, 0, 3, static_cast<uint32_t>(frame.size()), 0, true, frame.data());
  }
  bool Args(uint32_t record, uint16_t index, std::vector<uint64_t> values, bool last) {
    return Chunk(record, index, 2, static_cast<uint32_t>(8 * values.size()), static_cast<uint32_t>(values.size()),
                 last, values.data());
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  template <typename T>
  void Put(size_t at, T value) {
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
  }
  bool Chunk(uint32_t record, uint16_t index, uint8_t kind, uint32_t bytes, uint32_t count, bool last,
             const void* payload) {
    const uint64_t size = kPrintfChunkHeadBytes + ((bytes + 7ull) & ~7ull);
    const uint64_t at = used_;
    used_ += size;
    Put<uint64_t>(0, used_);
    if (at + size > bytes_.size() - kPrintfHeaderBytes) return false;
    const size_t head = kPrintfHeaderBytes + at;
    Put<uint32_t>(head, record);
    Put<uint16_t>(head + 4, index);
    Put<uint8_t>(head + 6, kind);
    const bool to_stderr = std::find(to_stderr_.begin(), to_stderr_.end(), record) != to_stderr_.end();
    Put<uint8_t>(head + 7, (last ? 1 : 0) | (to_stderr ? 2 : 0));
    Put<uint32_t>(head + 8, bytes);
    Put<uint32_t>(head + 12, count);
    if (bytes != 0) std::memcpy(bytes_.data() + head + kPrintfChunkHeadBytes, payload, bytes);
    return true;
  }

  std::vector<uint8_t> bytes_;
  uint64_t used_ = 0;
  uint32_t records_ = 0;
  std::vector<uint32_t> to_stderr_;
};

TEST(DecodePrintfBufferTest, RecordsInRecordOrderWhateverTheChunkOrder) {
  DeviceBuffer device(4096);
  const uint32_t a = device.Begin();
  const uint32_t b = device.Begin();
  // Two work-items interleave their chunks; each record's own chunks stay in order.
  ASSERT_TRUE(device.String(b, 0, "b=%d %s\n", false));
  ASSERT_TRUE(device.String(a, 0, "a=%d\n", false));
  ASSERT_TRUE(device.Args(b, 1, {static_cast<uint32_t>(-2)}, false));
  ASSERT_TRUE(device.Args(a, 1, {1}, true));
  ASSERT_TRUE(device.String(b, 2, "two", true));
  const uint32_t c = device.Begin();
  ASSERT_TRUE(device.String(c, 0, "plain\n", true));
  const PrintfOutput out = DecodePrintfBuffer(device.bytes());
  EXPECT_EQ(out.text, "a=1\nb=-2 two\nplain\n");
  EXPECT_EQ(out.records, 3u);
  EXPECT_EQ(out.dropped, 0u);
}

TEST(DecodePrintfBufferTest, StderrRecordsGoToTheirOwnText) {
  DeviceBuffer device(4096);
  const uint32_t a = device.Begin();
  const uint32_t b = device.BeginStderr();
  ASSERT_TRUE(device.String(b, 0, "%s:%u: %s: Device-side assertion `%s' failed.\n", false));
  ASSERT_TRUE(device.String(a, 0, "out %d\n", false));
  ASSERT_TRUE(device.String(b, 1, "k.hip", false));
  ASSERT_TRUE(device.Args(a, 1, {3}, true));
  ASSERT_TRUE(device.Args(b, 2, {12}, false));
  ASSERT_TRUE(device.String(b, 3, "void f()", false));
  ASSERT_TRUE(device.String(b, 4, "x < 2", true));
  const PrintfOutput out = DecodePrintfBuffer(device.bytes());
  EXPECT_EQ(out.text, "out 3\n");
  EXPECT_EQ(out.error_text, "k.hip:12: void f(): Device-side assertion `x < 2' failed.\n");
  EXPECT_EQ(out.records, 2u);
  EXPECT_EQ(out.dropped, 0u);
}

TEST(DecodePrintfBufferTest, NullStringsAndFormats) {
  DeviceBuffer device(4096);
  const uint32_t a = device.Begin();
  ASSERT_TRUE(device.String(a, 0, "[%s]\n", false));
  ASSERT_TRUE(device.String(a, 1, nullptr, true));
  const uint32_t b = device.Begin();
  ASSERT_TRUE(device.String(b, 0, nullptr, true));  // printf(NULL): nothing, but a whole record
  const PrintfOutput out = DecodePrintfBuffer(device.bytes());
  EXPECT_EQ(out.text, "[(null)]\n");
  EXPECT_EQ(out.records, 2u);
}

TEST(DecodePrintfBufferTest, ARecordThatDidNotFitIsDroppedWhole) {
  DeviceBuffer device(96);
  const uint32_t a = device.Begin();
  ASSERT_TRUE(device.String(a, 0, "fits %d\n", false));
  ASSERT_TRUE(device.Args(a, 1, {5}, true));
  const uint32_t b = device.Begin();
  ASSERT_TRUE(device.String(b, 0, "half %s\n", false));
  // The string does not fit: the device writes nothing more of the record.
  ASSERT_FALSE(device.String(b, 1, "a string too long for what is left of the buffer", true));
  const uint32_t c = device.Begin();
  ASSERT_FALSE(device.String(c, 0, "none\n", true));
  const PrintfOutput out = DecodePrintfBuffer(device.bytes());
  EXPECT_EQ(out.text, "fits 5\n");
  EXPECT_EQ(out.records, 1u);
  EXPECT_EQ(out.dropped, 2u);
}

TEST(DecodePrintfBufferTest, DamagedBuffersNeverReadPastTheirEnd) {
  DeviceBuffer device(256);
  const uint32_t a = device.Begin();
  ASSERT_TRUE(device.String(a, 0, "ok\n", true));
  const uint32_t b = device.Begin();
  ASSERT_TRUE(device.String(b, 0, "x %d\n", false));
  ASSERT_TRUE(device.Args(b, 1, {1}, true));
  std::vector<uint8_t> bytes = device.bytes();
  // b's head claims a payload far past the buffer: decoding stops there, keeping a.
  const uint32_t huge = 1u << 30;
  std::memcpy(bytes.data() + kPrintfHeaderBytes + 24 + 8, &huge, sizeof(huge));
  PrintfOutput out = DecodePrintfBuffer(bytes);
  EXPECT_EQ(out.text, "ok\n");
  EXPECT_EQ(out.dropped, 1u);
  // A header whose `used` and `capacity` exceed the bytes given, and buffers too short for a header.
  std::vector<uint8_t> lying = device.bytes();
  const uint64_t big = ~uint64_t{0};
  std::memcpy(lying.data(), &big, 8);
  std::memcpy(lying.data() + 8, &big, 8);
  out = DecodePrintfBuffer(std::span<const uint8_t>(lying).first(kPrintfHeaderBytes + 40));
  EXPECT_EQ(out.text, "ok\n");
  EXPECT_EQ(DecodePrintfBuffer(std::span<const uint8_t>(lying).first(7)).text, "");
  // Chunks of one record out of order (or a second record under one number) do not make a record.
  DeviceBuffer twice(256);
  ASSERT_TRUE(twice.String(1, 0, "first\n", true));
  ASSERT_TRUE(twice.String(1, 0, "second\n", true));
  EXPECT_EQ(DecodePrintfBuffer(twice.bytes()).text, "");
}

// A buffered-printf frame as LLVM's lowering stores it: the control dword, the hash or the inline format, then the
// arguments (8 bytes each, %s strings inline and padded to 8).
class Frame {
 public:
  Frame& Hash(uint64_t hash) { return Bytes(&hash, 8); }
  Frame& Value(uint64_t value) { return Bytes(&value, 8); }
  Frame& String(const std::string& s) {
    Bytes(s.c_str(), s.size() + 1);
    // Each string takes its length with the NUL rounded up to 8, wherever it starts.
    for (size_t pad = (8 - (s.size() + 1) % 8) % 8; pad > 0; --pad) body_.push_back(0);
    return *this;
  }
  std::vector<uint8_t> Build(bool constant) const {
    std::vector<uint8_t> frame(4);
    const uint32_t control = static_cast<uint32_t>((4 + body_.size()) << 2 | (constant ? 2 : 0));
    std::memcpy(frame.data(), &control, 4);
    frame.insert(frame.end(), body_.begin(), body_.end());
    return frame;
  }

 private:
  Frame& Bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    body_.insert(body_.end(), b, b + n);
    return *this;
  }
  std::vector<uint8_t> body_;
};

TEST(ParsePrintfFormatsTest, ReadsAmdhsaPrintfEntries) {
  const std::vector<std::string> entries = {"0:0:bcb2e958060e2989,a=%d: b, c\n", "0:0:abe38089d509ec,x", "junk",
                                            "0:0:zz,bad hash", "0:0:ffffffff,\"Non const format string\""};
  const PrintfFormats formats = ParsePrintfFormats(entries);
  ASSERT_EQ(formats.size(), 3u);
  EXPECT_EQ(formats.at(0xbcb2e958060e2989), "a=%d: b, c\n");
  EXPECT_EQ(formats.at(0xabe38089d509ec), "x");
}

TEST(DecodePrintfBufferTest, BufferedFramesWithConstantAndInlineFormats) {
  const PrintfFormats formats = {{0x1234, "k=%d %s|%*.*f %c\n"}, {0x99, "only text\n"}};
  DeviceBuffer device(4096);
  ASSERT_TRUE(device.Frame(Frame()
                               .Hash(0x1234)
                               .Value(static_cast<uint32_t>(-3))
                               .String("inline")
                               .Value(8)
                               .Value(2)
                               .Value(F64(3.14159).value)
                               .Value('z')
                               .Build(true)));
  ASSERT_TRUE(device.Frame(Frame().Hash(0x99).Build(true)));
  // A non-constant format travels inline; LLVM cannot find its %s, so the frame holds the pointer.
  ASSERT_TRUE(device.Frame(Frame().String("dyn %d %s\n").Value(11).Value(0x1000).Build(false)));
  // An unknown hash prints nothing and counts as dropped; a frame cut short prints the conversions it lacks as their
  // text.
  ASSERT_TRUE(device.Frame(Frame().Hash(0x5555).Build(true)));
  ASSERT_TRUE(device.Frame(Frame().Hash(0x1234).Value(1).Build(true)));
  const PrintfOutput out = DecodePrintfBuffer(device.bytes(), &formats);
  EXPECT_EQ(out.text, Host("k=%d %s|%*.*f %c\n", -3, "inline", 8, 2, 3.14159, 'z') + "only text\n" + "dyn 11 %s\n" +
                          "k=1 %s|%*.*f %c\n");
  EXPECT_EQ(out.records, 4u);
  EXPECT_EQ(out.dropped, 1u);
  // Without the code object's formats, constant-format frames cannot print.
  EXPECT_EQ(DecodePrintfBuffer(device.bytes()).text, "dyn 11 %s\n");
}

TEST(DecodePrintfBufferTest, AnEmptyBufferPrintsNothing) {
  DeviceBuffer device(kPrintfDataBytes);
  const PrintfOutput out = DecodePrintfBuffer(device.bytes());
  EXPECT_EQ(out.text, "");
  EXPECT_EQ(out.records, 0u);
  EXPECT_EQ(out.dropped, 0u);
}

}  // namespace
}  // namespace hipmem::clr
