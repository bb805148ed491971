/* Events as a table, CSV or JSON text (query, export csv and the server share it). */
#ifndef TZ_EVENT_TEXT_H
#define TZ_EVENT_TEXT_H

#include "traza/traza.h"
#include "util/util.h"

/* OUT_JSON_TICKS: JSON rows whose times are strings (exact in a browser beyond 2^53). */
typedef enum { OUT_TABLE, OUT_CSV, OUT_JSON, OUT_JSON_TICKS } tz_out_format;

void tz_event_header(tz_buf *b, tz_out_format fmt);
void tz_event_row(tz_buf *b, tz_out_format fmt, traza_trace *t, const traza_event *ev, int first);
void tz_event_footer(tz_buf *b, tz_out_format fmt);
void tz_value_text(tz_buf *b, const traza_value *v);

#endif
