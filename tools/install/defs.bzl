"""install_tree: what `bazel run //tools:install -- PREFIX` copies where, as a manifest install.sh follows.

The manifest has one line per entry, fields separated by tabs:
    F  <mode>  <destination>  <source, relative to the runfiles tree of the workspace>
    L  <destination>  <target of the symbolic link>
Libraries are installed under their file name (the soname) with the linker name (libX.so) linking to it, headers
under include/ keeping their path below the package's include/ directory (as `strip_include_prefix` exposes them).
"""

def _linker_name(basename):
    # libhsa-runtime64.so.1 -> libhsa-runtime64.so; a file already named libX.so has no link.
    index = basename.find(".so.")
    return basename[:index + 3] if index >= 0 else None

def _include_path(f):
    # A strip_include_prefix library's headers are its _virtual_includes/<name>/ links; else below include/.
    virtual = "/_virtual_includes/"
    index = f.short_path.find(virtual)
    if index >= 0:
        rest = f.short_path[index + len(virtual):]
        return rest[rest.index("/") + 1:]
    marker = "/include/"
    index = f.short_path.rfind(marker)
    if index < 0:
        fail("header %s is not under an include/ directory" % f.short_path)
    return f.short_path[index + len(marker):]

def _add(lines, files, mode, destination, f):
    lines.append("F\t%s\t%s\t%s" % (mode, destination, f.short_path))
    files.append(f)

def _install_tree_impl(ctx):
    lines = []
    files = []

    for target in ctx.attr.binaries:
        for f in target[DefaultInfo].files.to_list():
            _add(lines, files, "755", "bin/" + f.basename, f)
    for target in ctx.attr.libraries:
        for f in target[DefaultInfo].files.to_list():
            _add(lines, files, "755", "lib/" + f.basename, f)
            linker_name = _linker_name(f.basename)
            if linker_name:
                lines.append("L\tlib/%s\t%s" % (linker_name, f.basename))
    headers = {}  # a strip_include_prefix header comes twice: as the source and as its virtual-include link
    for target in ctx.attr.headers:
        for f in target[CcInfo].compilation_context.direct_headers:
            headers.setdefault("include/" + _include_path(f), f)
    for destination, f in headers.items():
        _add(lines, files, "644", destination, f)
    for target, directory in ctx.attr.data.items():
        for f in target[DefaultInfo].files.to_list():
            _add(lines, files, "644", directory + "/" + f.basename, f)

    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest")
    ctx.actions.write(manifest, "\n".join(lines) + "\n")
    return [DefaultInfo(files = depset([manifest]), runfiles = ctx.runfiles(files = files + [manifest]))]

install_tree = rule(
    implementation = _install_tree_impl,
    attrs = {
        "binaries": attr.label_list(allow_files = True),
        "libraries": attr.label_list(allow_files = True),
        "headers": attr.label_list(providers = [CcInfo]),
        # Other files, each to the directory (below the prefix) it maps to.
        "data": attr.label_keyed_string_dict(allow_files = True),
    },
)
