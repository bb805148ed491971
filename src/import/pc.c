/* PC traces from debug probes: one executed instruction per line.
 *
 * Layouts (see doc/formats/pc-csv.md):
 *   address alone                    "000103fc" or "0x000103fc" or "66556"
 *   time,address[,disassembly]       with or without a header line; a header names
 *                                    the columns (time/timestamp/ts, address/addr/pc,
 *                                    instruction/disasm/disassembly/opcode), in any order
 * Addresses are hexadecimal or decimal for the whole file: hex when the first 2000
 * lines show a 0x prefix, a digit a-f or a leading zero (fixed-width dumps); else
 * decimal. `--map base=hex` (or base=dec) forces it.
 *
 * Model: one producer "core0" (type Core), one punctual event type "instr" with a hex
 * parameter "addr" and, when the file has it, a string parameter "disasm". A time
 * column in decimal seconds is stored exactly (unit ns, or ps if the file has more
 * than 9 decimals); integer times are ticks (ns unless --time-unit). Without a time
 * column the timestamp is the instruction index (trace parameter time.axis =
 * instructions: every view prints "N instr").
 * Time must not go backwards. The grammar compressor reads the addresses directly. */
#include "import/csvutil.h"
#include "import/importers.h"
#include "util/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int hexish(const char *s, size_t n)
{
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return 1;
    for (size_t i = 0; i < n; i++)
        if ((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))
            return 1;
    return n > 1 && s[0] == '0';
}

static int is_addr(const char *s, size_t n)
{
    uint64_t v;
    return n > 0 && n <= 18 && tz_parse_u64_hex(s, n, &v) == 0;
}

static int col_role(const char *s)
{
    if (!strcasecmp(s, "time") || !strcasecmp(s, "timestamp") || !strcasecmp(s, "ts") || !strncasecmp(s, "time ", 5) ||
        !strncasecmp(s, "time(", 5) || !strncasecmp(s, "time [", 6))
        return 1;
    if (!strcasecmp(s, "address") || !strcasecmp(s, "addr") || !strcasecmp(s, "pc"))
        return 2;
    if (!strcasecmp(s, "instruction") || !strcasecmp(s, "disasm") || !strcasecmp(s, "disassembly") || !strcasecmp(s, "opcode") ||
        !strcasecmp(s, "mnemonic"))
        return 3;
    return 0;
}

static int pc_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    const char *ls[64];
    size_t ll[64];
    size_t n = tz_head_lines(head, len, ls, ll, 64);
    if (n == 0)
        return 0;
    char sep = tz_guess_sep(ls[0], ll[0]);
    tz_fields r = {0};
    char buf[4096];
    int header = 0, ok = 0, bad = 0, ncols = -1, addr_col = -1;
    for (size_t i = 0; i < n; i++) {
        if (ll[i] >= sizeof buf || ll[i] == 0) {
            bad += ll[i] != 0;
            continue;
        }
        memcpy(buf, ls[i], ll[i]);
        buf[ll[i]] = '\0';
        if (tz_fields_split(&r, buf, ll[i], sep, "", 0, NULL) < 0) {
            bad++;
            continue;
        }
        if (i == 0 && !is_addr(r.f[0], r.len[0]) && tz_frac_digits(r.f[0], r.len[0]) < 0) {
            int has_addr = 0, unknown = 0;
            for (size_t k = 0; k < r.n; k++) {
                int role = col_role(r.f[k]);
                if (role == 2) { has_addr = 1; addr_col = (int)k; }
                if (!role) unknown++;
            }
            if (!has_addr || unknown || r.n > 3) {
                tz_fields_free(&r);
                return 0;
            }
            header = 1;
            ncols = (int)r.n;
            continue;
        }
        if (ncols < 0) {
            ncols = (int)r.n;
            addr_col = r.n == 1 ? 0 : 1;
        }
        if ((int)r.n != ncols || r.n > 3) {
            bad++;
            continue;
        }
        if (addr_col >= 0 && is_addr(r.f[addr_col], r.len[addr_col]) && (r.n == 1 || addr_col == 0 || tz_frac_digits(r.f[0], r.len[0]) >= 0))
            ok++;
        else
            bad++;
    }
    tz_fields_free(&r);
    if (bad || !ok)
        return 0;
    if (header)
        return 90;
    return ncols == 1 ? 70 : 40;
}

typedef struct pc_layout {
    char sep;
    int header;
    int ncols;
    int time_col, addr_col, dis_col; /* -1 = absent */
    int hex;
    int time_frac;                   /* max decimals seen in the time column; 0 = integers */
} pc_layout;

static int parse_map(const char *map, int *force_base, traza_err *err)
{
    *force_base = -1;
    if (!map || !*map)
        return 0;
    if (!strcmp(map, "base=hex"))
        *force_base = 1;
    else if (!strcmp(map, "base=dec"))
        *force_base = 0;
    else
        return traza_err_set(err, TRAZA_E_USAGE, "pc: the map accepts only base=hex or base=dec, got '%s'", map);
    return 0;
}

static int prescan(const char *path, pc_layout *L, traza_err *err)
{
    tz_lines lr;
    if (tz_lines_open(&lr, path, err) < 0)
        return -1;
    tz_fields r = {0};
    char *line;
    size_t len;
    int got = 0, rc = -1, first = 1, hexseen = 0;
    memset(L, 0, sizeof *L);
    L->time_col = L->addr_col = L->dis_col = -1;
    L->ncols = -1;
    while (lr.lineno < 2000 && (got = tz_lines_next(&lr, &line, &len, err)) == 1) {
        if (len == 0)
            continue;
        if (first)
            L->sep = tz_guess_sep(line, len);
        if (tz_check_terminated(&lr, line, len, path, err) < 0 || tz_check_utf8(line, len, path, lr.lineno, err) < 0 ||
            tz_fields_split(&r, line, len, L->sep, path, lr.lineno, err) < 0)
            goto out;
        if (first) {
            first = 0;
            int named = 0;
            for (size_t k = 0; k < r.n; k++)
                named |= col_role(r.f[k]) != 0;
            if (named && !is_addr(r.f[0], r.len[0]) && tz_frac_digits(r.f[0], r.len[0]) < 0) {
                if (r.n > 3) {
                    traza_err_set(err, TRAZA_E_PARSE, "%s:1: expected a header of 1 to 3 columns (time, address, instruction), found %zu columns", path, r.n);
                    goto out;
                }
                for (size_t k = 0; k < r.n; k++) {
                    int role = col_role(r.f[k]);
                    int *slot = role == 1 ? &L->time_col : role == 2 ? &L->addr_col : role == 3 ? &L->dis_col : NULL;
                    if (!slot || *slot >= 0) {
                        tz_field_err(err, path, 1, k, NULL, "a column name among time, address, instruction (each once)", r.f[k], r.len[k]);
                        goto out;
                    }
                    *slot = (int)k;
                }
                if (L->addr_col < 0) {
                    traza_err_set(err, TRAZA_E_PARSE, "%s:1: expected an 'address' column in the header, found none", path);
                    goto out;
                }
                L->header = 1;
                L->ncols = (int)r.n;
                continue;
            }
            L->ncols = (int)r.n;
            if (r.n == 1) {
                L->addr_col = 0;
            } else if (r.n <= 3) {
                L->time_col = 0;
                L->addr_col = 1;
                if (r.n == 3)
                    L->dis_col = 2;
            } else {
                traza_err_set(err, TRAZA_E_PARSE, "%s:1: expected 1 to 3 columns (address, or time,address[,instruction]), found %zu", path, r.n);
                goto out;
            }
        }
        if ((int)r.n > L->addr_col && hexish(r.f[L->addr_col], r.len[L->addr_col]))
            hexseen = 1;
        if (L->time_col >= 0 && (int)r.n > L->time_col) {
            int fd = tz_frac_digits(r.f[L->time_col], r.len[L->time_col]);
            if (fd > L->time_frac)
                L->time_frac = fd;
        }
    }
    if (got < 0)
        goto out;
    L->hex = hexseen;
    rc = 0;
out:
    tz_fields_free(&r);
    tz_lines_close(&lr);
    return rc;
}

static int pc_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                   traza_err *err)
{
    int force;
    if (parse_map(opts ? opts->map : NULL, &force, err) < 0)
        return -1;
    int32_t core = traza_writer_producer(w, -1, "core0", "Core", err);
    int32_t instr = core < 0 ? -1 : traza_writer_event_type(w, "instr", TRAZA_PUNCTUAL, err);
    int32_t d_addr = instr < 0 ? -1 : traza_writer_param_def(w, instr, "addr", TRAZA_PT_HEX, err);
    if (d_addr < 0)
        return -1;
    int32_t d_dis = -1;
    int unit = -9, unit_set = 0;
    int64_t last = INT64_MIN, index = 0;
    tz_fields r = {0};
    int rc = -1;
    for (size_t fi = 0; fi < npaths; fi++) {
        const char *path = paths[fi];
        pc_layout L;
        if (prescan(path, &L, err) < 0)
            goto out;
        if (force >= 0)
            L.hex = force;
        if (!unit_set) {
            unit_set = 1;
            if (opts && opts->has_time_unit)
                unit = opts->time_unit;
            else if (L.time_frac > 9)
                unit = L.time_frac > 15 ? -18 : L.time_frac > 12 ? -15 : -12;
            traza_writer_set_time_unit(w, unit);
            if (L.time_col < 0 && traza_writer_set_param(w, TRAZA_TIME_AXIS_PARAM, "instructions", err) < 0)
                goto out;
        }
        if (L.dis_col >= 0 && d_dis < 0 && (d_dis = traza_writer_param_def(w, instr, "disasm", TRAZA_PT_STRING, err)) < 0)
            goto out;
        /* Time values with a decimal point are seconds; integers are ticks. */
        int secs = L.time_frac > 0;
        tz_lines lr;
        if (tz_lines_open(&lr, path, err) < 0)
            goto out;
        char *line;
        size_t len;
        int got;
        int ok = 1;
        while ((got = tz_lines_next(&lr, &line, &len, err)) == 1) {
            long ln = lr.lineno;
            if (len == 0 || (ln == 1 && L.header))
                continue;
            if (tz_check_terminated(&lr, line, len, path, err) < 0 || tz_check_utf8(line, len, path, ln, err) < 0 || tz_fields_split(&r, line, len, L.sep, path, ln, err) < 0) {
                ok = 0;
                break;
            }
            if ((int)r.n != L.ncols) {
                if ((int)r.n < L.ncols)
                    tz_field_err(err, path, ln, r.n, NULL, L.ncols == 3 ? "3 fields (time, address, instruction)" : "2 fields (time, address)", NULL, 0);
                else
                    tz_field_err(err, path, ln, (size_t)L.ncols, NULL, "the end of the line (an unknown extra column)", r.f[L.ncols], r.len[L.ncols]);
                ok = 0;
                break;
            }
            traza_param ps[2];
            traza_event ev;
            memset(&ev, 0, sizeof ev);
            const char *a = r.f[L.addr_col];
            size_t al = r.len[L.addr_col];
            uint64_t addr;
            int64_t sv;
            if (L.hex ? tz_parse_u64_hex(a, al, &addr) < 0 : (tz_parse_int(a, al, &sv) < 0 || sv < 0 || (addr = (uint64_t)sv, 0))) {
                tz_field_err(err, path, ln, (size_t)L.addr_col, "address",
                             L.hex ? "a hexadecimal address (up to 16 digits)" : "a decimal address (the file was read as decimal; try base=hex in the map)", a, al);
                ok = 0;
                break;
            }
            if (L.time_col >= 0) {
                const char *t = r.f[L.time_col];
                size_t tl = r.len[L.time_col];
                int prc = secs ? tz_parse_fixed(t, tl, -unit, &ev.ts) : tz_parse_int(t, tl, &ev.ts);
                if (prc < 0 || ev.ts < 0) {
                    tz_field_err(err, path, ln, (size_t)L.time_col, "time",
                                 prc == -2 ? "a time that fits in 64 bits" : prc == -3 ? "no more decimals than the first 2000 lines had" :
                                 secs ? "a time in seconds (e.g. 0.000000032)" : "an integer time >= 0",
                                 t, tl);
                    ok = 0;
                    break;
                }
                if (ev.ts < last) {
                    char b[100];
                    traza_err_set(err, TRAZA_E_PARSE, "%s:%ld: column %d (time): time goes backwards: expected a time >= the previous line's, found '%s'",
                                  path, ln, L.time_col + 1, tz_shorten(t, tl, b, sizeof b));
                    ok = 0;
                    break;
                }
                last = ev.ts;
            } else {
                ev.ts = index;
            }
            index++;
            ev.type = instr;
            ev.producer = core;
            ps[0].def = d_addr;
            ps[0].v.kind = TRAZA_PT_HEX;
            ps[0].v.i = (int64_t)addr;
            ev.params = ps;
            ev.nparams = 1;
            if (L.dis_col >= 0 && r.len[L.dis_col]) {
                ps[1].def = d_dis;
                ps[1].v.kind = TRAZA_PT_STRING;
                ps[1].v.s = r.f[L.dis_col];
                ev.nparams = 2;
            }
            if (traza_writer_event(w, &ev, err) < 0) {
                traza_err_prefix(err, "%s:%ld: ", path, ln);
                ok = 0;
                break;
            }
            if ((index & 0xffff) == 0 && traza_progress(ctx, "importing", tz_input_raw_pos(lr.in), tz_input_raw_size(lr.in))) {
                traza_err_set(err, TRAZA_E_CANCELLED, "import cancelled");
                ok = 0;
                break;
            }
        }
        tz_lines_close(&lr);
        if (got < 0 || !ok)
            goto out;
        if (index == 0 && fi + 1 == npaths) {
            traza_err_set(err, TRAZA_E_PARSE, "%s: expected at least one instruction line, found none (empty or truncated file)", path);
            goto out;
        }
    }
    rc = 0;
out:
    tz_fields_free(&r);
    return rc;
}

const traza_importer tz_importer_pc = {
    "pc", "import-pc", "PC trace from a debug probe: one instruction address per line (optionally time,address,disassembly)",
    pc_detect, pc_read,
};
