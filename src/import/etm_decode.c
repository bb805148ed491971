/* CoreSight trace decoding through OpenCSD's C API (traza_etm_decode, see
 * include/traza/etm.h): each trace buffer of a snapshot through a decode tree, its
 * generic elements handed to the caller as traza_etm_elem. A build without OpenCSD's
 * development files compiles etm_missing.c instead. */
#include "traza/etm.h"
#include "import/etm_internal.h"
#include "util/util.h"

#include "import/etm_api.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#if defined(__SANITIZE_ADDRESS__)
/* libopencsd 1.3.3's C API never frees the callback wrapper that
 * ocsd_dt_set_gen_elem_outfn allocates (32 bytes per decode tree; not ours to free):
 * keep LeakSanitizer builds quiet about that one allocation site only. The sanitizer
 * runtime looks these hooks up by name, so they stay visible in a library built with
 * -fvisibility=hidden. */
#define TZ_SANITIZER_HOOK __attribute__((visibility("default")))
TZ_SANITIZER_HOOK const char *__lsan_default_suppressions(void);
TZ_SANITIZER_HOOK const char *__lsan_default_suppressions(void) { return "leak:ocsd_dt_set_gen_elem_outfn\n"; }
TZ_SANITIZER_HOOK const char *__lsan_default_options(void);
TZ_SANITIZER_HOOK const char *__lsan_default_options(void) { return "print_suppressions=0"; }
#endif

/* Architecture and profile from the core's type name, as OpenCSD's snapshot reader
 * would: "Cortex-A53", "Cortex-A7", "ARM-AA64", "ARMv8-A"... */
static void core_arch(const char *type, int v8_default, ocsd_arch_version_t *arch, ocsd_core_profile_t *prof)
{
    *arch = v8_default ? ARCH_V8 : ARCH_V7;
    *prof = profile_CortexA;
    if (!type)
        return;
    if (!strcasecmp(type, "ARM-AA64") || !strcasecmp(type, "ARMAA64")) {
        *arch = ARCH_AA64;
        return;
    }
    if (!strncasecmp(type, "ARMv", 4)) {
        *arch = type[4] == '7' ? ARCH_V7 : strstr(type, "8.3") ? ARCH_V8r3 : ARCH_V8;
        const char *dash = strrchr(type, '-');
        if (dash && (dash[1] == 'M' || dash[1] == 'm'))
            *prof = profile_CortexM;
        else if (dash && (dash[1] == 'R' || dash[1] == 'r'))
            *prof = profile_CortexR;
        return;
    }
    if (!strncasecmp(type, "Cortex-", 7)) {
        char p = type[7];
        long n = strtol(type + 8, NULL, 10);
        if (p == 'M' || p == 'm') {
            *prof = profile_CortexM;
            *arch = n >= 23 ? ARCH_V8 : ARCH_V7;
        } else if (p == 'R' || p == 'r') {
            *prof = profile_CortexR;
            *arch = n >= 52 ? ARCH_V8 : ARCH_V7;
        } else {
            *arch = n < 32 ? ARCH_V7 : (n == 55 || n == 65 || n >= 75) ? ARCH_V8r3 : ARCH_V8;
        }
    }
}

static uint32_t reg(const tz_ss_device *d, const char *name)
{
    const char *v = tz_ini_get(&d->ini, "regs", name);
    return v ? (uint32_t)strtoull(v, NULL, 0) : 0;
}

static const char *isa_name(ocsd_isa isa)
{
    switch (isa) {
    case ocsd_isa_arm: return "A32";
    case ocsd_isa_thumb2: return "T32";
    case ocsd_isa_aarch64: return "A64";
    case ocsd_isa_tee: return "TEE";
    case ocsd_isa_jazelle: return "Jazelle";
    case ocsd_isa_custom: return "Custom";
    default: return "Unknown";
    }
}

/* OpenCSD's name of the element types the kinds above do not cover. */
static const char *elem_type_name(ocsd_gen_trc_elem_t t)
{
    switch (t) {
    case OCSD_GEN_TRC_ELEM_EVENT: return "OCSD_GEN_TRC_ELEM_EVENT";
    case OCSD_GEN_TRC_ELEM_SWTRACE: return "OCSD_GEN_TRC_ELEM_SWTRACE";
    case OCSD_GEN_TRC_ELEM_SYNC_MARKER: return "OCSD_GEN_TRC_ELEM_SYNC_MARKER";
    case OCSD_GEN_TRC_ELEM_MEMTRANS: return "OCSD_GEN_TRC_ELEM_MEMTRANS";
    case OCSD_GEN_TRC_ELEM_CUSTOM: return "OCSD_GEN_TRC_ELEM_CUSTOM";
    default: return "OCSD_GEN_TRC_ELEM_UNKNOWN";
    }
}

typedef struct src_info {
    char *core, *source;
    const char *protocol;
} src_info;

typedef struct dctx {
    traza_etm_fn fn;
    void *user;
    traza_err *err;
    src_info ids[128];  /* by trace ID */
    int failed;
} dctx;

static ocsd_datapath_resp_t on_elem(const void *p, const ocsd_trc_index_t index, const uint8_t id, const ocsd_generic_trace_elem *el)
{
    dctx *c = (dctx *)p;
    traza_etm_elem e;
    memset(&e, 0, sizeof e);
    src_info *s = id < 128 ? &c->ids[id] : NULL;
    e.core = s && s->core ? s->core : "unknown";
    e.source = s && s->source ? s->source : "unknown";
    e.protocol = s && s->protocol ? s->protocol : "";
    e.trace_id = id;
    e.index = index;
    e.isa = isa_name(el->isa);
#define KIND(k_, n_) (e.kind = (k_), e.elem_name = "OCSD_GEN_TRC_ELEM_" n_)
    switch (el->elem_type) {
    case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
        KIND(TRAZA_ETM_RANGE, "INSTR_RANGE");
        e.start = el->st_addr;
        e.end = el->en_addr;
        e.ninstr = el->num_instr_range;
        e.last_size = el->last_instr_sz;
        e.last_type = el->last_i_type;
        e.executed = el->last_instr_exec;
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION:
        KIND(TRAZA_ETM_EXCEPTION, "EXCEPTION");
        e.number = el->exception_number;
        e.has_ret = el->excep_ret_addr;
        e.end = el->en_addr;
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION_RET: KIND(TRAZA_ETM_EXCEPTION_RET, "EXCEPTION_RET"); break;
    case OCSD_GEN_TRC_ELEM_TRACE_ON:
        KIND(TRAZA_ETM_TRACE_ON, "TRACE_ON");
        e.number = (uint32_t)el->trace_on_reason;
        break;
    case OCSD_GEN_TRC_ELEM_NO_SYNC: KIND(TRAZA_ETM_NO_SYNC, "NO_SYNC"); break;
    case OCSD_GEN_TRC_ELEM_EO_TRACE: KIND(TRAZA_ETM_END_OF_TRACE, "EO_TRACE"); break;
    case OCSD_GEN_TRC_ELEM_ADDR_NACC:
        KIND(TRAZA_ETM_ADDR_NACC, "ADDR_NACC");
        e.start = el->st_addr;
        break;
    case OCSD_GEN_TRC_ELEM_I_RANGE_NOPATH: KIND(TRAZA_ETM_OTHER, "I_RANGE_NOPATH"); break;
    case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN: KIND(TRAZA_ETM_OTHER, "ADDR_UNKNOWN"); break;
    case OCSD_GEN_TRC_ELEM_TIMESTAMP:
        KIND(TRAZA_ETM_TIMESTAMP, "TIMESTAMP");
        e.timestamp = el->timestamp;
        break;
    case OCSD_GEN_TRC_ELEM_CYCLE_COUNT: KIND(TRAZA_ETM_CYCLE_COUNT, "CYCLE_COUNT"); break;
    case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
        KIND(TRAZA_ETM_PE_CONTEXT, "PE_CONTEXT");
        e.context_id = el->context.context_id;
        e.vmid = el->context.vmid;
        e.ctxt_id_valid = el->context.ctxt_id_valid;
        e.vmid_valid = el->context.vmid_valid;
        e.secure = el->context.security_level == ocsd_sec_secure ? "secure" : el->context.security_level == ocsd_sec_nonsecure ? "nonsecure"
                   : el->context.security_level == ocsd_sec_root ? "root" : "realm";
        e.el = el->context.el_valid ? (int)el->context.exception_level : -1;
        e.bits64 = el->context.bits64;
        break;
    default: e.kind = TRAZA_ETM_OTHER; e.elem_name = elem_type_name(el->elem_type); break;
    }
    e.has_cc = el->has_cc;
    e.cycle_count = el->has_cc ? el->cycle_count : 0;
#undef KIND
    if (c->fn(c->user, &e, c->err) != 0) {
        c->failed = 1;
        return OCSD_RESP_FATAL_SYS_ERR;
    }
    return OCSD_RESP_CONT;
}

static int ocsd_fail(traza_err *err, const char *what, ocsd_err_t e)
{
    char msg[256];
    ocsd_err_str(e, msg, sizeof msg);
    return traza_err_set(err, TRAZA_E_PARSE, "%s: %s", what, msg);
}

/* How a buffer's bytes reach the decoder, by its trace.ini format=:
 * - source_data: one source's bytes, not formatted;
 * - coresight: 16-byte CoreSight formatter frames as a trace sink stores them in memory
 *   (ETB, ETF, ETR): whole frames, aligned;
 * - dstream_coresight: the TPIU output a DSTREAM probe captured: frames with frame
 *   syncs (FSYNC), stored in 512-byte blocks whose last 8 bytes are the probe's own
 *   footer, not trace (the blocks trc_pkt_lister -dstream_format reads). */
enum { FRAMING_SINGLE, FRAMING_MEM, FRAMING_DSTREAM };
#define DSTREAM_BLOCK 512
#define DSTREAM_DATA (DSTREAM_BLOCK - 8)

/* Drops the footer of each DSTREAM block in place; returns the trace bytes left. */
static size_t dstream_strip(uint8_t *d, size_t len)
{
    size_t out = 0;
    for (size_t off = 0; off < len; off += DSTREAM_BLOCK) {
        size_t k = len - off < DSTREAM_DATA ? len - off : DSTREAM_DATA;
        memmove(d + out, d + off, k);
        out += k;
    }
    return out;
}

/* The file offset of byte i of the trace the decoder reads. */
static size_t file_offset(int framing, size_t i)
{
    return framing == FRAMING_DSTREAM ? i / DSTREAM_DATA * DSTREAM_BLOCK + i % DSTREAM_DATA : i;
}

static uint32_t no_memory(const void *p, const ocsd_vaddr_t address, const ocsd_mem_space_acc_t space, const uint32_t n, uint8_t *buf)
{
    (void)p, (void)address, (void)space, (void)n, (void)buf;
    return 0;
}

/* "the decoder stopped" with OpenCSD's last error, at a byte of the buffer file. */
static int decoder_stopped(const tz_ss_buffer *b, int framing, size_t at, ocsd_datapath_resp_t r, traza_err *err)
{
    char msg[512] = "";
    ocsd_trc_index_t idx = OCSD_BAD_TRC_INDEX;
    uint8_t chan = 0;
    if (ocsd_get_last_err(&idx, &chan, msg, (int)sizeof msg) == OCSD_OK || !msg[0])
        snprintf(msg, sizeof msg, "OpenCSD response %d", (int)r);
    else if (idx != OCSD_BAD_TRC_INDEX)
        at = idx; /* the byte of the packet in error */
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    return traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: the decoder stopped: %s", b->path, file_offset(framing, at), msg);
}

static int decode_buffer(const char *dir, const tz_snapshot *ss, const tz_ss_buffer *b, dctx *c, traza_err *err)
{
    int framing;
    if (!strcasecmp(b->format, "source_data"))
        framing = FRAMING_SINGLE;
    else if (!strcasecmp(b->format, "coresight"))
        framing = FRAMING_MEM;
    else if (!strcasecmp(b->format, "dstream_coresight"))
        framing = FRAMING_DSTREAM;
    else
        return traza_err_set(err, TRAZA_E_UNSUPPORTED, "%s: buffer %s: format '%s' (expected coresight, dstream_coresight or source_data)",
                             dir, b->name, b->format);
    dcd_tree_handle_t tree = ocsd_create_dcd_tree(framing == FRAMING_SINGLE ? OCSD_TRC_SRC_SINGLE : OCSD_TRC_SRC_FRAME_FORMATTED,
                                                  framing == FRAMING_SINGLE ? 0
                                                  : framing == FRAMING_MEM  ? OCSD_DFRMTR_FRAME_MEM_ALIGN
                                                                            : OCSD_DFRMTR_HAS_FSYNCS);
    if (tree == C_API_INVALID_TREE_HANDLE)
        return traza_err_set(err, TRAZA_E_NOMEM, "OpenCSD: cannot create a decode tree");
    int rc = -1, ndec = 0;
    uint8_t *data = NULL;
    size_t len = 0;
    /* decoders for the sources feeding this buffer */
    for (size_t i = 0; i < ss->trace.n; i++) {
        const tz_ini_kv *kv = &ss->trace.kv[i];
        if (strcasecmp(kv->section, "source_buffers") != 0 || strcmp(kv->value, b->name) != 0)
            continue;
        const tz_ss_device *src = tz_snapshot_device(ss, kv->key);
        if (!src) {
            traza_err_set(err, TRAZA_E_PARSE, "%s: trace source %s has no device file in snapshot.ini", dir, kv->key);
            goto out;
        }
        const char *corename = tz_snapshot_core_of(ss, src->name);
        const tz_ss_device *core = corename ? tz_snapshot_device(ss, corename) : NULL;
        const char *t = src->type;
        const char *proto;
        union {
            ocsd_etmv4_cfg v4;
            ocsd_ete_cfg ete;
            ocsd_etmv3_cfg v3;
            ocsd_ptm_cfg ptm;
        } cfg;
        memset(&cfg, 0, sizeof cfg);
        uint32_t id;
        if (!strncasecmp(t, "ETM4", 4) || !strncasecmp(t, "ETMv4", 5)) {
            proto = OCSD_BUILTIN_DCD_ETMV4I;
            cfg.v4.reg_idr0 = reg(src, "TRCIDR0");
            cfg.v4.reg_idr1 = reg(src, "TRCIDR1");
            cfg.v4.reg_idr2 = reg(src, "TRCIDR2");
            cfg.v4.reg_idr8 = reg(src, "TRCIDR8");
            cfg.v4.reg_idr9 = reg(src, "TRCIDR9");
            cfg.v4.reg_idr10 = reg(src, "TRCIDR10");
            cfg.v4.reg_idr11 = reg(src, "TRCIDR11");
            cfg.v4.reg_idr12 = reg(src, "TRCIDR12");
            cfg.v4.reg_idr13 = reg(src, "TRCIDR13");
            cfg.v4.reg_configr = reg(src, "TRCCONFIGR");
            cfg.v4.reg_traceidr = id = reg(src, "TRCTRACEIDR");
            core_arch(core ? core->type : NULL, 1, &cfg.v4.arch_ver, &cfg.v4.core_prof);
        } else if (!strncasecmp(t, "ETE", 3)) {
            proto = OCSD_BUILTIN_DCD_ETE;
            cfg.ete.reg_idr0 = reg(src, "TRCIDR0");
            cfg.ete.reg_idr1 = reg(src, "TRCIDR1");
            cfg.ete.reg_idr2 = reg(src, "TRCIDR2");
            cfg.ete.reg_idr8 = reg(src, "TRCIDR8");
            cfg.ete.reg_devarch = reg(src, "TRCDEVARCH");
            cfg.ete.reg_configr = reg(src, "TRCCONFIGR");
            cfg.ete.reg_traceidr = id = reg(src, "TRCTRACEIDR");
            cfg.ete.arch_ver = ARCH_AA64;
            cfg.ete.core_prof = profile_CortexA;
        } else if (!strncasecmp(t, "ETM3", 4) || !strncasecmp(t, "ETMv3", 5)) {
            proto = OCSD_BUILTIN_DCD_ETMV3;
            cfg.v3.reg_idr = reg(src, "ETMIDR");
            cfg.v3.reg_ctrl = reg(src, "ETMCR");
            cfg.v3.reg_ccer = reg(src, "ETMCCER");
            cfg.v3.reg_trc_id = id = reg(src, "ETMTRACEIDR");
            core_arch(core ? core->type : NULL, 0, &cfg.v3.arch_ver, &cfg.v3.core_prof);
        } else if (!strncasecmp(t, "PTM", 3) || !strncasecmp(t, "PFT", 3)) { /* PFT: the PTM's program flow trace */
            proto = OCSD_BUILTIN_DCD_PTM;
            cfg.ptm.reg_idr = reg(src, "ETMIDR");
            cfg.ptm.reg_ctrl = reg(src, "ETMCR");
            cfg.ptm.reg_ccer = reg(src, "ETMCCER");
            cfg.ptm.reg_trc_id = id = reg(src, "ETMTRACEIDR");
            core_arch(core ? core->type : NULL, 0, &cfg.ptm.arch_ver, &cfg.ptm.core_prof);
        } else {
            continue; /* STM, ITM: no instruction trace */
        }
        id &= 0x7f;
        unsigned char csid = 0;
        ocsd_err_t e = ocsd_dt_create_decoder(tree, proto, OCSD_CREATE_FLG_FULL_DECODER, &cfg, &csid);
        if (e != OCSD_OK) {
            char what[512];
            snprintf(what, sizeof what, "%s: OpenCSD refuses the %s decoder of %s", dir, proto, src->name);
            ocsd_fail(err, what, e);
            goto out;
        }
        free(c->ids[id].core);
        free(c->ids[id].source);
        c->ids[id].core = tz_strdup(corename ? corename : src->name);
        c->ids[id].source = tz_strdup(src->name);
        c->ids[id].protocol = proto;
        if (!c->ids[id].core || !c->ids[id].source) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        ndec++;
    }
    if (ndec == 0) {
        rc = 0; /* nothing to decode in this buffer */
        goto out;
    }
    /* memory images of every core */
    size_t nimages = 0;
    for (size_t i = 0; i < ss->ndev; i++)
        for (size_t j = 0; j < ss->dev[i].ndumps; j++) {
            const tz_ss_dump *m = &ss->dev[i].dumps[j];
            struct stat st;
            if (stat(m->path, &st) != 0) {
                traza_err_set(err, TRAZA_E_IO, "%s: memory image of %s: cannot open", m->path, ss->dev[i].name);
                goto out;
            }
            ocsd_file_mem_region_t r = {m->offset, m->address, m->length ? m->length : (size_t)st.st_size - m->offset};
            ocsd_err_t e = ocsd_dt_add_binfile_region_mem_acc(tree, &r, 1, OCSD_MEM_SPACE_ANY, m->path);
            if (e != OCSD_OK && e != OCSD_ERR_MEM_ACC_OVERLAP) {
                char what[4200];
                snprintf(what, sizeof what, "%s: memory image", m->path);
                ocsd_fail(err, what, e);
                goto out;
            }
            nimages++;
        }
    if (nimages == 0) {
        /* no memory image: the decoders still need a memory interface, one that holds
         * no byte (every range is then an inaccessible address, as trc_pkt_lister
         * decodes such a snapshot) */
        ocsd_err_t e = ocsd_dt_add_callback_mem_acc(tree, 0, ~(ocsd_vaddr_t)0, OCSD_MEM_SPACE_ANY, no_memory, NULL);
        if (e != OCSD_OK) {
            ocsd_fail(err, "OpenCSD: an empty memory interface", e);
            goto out;
        }
    }
    if (ocsd_dt_set_gen_elem_outfn(tree, on_elem, c) != OCSD_OK) {
        traza_err_set(err, TRAZA_E_INTERNAL, "OpenCSD: cannot set the element callback");
        goto out;
    }
    if (tz_etm_read_file(b->path, &data, &len, err) < 0)
        goto out;
    if (framing == FRAMING_DSTREAM)
        len = dstream_strip(data, len);
    if (framing == FRAMING_MEM && len % OCSD_DFRMTR_FRAME_SIZE) {
        traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: %zu bytes after the last whole %d-byte formatter frame (a coresight buffer holds whole frames)",
                      b->path, len - len % OCSD_DFRMTR_FRAME_SIZE, len % OCSD_DFRMTR_FRAME_SIZE, OCSD_DFRMTR_FRAME_SIZE);
        goto out;
    }
    size_t done = 0;
    while (done < len) {
        uint32_t n = 0;
        uint32_t chunk = len - done > 65536 ? 65536 : (uint32_t)(len - done);
        ocsd_datapath_resp_t r = ocsd_dt_process_data(tree, OCSD_OP_DATA, (ocsd_trc_index_t)done, chunk, data + done, &n);
        if (c->failed)
            goto out;
        if (OCSD_DATA_RESP_IS_FATAL(r)) {
            decoder_stopped(b, framing, done + n, r, err);
            goto out;
        }
        done += n;
        if (OCSD_DATA_RESP_IS_WAIT(r)) {
            r = ocsd_dt_process_data(tree, OCSD_OP_FLUSH, 0, 0, NULL, NULL);
            if (c->failed)
                goto out;
        } else if (n == 0) {
            traza_err_set(err, TRAZA_E_PARSE, "%s: byte %zu: the decoder consumed nothing", b->path, file_offset(framing, done));
            goto out;
        }
    }
    ocsd_datapath_resp_t r = ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
    if (c->failed)
        goto out;
    if (OCSD_DATA_RESP_IS_FATAL(r)) {
        decoder_stopped(b, framing, len, r, err);
        goto out;
    }
    rc = 0;
out:
    free(data);
    ocsd_destroy_dcd_tree(tree);
    return rc;
}

int traza_etm_decode(const char *dir, traza_etm_fn fn, void *user, traza_err *err)
{
    if (tz_ocsd_load(err) < 0) /* OpenCSD is opened on first use */
        return -1;
    tz_snapshot ss;
    if (tz_snapshot_load(dir, &ss, err) < 0)
        return -1;
    dctx *c = calloc(1, sizeof *c);
    if (!c) {
        tz_snapshot_free(&ss);
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    }
    c->fn = fn;
    c->user = user;
    c->err = err;
    int rc = 0;
    for (size_t i = 0; i < ss.nbuf && rc == 0; i++)
        rc = decode_buffer(dir, &ss, &ss.buf[i], c, err);
    for (size_t i = 0; i < 128; i++) {
        free(c->ids[i].core);
        free(c->ids[i].source);
    }
    free(c);
    tz_snapshot_free(&ss);
    return rc;
}
