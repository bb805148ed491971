/* libFuzzer harness: bytes -> temporary file -> Pajé importer (and, when the input
 * looks like pj_dump output, the pjdump importer) -> commit or abort in a temporary
 * workspace, which is removed afterwards. */
#include "traza/traza.h"

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[] = "/tmp/traza-fuzz-paje-XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char file[64];
    snprintf(file, sizeof file, "%s/in.trace", dir);
    FILE *f = fopen(file, "wb");
    if (f) {
        if (size)
            fwrite(data, 1, size, f);
        fclose(f);
        traza_err err;
        traza_ctx *ctx = traza_ctx_new(&err);
        char wsdir[64];
        snprintf(wsdir, sizeof wsdir, "%s/ws", dir);
        traza_workspace *ws = ctx ? traza_workspace_open(ctx, wsdir, &err) : NULL;
        if (ws) {
            const char *paths[1] = {file};
            static const char *const formats[] = {"paje", "pjdump"};
            for (int i = 0; i < 2; i++) {
                traza_import_opts o = {0};
                o.format = formats[i];
                o.name = formats[i];
                traza_trace_info info;
                if (traza_import(ws, paths, 1, &o, &info, &err) == 0)
                    traza_trace_info_clear(&info);
                else if (err.msg[0] == '\0')
                    abort(); /* every failure must say why */
            }
            traza_workspace_close(ws);
        }
        traza_ctx_free(ctx);
    }
    nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
