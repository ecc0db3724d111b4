// gfx942 MUBUF forms for mubuf_test.cc: the SC0/SC1/NT bits and buffer_inv.
buffer_wbl2 sc1
buffer_inv sc1
buffer_atomic_add v4, off, s[8:11], 0 sc1 nt
buffer_atomic_add v4, off, s[8:11], 0 sc0
