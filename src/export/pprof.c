/* pprof profiles (profile.proto, gzip-compressed), read by `go tool pprof`,
 * speedscope and the Perfetto UI, from the call stacks of export/stacks.h:
 *
 *   a function and a location per event type that is a frame (id = the location's =
 *   the function's), "?" for a level the trace lacks;
 *   a sample per distinct call stack (locations leaf first), its one value the
 *   self time of its last frame summed over its calls (sample type "time" in the
 *   trace's unit: nanoseconds, microseconds, ... or "ticks"); stacks of weight 0
 *   are left out, as in the folded export, so the values are the folded weights.
 * time_nanos / duration_nanos: the trace's start and span when its unit is a whole
 * power of ten of ns or coarser. The message is built with protobuf-c from
 * src/export/pprof_profile.proto. */
#include "export/exporters.h"
#include "export/stacks.h"
#include "pprof_profile.pb-c.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef Tzpprof__Profile pp_profile;

static const char *unit_name(int unit)
{
    switch (unit) {
    case -9: return "nanoseconds";
    case -6: return "microseconds";
    case -3: return "milliseconds";
    case 0: return "seconds";
    default: return "ticks";
    }
}

/* Ticks of 10^unit s as ns when that is exact and in range, else 0. */
static int64_t ticks_ns(int64_t v, int unit)
{
    if (unit < -9 || unit > 0)
        return 0;
    for (int i = unit; i > -9; i--) {
        if (v > INT64_MAX / 10 || v < INT64_MIN / 10)
            return 0;
        v *= 10;
    }
    return v;
}

/* Writes buf gzip-compressed to out. 0 or -1. */
static int write_gzip(const uint8_t *buf, size_t n, FILE *out, traza_err *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return traza_err_set(err, TRAZA_E_NOMEM, "cannot start the gzip encoder");
    unsigned char chunk[65536];
    int rc = 0, zr;
    z.next_in = (Bytef *)buf;
    z.avail_in = (uInt)n; /* the profile is packed in one buffer below 4 GiB: checked by the caller */
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        zr = deflate(&z, Z_FINISH);
        size_t got = sizeof chunk - z.avail_out;
        if (zr == Z_STREAM_ERROR) {
            rc = traza_err_set(err, TRAZA_E_IO, "gzip encoding failed");
            break;
        }
        if (got && fwrite(chunk, 1, got, out) != got) {
            rc = traza_err_set(err, TRAZA_E_IO, "writing the pprof profile: %s", strerror(errno));
            break;
        }
    } while (zr != Z_STREAM_END);
    deflateEnd(&z);
    return rc;
}

static int write_pprof(traza_trace *t, const traza_filter *f, FILE *out, traza_err *err)
{
    (void)f;
    const traza_trace_info *info = traza_trace_info_of(t);
    int unit = info ? info->time_unit : -9;
    tz_stack *st;
    size_t n;
    if (tz_stacks_build(t, &st, &n, err) < 0)
        return -1;
    /* locations: the frame types in the order first seen; location id = index + 1 */
    tz_imap loc_of; /* frame type (-1: "?") -> location id */
    tz_imap_init(&loc_of);
    int32_t *ftypes = NULL;
    size_t nloc = 0, caploc = 0, nsamples = 0, nids = 0;
    for (size_t i = 0; i < n; i++)
        if (st[i].weight != 0)
            nsamples++, nids += st[i].depth;
    Tzpprof__Sample *samples = calloc(nsamples ? nsamples : 1, sizeof *samples);
    Tzpprof__Sample **sp = calloc(nsamples ? nsamples : 1, sizeof *sp);
    uint64_t *ids = calloc(nids ? nids : 1, sizeof *ids);
    int64_t *values = calloc(nsamples ? nsamples : 1, sizeof *values);
    int rc = samples && sp && ids && values ? 0 : traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    size_t si = 0, ii = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (st[i].weight == 0)
            continue;
        Tzpprof__Sample *s = &samples[si];
        tzpprof__sample__init(s);
        s->location_id = ids + ii;
        s->n_location_id = st[i].depth;
        for (size_t k = st[i].depth; k-- > 0;) { /* leaf first */
            int64_t id;
            if (!tz_imap_get(&loc_of, st[i].frames[k], &id)) {
                if (TZ_GROW(ftypes, caploc, nloc + 1) < 0 || tz_imap_put(&loc_of, st[i].frames[k], (int64_t)nloc + 1) < 0) {
                    rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                    break;
                }
                ftypes[nloc++] = st[i].frames[k];
                id = (int64_t)nloc;
            }
            ids[ii++] = (uint64_t)id;
        }
        values[si] = st[i].weight;
        s->value = values + si;
        s->n_value = 1;
        sp[si] = s;
        si++;
    }
    /* strings: "", "time", the unit, then a name per location */
    char **strs = calloc(nloc + 3, sizeof *strs);
    Tzpprof__Location *locs = calloc(nloc ? nloc : 1, sizeof *locs);
    Tzpprof__Location **lp = calloc(nloc ? nloc : 1, sizeof *lp);
    Tzpprof__Line *lines = calloc(nloc ? nloc : 1, sizeof *lines);
    Tzpprof__Line **linep = calloc(nloc ? nloc : 1, sizeof *linep);
    Tzpprof__Function *fns = calloc(nloc ? nloc : 1, sizeof *fns);
    Tzpprof__Function **fp = calloc(nloc ? nloc : 1, sizeof *fp);
    if (rc == 0 && !(strs && locs && lp && lines && linep && fns && fp))
        rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    uint8_t *buf = NULL;
    if (rc == 0) {
        strs[0] = "";
        strs[1] = "time";
        strs[2] = (char *)unit_name(unit);
        for (size_t i = 0; i < nloc; i++) {
            const traza_event_type *ty = ftypes[i] >= 0 ? traza_trace_event_type(t, ftypes[i]) : NULL;
            strs[i + 3] = (char *)(ty ? ty->name : "?");
            tzpprof__function__init(&fns[i]);
            fns[i].id = i + 1;
            fns[i].name = fns[i].system_name = (int64_t)i + 3;
            fp[i] = &fns[i];
            tzpprof__line__init(&lines[i]);
            lines[i].function_id = i + 1;
            linep[i] = &lines[i];
            tzpprof__location__init(&locs[i]);
            locs[i].id = i + 1;
            locs[i].line = &linep[i];
            locs[i].n_line = 1;
            lp[i] = &locs[i];
        }
        Tzpprof__ValueType vt = TZPPROF__VALUE_TYPE__INIT, period = TZPPROF__VALUE_TYPE__INIT;
        vt.type = period.type = 1;
        vt.unit = period.unit = 2;
        Tzpprof__ValueType *vtp = &vt;
        pp_profile p = TZPPROF__PROFILE__INIT;
        p.sample_type = &vtp;
        p.n_sample_type = 1;
        p.sample = sp;
        p.n_sample = si;
        p.location = lp;
        p.n_location = nloc;
        p.function = fp;
        p.n_function = nloc;
        p.string_table = strs;
        p.n_string_table = nloc + 3;
        p.period_type = &period;
        p.period = 1;
        if (info) {
            p.time_nanos = ticks_ns(info->min_ts, unit);
            p.duration_nanos = ticks_ns(info->max_ts - info->min_ts, unit);
        }
        size_t len = tzpprof__profile__get_packed_size(&p);
        if (len > UINT32_MAX)
            rc = traza_err_set(err, TRAZA_E_UNSUPPORTED, "a pprof profile of %zu bytes: over the 4 GiB this exporter writes", len);
        else if (!(buf = malloc(len ? len : 1)))
            rc = traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        else
            rc = write_gzip(buf, tzpprof__profile__pack(&p, buf), out, err);
    }
    free(buf);
    free(strs);
    free(locs);
    free(lp);
    free(lines);
    free(linep);
    free(fns);
    free(fp);
    free(samples);
    free(sp);
    free(ids);
    free(values);
    free(ftypes);
    tz_imap_free(&loc_of);
    tz_stacks_free(st, n);
    return rc;
}

const traza_exporter tz_exporter_pprof = {"pprof", "export-pprof",
                                          "pprof profile (gzip'd profile.proto: call stacks weighted by self time)", write_pprof, NULL};
