/* Fuzz harness: uftrace recording directories. The input is split at "\n@@\n" into
 * info, task.txt, app.sym, sid-f.map and 100.dat, written into a scratch directory
 * that the importer then reads into an aborted writer. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/importers.h"
#include "traza/traza.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static traza_ctx *g_ctx;
static traza_workspace *g_ws;
static char g_dir[] = "/tmp/traza-fuzz-uftrace-XXXXXX";
static char g_rec[sizeof g_dir + 16];

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

static void put(const char *name, const uint8_t *p, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", g_rec, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n)
        fwrite(p, 1, n, f);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    traza_err err;
    if (!g_ws) {
        if (!mkdtemp(g_dir))
            return 0;
        g_ctx = traza_ctx_new(&err);
        snprintf(g_rec, sizeof g_rec, "%s/rec", g_dir);
        char ws[sizeof g_dir + 8];
        snprintf(ws, sizeof ws, "%s/ws", g_dir);
        g_ws = g_ctx ? traza_workspace_open(g_ctx, ws, &err) : NULL;
        if (!g_ws || mkdir(g_rec, 0755) < 0)
            abort();
        atexit(cleanup);
    }
    static const char *names[] = {"info", "task.txt", "app.sym", "sid-f.map", "100.dat"};
    size_t pos = 0;
    for (int i = 0; i < 5; i++) {
        const uint8_t *sep = NULL;
        if (i < 4 && pos <= size)
            sep = memmem(data + pos, size - pos, "\n@@\n", 4);
        size_t end = sep ? (size_t)(sep - data) : size;
        if (i == 4 || !sep)
            end = size;
        put(names[i], data + pos, pos <= end ? end - pos : 0);
        pos = sep ? end + 4 : size;
        if (!sep) {
            for (int k = i + 1; k < 5; k++)
                put(names[k], data, 0);
            break;
        }
    }
    const traza_importer *imp = traza_importer_find("uftrace");
    traza_writer *w = traza_writer_begin(g_ws, "fuzz", "uftrace", &err);
    if (!w || !imp)
        abort();
    const char *paths[1] = {g_rec};
    imp->read(g_ctx, w, paths, 1, NULL, &err);
    traza_writer_abort(w);
    return 0;
}
