/* Hook call sites of an x86_64 program built with -pg -mfentry: every function
 * symbol whose first instruction (after an optional endbr64) calls the hook —
 * `e8 rel32`, `67 e8 rel32` (a relaxed GOT call) or `ff 15 rel32` (call *GOT(%rip),
 * PIE with __fentry__ imported) — or is the 5/6-byte NOP a disabled site becomes.
 * The hook is the symbol __fentry__ when defined (runtime linked in), else the most
 * common first call of the functions when the program imports __fentry__.
 * Programs built with -fpatchable-function-entry=5 start their functions with five
 * one-byte NOPs (90 x 5), listed in the section __patchable_function_entries: those
 * are sites too (disabled until patched into `call __fentry__`, which needs the
 * runtime linked in); when that section exists, only the sites it lists count. */
#include "patch/patch_elf.h"
#include "util/elfsym.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint8_t NOP5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
static const uint8_t NOP6[6] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00};
static const uint8_t ENDBR64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
static const uint8_t NOP1X5[5] = {0x90, 0x90, 0x90, 0x90, 0x90};

/* The addresses listed in __patchable_function_entries (u64 each): the section's
 * contents, or for a PIE the addends of its R_X86_64_RELATIVE relocations. */
static int pfe_collect(Elf *e, size_t shstrndx, uint64_t **out, size_t *nout)
{
    GElf_Shdr ps;
    Elf_Scn *pscn = NULL;
    *out = NULL;
    *nout = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        const char *nm;
        if (gelf_getshdr(scn, &ps) && (nm = elf_strptr(e, shstrndx, ps.sh_name)) &&
            strcmp(nm, "__patchable_function_entries") == 0) {
            pscn = scn;
            break;
        }
    }
    if (!pscn)
        return 0;
    /* Sized by the bytes the file holds, not by the header's claim. */
    Elf_Data *d = elf_getdata(pscn, NULL);
    size_t n = d && d->d_buf ? d->d_size / 8 : 0, k = 0;
    uint64_t *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t a;
        memcpy(&a, (const uint8_t *)d->d_buf + 8 * i, 8);
        if (a)
            v[k++] = a;
    }
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr rs;
        if (!gelf_getshdr(scn, &rs) || rs.sh_type != SHT_RELA || !rs.sh_entsize)
            continue;
        Elf_Data *rd = elf_getdata(scn, NULL);
        for (size_t i = 0; rd && i < rs.sh_size / rs.sh_entsize && k < n; i++) {
            GElf_Rela r;
            if (gelf_getrela(rd, (int)i, &r) && GELF_R_TYPE(r.r_info) == R_X86_64_RELATIVE &&
                r.r_offset >= ps.sh_addr && r.r_offset < ps.sh_addr + ps.sh_size)
                v[k++] = (uint64_t)r.r_addend;
        }
    }
    *out = v;
    *nout = k;
    return 1;
}

void tz_sites_free(tz_sites *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].name);
    free(s->v);
    memset(s, 0, sizeof *s);
}

typedef struct cand { uint64_t target; size_t count; } cand;

int tz_sites_find(const char *path, tz_sites *s, traza_err *err)
{
    memset(s, 0, sizeof *s);
    if (elf_version(EV_CURRENT) == EV_NONE)
        return traza_err_set(err, TRAZA_E_INTERNAL, "libelf: %s", elf_errmsg(-1));
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open: %s", path, strerror(errno));
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    int rc = -1;
    GElf_Ehdr eh;
    size_t cap = 0;
    uint64_t *targets = NULL; /* per site; for call sites */
    size_t tcap = 0;
    uint64_t fentry = 0;
    int imports_fentry;
    tz_elfsyms syms = {0};
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
        traza_err_set(err, TRAZA_E_FORMAT, "%s: not an ELF file", path);
        goto out;
    }
    if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_ARM) {
        traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: machine %u: patching supports x86_64 and 32-bit ARM programs", path, eh.e_machine);
        goto out;
    }
    if (tz_elfsyms_read(e, path, &syms, err) < 0)
        goto out;
    if (eh.e_machine == EM_ARM) {
        rc = tz_arm_sites_find(e, &syms, path, s, err);
        goto out;
    }
    size_t shstrndx;
    elf_getshdrstrndx(e, &shstrndx);
    imports_fentry = tz_elf_imports(e, "__fentry__");
    const tz_elfsym *fe = tz_elfsyms_find(&syms, "__fentry__");
    if (fe)
        fentry = fe->value;
    for (size_t i = 0; i < syms.n; i++) {
        const tz_elfsym *sym = &syms.v[i];
        if (sym->type != STT_FUNC || sym->shndx >= SHN_LORESERVE || sym->size < 5)
            continue;
        Elf_Scn *scn = elf_getscn(e, sym->shndx);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || sym->value < sh.sh_addr)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf)
            continue;
        /* The longest site read is an ENDBR64 (4 bytes) then 6 bytes; compare in
         * offsets within the section's data, which a crafted header cannot overflow. */
        uint64_t o = sym->value - sh.sh_addr;
        if (o >= d->d_size || d->d_size - o < 6)
            continue;
        const uint8_t *p = (const uint8_t *)d->d_buf + o;
        uint64_t addr = sym->value;
        if (sym->size >= 9 && d->d_size - o >= 10 && memcmp(p, ENDBR64, 4) == 0) {
            p += 4;
            o += 4;
            addr += 4;
        }
        int enabled = 1, len = 5, kind = 0;
        uint64_t target = 0;
        size_t at = 0;
        if (p[0] == 0xe8) {
            at = 1;
        } else if (p[0] == 0x67 && p[1] == 0xe8) {
            at = 2, len = 6, kind = 1;
        } else if (p[0] == 0xff && p[1] == 0x15) {
            at = 2, len = 6, kind = 2;
        } else if (memcmp(p, NOP6, 6) == 0) {
            enabled = 0, len = 6;
        } else if (memcmp(p, NOP5, 5) == 0 || memcmp(p, NOP1X5, 5) == 0) {
            enabled = 0;
        } else {
            continue;
        }
        if (enabled) {
            int32_t rel = (int32_t)((uint32_t)p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16 |
                                    (uint32_t)p[at + 3] << 24);
            target = (addr + (uint64_t)len + (uint64_t)(int64_t)rel) << 2 | (uint64_t)kind;
        }
        if (TZ_GROW(s->v, cap, s->n + 1) < 0 || TZ_GROW(targets, tcap, s->n + 1) < 0) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        tz_site *st = &s->v[s->n];
        st->name = tz_strdup(sym->name);
        if (!st->name) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        st->addr = addr;
        st->isa = TZ_ISA_X86_64;
        st->form = 0;
        st->len = len;
        st->off = sh.sh_offset + o;
        st->enabled = st->want = enabled;
        targets[s->n++] = target;
    }
    /* the hook: the most common (target, kind) of the first calls, which must be
     * __fentry__ itself, or an import of __fentry__ */
    uint64_t best_t = 0;
    size_t best = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!targets[i] || targets[i] == best_t)
            continue;
        size_t c = 0;
        for (size_t k = 0; k < s->n; k++)
            c += targets[k] == targets[i];
        if (c > best) {
            best = c;
            best_t = targets[i];
        }
    }
    if (best_t && ((fentry && (best_t >> 2) == fentry) || (!fentry && imports_fentry))) {
        s->target = best_t;
    } else if (fentry) {
        s->target = fentry << 2 | 1; /* all sites disabled: call it directly */
    }
    /* keep only real hook sites: a call to the hook, or a NOP (a disabled one);
     * with __patchable_function_entries, only the sites it lists */
    uint64_t *pfe = NULL;
    size_t npfe = 0;
    int has_pfe = pfe_collect(e, shstrndx, &pfe, &npfe);
    if (has_pfe < 0) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        int listed = !has_pfe;
        for (size_t j = 0; j < npfe && !listed; j++)
            listed = pfe[j] == s->v[i].addr || pfe[j] + 4 == s->v[i].addr; /* + 4: after endbr64 */
        if (!listed || (s->v[i].enabled && (!s->target || targets[i] != s->target))) {
            free(s->v[i].name);
            continue;
        }
        s->v[k++] = s->v[i];
    }
    s->n = k;
    free(pfe);
    s->kind = (int)(s->target & 3);
    s->target >>= 2;
    if (s->n == 0) {
        traza_err_set(err, TRAZA_E_FORMAT, "%s: no hook call sites: build the program with -pg -mfentry or -fpatchable-function-entry=5", path);
        goto out;
    }
    rc = 0;
out:
    free(targets);
    tz_elfsyms_free(&syms);
    if (e)
        elf_end(e);
    close(fd);
    if (rc < 0)
        tz_sites_free(s);
    return rc;
}

int tz_sites_write(const char *in, const char *out, const tz_sites *s, traza_err *err)
{
    char *data = NULL;
    size_t len = 0;
    if (tz_read_file(in, &data, &len, err) < 0)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        const tz_site *st = &s->v[i];
        if (st->off + (uint64_t)st->len > len) {
            free(data);
            return traza_err_set(err, TRAZA_E_FORMAT, "%s: site of %s beyond the end of the file", in, st->name);
        }
        uint8_t *p = (uint8_t *)data + st->off;
        if (st->want == st->enabled)
            continue;
        if (st->isa != TZ_ISA_X86_64) {
            if (tz_arm_site_put(p, st, s, in, err) < 0) {
                free(data);
                return -1;
            }
            continue;
        }
        if (!st->want) {
            memcpy(p, st->len == 6 ? NOP6 : NOP5, (size_t)st->len);
            continue;
        }
        /* a 5-byte site takes `call rel32`, a 6-byte one the form the program uses */
        int kind = st->len == 5 ? 0 : s->kind == 2 ? 2 : 1;
        if (!s->target || (kind == 0 && s->kind == 2)) {
            free(data);
            return traza_err_set(err, TRAZA_E_UNSUPPORTED,
                                 "%s: cannot turn the NOP of %s back into a hook call (hook unknown): patch the original program",
                                 in, st->name);
        }
        int64_t rel = (int64_t)(s->target - (st->addr + (uint64_t)st->len));
        size_t at = 1;
        if (kind == 0)
            p[0] = 0xe8;
        else if (kind == 1)
            p[0] = 0x67, p[1] = 0xe8, at = 2;
        else
            p[0] = 0xff, p[1] = 0x15, at = 2;
        for (int b = 0; b < 4; b++)
            p[at + (size_t)b] = (uint8_t)((uint64_t)rel >> (8 * b));
    }
    struct stat sb;
    mode_t mode = stat(in, &sb) == 0 ? (sb.st_mode & 07777) : 0755;
    char *tmp = tz_asprintf("%s.tmp.%ld", out, (long)getpid());
    int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC, mode) : -1;
    if (fd < 0) {
        free(data);
        int rc = traza_err_set(err, TRAZA_E_IO, "%s: cannot create: %s", tmp ? tmp : out, strerror(errno));
        free(tmp);
        return rc;
    }
    int wrc = tz_write_all(fd, data, len);
    free(data);
    /* the data on the disk before the name (as tz_outfile does) */
    int bad = wrc < 0 || fsync(fd) < 0, e = errno;
    if (close(fd) < 0 && !bad)
        bad = 1, e = errno;
    if (!bad && (fchmodat(AT_FDCWD, tmp, mode, 0) < 0 || rename(tmp, out) < 0))
        bad = 1, e = errno;
    if (bad) {
        unlink(tmp);
        free(tmp);
        return traza_err_set(err, TRAZA_E_IO, "%s: write failed: %s", out, strerror(e));
    }
    free(tmp);
    return 0;
}
