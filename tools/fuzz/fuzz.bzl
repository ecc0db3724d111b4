"""Fuzz targets: one binary per target, a bounded test for `bazel test`, and the long runs of fuzz_long.sh.

hipmem_fuzz_target(name, srcs, deps, seeds) makes
  :name         the fuzz binary: libFuzzer's main under --config=fuzz (clang, -fsanitize=fuzzer,address), else
                tools/fuzz/standalone_driver.cc (the corpus, then -runs=N mutations; any toolchain);
  :name_test    runs it on its seed corpus plus RUNS mutations (a few thousand executions, seconds), in every
                configuration: plain, --config=asan and --config=fuzz.
`seeds` is a binary that writes the seed corpus into the directory given as its argument (seeds from the
tests' own scenarios), so the corpus follows the code that makes it.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//tools/build:copts.bzl", "HIPMEM_COPTS")

FUZZ_TEST_RUNS = 3000

def hipmem_fuzz_target(name, srcs, deps, seeds, runs = FUZZ_TEST_RUNS, max_len = 4096, size = "medium", tags = [],
                       testonly = True):
    """`testonly`: a fuzz binary is a test tool, so by default nothing that ships may depend on it."""
    cc_binary(
        name = name,
        testonly = testonly,
        srcs = srcs,
        copts = HIPMEM_COPTS,
        linkopts = select({
            "//tools/fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            "//tools/fuzz:libfuzzer": [],
            "//conditions:default": ["//tools/fuzz:standalone_driver"],
        }),
        tags = tags,
    )
    native.sh_test(
        name = name + "_test",
        size = size,
        srcs = ["//tools/fuzz:run_fuzz_test.sh"],
        args = [
            "$(location :%s)" % name,
            "$(location %s)" % seeds,
            str(runs),
            str(max_len),
        ],
        data = [":" + name, seeds],
        tags = tags,
    )
