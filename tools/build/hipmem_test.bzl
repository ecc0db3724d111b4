"""hipmem_cc_test: a cc_test that always runs on the simulated KFD.

Tests are hermetic by construction, not by a .bazelrc line: a workspace that embeds hipmem (or a machine with a
real /dev/kfd) runs them on the in-process simulator too. A test's own `env` may still pick a preset
(HIPMEM_SIM_PRESET) or, deliberately, another backend.
"""

load("@rules_cc//cc:defs.bzl", "cc_test")
load("//tools/build:copts.bzl", "HIPMEM_COPTS")

def hipmem_cc_test(name, env = {}, copts = HIPMEM_COPTS, **kwargs):
    test_env = {"HIPMEM_KFD_BACKEND": "sim"}
    test_env.update(env)
    cc_test(name = name, env = test_env, copts = copts, **kwargs)
