/* Fuzzes the packed events' decoders (a store file may come from anywhere): a block
 * or a posting list is rejected, or decodes to values that encode back to the same
 * bytes. data[0] picks the decoder: even, a block; odd, a posting list. */
#include <stdint.h>
#include <string.h>
#include "store/event_pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tz_pack_block blk; /* 10 KB: off the stack */
    if (size < 1)
        return 0;
    const unsigned char *b = data + 1;
    size_t n = size - 1;
    if (data[0] % 2 == 0) {
        if (tz_pack_decode(b, n, 1, &blk) < 0)
            return 0;
        /* what decodes encodes back to the same bytes, except where two encodings
         * read the same (a type or producer repeated though it could be left out,
         * a NaN value): then the re-encoding decodes to the same events */
        unsigned char out[TZ_PACK_BLOCK * TZ_PACK_MAXEV];
        size_t len = 0;
        traza_event prev, ev;
        for (size_t i = 0; i < blk.n; i++) {
            tz_pack_event(&blk, i, &ev);
            len += tz_pack_put(i ? &prev : NULL, &ev, out + len);
            prev = ev;
        }
        static tz_pack_block again;
        if (tz_pack_decode(out, len, 1, &again) < 0 || again.n != blk.n)
            __builtin_trap();
        for (size_t i = 0; i < blk.n; i++)
            if (again.ts[i] != blk.ts[i] || again.type[i] != blk.type[i] || again.producer[i] != blk.producer[i] ||
                (again.has[i] & TRAZA_HAS_END && again.end_ts[i] != blk.end_ts[i]) || again.level[i] != blk.level[i] ||
                again.cpu[i] != blk.cpu[i] || again.end_producer[i] != blk.end_producer[i])
                __builtin_trap();
        return 0;
    }
    int64_t ids[TZ_PACK_IDS];
    long k = tz_pack_ids(b, n, 7, ids, TZ_PACK_IDS);
    for (long i = 1; i < k; i++)
        if (ids[i] <= ids[i - 1])
            __builtin_trap();
    return 0;
}
