/* The CoreSight importer: decoded instruction ranges equal the INSTR_RANGE lines of
 * `trc_pkt_lister -ss_dir DIR -decode` for the shared snapshots with memory images;
 * the INI parser's errors; the PC expansion agrees with the range counts. */
#include "testutil.h"
#include "traza/etm.h"
#include "import/etm_internal.h"

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *line)
{
    size_t l = strlen(line);
    if (b->n + l + 1 > b->cap) {
        b->cap = (b->n + l + 1) * 2;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
    memcpy(b->s + b->n, line, l + 1);
    b->n += l;
}

/* "ID start end n last_sz ISA" per range, in order, grouped by trace ID (0..127). */
static int lister_ranges(const char *dir, const char *extra, sbuf *by_id)
{
    if (system("command -v trc_pkt_lister >/dev/null 2>&1") != 0)
        return 0;
    char *tmp = tu_tmpdir();
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && trc_pkt_lister -ss_dir '%s' %s -decode -logstdout", tmp, dir, extra);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[4096];
    while (fgets(line, sizeof line, p)) {
        const char *r = strstr(line, "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=");
        const char *id = strstr(line, "ID:");
        if (!r || !id)
            continue;
        unsigned tid;
        unsigned long long st, en;
        unsigned n, sz;
        char isa[16];
        assert_int_equal(sscanf(id, "ID:%x;", &tid), 1);
        assert_int_equal(sscanf(r, "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x%llx:[0x%llx] num_i(%u) last_sz(%u) (ISA=%15[^)])", &st, &en, &n, &sz, isa), 5);
        assert_true(tid < 128);
        char out[160];
        snprintf(out, sizeof out, "%llx %llx %u %u %s\n", st, en, n, sz, isa);
        sb_add(&by_id[tid], out);
    }
    pclose(p);
    tu_rmdir(tmp);
    return 1;
}

/* Opens a workspace in w and imports snapshot directory `dir` into it. */
static void import_dir(tu_ws *w, const char *dir, traza_trace_info *info)
{
    tu_ws_open(w);
    const char *paths[1] = {dir};
    traza_import_opts o = {0};
    if (traza_import(w->ws, paths, 1, &o, info, &w->err) < 0)
        fail_msg("%s", w->err.msg);
}

/* The ranges of snapshot directory `real` (named `rel` in messages) equal those of
 * trc_pkt_lister run with the options `extra`; returns their count. */
static int64_t compare_dir(const char *rel, const char *real, const char *extra)
{
    sbuf want[128], got[128];
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    if (!lister_ranges(real, extra, want)) {
        print_message("[  SKIPPED ] %s: trc_pkt_lister is not installed\n", rel);
        skip();
    }
    tu_ws w;
    traza_trace_info info;
    import_dir(&w, real, &info);
    assert_string_equal(info.format, "etm");
    traza_trace *t = traza_trace_open(w.ws, info.name, TRAZA_OPEN_READ, &w.err);
    assert_non_null(t);
    int instr_axis = strcmp(traza_time_axis(&info), "instructions") == 0;
    int64_t total = 0;
    for (size_t i = 0; i < info.nparams; i++) {
        const char *k = info.params[i].key, *dot = strrchr(k, '.');
        if (!dot || strcmp(dot, ".trace_id") != 0)
            continue;
        char core[128];
        snprintf(core, sizeof core, "%.*s", (int)(dot - k), k);
        unsigned tid = (unsigned)atoi(info.params[i].value);
        assert_true(tid < 128);
        const traza_producer *pr = traza_trace_producer_find(t, core);
        assert_non_null(pr);
        traza_filter f;
        traza_filter_init(&f);
        int32_t ty = traza_trace_event_type_by_name(t, "instr_range")->id, pid = pr->id;
        f.types = &ty;
        f.ntypes = 1;
        f.producers = &pid;
        f.nproducers = 1;
        f.with_params = 1;
        traza_cursor *c = traza_query(t, &f, &w.err);
        const traza_event *e;
        while (traza_cursor_next(c, &e, &w.err) > 0) {
            unsigned long long st = 0, en = 0;
            long long n = 0, sz = 0;
            const char *isa = "";
            for (uint32_t j = 0; j < e->nparams; j++) {
                const char *pn = traza_trace_param_def(t, e->params[j].def)->name;
                if (!strcmp(pn, "start")) st = (unsigned long long)e->params[j].v.i;
                else if (!strcmp(pn, "end")) en = (unsigned long long)e->params[j].v.i;
                else if (!strcmp(pn, "ninstr")) n = e->params[j].v.i;
                else if (!strcmp(pn, "last_size")) sz = e->params[j].v.i;
                else if (!strcmp(pn, "isa")) isa = e->params[j].v.s;
            }
            if (instr_axis) /* else timed by the timestamps: tests/formats/t_etm.sh */
                assert_int_equal(e->end_ts - e->ts, n);
            char out[160];
            snprintf(out, sizeof out, "%llx %llx %lld %lld %s\n", st, en, n, sz, isa);
            sb_add(&got[tid], out);
            total++;
        }
        traza_cursor_free(c);
    }
    traza_trace_close(t);
    int64_t want_total = 0;
    for (int i = 0; i < 128; i++) {
        const char *a = want[i].s ? want[i].s : "", *b = got[i].s ? got[i].s : "";
        if (strcmp(a, b) != 0) {
            size_t k = 0;
            while (a[k] && a[k] == b[k])
                k++;
            fail_msg("%s: trace ID 0x%x: ranges differ at byte %zu: trc_pkt_lister '%.60s' vs traza '%.60s'", rel, i, k, a + k, b + k);
        }
        for (const char *q = a; *q; q++)
            want_total += *q == '\n';
        free(want[i].s);
        free(got[i].s);
    }
    assert_int_equal(total, want_total);
    assert_true(total > 0);
    traza_trace_info_clear(&info);
    tu_ws_close(&w);
    return total;
}

static void compare_snapshot(const char *rel)
{
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/opencsd/%s", data, rel);
    char *real = realpath(dir, NULL);
    assert_non_null(real);
    compare_dir(rel, real, "");
    free(real);
}

static void test_juno(void **state) { (void)state; compare_snapshot("snapshots/juno-uname-002"); }
static void test_tc2(void **state) { (void)state; compare_snapshot("snapshots/TC2"); }
static void test_ete(void **state) { (void)state; compare_snapshot("snapshots-ete/ete_mem"); }

/* A copy of snapshot `rel` whose coresight buffer `file` is stored as a DSTREAM probe
 * stores a TPIU capture: a frame sync (FSYNC, ff ff ff 7f) before the first frame and
 * before every 8th one, in 512-byte blocks of 504 trace bytes and an 8-byte footer (the
 * footer bytes here are 0xa5, which decode as trace if they are not dropped).
 * `damage`: a byte offset of the written file to overwrite with 0x00, or -1. */
static char *dstream_copy(const char *rel, const char *file, long damage)
{
    char src[4096], cmd[12288], path[8300];
    snprintf(src, sizeof src, "%s/opencsd/%s", tu_data_dir(), rel);
    char *d = tu_tmpdir();
    snprintf(cmd, sizeof cmd, "cp -r '%s'/. '%s'/ && chmod -R u+w '%s' && sed -i 's/^format=coresight/format=dstream_coresight/' '%s/trace.ini'",
             src, d, d, d);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/%s", d, file);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static uint8_t in[1 << 20];
    size_t n = fread(in, 1, sizeof in, f);
    fclose(f);
    assert_int_equal(n % 16, 0);
    uint8_t *tpiu = malloc(n * 2 + 4), *out = malloc(n * 3 + 1024);
    assert_non_null(tpiu);
    assert_non_null(out);
    size_t t = 0, o = 0;
    static const uint8_t fsync[4] = {0xff, 0xff, 0xff, 0x7f};
    for (size_t i = 0; i < n; i += 16) {
        if (i % (16 * 8) == 0)
            memcpy(tpiu + t, fsync, 4), t += 4;
        memcpy(tpiu + t, in + i, 16), t += 16;
    }
    for (size_t i = 0; i < t; i += 504) {
        size_t k = t - i < 504 ? t - i : 504;
        memcpy(out + o, tpiu + i, k), o += k;
        if (k == 504)
            memset(out + o, 0xa5, 8), o += 8;
    }
    if (damage >= 0 && (size_t)damage < o)
        out[damage] = 0;
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(out, 1, o, f), o);
    fclose(f);
    free(tpiu);
    free(out);
    return d;
}

/* DSTREAM-framed buffers decode to the ranges trc_pkt_lister -dstream_format finds in
 * them, and to the ranges of the memory-framed original. */
static void test_dstream(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    static const struct { const char *rel, *file; int64_t ranges; } cases[] = {
        {"snapshots/TC2", "cstrace.bin", 18177}, {"snapshots/juno-uname-002", "trace.bin", 5815},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *d = dstream_copy(cases[i].rel, cases[i].file, -1);
        assert_int_equal(compare_dir(cases[i].rel, d, "-dstream_format"), cases[i].ranges);
        tu_rmdir(d);
    }
    /* the second frame sync (file byte 4 + 8 frames = 132) damaged: OpenCSD's error at
     * that byte, and no trace */
    char *d = dstream_copy("snapshots/TC2", "cstrace.bin", 132);
    tu_ws w;
    tu_ws_open(&w);
    const char *paths[1] = {d};
    traza_import_opts o = {0};
    o.name = "bad";
    traza_trace_info info;
    assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, "/cstrace.bin: byte 132: the decoder stopped: 0x0012 (OCSD_ERR_DFMTR_BAD_FHSYNC)");
    assert_null(traza_trace_open(w.ws, "bad", TRAZA_OPEN_READ, &w.err));
    tu_ws_close(&w);
    tu_rmdir(d);
}

typedef struct sum_ctx {
    uint64_t instr;
} sum_ctx;

static int sum_fn(void *u, const traza_etm_elem *e, traza_err *err)
{
    (void)err;
    if (e->kind == TRAZA_ETM_RANGE && !strcmp(e->core, "cpu_0"))
        ((sum_ctx *)u)->instr += e->ninstr;
    return 0;
}

/* One PC per instruction: T32 sizes come from memory; the first ones are the DS-5
 * listing's (TC2 ds5-dumps/etmv3_0x10.txt: 0xC002115C, 0xC002115E, 0xC0021160). */
static void test_pcs(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/opencsd/snapshots/TC2", data);
    traza_err err;
    traza_err_clear(&err);
    sum_ctx s = {0};
    assert_int_equal(traza_etm_decode(dir, sum_fn, &s, &err), 0);
    uint64_t *pcs;
    size_t n;
    if (traza_etm_pcs(dir, "cpu_0", &pcs, &n, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, s.instr);
    assert_int_equal(n, 7205); /* the DS-5 listing's instruction records */
    assert_int_equal(pcs[0], 0xc002115c);
    assert_int_equal(pcs[1], 0xc002115e);
    assert_int_equal(pcs[2], 0xc0021160);
    free(pcs);
    assert_int_equal(traza_etm_pcs(dir, "cpu_9", &pcs, &n, &err), -1);
    assert_err_contains(err, "no instruction range decoded for core 'cpu_9'");
}

static void test_ini_errors(void **state)
{
    (void)state;
    tz_ini ini;
    traza_err err;
    traza_err_clear(&err);
    const char *ok = "; comment\n[device]\nname = ETM_0\r\n[regs]\nTRCIDR0(0x078)=0x28000EA1\n";
    assert_int_equal(tz_ini_parse(ok, strlen(ok), "x.ini", &ini, &err), 0);
    assert_string_equal(tz_ini_get(&ini, "device", "name"), "ETM_0");
    assert_string_equal(tz_ini_get(&ini, "regs", "trcidr0"), "0x28000EA1");
    tz_ini_free(&ini);
    assert_int_equal(tz_ini_parse("[device\n", 8, "x.ini", &ini, &err), -1);
    assert_err_contains(err, "x.ini:1: expected ']' closing the section name");
    assert_int_equal(tz_ini_parse("[a]\nnovalue\n", 12, "x.ini", &ini, &err), -1);
    assert_err_contains(err, "x.ini:2: expected 'key=value' or '[section]', found 'novalue'");
    assert_int_equal(tz_ini_parse("k=v\n", 4, "x.ini", &ini, &err), -1);
    assert_err_contains(err, "x.ini:1: 'key=value' before any [section]");
    /* a snapshot without trace metadata */
    char *d = tu_tmpdir();
    free(tu_write(d, "snapshot.ini", "[snapshot]\nversion=1.0\n"));
    tu_ws w;
    tu_ws_open(&w);
    const char *paths[1] = {d};
    traza_import_opts o = {0};
    traza_trace_info info;
    assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, "snapshot.ini: no [trace] metadata=FILE");
    tu_ws_close(&w);
    tu_rmdir(d);
}

/* A strict import of juno-uname-002 takes every element (ranges named from its ELF
 * images); --elf naming a file that is not ELF fails and changes nothing. */
static void test_import_strict(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    char dir[4096], ini[4200];
    snprintf(dir, sizeof dir, "%s/opencsd/snapshots/juno-uname-002", data);
    snprintf(ini, sizeof ini, "%s/trace.ini", dir);
    tu_ws w;
    tu_ws_open(&w);
    const char *paths[1] = {dir};
    traza_import_opts o = {0};
    o.strict = 1;
    traza_trace_info info;
    if (traza_import(w.ws, paths, 1, &o, &info, &w.err) < 0)
        fail_msg("%s", w.err.msg);
    assert_int_equal(info.events, 22109);
    traza_trace_info_clear(&info);
    o.name = "bad";
    o.elf = ini;
    assert_int_equal(traza_import(w.ws, paths, 1, &o, &info, &w.err), -1);
    assert_err_contains(w.err, "trace.ini: not an ELF file with function symbols");
    tu_ws_close(&w);
}

/* TC2 without its memory image (and the [dump] sections naming it): it still decodes,
 * every range an inaccessible address, as trc_pkt_lister decodes it (t_etm.sh compares
 * the counts per type): 13 exception returns, 412 trace-ons, 4 no-syncs, 5 ends of
 * trace, 1033 addr_nacc, 106 timestamps, 294 PE contexts, 17992 cycle counts. */
static void test_no_memory(void **state)
{
    (void)state;
    const char *data = tu_data_dir();
    TU_SKIP_NO_DATA(data);
    char *d = tu_tmpdir(), cmd[8400];
    snprintf(cmd, sizeof cmd, "cp -r '%s/opencsd/snapshots/TC2'/. '%s'/ && chmod -R u+w '%s' && rm '%s/kernel_dump.bin' && sed -i '/^\\[dump\\]/,$d' '%s'/cpu_*.ini",
             data, d, d, d, d);
    assert_int_equal(system(cmd), 0);
    tu_ws w;
    traza_trace_info info;
    import_dir(&w, d, &info);
    assert_int_equal(info.events, 13 + 412 + 4 + 5 + 1033 + 106 + 294 + 17992);
    traza_trace_info_clear(&info);
    tu_ws_close(&w);
    tu_rmdir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ini_errors), cmocka_unit_test(test_juno), cmocka_unit_test(test_tc2),
        cmocka_unit_test(test_ete),        cmocka_unit_test(test_pcs),        cmocka_unit_test(test_import_strict),
        cmocka_unit_test(test_dstream),    cmocka_unit_test(test_no_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
