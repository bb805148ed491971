/* Function names for the ETM importer: the memory images of a snapshot that are ELF
 * files and an ELF program given with the import (looked up first), their symbol
 * tables (.symtab, or .dynsym when stripped) and where the snapshot loads them. */
#include "import/etm_internal.h"
#include "util/elfsym.h"
#include "util/util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct etm_img {
    int fd;
    Elf *elf;
    tz_elfsyms syms;
    uint64_t lo, hi;  /* the addresses it covers in the trace (hi = UINT64_MAX: all) */
    uint64_t delta;   /* trace address + delta = the ELF's virtual address */
} etm_img;

struct tz_etm_syms {
    etm_img *v;
    size_t n, cap;
};

static void img_close(etm_img *m)
{
    tz_elfsyms_free(&m->syms);
    if (m->elf)
        elf_end(m->elf);
    if (m->fd >= 0)
        close(m->fd);
}

/* Opens path as ELF with its symbols; 1 = added, 0 = not ELF or no symbols (a raw
 * memory image), -1 = error. The image's bytes at `offset` are loaded at `address`:
 * the PT_LOAD segment holding that file offset gives the ELF address. */
static int add_image(tz_etm_syms *s, const char *path, uint64_t address, uint64_t offset, uint64_t length, traza_err *err)
{
    etm_img m = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
    if (m.fd < 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open", path);
    m.elf = elf_begin(m.fd, ELF_C_READ, NULL);
    traza_err ignored = {0};
    size_t nph = 0;
    if (!m.elf || elf_kind(m.elf) != ELF_K_ELF || elf_getphdrnum(m.elf, &nph) != 0 ||
        tz_elfsyms_read_any(m.elf, path, &m.syms, &ignored) < 0 || m.syms.nfunc == 0) {
        img_close(&m);
        return 0;
    }
    int found = 0;
    for (size_t i = 0; i < nph && !found; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(m.elf, (int)i, &ph) && ph.p_type == PT_LOAD && offset >= ph.p_offset && offset - ph.p_offset < ph.p_filesz) {
            m.delta = ph.p_vaddr + (offset - ph.p_offset) - address;
            found = 1;
        }
    }
    if (!found && address != 0) { /* the image is not where its segments say: no names */
        img_close(&m);
        return 0;
    }
    m.lo = address;
    m.hi = length ? address + length : UINT64_MAX;
    if (TZ_GROW(s->v, s->cap, s->n + 1) < 0) {
        img_close(&m);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    s->v[s->n++] = m;
    return 1;
}

int tz_etm_syms_open(const tz_snapshot *ss, const char *elf, tz_etm_syms **out, traza_err *err)
{
    *out = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return traza_err_set(err, TRAZA_E_INTERNAL, "libelf: %s", elf_errmsg(-1));
    tz_etm_syms *s = calloc(1, sizeof *s);
    if (!s)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    if (elf) { /* at its link addresses; first, as the names the user chose */
        int r = add_image(s, elf, 0, 0, 0, err);
        if (r < 0)
            goto fail;
        if (r == 0) {
            traza_err_set(err, TRAZA_E_FORMAT, "%s: not an ELF file with function symbols", elf);
            goto fail;
        }
        s->v[s->n - 1].delta = 0;
    }
    for (size_t i = 0; i < ss->ndev; i++)
        for (size_t j = 0; j < ss->dev[i].ndumps; j++) {
            const tz_ss_dump *m = &ss->dev[i].dumps[j];
            if (add_image(s, m->path, m->address, m->offset, m->length, err) < 0)
                goto fail;
        }
    *out = s;
    return 0;
fail:
    tz_etm_syms_close(s);
    return -1;
}

const char *tz_etm_syms_func(const tz_etm_syms *s, uint64_t addr)
{
    for (size_t i = 0; s && i < s->n; i++) {
        const etm_img *m = &s->v[i];
        if (addr < m->lo || addr >= m->hi)
            continue;
        const tz_elfsym *f = tz_elfsyms_func_at(&m->syms, addr + m->delta);
        if (f)
            return f->name;
    }
    return NULL;
}

void tz_etm_syms_close(tz_etm_syms *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        img_close(&s->v[i]);
    free(s->v);
    free(s);
}
