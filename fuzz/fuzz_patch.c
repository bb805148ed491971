/* Fuzz harness of `traza patch`'s ELF reader: the hook call sites of an x86_64 or
 * 32-bit ARM ELF file (src/patch), then the rewrite of every site to its other
 * state and a second look at the rewritten file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "traza/patch.h"
#include "fuzz_tmp.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[FZ_TMP], out[FZ_TMP];
    if (fz_tmp_input("patch", ".out", data, size, in, out) < 0)
        return 0;
    traza_patch_sites s;
    traza_err err;
    memset(&s, 0, sizeof s);
    if (traza_patch_sites_find(in, &s, &err) == 0) {
        for (size_t i = 0; i < s.n; i++)
            s.v[i].want = !s.v[i].enabled;
        if (s.n && traza_patch_write(in, out, &s, &err) == 0) {
            traza_patch_sites again;
            memset(&again, 0, sizeof again);
            if (traza_patch_sites_find(out, &again, &err) == 0)
                traza_patch_sites_free(&again);
        }
        traza_patch_sites_free(&s);
    }
    fz_tmp_done(in, out);
    return 0;
}
