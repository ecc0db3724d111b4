// Typed buffer access (MTBUF, MUBUF format ops) for buffer_format_test.cc (one per line; encoded by llvm-mc-19).
tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM] offen
tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_SNORM] offen
tbuffer_load_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_USCALED] offen
tbuffer_load_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SSCALED] offen
tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UINT] offen
tbuffer_load_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SINT] offen
tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen
tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UINT] offen
tbuffer_load_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen offset:4
tbuffer_load_format_xyz v[2:4], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen
tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_2_10_10_10,BUF_NUM_FORMAT_UNORM] offen
tbuffer_load_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_32_32_32_32,BUF_NUM_FORMAT_UINT] offen
tbuffer_load_format_d16_xy v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen
tbuffer_load_format_d16_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_UNORM] offen
tbuffer_store_format_xyzw v[2:5], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM] offen
tbuffer_store_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM] offen
tbuffer_store_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen
tbuffer_store_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UINT] offen
tbuffer_store_format_d16_xy v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen
tbuffer_store_format_xyz v[2:4], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen
tbuffer_store_format_xy v[2:3], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SSCALED] offen
tbuffer_store_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] offen
tbuffer_load_format_x v2, v0, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_FLOAT] offen
buffer_load_format_xy v[2:3], v0, s[8:11], 0 offen
buffer_store_format_x v2, v0, s[8:11], 0 offen
buffer_load_format_d16_hi_x v2, v0, s[8:11], 0 offen
buffer_store_format_d16_hi_x v2, v0, s[8:11], 0 offen
