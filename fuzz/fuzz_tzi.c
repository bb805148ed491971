/* Fuzzes the .tzi reader: open, stats, full decode and a random-access extract of an
 * arbitrary byte string (through fmemopen). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "traza/itf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    void *copy = malloc(size);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    FILE *f = fmemopen(copy, size, "rb");
    if (!f) {
        free(copy);
        return 0;
    }
    traza_err err;
    traza_itf_reader *r = traza_itf_open(f, &err);
    if (r) {
        FILE *out = fopen("/dev/null", "wb");
        traza_itf_verify(r, &err);
        traza_itf_set_render_min_lines(r, 64); /* the render thread on small chunks too */
        traza_itf_decompress_mt(r, out, 2, &err);
        const traza_itf_info *i = traza_itf_get_info(r);
        if (out && i->instructions)
            traza_itf_extract(r, i->instructions / 2, 7, out, &err);
        if (out)
            fclose(out);
        traza_itf_close(r);
    }
    fclose(f);
    free(copy);
    return 0;
}
