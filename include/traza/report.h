/* traza — a self-contained HTML report (inline SVG charts, no network needed). */
#ifndef TRAZA_REPORT_H
#define TRAZA_REPORT_H

#include "traza/store.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The public API: the only symbols libtraza.so exports (the library is built with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)

/* Appends one section per trace: metadata, event density, pie charts of events per
 * type and per producer, and the states with the largest total duration. Returns a
 * malloc'd HTML document, or NULL with err set. */
char *traza_report_html(traza_trace *const *traces, size_t n, size_t density_slices, traza_err *err);
/* The same, with first a section on what changed from base (the old run) to traces[0]:
 * the table of traza_diff by event type and, when the traces hold calls, by function
 * with the differential flame graph (doc/diff.md). base NULL: traza_report_html. */
char *traza_report_html_diff(traza_trace *const *traces, size_t n, traza_trace *base, size_t density_slices, traza_err *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
