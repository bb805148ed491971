/* Internal: steps run after an importer's trace is committed (derived traces). */
#ifndef TZ_POSTPROCESS_H
#define TZ_POSTPROCESS_H

#include "traza/import.h"

/* Runs the post-import step of importer `imp` (if it has one) on the new trace
 * `info`. A failure leaves the imported trace in place: it is logged as a warning
 * through the workspace's context and 0 is returned; -1 only on a usage error. */
int tz_import_postprocess(traza_workspace *ws, const traza_importer *imp, const traza_import_opts *opts, const traza_trace_info *info,
                          traza_err *err);

#endif
