/* traza — processed views of imported CTF (LTTng) traces.
 *
 * An imported CTF trace holds one punctual event per CTF event. Its processed trace
 * is a second trace of the workspace, linked to the raw one as a processed-trace
 * result (result name "processed", tool "ctf-kernel"):
 *   kernel traces  producers machine -> "CPU n" and machine -> process -> thread,
 *                  thread states Running / Preempted / Blocked / Waiting CPU from
 *                  sched_switch (prev_state) and wakeups, one state per system call
 *                  (level 1 on the thread), IRQ and SoftIRQ states per CPU, and
 *                  fork / exec / exit as punctual events on the threads;
 *   user space     the provider view: provider -> "pid N" -> "tid N", events keep
 *                  their names and parameters.
 * doc/formats/ctf-kernel.md describes the mapping. */
#ifndef TRAZA_CTF_H
#define TRAZA_CTF_H

#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* Builds the processed trace of `trace` (name or id) under `out_name` (NULL =
 * "<trace>.processed") and saves the link. A trace of that name that is already the
 * processed result of `trace` is replaced. Returns 1 when made (*out filled when not
 * NULL), 0 when the trace has no kernel or provider events (nothing is written), -1
 * on error (the workspace is unchanged). */
int traza_ctf_process(traza_workspace *ws, const char *trace, const char *out_name, traza_trace_info *out, traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
