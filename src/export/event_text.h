/* Internal: events as a table, CSV or JSON text into a tz_buf, for the csv exporter
 * and the public writer traza_event_text (traza/export.h) the front ends use. */
#ifndef TZ_EVENT_TEXT_H
#define TZ_EVENT_TEXT_H

#include "traza/export.h"
#include "traza/store.h"
#include "util/util.h"

void tz_event_header(tz_buf *b, traza_text_format fmt);
void tz_event_row(tz_buf *b, traza_text_format fmt, traza_trace *t, const traza_event *ev, int first);
void tz_event_footer(tz_buf *b, traza_text_format fmt);

#endif
