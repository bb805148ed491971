/* CoreSight snapshot metadata: INI parsing and the snapshot model (snapshot.ini ->
 * device files, trace.ini -> buffers, source/buffer and core/source maps). */
#include "import/etm_internal.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <sys/stat.h>

static char *trim(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    return tz_strndup(s, n);
}

void tz_ini_free(tz_ini *ini)
{
    for (size_t i = 0; i < ini->n; i++) {
        free(ini->kv[i].section);
        free(ini->kv[i].key);
        free(ini->kv[i].value);
    }
    free(ini->kv);
    memset(ini, 0, sizeof *ini);
}

int tz_ini_parse(const char *text, size_t len, const char *fname, tz_ini *out, traza_err *err)
{
    memset(out, 0, sizeof *out);
    char *section = NULL;
    size_t line = 0, pos = 0;
    while (pos < len) {
        line++;
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (memchr(s, '\0', n)) {
            free(section);
            tz_ini_free(out);
            return traza_err_set(err, TRAZA_E_PARSE, "%s:%zu: a NUL byte in a text file", fname, line);
        }
        while (n && (*s == ' ' || *s == '\t'))
            s++, n--;
        if (n && s[n - 1] == '\r')
            n--;
        if (n == 0 || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            const char *e = memchr(s, ']', n);
            if (!e) {
                free(section);
                tz_ini_free(out);
                return traza_err_set(err, TRAZA_E_PARSE, "%s:%zu: expected ']' closing the section name", fname, line);
            }
            free(section);
            if (!(section = trim(s + 1, (size_t)(e - s - 1))))
                goto oom;
            continue;
        }
        const char *eq = memchr(s, '=', n);
        if (!eq) {
            free(section);
            tz_ini_free(out);
            return traza_err_set(err, TRAZA_E_PARSE, "%s:%zu: expected 'key=value' or '[section]', found '%.*s'", fname, line,
                                 (int)(n > 60 ? 60 : n), s);
        }
        if (!section) {
            tz_ini_free(out);
            return traza_err_set(err, TRAZA_E_PARSE, "%s:%zu: 'key=value' before any [section]", fname, line);
        }
        size_t kl = (size_t)(eq - s);
        const char *paren = memchr(s, '(', kl); /* "TRCIDR0(0x078)", "PC(size:64)" */
        if (paren)
            kl = (size_t)(paren - s);
        if (TZ_GROW(out->kv, out->cap, out->n + 1) < 0)
            goto oom;
        tz_ini_kv *kv = &out->kv[out->n];
        kv->section = tz_strdup(section);
        kv->key = trim(s, kl);
        kv->value = trim(eq + 1, n - (size_t)(eq + 1 - s));
        out->n++;
        if (!kv->section || !kv->key || !kv->value)
            goto oom;
    }
    free(section);
    return 0;
oom:
    free(section);
    tz_ini_free(out);
    return traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory", fname);
}

const char *tz_ini_get(const tz_ini *ini, const char *section, const char *key)
{
    for (size_t i = 0; i < ini->n; i++)
        if (strcasecmp(ini->kv[i].section, section) == 0 && strcasecmp(ini->kv[i].key, key) == 0)
            return ini->kv[i].value;
    return NULL;
}

static int load_ini(const char *dir, const char *file, tz_ini *ini, traza_err *err)
{
    char *path = tz_asprintf("%s/%s", dir, file);
    if (!path)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    FILE *f = fopen(path, "rb");
    if (!f) {
        int rc = traza_err_set(err, TRAZA_E_IO, "%s: cannot open", path);
        free(path);
        return rc;
    }
    tz_buf b;
    tz_buf_init(&b);
    char tmp[8192];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        tz_buf_put(&b, tmp, k);
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (bad)
        rc = traza_err_set(err, TRAZA_E_IO, "%s: read error", path);
    else if (b.oom)
        rc = traza_err_set(err, TRAZA_E_NOMEM, "%s: out of memory", path);
    else
        rc = tz_ini_parse(b.s ? b.s : "", b.len, path, ini, err);
    tz_buf_free(&b);
    free(path);
    return rc;
}

static int parse_u64(const char *s, uint64_t *v)
{
    if (!s || !*s)
        return -1;
    char *end;
    unsigned long long x = strtoull(s, &end, 0);
    if (*end)
        return -1;
    *v = x;
    return 0;
}

void tz_snapshot_free(tz_snapshot *ss)
{
    for (size_t i = 0; i < ss->ndev; i++) {
        tz_ss_device *d = &ss->dev[i];
        free(d->name);
        free(d->cls);
        free(d->type);
        tz_ini_free(&d->ini);
        for (size_t j = 0; j < d->ndumps; j++)
            free(d->dumps[j].path);
        free(d->dumps);
    }
    free(ss->dev);
    for (size_t i = 0; i < ss->nbuf; i++) {
        free(ss->buf[i].name);
        free(ss->buf[i].path);
        free(ss->buf[i].format);
    }
    free(ss->buf);
    tz_ini_free(&ss->trace);
    memset(ss, 0, sizeof *ss);
}

/* The bytes a memory image names (offset, and length when given) lie within its file. */
static int check_dump(const tz_ss_dump *m, const char *dir, const char *file, const char *section, traza_err *err)
{
    struct stat st;
    if (stat(m->path, &st) != 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot open the memory image of [%s] in %s/%s (%s)", m->path, section, dir, file,
                             strerror(errno));
    unsigned long long size = (unsigned long long)st.st_size, off = m->offset, len = m->length;
    if (off > size)
        return traza_err_set(err, TRAZA_E_PARSE,
                             "%s: byte %llu: the memory image of [%s] in %s/%s starts past the end of the file (%llu bytes)", m->path,
                             off, section, dir, file, size);
    if (len > size - off)
        return traza_err_set(err, TRAZA_E_PARSE,
                             "%s: byte %llu: the memory image of [%s] in %s/%s needs %llu bytes from byte %llu, found %llu (the file "
                             "is cut short)",
                             m->path, size, section, dir, file, len, off, size - off);
    return 0;
}

static int load_device(const char *dir, const char *file, tz_ss_device *d, traza_err *err)
{
    if (load_ini(dir, file, &d->ini, err) < 0)
        return -1;
    const char *name = tz_ini_get(&d->ini, "device", "name");
    const char *cls = tz_ini_get(&d->ini, "device", "class");
    const char *type = tz_ini_get(&d->ini, "device", "type");
    if (!name)
        return traza_err_set(err, TRAZA_E_PARSE, "%s/%s: [device] has no name", dir, file);
    d->name = tz_strdup(name);
    d->cls = tz_strdup(cls ? cls : "");
    d->type = tz_strdup(type ? type : "");
    if (!d->name || !d->cls || !d->type)
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    /* memory dumps: sections [dump], [dump1], ... */
    for (size_t i = 0; i < d->ini.n; i++) {
        const tz_ini_kv *kv = &d->ini.kv[i];
        if (strncasecmp(kv->section, "dump", 4) != 0 || strcasecmp(kv->key, "file") != 0)
            continue;
        size_t cap = d->ndumps;
        if (TZ_GROW(d->dumps, cap, d->ndumps + 1) < 0)
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        tz_ss_dump *m = &d->dumps[d->ndumps];
        memset(m, 0, sizeof *m);
        if (!(m->path = tz_asprintf("%s/%s", dir, kv->value)))
            return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        d->ndumps++;
        const char *a = tz_ini_get(&d->ini, kv->section, "address");
        const char *l = tz_ini_get(&d->ini, kv->section, "length");
        const char *o = tz_ini_get(&d->ini, kv->section, "offset");
        if (parse_u64(a, &m->address) < 0)
            return traza_err_set(err, TRAZA_E_PARSE, "%s/%s: [%s] address: expected a number, found '%s'", dir, file, kv->section,
                                 a ? a : "(nothing)");
        if ((l && parse_u64(l, &m->length) < 0) || (o && parse_u64(o, &m->offset) < 0))
            return traza_err_set(err, TRAZA_E_PARSE, "%s/%s: [%s] length/offset: expected numbers", dir, file, kv->section);
        if (check_dump(m, dir, file, kv->section, err) < 0)
            return -1;
    }
    return 0;
}

int tz_snapshot_load(const char *dir, tz_snapshot *ss, traza_err *err)
{
    memset(ss, 0, sizeof *ss);
    tz_ini top;
    if (load_ini(dir, "snapshot.ini", &top, err) < 0)
        return -1;
    int rc = -1;
    size_t cap = 0;
    for (size_t i = 0; i < top.n; i++) {
        if (strcasecmp(top.kv[i].section, "device_list") != 0)
            continue;
        if (TZ_GROW(ss->dev, cap, ss->ndev + 1) < 0) {
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        memset(&ss->dev[ss->ndev], 0, sizeof ss->dev[0]);
        ss->ndev++;
        if (load_device(dir, top.kv[i].value, &ss->dev[ss->ndev - 1], err) < 0)
            goto out;
    }
    const char *meta = tz_ini_get(&top, "trace", "metadata");
    if (!meta) {
        traza_err_set(err, TRAZA_E_PARSE, "%s/snapshot.ini: no [trace] metadata=FILE: the snapshot has no trace buffer", dir);
        goto out;
    }
    if (load_ini(dir, meta, &ss->trace, err) < 0)
        goto out;
    const char *list = tz_ini_get(&ss->trace, "trace_buffers", "buffers");
    char *dup = tz_strdup(list ? list : "");
    if (!dup) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        goto out;
    }
    size_t bcap = 0;
    for (char *sv = NULL, *tok = strtok_r(dup, ", ", &sv); tok; tok = strtok_r(NULL, ", ", &sv)) {
        const char *name = tz_ini_get(&ss->trace, tok, "name");
        const char *file = tz_ini_get(&ss->trace, tok, "file");
        const char *fmt = tz_ini_get(&ss->trace, tok, "format");
        if (!name || !file) {
            traza_err_set(err, TRAZA_E_PARSE, "%s/%s: buffer section [%s] needs name= and file=", dir, meta, tok);
            free(dup);
            goto out;
        }
        if (TZ_GROW(ss->buf, bcap, ss->nbuf + 1) < 0) {
            free(dup);
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
        tz_ss_buffer *b = &ss->buf[ss->nbuf++];
        b->name = tz_strdup(name);
        b->path = tz_asprintf("%s/%s", dir, file);
        b->format = tz_strdup(fmt ? fmt : "coresight");
        if (!b->name || !b->path || !b->format) {
            free(dup);
            traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
            goto out;
        }
    }
    free(dup);
    if (ss->nbuf == 0) {
        traza_err_set(err, TRAZA_E_PARSE, "%s/%s: [trace_buffers] lists no buffer", dir, meta);
        goto out;
    }
    rc = 0;
out:
    tz_ini_free(&top);
    if (rc < 0)
        tz_snapshot_free(ss);
    return rc;
}

const tz_ss_device *tz_snapshot_device(const tz_snapshot *ss, const char *name)
{
    for (size_t i = 0; i < ss->ndev; i++)
        if (strcmp(ss->dev[i].name, name) == 0)
            return &ss->dev[i];
    return NULL;
}

const char *tz_snapshot_core_of(const tz_snapshot *ss, const char *source)
{
    for (size_t i = 0; i < ss->trace.n; i++)
        if (strcasecmp(ss->trace.kv[i].section, "core_trace_sources") == 0 && strcmp(ss->trace.kv[i].value, source) == 0)
            return ss->trace.kv[i].key;
    return NULL;
}
