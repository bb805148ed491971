/* Internal: the diff section of the HTML report. */
#ifndef TZ_HTML_DIFF_H
#define TZ_HTML_DIFF_H

#include "traza/store.h"
#include "util/util.h"

/* The style of the section's tables. */
#define TZ_REPORT_DIFF_CSS                                                                                                  \
    "table.diff{border-collapse:collapse;font-size:.9em}table.diff td,table.diff th{padding:2px 8px;text-align:right}"       \
    "table.diff td:first-child,table.diff th:first-child{text-align:left}tr.slower td,tr.more td,tr.new td{background:#fbe3e3}" \
    "tr.faster td,tr.fewer td,tr.gone td{background:#e3ebfb}"

/* Appends a <section data-testid="diff"> on what changed from a to b; -1 with err set. */
int tz_report_diff_section(tz_buf *out, traza_trace *a, traza_trace *b, traza_err *err);

#endif
