/* ELF symbol tables with libelf: tz_elfsyms (util/elfsym.h) and traza_elf (traza/elf.h). */
#include "util/elfsym.h"
#include "traza/elf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tz_elfsyms_free(tz_elfsyms *s)
{
    free(s->v);
    free(s->by_addr);
    memset(s, 0, sizeof *s);
}

/* By address; at one address the larger first, so that the innermost function
 * containing an address is the last candidate; then table order. */
static int cmp_addr(const void *a, const void *b, void *arg)
{
    const tz_elfsym *v = arg, *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static int read_table(Elf *e, const char *path, tz_elfsyms *s, int dynsym_too, traza_err *err)
{
    memset(s, 0, sizeof *s);
    GElf_Ehdr eh;
    if (!gelf_getehdr(e, &eh))
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: not an ELF file: %s", path, elf_errmsg(-1));
    s->addr_mask = eh.e_machine == EM_ARM ? ~(uint64_t)1 : ~(uint64_t)0;
    Elf_Scn *symscn = NULL;
    GElf_Shdr sh;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn))
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
            symscn = scn;
            break;
        }
    if (!symscn && dynsym_too)
        for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn))
            if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
                symscn = scn;
                break;
            }
    if (!symscn)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: no symbol table (stripped?): the functions cannot be found", path);
    /* Counted from the bytes libelf holds, not from the header's sh_size. */
    Elf_Data *d = elf_getdata(symscn, NULL);
    if (!d)
        return traza_err_set(err, TRAZA_E_FORMAT, "%s: symbol table unreadable: %s", path, elf_errmsg(-1));
    size_t esz = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
    size_t n = d->d_buf && esz ? d->d_size / esz : 0, cap = 0, fcap = 0;
    for (size_t i = 1; i < n; i++) {
        GElf_Sym sym;
        const char *nm;
        if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_name ||
            !(nm = elf_strptr(e, sh.sh_link, sym.st_name)) || !*nm)
            continue;
        if (TZ_GROW(s->v, cap, s->n + 1) < 0)
            goto nomem;
        tz_elfsym *y = &s->v[s->n];
        y->name = nm;
        y->value = sym.st_value;
        y->type = GELF_ST_TYPE(sym.st_info);
        y->addr = y->type == STT_FUNC ? sym.st_value & s->addr_mask : sym.st_value;
        y->size = sym.st_size;
        y->shndx = sym.st_shndx;
        if (y->type == STT_FUNC) {
            if (TZ_GROW(s->by_addr, fcap, s->nfunc + 1) < 0)
                goto nomem;
            s->by_addr[s->nfunc++] = s->n;
        }
        s->n++;
    }
    if (s->nfunc)
        qsort_r(s->by_addr, s->nfunc, sizeof *s->by_addr, cmp_addr, s->v);
    return 0;
nomem:
    tz_elfsyms_free(s);
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}

int tz_elfsyms_read(Elf *e, const char *path, tz_elfsyms *s, traza_err *err)
{
    return read_table(e, path, s, 0, err);
}

int tz_elfsyms_read_any(Elf *e, const char *path, tz_elfsyms *s, traza_err *err)
{
    return read_table(e, path, s, 1, err);
}

int tz_elf_imports(Elf *e, const char *name)
{
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Sym sym;
        const char *sn;
        for (int i = 1; d && gelf_getsym(d, i, &sym); i++)
            if (sym.st_shndx == SHN_UNDEF && (sn = elf_strptr(e, sh.sh_link, sym.st_name)) && strcmp(sn, name) == 0)
                return 1;
    }
    return 0;
}

const tz_elfsym *tz_elfsyms_find(const tz_elfsyms *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    return NULL;
}

const tz_elfsym *tz_elfsyms_func_at(const tz_elfsyms *s, uint64_t addr)
{
    addr &= s->addr_mask;
    size_t lo = 0, hi = s->nfunc;
    while (lo < hi) { /* lo: the first function starting after addr */
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[s->by_addr[mid]].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the innermost function containing addr, among the few starting just before */
    for (size_t i = lo; i-- > 0 && lo - i <= 8;) {
        const tz_elfsym *f = &s->v[s->by_addr[i]];
        if (addr - f->addr < (f->size ? f->size : 1))
            return f;
    }
    return NULL;
}

struct traza_elf {
    int fd;
    Elf *elf;
    tz_elfsyms syms;
};

traza_elf *traza_elf_open(const char *path, traza_err *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        traza_err_set(err, TRAZA_E_INTERNAL, "libelf: %s", elf_errmsg(-1));
        return NULL;
    }
    traza_elf *e = calloc(1, sizeof *e);
    if (!e) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    e->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (e->fd < 0) {
        traza_err_set(err, TRAZA_E_IO, "%s: cannot open: %s", path, strerror(errno));
        free(e);
        return NULL;
    }
    e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
    if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
        traza_err_set(err, TRAZA_E_FORMAT, "%s: not an ELF file", path);
        traza_elf_close(e);
        return NULL;
    }
    if (tz_elfsyms_read(e->elf, path, &e->syms, err) < 0) {
        traza_elf_close(e);
        return NULL;
    }
    return e;
}

const char *traza_elf_func_at(const traza_elf *e, uint64_t addr, uint64_t *off)
{
    const tz_elfsym *f = tz_elfsyms_func_at(&e->syms, addr);
    if (!f)
        return NULL;
    *off = (addr & e->syms.addr_mask) - f->addr;
    return f->name;
}

int traza_elf_symbol_sized(const traza_elf *e, const char *name, uint64_t *addr, uint64_t *size, traza_err *err)
{
    const tz_elfsym *s = tz_elfsyms_find(&e->syms, name);
    if (!s)
        return traza_err_set(err, TRAZA_E_NOTFOUND, "no symbol %s in the program's symbol table", name);
    *addr = s->addr;
    if (size)
        *size = s->size;
    return 0;
}

int traza_elf_symbol(const traza_elf *e, const char *name, uint64_t *addr, traza_err *err)
{
    return traza_elf_symbol_sized(e, name, addr, NULL, err);
}

void traza_elf_close(traza_elf *e)
{
    if (!e)
        return;
    tz_elfsyms_free(&e->syms);
    if (e->elf)
        elf_end(e->elf);
    close(e->fd);
    free(e);
}
