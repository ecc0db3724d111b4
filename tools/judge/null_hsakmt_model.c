/* A null GPU emulator for libhsakmt's model mode (HSA_MODEL_LIB): it accepts every call of the model
 * interface and never runs a packet. Enough for the judge's memory path, where the model only hears about
 * allocations and frees: libhsakmt itself backs every buffer with its memfd and maps it into the model's
 * aperture, so an emulator that does nothing adds no cost of its own to ALLOC/MAP/UNMAP/FREE and the
 * comparison measures libhsakmt alone.
 *
 * Written for hipmem against the interface in libhsakmt's include/hsakmt/hsakmtmodeliface.h (version 0.4),
 * which build_libhsakmt_model.sh puts on the include path. Queues it is given are remembered only so that
 * destroy_queue frees what register_queue returned. */
#include <stdint.h>
#include <stdlib.h>

#include "hsakmt/hsakmtmodeliface.h"

struct hsakmt_model {
  void* aperture_base;
  uint64_t aperture_size;
  hsakmt_model_set_event_fn set_event;
  void* set_event_data;
  uint64_t live_bytes; /* allocated minus freed: lets a debugger see what the model was told */
};

struct hsakmt_model_queue {
  struct hsakmt_model_queue_info info;
};

static hsakmt_model_t* NullCreate(void) { return calloc(1, sizeof(hsakmt_model_t)); }

static void NullDestroy(hsakmt_model_t* model) { free(model); }

static void NullSetGlobalAperture(hsakmt_model_t* model, void* base, uint64_t size) {
  model->aperture_base = base;
  model->aperture_size = size;
}

static void NullAllocedMemory(hsakmt_model_t* model, void* base, uint64_t size, uint32_t flags) {
  (void)base;
  (void)flags;
  model->live_bytes += size;
}

static void NullFreedMemory(hsakmt_model_t* model, void* base, uint64_t size) {
  (void)base;
  model->live_bytes -= size;
}

static void NullSetNotifyEvent(hsakmt_model_t* model, void (*callback)(void* data), void* data) {
  (void)model;
  (void)callback;
  (void)data;
}

static void NullSetWaitEvent(hsakmt_model_t* model,
                             void (*callback)(void* data, uint64_t address, uint64_t age), void* data) {
  (void)model;
  (void)callback;
  (void)data;
}

/* The queue is accepted and never processed: nothing the judge measures submits work. */
static hsakmt_model_queue_t* NullRegisterQueue(hsakmt_model_t* model, struct hsakmt_model_queue_info* info) {
  (void)model;
  hsakmt_model_queue_t* queue = calloc(1, sizeof(*queue));
  if (queue != NULL && info != NULL) queue->info = *info;
  return queue;
}

static void NullSetSetEvent(hsakmt_model_t* model, hsakmt_model_set_event_fn fn, void* data) {
  model->set_event = fn;
  model->set_event_data = data;
}

static void NullDestroyQueue(hsakmt_model_t* model, hsakmt_model_queue_t* queue) {
  (void)model;
  free(queue);
}

static const struct hsakmt_model_functions kNullModel = {
    .version_major = HSAKMT_MODEL_INTERFACE_VERSION_MAJOR,
    .version_minor = HSAKMT_MODEL_INTERFACE_VERSION_MINOR,
    .create = NullCreate,
    .destroy = NullDestroy,
    .set_global_aperture = NullSetGlobalAperture,
    .alloced_memory = NullAllocedMemory,
    .freed_memory = NullFreedMemory,
    .set_notify_event = NullSetNotifyEvent,
    .set_wait_event = NullSetWaitEvent,
    .register_queue = NullRegisterQueue,
    .set_set_event = NullSetSetEvent,
    .destroy_queue = NullDestroyQueue,
};

__attribute__((visibility("default"))) const struct hsakmt_model_functions* get_hsakmt_model_functions(void) {
  return &kNullModel;
}
