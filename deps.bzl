"""Offline dependencies of hipmem, all from Debian bookworm packages.

An embedding workspace calls this too:
    local_repository(name = "hipmem", path = ...)
    load("@hipmem//:deps.bzl", "hipmem_dependencies")
    hipmem_dependencies()
Every label below is a Label() so it resolves inside @hipmem, never in the caller's main repository.
"""

_RULES_CC = "/usr/share/bazel/rules/cc"
_RULES_JAVA = "/usr/share/bazel/rules/java"

def _copy_tree(rctx, src):
    for child in rctx.path(src).readdir():
        rctx.symlink(child, child.basename)

def _debian_rules_cc_impl(rctx):
    # Debian's rules_cc 0.0.4 loads use_cpp_toolchain(), which Bazel 4.2.3's @bazel_tools lacks.
    # Mirror the tree and rewrite just the two files that use it.
    _copy_tree(rctx, _RULES_CC)
    rctx.delete("cc")
    rctx.execute(["cp", "-rL", _RULES_CC + "/cc", "cc"])
    for f in ["cc/private/rules_impl/compiler_flag.bzl", "cc/private/rules_impl/cc_flags_supplier.bzl"]:
        text = rctx.read(f)
        text = text.replace(', "use_cpp_toolchain")', ")")
        text = text.replace("use_cpp_toolchain()", '["@bazel_tools//tools/cpp:toolchain_type"]')
        rctx.file(f, text)

_debian_rules_cc = repository_rule(implementation = _debian_rules_cc_impl, local = True)

def _system_repository_impl(rctx):
    # A system library: headers stay in /usr/include (the compiler's default search path), the BUILD
    # files come from third_party/ so targets carry upstream-looking labels.
    for label, path in rctx.attr.build_files.items():
        rctx.symlink(label, path)
    for target, link in rctx.attr.symlinks.items():
        rctx.symlink(target, link)

_system_repository = repository_rule(
    implementation = _system_repository_impl,
    attrs = {
        "build_files": attr.label_keyed_string_dict(allow_files = True),
        "symlinks": attr.string_dict(),
    },
    local = True,
)

def _coverage_tools_impl(rctx):
    # `bazel test` needs @remote_coverage_tools to exist; offline there is nothing to fetch, so
    # coverage is unsupported and says so.
    rctx.file("WORKSPACE", "")
    rctx.file("coverage_report_generator.sh", "echo 'hipmem: bazel coverage is unsupported offline' >&2; exit 1\n", executable = True)
    rctx.file("lcov_merger.sh", "echo 'hipmem: bazel coverage is unsupported offline' >&2; exit 1\n", executable = True)
    rctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])
sh_binary(name = "coverage_report_generator", srcs = ["coverage_report_generator.sh"])
sh_binary(name = "lcov_merger", srcs = ["lcov_merger.sh"])
filegroup(name = "coverage_output_generator", srcs = ["lcov_merger.sh"])
""")

_coverage_tools = repository_rule(implementation = _coverage_tools_impl)

# Debian's libabsl-dev 20220623: package -> targets we use. Every target links the same set of
# shared libraries (//:absl_libs); each .so carries its own NEEDED entries.
_ABSL_TARGETS = {
    "base": ["base", "config", "core_headers", "log_severity"],
    "cleanup": ["cleanup"],
    "container": ["btree", "flat_hash_map", "flat_hash_set", "inlined_vector", "node_hash_map"],
    "functional": ["any_invocable", "function_ref", "bind_front"],
    "hash": ["hash"],
    "memory": ["memory"],
    "numeric": ["bits", "int128"],
    "status": ["status", "statusor"],
    "strings": ["strings", "str_format", "cord"],
    "synchronization": ["synchronization"],
    "time": ["time"],
    "types": ["optional", "span", "variant"],
}

_ABSL_LIBS = [
    "status", "statusor", "cord", "cord_internal", "cordz_functions", "cordz_handle", "cordz_info",
    "str_format_internal", "strings", "strings_internal", "synchronization", "graphcycles_internal",
    "time", "time_zone", "hash", "city", "low_level_hash", "raw_hash_set", "int128", "throw_delegate",
    "base", "raw_logging_internal", "spinlock_wait", "malloc_internal", "stacktrace", "symbolize",
    "debugging_internal", "demangle_internal", "bad_optional_access", "bad_variant_access", "log_severity",
]

def _absl_impl(rctx):
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD", """package(default_visibility = ["//visibility:public"])
cc_library(name = "absl_libs", linkopts = [%s])
""" % ", ".join(['"-labsl_%s"' % l for l in _ABSL_LIBS]))
    for pkg, targets in _ABSL_TARGETS.items():
        rctx.file("absl/%s/BUILD" % pkg, 'package(default_visibility = ["//visibility:public"])\n' + "".join([
            'cc_library(name = "%s", deps = ["//:absl_libs"])\n' % t
            for t in targets
        ]))

_absl_repository = repository_rule(implementation = _absl_impl, local = True)

def hipmem_dependencies():
    """Declares every external repository hipmem builds with; call from WORKSPACE."""
    existing = native.existing_rules()
    if "rules_cc" not in existing:
        _debian_rules_cc(name = "rules_cc")
    if "rules_java" not in existing:
        native.local_repository(name = "rules_java", path = _RULES_JAVA)
    if "remote_coverage_tools" not in existing:
        _coverage_tools(name = "remote_coverage_tools")
    _absl_repository(name = "com_google_absl")
    _system_repository(
        name = "com_google_googletest",
        build_files = {Label("//third_party:googletest.BUILD"): "BUILD"},
    )
    _system_repository(
        name = "com_github_google_benchmark",
        build_files = {Label("//third_party:benchmark.BUILD"): "BUILD"},
    )
    _system_repository(
        name = "com_googlesource_code_re2",
        build_files = {Label("//third_party:re2.BUILD"): "BUILD"},
    )
    _system_repository(
        name = "libdrm",
        build_files = {Label("//third_party:libdrm.BUILD"): "BUILD"},
        # <linux/kfd_ioctl.h> includes <drm/drm.h>; Debian ships it only as <libdrm/drm.h>.
        symlinks = {"/usr/include/libdrm": "include/drm"},
    )
