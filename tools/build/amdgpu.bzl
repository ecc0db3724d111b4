"""AMDGPU code objects built from source with Debian's LLVM 19 (clang-19, llvm-mc-19, ld.lld-19).

Kernels used by tests are compiled by the build, never checked in as binaries:
  amdgpu_code_object(name, src, arch)     one code object (an AMDGPU ELF shared object, `<name>.co`) for one
                                          target (`gfx908`, `gfx90a`, `gfx942`, with `:xnack+` style features),
                                          from HIP device code (`.hip`, `.cc`) or assembly (`.s`, with
                                          `.amdhsa_kernel` directives, linked as ROCm's toolchain links one)
  amdgpu_raw_code(name, src, mcpu)        the bare machine code of a `.s` file without `.amdhsa_kernel` directives
                                          (`<name>.bin`, its .text section): a shader as kfdtest hands one to a
                                          PM4 dispatch, which needs no kernel descriptor and no ELF
  amdgpu_embed(name, srcs)                a cc_library whose `<label name>()` returns each code object's bytes as
                                          a std::string_view (declared in the generated `<name>.h`)
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

# The device-only compile HIP-Clang runs for each --offload-arch, without a GPU library: the kernels that tests
# build need nothing from ROCm's device libraries.
_HIP_DEVICE_FLAGS = "-x hip --cuda-device-only -nogpulib -nogpuinc --no-gpu-bundle-output -O2 -std=c++17"

def amdgpu_code_object(name, src, arch, copts = [], code_object_version = 5, **kwargs):
    """Compiles `src` for one AMDGPU target into `<name>.co`."""
    out = name + ".co"
    cov = "-mcode-object-version=%d" % code_object_version
    if src.endswith(".s"):
        mcpu = arch.split(":")[0]
        mattr = " ".join(["-mattr=%s%s" % ("+" if f.endswith("+") else "-", f[:-1]) for f in arch.split(":")[1:]])
        cmd = ("llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=%s %s --amdhsa-code-object-version=%d -filetype=obj " +
               "$(location %s) -o $@.o && ld.lld-19 -shared --no-undefined $@.o -o $@ && rm -f $@.o") % (
            mcpu,
            mattr,
            code_object_version,
            src,
        )
    else:
        cmd = "clang++-19 %s %s --offload-arch=%s %s $(location %s) -o $@" % (
            _HIP_DEVICE_FLAGS,
            cov,
            arch,
            " ".join(copts),
            src,
        )
    native.genrule(
        name = name,
        srcs = [src],
        outs = [out],
        cmd = cmd,
        message = "Building AMDGPU code object %s" % out,
        **kwargs
    )

def amdgpu_raw_code(name, src, mcpu, **kwargs):
    """Assembles `src` for `mcpu` with llvm-mc-19 and keeps only its .text bytes, as `<name>.bin`. A branch to a
    label resolves inside the section; anything needing a relocation (a symbol outside it) fails the build."""
    native.genrule(
        name = name,
        srcs = [src],
        outs = [name + ".bin"],
        cmd = ("llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=%s -filetype=obj $(location %s) -o $@.o && " +
               "if llvm-objdump-19 -r $@.o | grep -q R_AMDGPU; then echo 'relocations in %s' >&2; exit 1; fi && " +
               "llvm-objcopy-19 -O binary --only-section=.text $@.o $@ && rm -f $@.o") % (mcpu, src, src),
        message = "Assembling raw AMDGPU code %s.bin" % name,
        **kwargs
    )

def amdgpu_embed(name, srcs, namespace = "hipmem_testing", **kwargs):
    """A cc_library exposing each of `srcs` (labels of files) as `std::string_view <label name>()`."""
    header = name + ".h"
    source = name + "_embed.cc"
    stems = [s.split(":")[-1].split("/")[-1].replace(".", "_").replace("-", "_") for s in srcs]
    decls = "\n".join(["std::string_view %s();" % s for s in stems])
    native.genrule(
        name = name + "_header",
        outs = [header],
        cmd = "printf '%%s\\n' '#pragma once' '#include <string_view>' 'namespace %s {' '%s' '}' > $@" % (
            namespace,
            decls.replace("\n", "' '"),
        ),
        **kwargs
    )
    parts = []
    for src, stem in zip(srcs, stems):
        parts.append(
            ("printf 'namespace %s {\\nstd::string_view %s() {\\n  static const unsigned char kBytes[] = {\\n' >> $@; " +
             "od -An -v -tx1 $(location %s) | sed -e 's/ \\([0-9a-f][0-9a-f]\\)/0x\\1,/g' >> $@; " +
             "printf '  };\\n  return std::string_view(reinterpret_cast<const char*>(kBytes), sizeof(kBytes));\\n}\\n}\\n' >> $@; ") % (
                namespace,
                stem,
                src,
            ),
        )
    native.genrule(
        name = name + "_source",
        srcs = srcs,
        outs = [source],
        cmd = "printf '#include <string_view>\\n' > $@; " + "".join(parts),
        **kwargs
    )
    cc_library(
        name = name,
        srcs = [source],
        hdrs = [header],
        **kwargs
    )

def amdgpu_encodings(name, src, mcpu, namespace = "hipmem_testing", **kwargs):
    """A cc_library with LLVM's encoding of every line of `src` (one instruction per line; blank lines and lines
    starting with `//` are skipped) for `mcpu`, as `const AsmEncoding <name>[]` in `<name>.h`: {text, bytes}
    rows whose text is the line as written. A line llvm-mc-19 does not accept fails the build."""
    header = name + ".h"
    native.genrule(
        name = name + "_gen",
        srcs = [src],
        outs = [header],
        cmd = """
set -eu
out=$@
{
  echo '#pragma once'
  echo '#include <cstdint>'
  echo '#include <vector>'
  echo 'namespace %s {'
  echo '#ifndef HIPMEM_ASM_ENCODING_DEFINED'
  echo '#define HIPMEM_ASM_ENCODING_DEFINED'
  echo 'struct AsmEncoding { const char* text; std::vector<uint8_t> bytes; };'
  echo '#endif'
  echo 'inline const AsmEncoding %s[] = {'
} > $$out
while IFS= read -r line || [ -n "$$line" ]; do
  case "$$line" in ''|//*) continue ;; esac
  enc=$$(printf '%%s\\n' "$$line" | llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=%s -show-encoding 2>&1 | sed -n 's/.*; encoding: \\[\\(.*\\)\\]/\\1/p')
  if [ -z "$$enc" ]; then echo "llvm-mc-19 does not accept for %s: $$line" >&2; exit 1; fi
  printf '  {"%%s", {%%s}},\\n' "$$line" "$$enc" >> $$out
done < $(location %s)
echo '};' >> $$out
echo '}' >> $$out
""" % (namespace, name, mcpu, mcpu, src),
        message = "Encoding %s with llvm-mc-19 for %s" % (src, mcpu),
        **kwargs
    )
    cc_library(
        name = name,
        hdrs = [header],
        **kwargs
    )
