// MUBUF loads to LDS for lds_load_test.cc, on every target (one per line; encoded by llvm-mc-19 at build time).
buffer_load_dword v0, s[8:11], s1 offen offset:4 lds
buffer_load_ubyte v0, s[8:11], s1 offen offset:4 lds
buffer_load_sbyte v0, s[8:11], s1 offen offset:4 lds
buffer_load_ushort v0, s[8:11], s1 offen offset:4 lds
buffer_load_sshort v0, s[8:11], s1 offen offset:4 lds
buffer_load_dword off, s[8:11], s1 lds
