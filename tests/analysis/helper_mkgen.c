/* Test/bench helper (not part of traza): writes synthetic traces into a workspace.
 *   mkgen WS flush NAME SECONDS [EXTRA_NOISE_EVENTS]
 *   mkgen WS many NAME NEVENTS NPRODUCERS
 *   mkgen WS paper NAME          (the FrameSoC aggregation example, slices of 100 ticks) */
#include "traza/traza.h"
#include "traza/analysis.h"
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int paper(traza_workspace *ws, const char *name, traza_err *err)
{
    static const int v[5][3] = {{3, 6, 7}, {5, 3, 5}, {6, 2, 9}, {1, 2, 7}, {0, 9, 3}};
    traza_writer *w = traza_writer_begin(ws, name, "gen", err);
    if (!w)
        return -1;
    int32_t root = traza_writer_producer(w, -1, "p0", "Thread", err);
    int32_t ty[3];
    ty[0] = traza_writer_event_type(w, "a", TRAZA_PUNCTUAL, err);
    ty[1] = traza_writer_event_type(w, "b", TRAZA_PUNCTUAL, err);
    ty[2] = traza_writer_event_type(w, "c", TRAZA_PUNCTUAL, err);
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < v[i][k]; j++) {
                traza_event e;
                memset(&e, 0, sizeof e);
                e.ts = i * 100 + k * 20 + j;
                e.type = ty[k];
                e.producer = root;
                if (traza_writer_event(w, &e, err) < 0) {
                    traza_writer_abort(w);
                    return -1;
                }
            }
    return traza_writer_commit(w, NULL, err);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mkgen WS flush|many|paper NAME [ARGS]\n");
        return 2;
    }
    traza_err err;
    traza_err_clear(&err);
    traza_ctx *ctx = traza_ctx_new(&err);
    traza_workspace *ws = ctx ? traza_workspace_open(ctx, argv[1], &err) : NULL;
    int rc = -1;
    if (ws) {
        if (!strcmp(argv[2], "flush") && (argc == 5 || argc == 6))
            rc = synth_flush(ws, argv[3], atoi(argv[4]), argc == 6 ? atoll(argv[5]) : 0, 42, NULL, &err);
        else if (!strcmp(argv[2], "many") && argc == 6)
            rc = synth_many(ws, argv[3], atoll(argv[4]), atoi(argv[5]), 7, NULL, &err);
        else if (!strcmp(argv[2], "paper"))
            rc = paper(ws, argv[3], &err);
        else
            traza_err_set(&err, TRAZA_E_USAGE, "bad arguments");
    }
    if (rc < 0)
        fprintf(stderr, "mkgen: %s\n", err.msg);
    traza_workspace_close(ws);
    traza_ctx_free(ctx);
    return rc < 0 ? 1 : 0;
}
