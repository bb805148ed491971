/* Hook call sites of an x86_64 program built with -pg -mfentry: every function
 * symbol whose first instruction (after an optional endbr64) calls the hook —
 * `e8 rel32`, `67 e8 rel32` (a relaxed GOT call) or `ff 15 rel32` (call *GOT(%rip),
 * PIE with __fentry__ imported) — or is the 5/6-byte NOP a disabled site becomes.
 * The hook is __fentry__ itself when the program defines it (runtime linked in), or,
 * when the program imports it, its PLT stub or its GOT slot (found through the
 * dynamic relocations, so a program whose sites are all NOPs still knows it). A call
 * to anything else is not a site: gcc's cold parts (foo.cold), which start with a
 * call of abort() or the like, are never taken for sites.
 * Programs built with -fpatchable-function-entry=5 start their functions with five
 * one-byte NOPs (90 x 5), listed in the section __patchable_function_entries: those
 * are sites too (disabled until patched into `call __fentry__`, which needs the
 * runtime linked in); when that section exists, only the sites it lists count, and
 * so for __mcount_loc (-mrecord-mcount). */
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

/* The addresses listed in the section `name` (__patchable_function_entries or
 * __mcount_loc, u64 each): its contents, or for a PIE the addends of its
 * R_X86_64_RELATIVE relocations. 0 when the program has no such section. */
static int site_list(Elf *e, size_t shstrndx, const char *name, uint64_t **out, size_t *nout)
{
    GElf_Shdr ps;
    Elf_Scn *pscn = NULL;
    *out = NULL;
    *nout = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        const char *nm;
        if (gelf_getshdr(scn, &ps) && (nm = elf_strptr(e, shstrndx, ps.sh_name)) &&
            strcmp(nm, name) == 0) {
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

/* The PLT stub and the GOT slots (GLOB_DAT or JUMP_SLOT relocation) through which
 * the program calls its import `name`; 0 where there is none. */
static void import_slots(Elf *e, size_t shstrndx, const char *name, uint64_t *plt, uint64_t got[2])
{
    size_t ngot = 0;
    *plt = got[0] = got[1] = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn && ngot < 2; scn = elf_nextscn(e, scn)) {
        GElf_Shdr rs, ys;
        Elf_Scn *ysc;
        if (!gelf_getshdr(scn, &rs) || rs.sh_type != SHT_RELA || !rs.sh_entsize ||
            !(ysc = elf_getscn(e, rs.sh_link)) || !gelf_getshdr(ysc, &ys) || ys.sh_type != SHT_DYNSYM)
            continue;
        Elf_Data *rd = elf_getdata(scn, NULL), *yd = elf_getdata(ysc, NULL);
        for (size_t i = 0; rd && yd && i < rs.sh_size / rs.sh_entsize && ngot < 2; i++) {
            GElf_Rela r;
            GElf_Sym sym;
            const char *sn;
            if (gelf_getrela(rd, (int)i, &r) &&
                (GELF_R_TYPE(r.r_info) == R_X86_64_GLOB_DAT || GELF_R_TYPE(r.r_info) == R_X86_64_JUMP_SLOT) &&
                gelf_getsym(yd, (int)GELF_R_SYM(r.r_info), &sym) &&
                (sn = elf_strptr(e, ys.sh_link, sym.st_name)) && strcmp(sn, name) == 0)
                got[ngot++] = r.r_offset;
        }
    }
    if (!ngot)
        return;
    /* the stub: an entry of .plt, .plt.sec or .plt.got whose `jmp *rel32(%rip)`
     * (ff 25, after an optional endbr64 and bnd prefix) reads one of the slots */
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        const char *nm;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
            !(nm = elf_strptr(e, shstrndx, sh.sh_name)) || strncmp(nm, ".plt", 4) != 0)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        uint64_t ent = sh.sh_entsize ? sh.sh_entsize : 16;
        for (size_t j = 0; d && d->d_buf && d->d_size >= 6 && j <= d->d_size - 6; j++) {
            const uint8_t *q = (const uint8_t *)d->d_buf + j;
            if (q[0] != 0xff || q[1] != 0x25)
                continue;
            int32_t rel = (int32_t)((uint32_t)q[2] | (uint32_t)q[3] << 8 | (uint32_t)q[4] << 16 | (uint32_t)q[5] << 24);
            uint64_t slot = sh.sh_addr + j + 6 + (uint64_t)(int64_t)rel;
            if (slot == got[0] || (ngot > 1 && slot == got[1])) {
                *plt = sh.sh_addr + j / ent * ent;
                return;
            }
        }
    }
}

/* gcc's hot/cold splitting puts a function's unlikely blocks in foo.cold (or
 * foo.cold.N), entered by a jump from foo: never called, so never a hook site. */
static int is_cold_part(const char *name)
{
    for (const char *c = strstr(name, ".cold"); c; c = strstr(c + 1, ".cold")) {
        const char *t = c + 5;
        if (*t == '.' && t[1])
            for (t++; *t >= '0' && *t <= '9'; t++)
                ;
        if (*t == 0)
            return 1;
    }
    return 0;
}

/* A call's (target << 2 | kind) names the hook: __fentry__ (defined), its PLT stub
 * (e8 or 67 e8) or one of its GOT slots (ff 15). */
static int is_hook_call(uint64_t t, uint64_t fentry, uint64_t plt, const uint64_t got[2])
{
    uint64_t a = t >> 2;
    if ((t & 3) == 2)
        return a && (a == got[0] || a == got[1]);
    return a && (a == fentry || a == plt);
}

void traza_patch_sites_free(traza_patch_sites *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].name);
    free(s->v);
    memset(s, 0, sizeof *s);
}

typedef struct cand { uint64_t target; size_t count; } cand;

int traza_patch_sites_find(const char *path, traza_patch_sites *s, traza_err *err)
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
    uint64_t fentry = 0, plt = 0, got[2] = {0, 0};
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
    import_slots(e, shstrndx, "__fentry__", &plt, got);
    const tz_elfsym *fe = tz_elfsyms_find(&syms, "__fentry__");
    if (fe)
        fentry = fe->value;
    for (size_t i = 0; i < syms.n; i++) {
        const tz_elfsym *sym = &syms.v[i];
        if (sym->type != STT_FUNC || sym->shndx >= SHN_LORESERVE || sym->size < 5 || is_cold_part(sym->name))
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
        traza_patch_site *st = &s->v[s->n];
        st->name = tz_strdup(sym->name);
        if (!st->name) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        st->addr = addr;
        st->isa = TRAZA_PATCH_ISA_X86_64;
        st->form = 0;
        st->len = len;
        st->off = sh.sh_offset + o;
        st->enabled = st->want = enabled;
        targets[s->n++] = target;
    }
    /* the hook: the most common of the calls that name it (a program may mix
     * forms); with none left (all sites NOPs), __fentry__, else its PLT stub, else
     * its GOT slot */
    uint64_t best_t = 0;
    size_t best = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (targets[i] == best_t || !is_hook_call(targets[i], fentry, plt, got))
            continue;
        size_t c = 0;
        for (size_t k = 0; k < s->n; k++)
            c += targets[k] == targets[i];
        if (c > best) {
            best = c;
            best_t = targets[i];
        }
    }
    if (best_t)
        s->target = best_t;
    else if (fentry)
        s->target = fentry << 2 | 1;
    else if (plt)
        s->target = plt << 2 | 1;
    else if (got[0])
        s->target = got[0] << 2 | 2;
    /* keep only real hook sites: a call to the hook, or a NOP (a disabled one);
     * with __patchable_function_entries, only the sites it lists */
    uint64_t *pfe = NULL;
    size_t npfe = 0;
    int has_pfe = site_list(e, shstrndx, "__patchable_function_entries", &pfe, &npfe);
    if (has_pfe == 0)
        has_pfe = site_list(e, shstrndx, "__mcount_loc", &pfe, &npfe);
    if (has_pfe < 0) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        int listed = !has_pfe;
        for (size_t j = 0; j < npfe && !listed; j++)
            listed = pfe[j] == s->v[i].addr || pfe[j] + 4 == s->v[i].addr; /* + 4: after endbr64 */
        if (!listed || (s->v[i].enabled && !is_hook_call(targets[i], fentry, plt, got))) {
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
        traza_patch_sites_free(s);
    return rc;
}

int traza_patch_write(const char *in, const char *out, const traza_patch_sites *s, traza_err *err)
{
    char *data = NULL;
    size_t len = 0;
    if (tz_read_file(in, &data, &len, err) < 0)
        return -1;
    for (size_t i = 0; i < s->n; i++) {
        const traza_patch_site *st = &s->v[i];
        if (st->off + (uint64_t)st->len > len) {
            free(data);
            return traza_err_set(err, TRAZA_E_FORMAT, "%s: site of %s beyond the end of the file", in, st->name);
        }
        uint8_t *p = (uint8_t *)data + st->off;
        if (st->want == st->enabled)
            continue;
        if (st->isa != TRAZA_PATCH_ISA_X86_64) {
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
