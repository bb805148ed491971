/* Fuzzes the ITF writer and reader together: any text, in the dialect chosen by the
 * first byte and with tiny chunks, must come back byte-exact from `compress` +
 * `decompress` (lossless default), and an extract of the middle must equal the same
 * records cut from the full output. A mismatch aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "traza/itf.h"
#include "fuzz_tmp.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *decode(traza_itf_reader *r, int threads, uint64_t from, uint64_t count, size_t *n)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, n);
    if (!m)
        return NULL;
    traza_err err;
    int rc = count ? traza_itf_extract(r, from, count, m, &err) : traza_itf_decompress_mt(r, m, threads, &err);
    if (fclose(m) != 0 || rc < 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static const int dialects[] = {TRAZA_ITF_TARMAC_ES, TRAZA_ITF_TARMAC_FM, TRAZA_ITF_TARMAC_GEM5,
                                   TRAZA_ITF_TEXT, TRAZA_ITF_GEN, TRAZA_ITF_PAPER, 0};
    traza_itf_opts o;
    traza_itf_opts_init(&o);
    o.dialect = dialects[data[0] % 7];
    o.chunk = 1 + (data[0] >> 3);
    o.threads = data[0] & 4 ? 2 : 1;
    data++, size--;
    char in[FZ_TMP], out[FZ_TMP];
    if (fz_tmp_input("itfrt", ".tzi", data, size, in, out) < 0)
        return 0;
    traza_err err;
    if (traza_itf_compress(in, out, &o, NULL, &err) == 0) {
        traza_itf_reader *r = traza_itf_open_path(out, &err);
        if (!r) { fprintf(stderr, "%s\n", err.msg); abort(); } /* the writer's own output must open */
        size_t n = 0;
        traza_itf_set_render_min_lines(r, 64); /* the render thread on small chunks too */
        char *text = decode(r, 2, 0, 0, &n);
        if (!text || n != size || memcmp(text, data, size) != 0) {
            if (getenv("ITFRT_DEBUG")) { fprintf(stderr, "n %zu size %zu\n", n, size); if (text) fwrite(text, 1, n, stderr); }
            abort();
        }
        uint64_t recs = traza_itf_get_info(r)->instructions;
        if (recs > 2) {
            size_t en = 0;
            char *part = decode(r, 1, recs / 3, recs / 3, &en);
            if (!part || en > n || !memmem(text, n, part, en)) {
                if (getenv("ITFRT_DEBUG"))
                    fprintf(stderr, "extract %llu+%llu: %s\n", (unsigned long long)(recs / 3),
                            (unsigned long long)(recs / 3), part ? "not in the text" : "failed");
                abort();
            }
            free(part);
        }
        free(text);
        traza_itf_close(r);
    }
    fz_tmp_done(in, out);
    return 0;
}
