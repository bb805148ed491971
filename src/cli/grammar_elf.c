/* Function symbols of an ELF file (32/64-bit little-endian) for `grammar show --elf`. */
#include "cli/grammar_cli.h"

#include <stdlib.h>
#include <string.h>
#include "util/util.h"

typedef struct gfunc {
    uint64_t addr, size;
    const char *name;
} gfunc;

struct gelf {
    char *data;
    size_t len;
    gfunc *f;
    size_t n;
};

static uint64_t rd(const unsigned char *p, int w)
{
    uint64_t v = 0;
    for (int i = 0; i < w; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static int fcmp(const void *a, const void *b)
{
    const gfunc *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

gelf *gelf_open(const char *path, traza_err *err)
{
    gelf *e = calloc(1, sizeof *e);
    if (!e) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    if (tz_read_file(path, &e->data, &e->len, err) < 0) {
        free(e);
        return NULL;
    }
    const unsigned char *d = (const unsigned char *)e->data;
    size_t n = e->len;
    if (n < 52 || memcmp(d, "\177ELF", 4) != 0 || (d[4] != 1 && d[4] != 2) || d[5] != 1) {
        traza_err_set(err, TRAZA_E_PARSE, "%s: not a little-endian ELF file", path);
        gelf_close(e);
        return NULL;
    }
    int is64 = d[4] == 2, A = is64 ? 8 : 4;
    /* On 32-bit ARM a function symbol's bit 0 says Thumb code, not an address bit
     * (ELF for the Arm Architecture); elsewhere the value is the address. */
    uint64_t addr_mask = rd(d + 0x12, 2) == 40 /* EM_ARM */ ? ~(uint64_t)1 : ~(uint64_t)0;
    uint64_t shoff = is64 ? rd(d + 0x28, 8) : rd(d + 0x20, 4);
    uint64_t shentsize = rd(d + (is64 ? 0x3a : 0x2e), 2), shnum = rd(d + (is64 ? 0x3c : 0x30), 2);
    if (shentsize < (uint64_t)(is64 ? 64 : 40) || shoff > n || shnum > (n - shoff) / shentsize) {
        traza_err_set(err, TRAZA_E_PARSE, "%s: bad ELF section header table", path);
        gelf_close(e);
        return NULL;
    }
    size_t cap = 0;
    for (uint64_t s = 0; s < shnum; s++) {
        const unsigned char *sh = d + shoff + s * shentsize;
        uint32_t type = (uint32_t)rd(sh + 4, 4);
        if (type != 2)
            continue; /* SHT_SYMTAB */
        uint64_t off = rd(sh + (is64 ? 0x18 : 0x10), A), size = rd(sh + (is64 ? 0x20 : 0x14), A);
        uint32_t link = (uint32_t)rd(sh + (is64 ? 0x28 : 0x18), 4);
        uint64_t entsize = rd(sh + (is64 ? 0x38 : 0x24), A);
        if (link >= shnum || entsize < (uint64_t)(is64 ? 24 : 16) || off > n || size > n - off)
            continue;
        const unsigned char *str = d + shoff + link * shentsize;
        uint64_t stroff = rd(str + (is64 ? 0x18 : 0x10), A), strsize = rd(str + (is64 ? 0x20 : 0x14), A);
        if (stroff > n || strsize > n - stroff)
            continue;
        for (uint64_t k = 0; k + entsize <= size; k += entsize) {
            const unsigned char *sym = d + off + k;
            uint32_t name = (uint32_t)rd(sym, 4);
            unsigned info = is64 ? sym[4] : sym[12];
            uint64_t val = is64 ? rd(sym + 8, 8) : rd(sym + 4, 4), sz = is64 ? rd(sym + 16, 8) : rd(sym + 8, 4);
            if ((info & 0xf) != 2 || name >= strsize || !memchr(d + stroff + name, 0, strsize - name))
                continue; /* STT_FUNC with a terminated name */
            if (TZ_GROW(e->f, cap, e->n + 1) < 0) {
                traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
                gelf_close(e);
                return NULL;
            }
            e->f[e->n].addr = val & addr_mask;
            e->f[e->n].size = sz ? sz : 1;
            e->f[e->n++].name = (const char *)d + stroff + name;
        }
    }
    if (e->n)
        qsort(e->f, e->n, sizeof *e->f, fcmp);
    return e;
}

const char *gelf_lookup(const gelf *e, uint64_t addr, uint64_t *off)
{
    size_t lo = 0, hi = e->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e->f[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const gfunc *f = &e->f[lo - 1];
    if (addr - f->addr >= f->size)
        return NULL;
    *off = addr - f->addr;
    return f->name;
}

void gelf_close(gelf *e)
{
    if (!e)
        return;
    free(e->data);
    free(e->f);
    free(e);
}
