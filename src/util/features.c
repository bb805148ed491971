/* The optional features of libtraza and the error a left-out one gives. */
#include "util/features.h"

#include <string.h>

typedef struct feature_row {
    traza_feature f;
    const int *built;
} feature_row;

static const feature_row features[] = {
    [TZ_FEATURE_PG] = {{"postgresql", "PostgreSQL workspaces", "libpq", "libpq-dev", 0}, &tz_built_pg},
    [TZ_FEATURE_CTF] = {{"ctf", "CTF traces", "libbabeltrace2", "libbabeltrace2-dev", 0}, &tz_built_ctf},
    [TZ_FEATURE_ETM] = {{"etm", "CoreSight ETM traces", "OpenCSD", "libopencsd-dev", 0}, &tz_built_etm},
    [TZ_FEATURE_TRACECMD] = {{"trace-cmd", "trace-cmd .dat files", "libtracecmd and libtraceevent", "libtracecmd-dev libtraceevent-dev libtracefs-dev", 0}, &tz_built_tracecmd},
};

int traza_feature_get(size_t i, traza_feature *out)
{
    if (i >= sizeof features / sizeof *features)
        return -1;
    *out = features[i].f;
    out->built = *features[i].built;
    return 0;
}

int tz_feature_missing(traza_err *err, const char *path, const traza_feature *f)
{
    return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s%s%s: this build of traza was made without %s (Debian package%s %s)", path ? path : "",
                         path ? ": " : "", f->what, f->library, strchr(f->package, ' ') ? "s" : "", f->package);
}

int tz_feature_missing_at(traza_err *err, const char *path, size_t id)
{
    traza_feature f;
    traza_feature_get(id, &f);
    return tz_feature_missing(err, path, &f);
}
