"""hip_preset_tests: a HIP kernel test compiled once and run on each simulated GPU preset (hipmem's own tests).

  hip_preset_tests(name, srcs, size = "small", presets = KERNEL_TEST_PRESETS)

gives `<name>_test_lib`, a testonly hip_library of `srcs` (with gtest), and per preset `<name>_<preset>_test`, a
hip_test linking it with gtest_main and running with HIPMEM_SIM_PRESET=<preset>.
"""

load("//hip:defs.bzl", "hip_library", "hip_test")

# The presets kernel tests run on: one ISA each (gfx942, gfx90a with two GCDs, gfx908).
KERNEL_TEST_PRESETS = [
    "mi300x",
    "2xmi250x",
    "mi100",
]

def hip_preset_tests(name, srcs, size = "small", presets = KERNEL_TEST_PRESETS):
    lib = name + "_test_lib"
    hip_library(
        name = lib,
        testonly = True,
        srcs = srcs,
        deps = ["@com_google_googletest//:gtest"],
    )
    for preset in presets:
        hip_test(
            name = "%s_%s_test" % (name, preset),
            size = size,
            env = {"HIPMEM_SIM_PRESET": preset},
            deps = [
                ":" + lib,
                "@com_google_googletest//:gtest_main",
            ],
        )
