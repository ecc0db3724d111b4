"""HIP sources (.hip) in Bazel: hip_library, hip_binary and hip_test, as hipcc builds them.

Each .hip source is compiled once by Debian's clang++-19 in HIP mode (`-x hip`), for the host and for every target of
`offload_archs` (default gfx908, gfx90a, gfx942), without ROCm's device libraries or clang's HIP wrapper headers
(`-nogpulib -nogpuinc`): hipmem's <hip/hip_runtime.h> supplies the kernel language. The result is one host object
holding the device code objects in clang's offload bundle (section `.hip_fatbin`) and the constructor clang generates
to register them and the kernels with the runtime (`__hipRegisterFatBinary`, `__hipRegisterFunction`,
`__hipRegisterVar`). The objects are linked with @hipmem//hip:hipmem, whose runtime loads the code object that fits each
GPU when a kernel is first launched on it.

From another workspace: `load("@hipmem//hip:defs.bzl", "hip_binary")`. Needs clang-19 and clang-tools-19 (the
offload bundler) on the host, and rocm-device-libs (the math library's ocml.bc and the kernel library's ockl.bc, linked
into the device code only) unless a rule says device_libs = False, as tools/quickstart.sh installs them.

  hip_library(name, srcs, hdrs, deps, offload_archs, copts, defines,  a cc_library of the compiled objects
              device_libs = True)                                     (False: no ocml.bc/ockl.bc, see below)
  hip_binary(name, srcs, deps, ...)                                   a cc_binary linking them
  hip_test(name, srcs, deps, ...)                                     a cc_test linking them (gtest works: the
                                                                      compile sees every dep's headers)

`srcs` may mix .hip files with ordinary C++ sources (compiled by the C++ toolchain as usual); headers a .hip source
includes go in `hdrs` or come from `deps`.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

DEFAULT_OFFLOAD_ARCHS = ["gfx908", "gfx90a", "gfx942"]

# Flags of the host side as well as the device side: optimised (the simulated GPU interprets every instruction),
# position independent (a test links its objects into a shared library when Bazel links dynamically).
_HIP_FLAGS = ["-x", "hip", "-nogpuinc", "-O2", "-fPIC", "-std=c++20"]

# The device libraries: Debian's rocm-device-libs (5.2.3) bitcode. ocml.bc holds the math functions of
# <hip/math_functions.h> that have no clang builtin (__ocml_sin_f32 and the rest); ockl.bc the kernel library HIP code
# calls by name (__ockl_get_local_size, __ockl_activelane_u32, __ockl_wfred_*, __ockl_gws_barrier, __ockl_grid_sync;
# <hip/amd_detail/device_library_decls.h> declares them). `--hip-device-lib` makes the driver link them into the
# device side only (-mlink-builtin-bitcode: only what a kernel calls, internalized), never into the host object; the
# functions our headers define themselves (ockl's printf entry points, amd_device_printf.h) keep our definitions,
# because a builtin library only fills what the module leaves undefined. Both read their controls from constants the
# oclc_* bitcodes define: HIP's defaults (infinities and NaNs honoured, no unsafe math, denormals kept, f32 sqrt
# correctly rounded) for every target; per target (`-Xarch_<target>`) the ISA version, which this rule generates for
# each offload arch because Debian's 5.2.3 has none for gfx941/gfx942, and the wave size (64 on gfx9 and older, 32
# on gfx10 and later, HIP's default there). The code object ABI version ockl reads (__oclc_ABI_version) is not linked:
# clang-19 defines it in every device module from -mcode-object-version. With device_libs = False the driver gets
# -nogpulib instead, and a kernel calling an ocml or ockl function fails to link.
ROCM_DEVICE_LIB_PATH = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
_DEVICE_LIBS = [
    "ocml.bc",
    "ockl.bc",
    "oclc_finite_only_off.bc",
    "oclc_unsafe_math_off.bc",
    "oclc_daz_opt_off.bc",
    "oclc_correctly_rounded_sqrt_on.bc",
]

def _isa_version(arch):
    """gfx<major><minor><stepping> (stepping one hex digit), feature suffixes dropped -> major*1000+minor*100+stepping,
    the value of ocml's __oclc_ISA_version (gfx90a -> 9010, gfx942 -> 9402, gfx1030 -> 10300)."""
    name = arch.split(":")[0]
    if not name.startswith("gfx") or len(name) < 6:
        fail("offload arch %r is not gfx<major><minor><stepping>" % arch)
    digits = name[3:]
    return int(digits[:-2]) * 1000 + int(digits[-2], 16) * 100 + int(digits[-1], 16)

def _wavefrontsize64_bitcode(arch):
    """oclc_wavefrontsize64_{on,off}.bc: on for gfx9 and older (wave64 only), off for gfx10 and later."""
    return "oclc_wavefrontsize64_%s.bc" % ("on" if _isa_version(arch) < 10000 else "off")

def _isa_version_bitcode(ctx, arch):
    """oclc_isa_version_<arch>.bc for one target: the one constant, as LLVM IR assembled by clang-19."""
    name = arch.split(":")[0]
    ir = ctx.actions.declare_file("_hip_objs/%s/device_libs/oclc_isa_version_%s.ll" % (ctx.label.name, name))
    bc = ctx.actions.declare_file("_hip_objs/%s/device_libs/oclc_isa_version_%s.bc" % (ctx.label.name, name))
    ctx.actions.write(ir, 'target triple = "amdgcn-amd-amdhsa"\n' +
                          "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) " +
                          "constant i32 %d, align 4\n" % _isa_version(arch))
    ctx.actions.run_shell(
        command = 'exec clang-19 --target=amdgcn-amd-amdhsa -nogpulib -c -emit-llvm -x ir "$1" -o "$2"',
        arguments = [ir.path, bc.path],
        inputs = [ir],
        outputs = [bc],
        use_default_shell_env = True,
        mnemonic = "HipIsaVersion",
        progress_message = "Generating ocml's ISA version for %s" % name,
    )
    return bc

def _device_lib_flags(ctx):
    """The driver flags linking the device libraries, and the generated bitcode they read."""
    if not ctx.attr.device_libs:
        return ["-nogpulib"], []
    generated = [_isa_version_bitcode(ctx, a) for a in ctx.attr.offload_archs]
    flags = ["--rocm-device-lib-path=" + ROCM_DEVICE_LIB_PATH]
    if generated:
        flags.append("--rocm-device-lib-path=" + generated[0].dirname)
    flags += ["--hip-device-lib=" + lib for lib in _DEVICE_LIBS]
    for arch, bc in zip(ctx.attr.offload_archs, generated):
        target = "-Xarch_" + arch.split(":")[0]
        flags += [target, "--hip-device-lib=" + bc.basename]
        flags += [target, "--hip-device-lib=" + _wavefrontsize64_bitcode(arch)]
    return flags, generated

def _hip_objects_impl(ctx):
    compilation_contexts = [d[CcInfo].compilation_context for d in ctx.attr.deps + [ctx.attr._hip_headers]]
    headers = depset(ctx.files.hdrs, transitive = [c.headers for c in compilation_contexts])
    include_flags = []
    for c in compilation_contexts:
        for d in c.quote_includes.to_list():
            include_flags += ["-iquote", d]
        for d in c.includes.to_list():
            include_flags += ["-I", d]
        for d in c.system_includes.to_list():
            include_flags += ["-isystem", d]
        for d in c.defines.to_list():
            include_flags.append("-D" + d)

    # The workspace root and its generated twin, as the C++ toolchain adds them.
    include_flags += ["-iquote", ".", "-iquote", ctx.genfiles_dir.path]
    arch_flags = ["--offload-arch=" + a for a in ctx.attr.offload_archs]
    device_lib_flags, device_lib_files = _device_lib_flags(ctx)
    outputs = []
    for src in ctx.files.srcs:
        out = ctx.actions.declare_file("_hip_objs/%s/%s.o" % (ctx.label.name, src.basename))
        args = ctx.actions.args()
        args.add_all(_HIP_FLAGS)
        args.add_all(device_lib_flags)
        args.add_all(arch_flags)
        args.add_all(include_flags)
        args.add_all(["-D" + d for d in ctx.attr.defines])
        args.add_all(ctx.attr.copts)
        args.add_all(["-c", src.path, "-o", out.path])
        ctx.actions.run_shell(
            command = 'exec clang++-19 "$@"',
            arguments = [args],
            inputs = depset([src] + device_lib_files, transitive = [headers]),
            outputs = [out],
            use_default_shell_env = True,
            mnemonic = "HipCompile",
            progress_message = "Compiling HIP %s for %s" % (src.short_path, ", ".join(ctx.attr.offload_archs)),
        )
        outputs.append(out)
    return [DefaultInfo(files = depset(outputs))]

_hip_objects = rule(
    implementation = _hip_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".hip"]),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "offload_archs": attr.string_list(),
        "copts": attr.string_list(),
        "defines": attr.string_list(),
        "device_libs": attr.bool(default = True),
        "_hip_headers": attr.label(default = Label("//hip:hip_headers"), providers = [CcInfo]),
    },
)

def _split(srcs):
    hip = [s for s in srcs if s.endswith(".hip")]
    other = [s for s in srcs if not s.endswith(".hip")]
    return hip, other

def _objects(name, hip_srcs, hdrs, deps, offload_archs, copts, defines, testonly, device_libs = True):
    if not hip_srcs:
        return []
    _hip_objects(
        name = name + "_hip_objects",
        srcs = hip_srcs,
        hdrs = hdrs,
        deps = deps,
        offload_archs = offload_archs,
        copts = copts,
        defines = defines,
        testonly = testonly,
        device_libs = device_libs,
    )
    return [":" + name + "_hip_objects"]

def hip_library(name, srcs = [], hdrs = [], deps = [], offload_archs = DEFAULT_OFFLOAD_ARCHS, copts = [],
                defines = [], testonly = False, **kwargs):
    """A cc_library of HIP (and C++) sources, linked with the HIP runtime. Always linked whole: each object's
    registration constructor must run even when nothing else references the object."""
    hip_srcs, other = _split(srcs)
    device_libs = kwargs.pop("device_libs", True)
    objects = _objects(name, hip_srcs, hdrs, deps, offload_archs, copts, defines, testonly, device_libs)
    cc_library(
        name = name,
        srcs = objects + other,
        hdrs = hdrs,
        deps = deps + [Label("//hip:hipmem")],
        copts = copts,
        defines = defines,
        alwayslink = True,
        testonly = testonly,
        **kwargs
    )

def _linked(rule_fn, name, srcs, deps, offload_archs, copts, defines, testonly, kwargs):
    hip_srcs, other = _split(srcs)
    device_libs = kwargs.pop("device_libs", True)
    lib_deps = deps
    if hip_srcs:
        hip_library(
            name = name + "_hip",
            srcs = hip_srcs,
            deps = deps,
            offload_archs = offload_archs,
            copts = copts,
            defines = defines,
            testonly = testonly,
            visibility = ["//visibility:private"],
            device_libs = device_libs,
        )
        lib_deps = deps + [":" + name + "_hip"]
    rule_fn(
        name = name,
        srcs = other,
        deps = lib_deps + [Label("//hip:hipmem")],
        copts = copts,
        defines = defines,
        testonly = testonly,
        **kwargs
    )

def hip_binary(name, srcs = [], deps = [], offload_archs = DEFAULT_OFFLOAD_ARCHS, copts = [], defines = [],
               testonly = False, **kwargs):
    """A cc_binary whose .hip sources are compiled by clang++-19 in HIP mode."""
    _linked(cc_binary, name, srcs, deps, offload_archs, copts, defines, testonly, kwargs)

def hip_test(name, srcs = [], deps = [], offload_archs = DEFAULT_OFFLOAD_ARCHS, copts = [], defines = [],
             env = {}, **kwargs):
    """A cc_test whose .hip sources are compiled by clang++-19 in HIP mode. It runs on the simulated GPU unless its
    `env` picks another backend (HIPMEM_KFD_BACKEND), as hipmem's own tests do."""
    test_env = {"HIPMEM_KFD_BACKEND": "sim"}
    test_env.update(env)
    _linked(cc_test, name, srcs, deps, offload_archs, copts, defines, True, dict(kwargs, env = test_env))
