/* Importer of a raw RAM image holding a bare-metal tracer runtime's ring (a debugger's
 * memory dump, doc/formats/rtram.md): the control block is found by its magic and its
 * own address (which places the image in the target's address space), the ring is
 * read through it into a runtime dump, imported as one (rtdump.c). Blocks the target
 * overwrote are counted in the trace's rt.* parameters, never dropped silently. */
#include "import/importers.h"
#include "import/rtdump.h"
#include "import/rtring.h"
#include "util/le.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct ram_image {
    const uint8_t *data;
    size_t len;
    uint64_t base;      /* the target address of data[0] */
    const char *path;
} ram_image;

static int ram_read(void *user, uint64_t addr, void *buf, size_t n, traza_err *err)
{
    const ram_image *m = user;
    if (addr < m->base || addr - m->base > m->len || n > m->len - (addr - m->base))
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "%s: the image (0x%08" PRIx64 "..0x%08" PRIx64 ") does not hold the %zu bytes at 0x%08" PRIx64,
                             m->path, m->base, m->base + m->len, n, addr);
    memcpy(buf, m->data + (addr - m->base), n);
    return 0;
}

/* The offset of the control block: its magic word at a 4-aligned offset, followed by
 * its version; -1 if none. */
static int64_t find_control(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i + TZRC_SIZE <= len; i += 4)
        if (tz_get_le32(p + i) == TZRC_MAGIC && tz_get_le32(p + i + 4) == TZRC_VERSION)
            return (int64_t)i;
    return -1;
}

int tz_rtram_to_dump(const uint8_t *data, size_t len, const char *path, const char *exe, tz_buf *out, traza_err *err)
{
    int64_t at = find_control(data, len);
    if (at < 0)
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "%s: no control block (expected the magic \"TZRC\" and version %u at a 4-aligned offset "
                             "of the %zu bytes)", path, TZRC_VERSION, len);
    tz_rtring r;
    if (tz_rtring_init(&r, data + at, len - (size_t)at, path, (uint64_t)at, err) < 0)
        return -1;
    ram_image m = {data, len, (uint64_t)r.w[TZRC_W_SELF] - (uint64_t)at, path};
    if (r.w[TZRC_W_SELF] < (uint64_t)at) {
        tz_rtring_free(&r);
        return traza_err_set(err, TRAZA_E_FORMAT,
                             "%s: offset %" PRId64 ": control block self address: expected at least 0x%" PRIx64
                             ", found 0x%08" PRIx32, path, at + 4 * TZRC_W_SELF, (uint64_t)at, r.w[TZRC_W_SELF]);
    }
    int rc = tz_rtring_poll(&r, ram_read, &m, NULL, err);
    if (rc == 1)
        rc = traza_err_set(err, TRAZA_E_FORMAT, "%s: the image was taken inside a block switch of the runtime", path);
    if (rc == 0)
        rc = tz_rtring_dump(&r, exe, out, err);
    tz_rtring_free(&r);
    return rc;
}

static int ram_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    return find_control(head, len) >= 0 ? 60 : 0;
}

static int ram_read_files(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths,
                          const traza_import_opts *opts, traza_err *err)
{
    for (size_t i = 0; i < npaths; i++) {
        char *data = NULL;
        size_t len = 0;
        if (tz_read_file(paths[i], &data, &len, err) < 0)
            return -1;
        tz_buf dump;
        tz_buf_init(&dump);
        const char *exe = getenv("TRAZA_RT_EXE");
        int rc = tz_rtram_to_dump((const uint8_t *)data, len, paths[i], exe, &dump, err);
        free(data);
        if (rc == 0)
            rc = tz_rtdump_import(ctx, w, (const uint8_t *)dump.s, dump.len, paths[i], opts, err);
        tz_buf_free(&dump);
        if (rc < 0)
            return -1;
    }
    return 0;
}

const traza_importer tz_importer_rtram = {
    "rtram", "import-rtram",
    "RAM images of a bare-metal traza runtime's ring (found by its control block): function calls as with rtdump",
    ram_detect, ram_read_files,
};
