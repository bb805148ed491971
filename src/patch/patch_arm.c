/* Hook call sites of a 32-bit ARM (little-endian) ELF program, ARM and Thumb-2 code.
 *
 * Two kinds of sites:
 * - `-pg`: gcc calls the hook after the prologue as `push {lr}; bl __gnu_mcount_nc`
 *   (ARM e52de004 + bl/blx; Thumb b500 + bl/blx). gcc emits no __mcount_loc for ARM,
 *   so the sites are found by decoding the first instructions of every function
 *   symbol. Disabled, the call becomes the instruction that undoes the push, as
 *   Linux ftrace does on ARM: `pop {lr}` (ARM `ldr lr, [sp], #4` = e49de004, Thumb-2
 *   `ldr.w lr, [sp], #4` = f85d eb04); enabling writes the bl/blx back.
 * - `-fpatchable-function-entry` (Thumb-2 =3: three `nop` bf00; ARM =2: two `nop`
 *   e320f000 or `mov r0, r0` e1a00000) at the function start, listed in the section
 *   __patchable_function_entries (4-byte addresses). Enabled, a site is
 *   `push {lr}; bl/blx tz_pfe_entry` (the runtime's hook, which must be linked in).
 *
 * A call from Thumb code to an ARM-state hook (or the other way) is a `blx`. An
 * M-profile core (Cortex-M, named by the build attributes) runs Thumb code only: its
 * sites are Thumb BLs to a Thumb hook (the bare-metal runtime's tz_pfe_entry). */
#include "patch/patch_elf.h"
#include "util/util.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define ARM_PUSH_LR 0xe52de004u
#define ARM_POP_LR 0xe49de004u
#define ARM_NOP 0xe320f000u
#define ARM_MOV_R0 0xe1a00000u
#define T_PUSH_LR 0xb500u
#define T_NOP 0xbf00u
#define T_POP_LR1 0xf85du
#define T_POP_LR2 0xeb04u

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void wr32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

/* An ARM bl/blx at addr: 1 and the target (bit 0 set for a Thumb target), else 0. */
static int arm_call(uint32_t w, uint64_t addr, uint64_t *target)
{
    int64_t imm = (int64_t)((int32_t)(w << 8) >> 6); /* sign-extended imm24 << 2 */
    if ((w >> 24) == 0xeb) {
        *target = (addr + 8 + (uint64_t)imm) & 0xffffffffu;
        return 1;
    }
    if ((w >> 25) == 0x7d) {
        *target = ((addr + 8 + (uint64_t)imm + ((w >> 23) & 2)) & 0xffffffffu) | 1;
        return 1;
    }
    return 0;
}

/* A Thumb-2 bl/blx (h1, h2) at addr: 1 and the target (bit 0 set for Thumb). */
static int thumb_call(uint16_t h1, uint16_t h2, uint64_t addr, uint64_t *target)
{
    if ((h1 & 0xf800) != 0xf000 || (h2 & 0xc000) != 0xc000)
        return 0;
    int blx = (h2 & 0x1000) == 0;
    if (blx && (h2 & 1))
        return 0;
    uint32_t s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
    uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
    uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (uint32_t)(h1 & 0x3ff) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
    int64_t off = (int64_t)((int32_t)(imm << 7) >> 7);
    if (blx)
        *target = (((addr + 4) & ~(uint64_t)3) + (uint64_t)off) & 0xfffffffcu;
    else
        *target = ((addr + 4 + (uint64_t)off) & 0xffffffffu) | 1;
    return 1;
}

/* Encodes a call at `addr` (Thumb if `thumb`) to `target` (bit 0: Thumb). */
static int enc_call(uint8_t *p, uint64_t addr, int thumb, uint64_t target)
{
    int to_thumb = (int)(target & 1);
    uint64_t t = target & ~(uint64_t)1;
    if (!thumb) {
        int64_t off = (int64_t)t - (int64_t)(addr + 8);
        if (off < -(1 << 25) || off >= (1 << 25) || (off & (to_thumb ? 1 : 3)))
            return -1;
        uint32_t imm = (uint32_t)(off >> 2) & 0xffffff;
        wr32(p, to_thumb ? 0xfa000000u | ((uint32_t)(off >> 1) & 1) << 24 | imm : 0xeb000000u | imm);
        return 0;
    }
    int64_t off = (int64_t)t - (int64_t)(to_thumb ? addr + 4 : (addr + 4) & ~(uint64_t)3);
    if (off < -(1 << 24) || off >= (1 << 24) || (off & (to_thumb ? 1 : 3)))
        return -1;
    uint32_t u = (uint32_t)off;
    uint32_t s = (u >> 24) & 1, i1 = (u >> 23) & 1, i2 = (u >> 22) & 1;
    uint32_t j1 = !i1 ^ s, j2 = !i2 ^ s;
    uint16_t h1 = (uint16_t)(0xf000 | s << 10 | ((u >> 12) & 0x3ff));
    uint16_t h2 = (uint16_t)(0xc000 | j1 << 13 | j2 << 11 | ((u >> 1) & 0x7ff) | (to_thumb ? 0x1000 : 0));
    wr16(p, h1);
    wr16(p + 2, h2);
    return 0;
}

static int thumb_wide(uint16_t h) { return (h >> 11) == 0x1d || (h >> 11) == 0x1e || (h >> 11) == 0x1f; }

/* The bytes at addr (n of them) inside a PROGBITS section: pointer and file offset. */
static const uint8_t *at_addr(Elf *e, uint64_t addr, size_t n, uint64_t *off)
{
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
            addr < sh.sh_addr || addr + n > sh.sh_addr + sh.sh_size)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size < sh.sh_size)
            return NULL;
        *off = sh.sh_offset + (addr - sh.sh_addr);
        return (const uint8_t *)d->d_buf + (addr - sh.sh_addr);
    }
    return NULL;
}

/* An unsigned LEB128 at *p (below end); 0 when it runs past the end. */
static int uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int sh = 0; *p < end && sh < 64; sh += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

int tz_arm_is_mprofile(const uint8_t *a, size_t n)
{
    /* 'A', then sections: u32 length, vendor name, sub-sections (tag 1 = the whole
     * file, u32 length, attributes: ULEB tag, then a ULEB or (tags 4, 5, 67 and odd
     * tags above 32) a NUL-terminated string) */
    if (n < 1 || a[0] != 'A')
        return 0;
    for (size_t o = 1; o + 4 <= n;) {
        uint32_t len = rd32(a + o);
        if (len < 4 || len > n - o)
            return 0;
        const uint8_t *p = a + o + 4, *end = a + o + len;
        const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
        if (nul && strcmp((const char *)p, "aeabi") == 0) {
            p = nul + 1;
            while (end - p >= 5) {
                uint8_t sub = *p;
                uint32_t sl = rd32(p + 1);
                if (sl < 5 || sl > (uint32_t)(end - p))
                    return 0;
                const uint8_t *q = p + 5, *send = p + sl;
                while (sub == 1 && q < send) {
                    uint64_t tag, v;
                    if (!uleb(&q, send, &tag))
                        return 0;
                    if (tag == 4 || tag == 5 || tag == 67 || (tag > 32 && (tag & 1))) {
                        const uint8_t *z = memchr(q, 0, (size_t)(send - q));
                        if (!z)
                            return 0;
                        q = z + 1;
                        continue;
                    }
                    if (tag == 32 || tag == 65)
                        return 0; /* compatibility records: not read (gcc puts them after the profile) */
                    if (!uleb(&q, send, &v))
                        return 0;
                    if (tag == 7)
                        return v == 'M';
                }
                p = send;
            }
        }
        o += len;
    }
    return 0;
}

static int add_site(traza_patch_sites *s, size_t *cap, uint64_t **targets, size_t *tcap, const char *name, uint64_t addr,
                    uint64_t off, int thumb, int form, int enabled, uint64_t target)
{
    if (TZ_GROW(s->v, *cap, s->n + 1) < 0 || TZ_GROW(*targets, *tcap, s->n + 1) < 0)
        return -1;
    traza_patch_site *st = &s->v[s->n];
    memset(st, 0, sizeof *st);
    st->name = tz_strdup(name);
    if (!st->name)
        return -1;
    st->addr = addr;
    st->off = off;
    st->isa = thumb ? TRAZA_PATCH_ISA_THUMB : TRAZA_PATCH_ISA_ARM;
    st->form = form;
    st->len = thumb ? 6 : 8;
    st->enabled = st->want = enabled;
    (*targets)[s->n++] = enabled ? target : 0;
    return 0;
}

int tz_arm_sites_find(Elf *e, const tz_elfsyms *syms, const char *path, traza_patch_sites *s, traza_err *err)
{
    GElf_Ehdr eh;
    size_t shstrndx;
    if (!gelf_getehdr(e, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_ident[EI_CLASS] != ELFCLASS32)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: 32-bit ARM: only little-endian ELF32 programs", path);
    elf_getshdrstrndx(e, &shstrndx);
    Elf_Scn *pfescn = NULL;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        const char *nm;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if ((nm = elf_strptr(e, shstrndx, sh.sh_name)) && strcmp(nm, "__patchable_function_entries") == 0)
            pfescn = scn;
        if (sh.sh_type == SHT_ARM_ATTRIBUTES) {
            Elf_Data *ad = elf_getdata(scn, NULL);
            if (ad && ad->d_buf)
                s->thumb_only = tz_arm_is_mprofile(ad->d_buf, ad->d_size);
        }
    }
    int short_nops = 0; /* a listed Thumb function starting with 1 or 2 NOPs only */
    int imports_mcount = tz_elf_imports(e, "__gnu_mcount_nc"); /* a dynamic program calling it through the PLT */
    const tz_elfsym *mc = tz_elfsyms_find(syms, "__gnu_mcount_nc"), *pe = tz_elfsyms_find(syms, "tz_pfe_entry");
    uint64_t mcount = mc ? mc->value : 0, pfe_hook = pe ? pe->value : 0; /* bit 0: Thumb; 0 = not defined */
    uint64_t *targets = NULL;
    size_t cap = 0, tcap = 0;
    int rc = -1;
    for (size_t i = 0; i < syms->n; i++) {
        const tz_elfsym *sym = &syms->v[i];
        const char *sn = sym->name;
        if (sym->type != STT_FUNC || sym->shndx >= SHN_LORESERVE || sym->size < 6)
            continue;
        int thumb = (int)(sym->value & 1);
        uint64_t fa = sym->addr, off;
        if (pfescn) {
            /* a function start listed in __patchable_function_entries */
            GElf_Shdr ps;
            gelf_getshdr(pfescn, &ps);
            Elf_Data *pd = elf_getdata(pfescn, NULL);
            int listed = 0;
            for (size_t k = 0; pd && pd->d_buf && (k + 1) * 4 <= pd->d_size && !listed; k++)
                listed = rd32((const uint8_t *)pd->d_buf + 4 * k) == fa;
            const uint8_t *p = listed ? at_addr(e, fa, thumb ? 6 : 8, &off) : NULL;
            if (listed && thumb && (!p || rd16(p + 2) != T_NOP || rd16(p + 4) != T_NOP)) {
                const uint8_t *q = at_addr(e, fa, 2, &off);
                if (q && rd16(q) == T_NOP)
                    short_nops = 1;
            }
            if (!p)
                continue;
            uint64_t target = 0;
            int en;
            if (thumb && rd16(p) == T_NOP && rd16(p + 2) == T_NOP && rd16(p + 4) == T_NOP)
                en = 0;
            else if (thumb && rd16(p) == T_PUSH_LR && thumb_call(rd16(p + 2), rd16(p + 4), fa + 2, &target))
                en = 1;
            else if (!thumb && (rd32(p) == ARM_NOP || rd32(p) == ARM_MOV_R0) && rd32(p + 4) == rd32(p))
                en = 0;
            else if (!thumb && rd32(p) == ARM_PUSH_LR && arm_call(rd32(p + 4), fa + 4, &target))
                en = 1;
            else
                continue;
            if (add_site(s, &cap, &targets, &tcap, sn, fa, off, thumb, TRAZA_PATCH_FORM_PFE, en, target) < 0)
                goto nomem;
            continue;
        }
        /* -pg: `push {lr}` then the call (or the pop of a disabled site), within the
         * first 24 instructions (the prologue) */
        size_t span = sym->size < 96 ? (size_t)sym->size : 96;
        const uint8_t *p = at_addr(e, fa, span, &off);
        if (!p)
            continue;
        for (size_t o = 0; o + (thumb ? 6 : 8) <= span;) {
            uint64_t target = 0;
            int en = -1;
            if (thumb) {
                uint16_t h = rd16(p + o);
                if (h == T_PUSH_LR) {
                    if (rd16(p + o + 2) == T_POP_LR1 && rd16(p + o + 4) == T_POP_LR2)
                        en = 0;
                    else if (thumb_call(rd16(p + o + 2), rd16(p + o + 4), fa + o + 2, &target))
                        en = 1;
                }
                if (en < 0) {
                    o += thumb_wide(h) ? 4 : 2;
                    continue;
                }
            } else {
                if (rd32(p + o) == ARM_PUSH_LR) {
                    if (rd32(p + o + 4) == ARM_POP_LR)
                        en = 0;
                    else if (arm_call(rd32(p + o + 4), fa + o + 4, &target))
                        en = 1;
                }
                if (en < 0) {
                    o += 4;
                    continue;
                }
            }
            if (add_site(s, &cap, &targets, &tcap, sn, fa + o, off + o, thumb, TRAZA_PATCH_FORM_PG, en, target) < 0)
                goto nomem;
            break;
        }
    }
    /* the hook: the runtime's symbol, else (a dynamic program calling it through the
     * PLT) the most common target of the enabled sites */
    uint64_t hook = pfescn ? pfe_hook : mcount, best_t = 0;
    size_t best = 0;
    for (size_t i = 0; !hook && !pfescn && imports_mcount && i < s->n; i++) {
        size_t c = 0;
        for (size_t k = 0; targets[i] && k < s->n; k++)
            c += targets[k] == targets[i];
        if (c > best)
            best = c, best_t = targets[i];
    }
    if (!hook)
        hook = best_t;
    /* keep the disabled sites and the calls of the hook */
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].enabled && targets[i] != hook) {
            free(s->v[i].name);
            continue;
        }
        s->v[k++] = s->v[i];
    }
    s->n = k;
    s->target = hook;
    s->kind = 0;
    if (s->n == 0 && short_nops) {
        traza_err_set(err, TRAZA_E_UNSUPPORTED,
                      "%s: the Thumb-2 patchable entries have fewer than three 16-bit NOPs, no room for "
                      "`push {lr}; bl tz_pfe_entry` (6 bytes): build with -fpatchable-function-entry=3",
                      path);
        goto out;
    }
    if (s->n == 0) {
        traza_err_set(err, TRAZA_E_FORMAT,
                      "%s: no hook call sites: build the ARM program with -pg, or -fpatchable-function-entry=3 "
                      "(Thumb-2) / =2 (ARM) and the runtime linked in",
                      path);
        goto out;
    }
    rc = 0;
    goto out;
nomem:
    traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
out:
    free(targets);
    if (rc < 0)
        traza_patch_sites_free(s);
    return rc;
}

int tz_arm_site_put(uint8_t *p, const traza_patch_site *st, const traza_patch_sites *s, const char *in, traza_err *err)
{
    int thumb = st->isa == TRAZA_PATCH_ISA_THUMB;
    if (!st->want) {
        if (st->form == TRAZA_PATCH_FORM_PFE) {
            for (int i = 0; i < (thumb ? 3 : 2); i++) {
                if (thumb)
                    wr16(p + 2 * i, T_NOP);
                else
                    wr32(p + 4 * i, ARM_NOP);
            }
        } else if (thumb) {
            wr16(p + 2, T_POP_LR1);
            wr16(p + 4, T_POP_LR2);
        } else {
            wr32(p + 4, ARM_POP_LR);
        }
        return 0;
    }
    if (!s->target)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED,
                             st->form == TRAZA_PATCH_FORM_PFE
                                 ? "%s: cannot turn the NOPs of %s into a hook call: tz_pfe_entry is not linked in "
                                   "(link the runtime with -Wl,-u,tz_pfe_entry)"
                                 : "%s: cannot turn the site of %s back into a hook call (hook unknown): patch the original program",
                             in, st->name);
    if (s->thumb_only && (!thumb || !(s->target & 1)))
        return traza_err_set(err, TRAZA_E_UNSUPPORTED,
                             "%s: %s: an M-profile core runs Thumb code only, but %s at 0x%llx is ARM code "
                             "(no blx on Cortex-M): build it with -mthumb",
                             in, st->name, thumb ? "the hook" : "the site", (unsigned long long)(thumb ? s->target : st->addr));
    if (thumb)
        wr16(p, T_PUSH_LR);
    else
        wr32(p, ARM_PUSH_LR);
    size_t at = thumb ? 2 : 4;
    if (enc_call(p + at, st->addr + at, thumb, s->target) < 0)
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: the hook at 0x%llx is out of branch range of %s at 0x%llx (%s: %s)",
                             in, (unsigned long long)s->target, st->name, (unsigned long long)(st->addr + at),
                             thumb ? "Thumb-2 bl" : "ARM bl", thumb ? "+-16 MiB" : "+-32 MiB");
    return 0;
}
