/* Fuzzes the router of `traza serve`: the input is "PATH?QUERY" (one request
 * target); it is split, the query parsed and decoded as the server does, and the
 * request answered over a small generated trace. Any answer is fine; a crash, a leak
 * or undefined behaviour is not. */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "traza/traza.h"
#include "traza/gen.h"
#include "server/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
    int ready;
    char dir[64];
    traza_ctx *ctx;
    traza_workspace *ws;
    tz_api *api;
} fz;

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

static void cleanup(void)
{
    tz_api_free(fz.api);
    traza_workspace_close(fz.ws);
    traza_ctx_free(fz.ctx);
    if (fz.dir[0])
        nftw(fz.dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static int init(void)
{
    snprintf(fz.dir, sizeof fz.dir, "/tmp/traza-fuzz-api-XXXXXX");
    if (!mkdtemp(fz.dir))
        return -1;
    traza_err err;
    fz.ctx = traza_ctx_new(&err);
    fz.ws = fz.ctx ? traza_workspace_open(fz.ctx, fz.dir, &err) : NULL;
    if (!fz.ws)
        return -1;
    traza_gen_opts o;
    traza_gen_opts_init(&o);
    o.events = 2000;
    o.params = 2;
    traza_trace_info info;
    memset(&info, 0, sizeof info);
    if (traza_gen_store(fz.ws, "gen", &o, &info, &err) < 0)
        return -1;
    traza_trace_info_clear(&info);
    fz.api = tz_api_new(fz.ws, NULL, 0, &err);
    atexit(cleanup);
    return fz.api ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fz.ready) {
        if (init() < 0)
            abort();
        fz.ready = 1;
    }
    if (size > 8192)
        return 0;
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = 0;
    char *nl = strchr(s, '\n');
    if (nl)
        *nl = 0;
    char *q = strchr(s, '?');
    if (q)
        *q++ = 0;
    tz_params ps;
    tz_params_init(&ps);
    if (tz_params_parse(&ps, q) < 0)
        ps.malformed = 1;
    int bad_path = tz_url_decode(s, 0) < 0;
    tz_resp r;
    tz_api_handle(fz.api, "GET", bad_path ? "/%" : s, &ps, &r);
    if (r.status < 100 || r.status > 599 || (r.len && !r.body))
        abort();
    tz_resp_free(&r);
    tz_params_free(&ps);
    free(s);
    return 0;
}
