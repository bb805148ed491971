/* traza tracer runtime: the API a traced program may use (all optional).
 * Build the program with `pkg-config --cflags --libs traza-rt`, or compile with
 * `-pg -mfentry` (or -finstrument-functions) and run it under `traza record`. */
#ifndef TRAZA_RT_H
#define TRAZA_RT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records a user event (id, value) with a timestamp in the calling thread's buffer. */
__attribute__((visibility("default"))) void traza_rt_event(uint32_t id, int64_t value) __attribute__((no_instrument_function));
/* Stops recording and writes the dump now (Linux: to $TRAZA_RT_OUT, default
 * traza-rt.tzr; bare metal: through the platform sink). Returns 0 or -1. */
__attribute__((visibility("default"))) int traza_rt_dump(void) __attribute__((no_instrument_function));
/* Pauses/resumes recording in all threads (the hooks stay, events are not stored). */
__attribute__((visibility("default"))) void traza_rt_enable(int on) __attribute__((no_instrument_function));

#define TRAZA_EVENT(id, value) traza_rt_event((uint32_t)(id), (int64_t)(value))

#ifdef __cplusplus
}
#endif
#endif
