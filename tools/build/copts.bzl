"""Compiler flags applied to hipmem's own targets only (never to the system libraries)."""

HIPMEM_COPTS = [
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Werror=unused-result",
]
