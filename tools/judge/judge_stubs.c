/* Stand-ins for the libhsakmt internals the judge build leaves out.
 *
 * build_libhsakmt_model.sh compiles only the libhsakmt sources on the path the comparison measures (open,
 * topology, model mode, memory, fmm, rbtree, version, globals). The files it leaves out (queues.c,
 * events.c, debug.c, perfctr.c and their tables) provide these ten internal functions, which the kept
 * files call once while opening or closing KFD or never on the memory path. Written for hipmem from their
 * names and signatures in libhsakmt's src/libhsakmt.h; none of them runs per ALLOC/MAP/UNMAP/FREE cycle, so
 * they do not change what is measured. */
#include <stdbool.h>
#include <stdint.h>

#include "libhsakmt.h"

/* Doorbells are mapped when a queue is created; the judge creates none. */
HSAKMT_STATUS hsakmt_init_process_doorbells(HsaKFDContext* ctx, unsigned int NumNodes) {
  (void)ctx;
  (void)NumNodes;
  return HSAKMT_STATUS_SUCCESS;
}
void hsakmt_destroy_process_doorbells(HsaKFDContext* ctx) { (void)ctx; }
void hsakmt_clear_process_doorbells(HsaKFDContext* ctx) { (void)ctx; }

/* No event page: the judge creates no events. */
void hsakmt_clear_events_page(HsaKFDContext* ctx) { (void)ctx; }

/* No debugger: scratch backing is allocated as VRAM, as upstream does when no debugger is registered. */
HSAKMT_STATUS hsakmt_init_device_debugging_memory(unsigned int NumNodes) {
  (void)NumNodes;
  return HSAKMT_STATUS_SUCCESS;
}
void hsakmt_destroy_device_debugging_memory(void) {}
bool hsakmt_debug_get_reg_status(uint32_t node_id) {
  (void)node_id;
  return false;
}

/* No performance counters. */
HSAKMT_STATUS hsakmt_init_counter_props(unsigned int NumNodes) {
  (void)NumNodes;
  return HSAKMT_STATUS_SUCCESS;
}
void hsakmt_destroy_counter_props(void) {}

/* Only fills HsaNodeProperties.VGPRSizePerCU, which nothing here reads: 256 KiB, the gfx9 value. */
uint32_t hsakmt_get_vgpr_size_per_cu(uint32_t gfxv) {
  (void)gfxv;
  return 0x40000;
}
