/* Fuzzes the ITF text parsers: dialect detection, the strict gen-line parser (whose
 * render must reproduce the line), the record classifiers and the generic tokenizer
 * (whose skeleton render must reproduce the line). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "itf/itf_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    traza_itf_detect(s, size);
    tz_buf skel, out;
    tz_buf_init(&skel);
    tz_buf_init(&out);
    size_t pos = 0;
    uint64_t *nums = malloc(ITF_MAX_NUMS * sizeof *nums);
    uint32_t mems[64];
    while (nums && pos <= size) {
        const char *nl = memchr(s + pos, '\n', size - pos);
        size_t n = nl ? (size_t)(nl - (s + pos)) : size - pos;
        const char *line = s + pos;
        itf_genline g;
        if (itf_gen_parse(line, n, &g, mems, 64)) {
            tz_buf_reset(&out);
            itf_gen_render(&out, g.pc, g.text, g.textlen, mems, g.nmem, g.ccfail);
            if (out.len != n || memcmp(out.s, line, n) != 0)
                abort();
        }
        for (int d = 0; d <= TRAZA_ITF_TEXT; d++)
            itf_is_record_start(d, line, n);
        size_t nn = itf_tokenize(line, n, &skel, nums), cnt = 99;
        if (itf_skel_count((const uint8_t *)skel.s, skel.len, &cnt) < 0 || cnt != nn)
            abort();
        tz_buf_reset(&out);
        if (itf_skel_render(&out, (const uint8_t *)skel.s, skel.len, nums, nn) < 0 || out.len != n ||
            (n && memcmp(out.s, line, n) != 0))
            abort();
        if (!nl)
            break;
        pos += n + 1;
    }
    free(nums);
    tz_buf_free(&skel);
    tz_buf_free(&out);
    return 0;
}
