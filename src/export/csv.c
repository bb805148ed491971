/* CSV export: one event per line, fixed columns then the parameters as name=value
 * pairs joined by ';' (RFC 4180 quoting where needed). Same rows as `query --csv`. */
#include "export/exporters.h"
#include "export/event_text.h"

#include <errno.h>
#include <string.h>

static int write_csv(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    traza_filter q;
    traza_filter_init(&q);
    if (f)
        q = *f;
    q.with_params = 1;
    traza_cursor *c = traza_query(t, &q, err);
    if (!c)
        return -1;
    tz_buf b;
    tz_buf_init(&b);
    tz_event_header(&b, TRAZA_TEXT_CSV);
    const traza_event *ev;
    int rc;
    while ((rc = traza_cursor_next(c, &ev, err)) > 0) {
        tz_event_row(&b, TRAZA_TEXT_CSV, t, ev, 0);
        if (b.len > (1u << 20)) {
            if (b.oom || fwrite(b.s, 1, b.len, out) != b.len)
                break;
            tz_buf_reset(&b);
        }
    }
    if (rc == 0 && (b.oom || fwrite(b.s, 1, b.len, out) != b.len))
        rc = -2;
    if (rc == 1 || rc == -2)
        rc = traza_err_set(err, b.oom ? TRAZA_E_NOMEM : TRAZA_E_IO, "writing CSV: %s", b.oom ? "out of memory" : strerror(errno));
    traza_cursor_free(c);
    tz_buf_free(&b);
    return rc < 0 ? -1 : 0;
}

const traza_exporter tz_exporter_csv = {"csv", "export-csv", "events as CSV, one per line, parameters as name=value;...", write_csv, NULL};
