// The main() of a fuzz target built without libFuzzer (every configuration but --config=fuzz, where gcc builds
// the tree and has no libFuzzer): runs each input of the corpus given on the command line, then -runs=N inputs
// made by mutating them, with a fixed -seed. Not coverage-guided, so it finds less than libFuzzer; it exists so
// that `bazel test` (and --config=asan) runs every fuzz target's corpus and a bounded number of mutations on the
// stock toolchain. It takes libFuzzer's flag syntax for the few flags the tests and tools/fuzz/fuzz_long.sh use,
// so one command line drives either build; others are ignored.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

using Input = std::vector<uint8_t>;

bool ReadFile(const std::string& path, Input& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

void AddPath(const std::string& path, std::vector<Input>& corpus) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::fprintf(stderr, "fuzz driver: %s: not found\n", path.c_str());
    std::exit(2);
  }
  if (!S_ISDIR(st.st_mode)) {
    Input input;
    if (ReadFile(path, input)) corpus.push_back(std::move(input));
    return;
  }
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());  // the same order every time: a failure replays with the same -seed
  for (const std::string& name : names) AddPath(path + "/" + name, corpus);
}

// A few of libFuzzer's mutations: bit flips, random and "interesting" bytes and words, inserts, erases, copies
// within the input and splices with another corpus entry.
void Mutate(Input& data, const std::vector<Input>& corpus, std::mt19937_64& rng, size_t max_len) {
  static constexpr uint32_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, 0x100, 0x1000, 0x7fffffff, 0x80000000,
                                              0xffffffff, 0xfffffffe, 4096, 65536};
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int m = 0; m < count; ++m) {
    const size_t n = data.size();
    switch (rng() % 8) {
      case 0:
        if (n > 0) data[rng() % n] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        if (n > 0) data[rng() % n] = static_cast<uint8_t>(rng());
        break;
      case 2:
        if (n >= 4) {
          const uint32_t v = kInteresting[rng() % std::size(kInteresting)];
          std::memcpy(&data[rng() % (n - 3)], &v, 4);
        }
        break;
      case 3:
        if (n < max_len) data.insert(data.begin() + static_cast<std::ptrdiff_t>(n == 0 ? 0 : rng() % (n + 1)), static_cast<uint8_t>(rng()));
        break;
      case 4:
        if (n > 0) {
          const size_t at = rng() % n;
          const size_t len = 1 + rng() % std::min<size_t>(n - at, 16);
          data.erase(data.begin() + static_cast<std::ptrdiff_t>(at), data.begin() + static_cast<std::ptrdiff_t>(at + len));
        }
        break;
      case 5:
        if (n > 1) {
          const size_t from = rng() % n;
          const size_t len = 1 + rng() % std::min<size_t>(n - from, 32);
          const size_t to = rng() % (n - len + 1);
          std::memmove(&data[to], &data[from], std::min(len, n - std::max(from, to)));
        }
        break;
      case 6:
        if (!corpus.empty()) {
          const Input& other = corpus[rng() % corpus.size()];
          if (!other.empty()) {
            const size_t cut = n == 0 ? 0 : rng() % n;
            const size_t from = rng() % other.size();
            data.resize(cut);
            data.insert(data.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
          }
        }
        break;
      case 7:
        if (n >= 2) {
          const size_t at = rng() % (n - 1);
          uint16_t v;
          std::memcpy(&v, &data[at], 2);
          v = static_cast<uint16_t>(v + (rng() % 33) - 16);
          std::memcpy(&data[at], &v, 2);
        }
        break;
    }
    if (data.size() > max_len) data.resize(max_len);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  uint64_t runs = 0;
  uint64_t seed = 1;
  size_t max_len = 4096;
  std::vector<Input> corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-runs=", 0) == 0) {
      runs = std::strtoull(arg.c_str() + 6, nullptr, 10);
    } else if (arg.rfind("-seed=", 0) == 0) {
      seed = std::strtoull(arg.c_str() + 6, nullptr, 10);
    } else if (arg.rfind("-max_len=", 0) == 0) {
      max_len = std::strtoull(arg.c_str() + 9, nullptr, 10);
    } else if (!arg.empty() && arg[0] == '-') {
      // libFuzzer's other flags (-max_total_time, -dict, ...): nothing to do without it.
    } else {
      AddPath(arg, corpus);
    }
  }
  uint64_t executed = 0;
  for (const Input& input : corpus) {
    LLVMFuzzerTestOneInput(input.data(), input.size());
    ++executed;
  }
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < runs; ++i) {
    Input data = corpus.empty() ? Input{} : corpus[rng() % corpus.size()];
    Mutate(data, corpus, rng, max_len);
    LLVMFuzzerTestOneInput(data.data(), data.size());
    ++executed;
  }
  std::printf("Done %llu runs (%zu corpus inputs, %llu mutations, seed %llu; standalone driver, no libFuzzer)\n",
              static_cast<unsigned long long>(executed), corpus.size(), static_cast<unsigned long long>(runs),
              static_cast<unsigned long long>(seed));
  return 0;
}
