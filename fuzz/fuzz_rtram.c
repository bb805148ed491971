/* Fuzz harness of the RAM-image reader of a bare-metal runtime's ring (control block,
 * write position, blocks in sequence) and of the dump it makes, parsed and replayed. */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "import/rtdump.h"
#include "import/rtring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_call(void *u, const tz_rtd_thread *t, const tz_rtd_call *c, traza_err *err)
{
    (void)t; (void)err;
    *(uint64_t *)u += c->end - c->start + (uint64_t)c->level;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tz_buf out;
    tz_buf_init(&out);
    traza_err err;
    if (tz_rtram_to_dump(data, size, "fuzz", "fw.elf", &out, &err) == 0) {
        tz_rtdump d;
        if (tz_rtdump_parse(&d, (const uint8_t *)out.s, out.len, "fuzz", &err) == 0) {
            uint64_t acc = 0, unmatched = 0;
            for (size_t i = 0; i < d.nthreads; i++)
                tz_rtdump_replay(&d.threads[i], on_call, NULL, &acc, &unmatched, &err);
            tz_rtdump_free(&d);
        } else
            abort(); /* the reader makes only dumps the parser takes */
    }
    tz_buf_free(&out);
    return 0;
}
