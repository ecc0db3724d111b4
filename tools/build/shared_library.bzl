"""A shared library holding every object of this repository's cc_library deps, with a soname and a version script.

Why a macro: `cc_binary(linkshared = True)` over cc_library deps links their static archives, and the linker takes
an archive member only for a symbol something already refers to; with no sources of its own nothing refers to
anything and the library comes out empty. Here a rule collects the PIC objects of every non-alwayslink library of
this repository in the deps' closure and hands them to the cc_binary as sources, so each object is linked in
unconditionally (as -Wl,--whole-archive would, without fighting Bazel's order of link arguments). Alwayslink
libraries are left to the cc_binary, which already links them whole; system libraries (Abseil, libdrm, the C++
runtime) stay dynamic dependencies, as the deps declare them.

The version script decides what the library exports: the public C API under upstream's version nodes, everything
else (hipmem's C++ internals, Abseil's inlined templates) local.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

def _pic_objects_impl(ctx):
    workspace = ctx.label.workspace_name
    objects = {}
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            if linker_input.owner.workspace_name != workspace:
                continue
            for library in linker_input.libraries:
                if library.alwayslink:
                    continue
                for obj in (library.pic_objects or library.objects or []):
                    objects[obj] = True
    return [DefaultInfo(files = depset(objects.keys()))]

_pic_objects = rule(
    implementation = _pic_objects_impl,
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
)

def hipmem_shared_library(name, deps, soname, version_script, linkopts = [], visibility = None, **kwargs):
    """A shared library `name` (a file name such as "libhsakmt.so.1") with DT_SONAME `soname`, exporting what
    `version_script` (a label of a GNU ld version script) makes global. Refuses undefined symbols at link time, so
    a library that could not load is a build error, not a user's dlopen error."""
    _pic_objects(
        name = name + "_objects",
        deps = deps,
        visibility = ["//visibility:private"],
    )
    cc_binary(
        name = name,
        srcs = [":" + name + "_objects"],
        deps = deps,
        linkshared = True,
        additional_linker_inputs = [version_script],
        linkopts = linkopts + [
            "-Wl,-soname," + soname,
            "-Wl,--version-script=$(location %s)" % version_script,
            "-Wl,--no-undefined",
        ],
        visibility = visibility,
        **kwargs
    )
