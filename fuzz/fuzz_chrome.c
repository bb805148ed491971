/* Fuzz harness: Chrome trace-event JSON importer (parse + event mapping into an
 * aborted writer of a scratch workspace). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/chrome_internal.h"
#include "traza/traza.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static traza_ctx *g_ctx;
static traza_workspace *g_ws;
static char g_dir[] = "/tmp/traza-fuzz-chrome-XXXXXX";

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

static void cleanup(void)
{
    traza_workspace_close(g_ws);
    traza_ctx_free(g_ctx);
    nftw(g_dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    traza_err err;
    if (!g_ws) {
        if (!mkdtemp(g_dir))
            return 0;
        g_ctx = traza_ctx_new(&err);
        g_ws = g_ctx ? traza_workspace_open(g_ctx, g_dir, &err) : NULL;
        if (!g_ws)
            abort();
        atexit(cleanup);
    }
    json_t *root;
    if (tz_chrome_parse("fuzz.json", (const char *)data, size, &root, &err) < 0)
        return 0;
    traza_writer *w = traza_writer_begin(g_ws, "fuzz", "chrome", &err);
    if (!w)
        abort();
    tz_chrome_import_json(g_ctx, w, "fuzz.json", root, 0, &err);
    traza_writer_abort(w);
    json_decref(root);
    return 0;
}
