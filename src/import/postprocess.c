/* Post-import steps, keyed by importer name: a CTF trace gets its processed trace
 * (traza_ctf_process). Kept out of traza_importer so the importer tables stay as
 * they are. */
#include "import/postprocess.h"
#include "traza/ctf.h"

#include <stdio.h>
#include <string.h>

int tz_import_postprocess(traza_workspace *ws, const traza_importer *imp, const traza_import_opts *opts, const traza_trace_info *info,
                          traza_err *err)
{
    (void)err;
    if (!imp || !info || (opts && opts->no_postprocess))
        return 0;
    if (strcmp(imp->name, "ctf") == 0) {
        traza_err e2;
        traza_err_clear(&e2);
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)info->id);
        if (traza_ctf_process(ws, id, NULL, NULL, &e2) < 0)
            traza_log(traza_workspace_ctx(ws), TRAZA_LOG_WARN, "%s: imported, but its processed trace failed: %s", info->name, e2.msg);
    }
    return 0;
}
