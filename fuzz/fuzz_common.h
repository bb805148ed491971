/* Shared body of the importer fuzz harnesses: bytes -> temp file -> import into a
 * temp workspace -> clean up. FUZZ_FORMAT and FUZZ_MAP pick the importer. */
#ifndef TZ_FUZZ_COMMON_H
#define TZ_FUZZ_COMMON_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "traza/traza.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_rm(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

static int fz_import(const uint8_t *data, size_t size, const char *format, const char *map)
{
    char dir[] = "/tmp/traza-fuzz-XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char path[64], ws_dir[64];
    snprintf(path, sizeof path, "%s/in", dir);
    snprintf(ws_dir, sizeof ws_dir, "%s/ws", dir);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
        traza_err err;
        traza_ctx *ctx = traza_ctx_new(&err);
        traza_workspace *ws = ctx ? traza_workspace_open(ctx, ws_dir, &err) : NULL;
        if (ws) {
            traza_import_opts o;
            memset(&o, 0, sizeof o);
            o.format = format;
            o.map = map;
            o.name = "fuzz";
            const char *paths[1] = {path};
            traza_trace_info info;
            if (traza_import(ws, paths, 1, &o, &info, &err) == 0)
                traza_trace_info_clear(&info);
            /* Detection must never crash either. */
            traza_importer_detect(path, &err);
            traza_workspace_close(ws);
        }
        traza_ctx_free(ctx);
    }
    nftw(dir, fz_rm, 8, FTW_DEPTH | FTW_PHYS);
    return 0;
}

#endif
