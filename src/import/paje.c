/* Native Pajé trace importer.
 *
 * The semantics follow pj_dump (pajeng 1.3.6, strict mode): the same event
 * definitions and obligatory fields, the same checks (types and containers must be
 * defined, types must belong to the container's type, per-container-and-type time
 * order, link keys used once, no pending link when a container ends), the same
 * nesting levels for pushed states, the same variable and container end times, and
 * events sent to a destroyed container are ignored as pj_dump ignores them. Where
 * pj_dump is silent or crashes (field-count mismatch, unparsable numbers, invalid
 * UTF-8, a truncated definition) this importer stops with file:line, what it expected
 * and what it found.
 *
 * Times are decimal seconds. A first pass finds the finest time resolution the file
 * uses, the trace unit is then 10^-9 s or finer (down to 10^-18), and every time is
 * converted exactly from its decimal text (no binary floating point on the way).
 * The model mapping is described in paje_common.h and doc/formats/paje.md. */
#include "import/csvutil.h"
#include "import/importers.h"
#include "import/skips.h"
#include "formats/paje_common.h"
#include "util/input.h"
#include "util/util.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- event definitions ---------------------------------------------------- */

enum field {
    F_EVENT, F_TIME, F_NAME, F_TYPE, F_CONTAINER, F_STARTCT, F_ENDCT, F_STARTC, F_ENDC,
    F_VALUE, F_KEY, F_ALIAS, F_COLOR, F_LINE, F_FILE, F_FILENAME, NFIELDS, F_EXTRA = NFIELDS
};
static const char *const field_names[NFIELDS] = {
    "Event", "Time", "Name", "Type", "Container", "StartContainerType", "EndContainerType",
    "StartContainer", "EndContainer", "Value", "Key", "Alias", "Color", "Line", "File", "Filename"};

/* Old field names pj_dump only accepts with -n; named in errors to help. */
static const char *const old_field_names[][2] = {
    {"ContainerType", "Type"}, {"EntityType", "Type"}, {"SourceContainerType", "StartContainerType"},
    {"DestContainerType", "EndContainerType"}, {"SourceContainer", "StartContainer"}, {"DestContainer", "EndContainer"}};

enum kind {
    K_DEF_CT, K_DEF_ET, K_DEF_ST, K_DEF_VT, K_DEF_LT, K_DEF_VALUE, K_CREATE, K_DESTROY, K_NEW_EVENT,
    K_SET_STATE, K_PUSH_STATE, K_POP_STATE, K_RESET_STATE, K_SET_VAR, K_ADD_VAR, K_SUB_VAR,
    K_START_LINK, K_END_LINK, K_TRACE_FILE, NKINDS
};
static const char *const kind_names[NKINDS] = {
    "PajeDefineContainerType", "PajeDefineEventType", "PajeDefineStateType", "PajeDefineVariableType",
    "PajeDefineLinkType", "PajeDefineEntityValue", "PajeCreateContainer", "PajeDestroyContainer",
    "PajeNewEvent", "PajeSetState", "PajePushState", "PajePopState", "PajeResetState",
    "PajeSetVariable", "PajeAddVariable", "PajeSubVariable", "PajeStartLink", "PajeEndLink",
    "PajeTraceFile"};

#define B(f) (1u << (f))
static const unsigned obligatory[NKINDS] = {
    [K_DEF_CT] = B(F_NAME) | B(F_TYPE),
    [K_DEF_ET] = B(F_NAME) | B(F_TYPE),
    [K_DEF_ST] = B(F_NAME) | B(F_TYPE),
    [K_DEF_VT] = B(F_NAME) | B(F_TYPE),
    [K_DEF_LT] = B(F_NAME) | B(F_TYPE) | B(F_STARTCT) | B(F_ENDCT),
    [K_DEF_VALUE] = B(F_NAME) | B(F_TYPE),
    [K_CREATE] = B(F_TIME) | B(F_NAME) | B(F_TYPE) | B(F_CONTAINER),
    [K_DESTROY] = B(F_TIME) | B(F_NAME) | B(F_TYPE),
    [K_NEW_EVENT] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [K_SET_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [K_PUSH_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [K_POP_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER),
    [K_RESET_STATE] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER),
    [K_SET_VAR] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [K_ADD_VAR] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [K_SUB_VAR] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    [K_START_LINK] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE) | B(F_STARTC) | B(F_KEY),
    [K_END_LINK] = B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE) | B(F_ENDC) | B(F_KEY),
    [K_TRACE_FILE] = B(F_CONTAINER) | B(F_TYPE) | B(F_FILENAME),
};

enum ftype { T_STRING, T_FLOAT, T_DOUBLE, T_INT, T_HEX, T_DATE, T_COLOR, NFTYPES };
static const char *const ftype_names[NFTYPES] = {"string", "float", "double", "int", "hex", "date", "color"};

typedef struct extra_field {
    char *name;
    int ftype;
    int index;       /* word index on event lines */
    int32_t etype;   /* cache: the event type of the last parameter definition */
    int32_t def;
} extra_field;

typedef struct eventdef {
    int kind;
    char *id;
    long line;
    int nfields;     /* words on an event line, the id included */
    int idx[NFIELDS];
    extra_field *extras;
    size_t nextras, capextras;
} eventdef;

/* ---- simulated Pajé objects ----------------------------------------------- */

enum nature { N_CONTAINER, N_STATE, N_EVENT, N_VARIABLE, N_LINK };
static const char *const nature_names[] = {"container type", "state type", "event type", "variable type", "link type"};

typedef struct ptype {
    int nature;
    char *name, *alias;
    int parent;          /* container type index, -1 for the root type */
    int startct, endct;  /* link types */
    char *color;         /* "#rrggbb" or NULL */
    int32_t etype;       /* variable, link: the event type (-1 until used) */
    int32_t p_value, p_key, p_container; /* link parameter definitions */
} ptype;

typedef struct pvalue {
    int type;
    char *name;
    char *color;
    int32_t etype;       /* state, event: the event type (-1 until used) */
} pvalue;

typedef struct pstate {
    int64_t start;
    int32_t etype;
    int level;
    int64_t seq;
    traza_param *params;
    uint32_t nparams;
} pstate;

typedef struct slot {
    int cont, type;
    int next;            /* next slot of the same container */
    int has_last, last_open;
    int64_t last_start, last_end, last_seq;
    pstate *stack;       /* states */
    size_t nstack, capstack;
    int var_open;        /* variables: the open value */
    int64_t var_start;
    double var_value;
    size_t pending_links;
} slot;

typedef struct container {
    char *name, *alias;
    int type, parent;
    int32_t producer;
    int destroyed;
    int64_t start, end;  /* end: time of the last event (pj_dump's container end) */
    int first_slot;
    int first_child, next_sibling;
} container;

typedef struct plink {
    int slot;
    int has_start, has_end;
    int64_t start, end;
    int32_t from, to;
    int value;           /* value index */
    char *key;
    long line;
    traza_param *params;
    uint32_t nparams;
} plink;

typedef struct paje {
    traza_ctx *ctx;
    traza_writer *w;     /* NULL in the first pass */
    const char *path;
    long lineno;
    traza_err *err;
    int time_unit;
    int min_exp;         /* first pass: finest decimal exponent of a time */

    /* definitions */
    eventdef *defs;
    size_t ndefs, capdefs;
    tz_map def_ids;
    int in_def;          /* index of the definition being read, or -1 */

    /* words of the current line */
    char **words;
    size_t nwords, capwords;

    ptype *types;
    size_t ntypes, captypes;
    tz_map type_ids;     /* identifier -> type index */
    pvalue *values;
    size_t nvalues, capvalues;
    tz_map value_ids;    /* "<type>\x1f<identifier>" -> value index */
    container *conts;
    size_t nconts, capconts;
    tz_map cont_ids;     /* identifier -> container index */
    slot *slots;
    size_t nslots, capslots;
    tz_imap slot_ids;    /* (container << 32 | type) -> slot index */
    plink *links;
    size_t nlinks, caplinks;
    int *free_links;
    size_t nfree, capfree;
    tz_map link_ids;     /* "<slot>\x1f<key>" -> pending link index */
    tz_map used_keys;    /* "<slot>\x1f<key>" of completed links */
    tz_map et_names;     /* event type name -> owner code (to detect clashes) */
    int64_t seq;
    int64_t last_time;
    int has_last_time;
    int64_t ignored;
    tz_buf key, meta_types, meta_conts;
    traza_param *params;
    size_t capparams;
} paje;

/* ---- errors --------------------------------------------------------------- */

__attribute__((format(printf, 2, 3))) static int perr(paje *p, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return traza_err_set(p->err, TRAZA_E_PARSE, "%s:%ld: %s", p->path, p->lineno, msg);
}

static int oom(paje *p) { return traza_err_set(p->err, TRAZA_E_NOMEM, "out of memory"); }

/* The text of a writer error becomes part of a parse error naming the line. */
static int werr(paje *p)
{
    if (p->err && p->err->code == TRAZA_E_NOMEM)
        return -1;
    char msg[900];
    snprintf(msg, sizeof msg, "%.800s", p->err ? p->err->msg : "store error");
    return perr(p, "%s", msg);
}

/* ---- tokenizing (pj_dump's rules: blanks separate, "..." groups, # comments) - */

static int push_word(paje *p, char *w)
{
    if (p->nwords == p->capwords && TZ_GROW(p->words, p->capwords, p->nwords + 1) < 0)
        return oom(p);
    p->words[p->nwords++] = w;
    return 0;
}

static int split_line(paje *p, char *s, size_t len)
{
    p->nwords = 0;
    if (memchr(s, '\0', len))
        return perr(p, "expected text, found a NUL byte at column %zu", (size_t)((char *)memchr(s, '\0', len) - s) + 1);
    long bad = tz_utf8_invalid(s, len);
    if (bad >= 0)
        return perr(p, "invalid UTF-8 at column %ld", bad + 1);
    char *q = s, *end = s + len;
    while (q < end) {
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\v' || *q == '\f' || *q == '\r'))
            q++;
        if (q >= end || *q == '#')
            break;
        if (*q == '"') {
            char *start = ++q;
            while (q < end && *q != '"')
                q++;
            if (q >= end)
                return perr(p, "unterminated quoted string starting at column %zu (expected a closing '\"')", (size_t)(start - s));
            *q++ = '\0';
            if (q < end && !(*q == ' ' || *q == '\t' || *q == '\v' || *q == '\f' || *q == '\r' || *q == '#'))
                return perr(p, "expected a blank after the closing quote at column %zu, found '%c'", (size_t)(q - s), *q);
            if (q < end && *q == '#') {
                if (push_word(p, start) < 0)
                    return -1;
                break;
            }
            if (push_word(p, start) < 0)
                return -1;
            continue;
        }
        char *start = q;
        while (q < end && !(*q == ' ' || *q == '\t' || *q == '\v' || *q == '\f' || *q == '\r' || *q == '#'))
            q++;
        int comment = q < end && *q == '#';
        if (q < end)
            *q++ = '\0';
        if (push_word(p, start) < 0)
            return -1;
        if (comment)
            break;
    }
    return 0;
}

/* ---- numbers -------------------------------------------------------------- */

static const uint64_t pow10u[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
    100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL};

/* Converts a time field to ticks of the trace unit (second pass) or records its
 * resolution (first pass). */
static int parse_time(paje *p, const char *s, int64_t *out)
{
    int neg, e;
    uint64_t m;
    const char *why = NULL;
    if (tz_paje_decimal(s, &neg, &m, &e, &why) < 0)
        return perr(p, "expected a time in decimal seconds, found '%s' (%s)", s, why);
    if (neg && m)
        return perr(p, "expected a time >= 0, found '%s'", s);
    if (!p->w) {
        if (m && e < p->min_exp) {
            if (e < -18)
                return perr(p, "time '%s' is finer than 10^-18 s, the finest unit traza stores", s);
            p->min_exp = e;
        }
        *out = 0;
        return 0;
    }
    int shift = e - p->time_unit;
    if (m == 0) {
        *out = 0;
        return 0;
    }
    if (shift < 0)
        return perr(p, "time '%s' is finer than the trace unit 10^%d s", s, p->time_unit);
    if (shift > 19 || m > (uint64_t)INT64_MAX / pow10u[shift])
        return perr(p, "time '%s' is absurdly large (more than %lld ticks of 10^%d s)", s, (long long)INT64_MAX, p->time_unit);
    *out = (int64_t)(m * pow10u[shift]);
    return 0;
}

static int parse_number(paje *p, const char *s, const char *what, double *out)
{
    if (tz_parse_double(s, strlen(s), out) < 0 || !isfinite(*out))
        return perr(p, "expected a finite number for %s, found '%s'", what, s);
    return 0;
}

/* ---- colors: "r g b" in [0,1] (3 or 4 components, blanks or commas) or "rrggbb" */

static int parse_color(paje *p, const char *s, char **out)
{
    *out = NULL;
    if (!*s)
        return 0;
    double c[4];
    int n = 0;
    const char *q = s;
    int ok = 1;
    while (*q) {
        while (*q == ' ' || *q == ',' || *q == '\t')
            q++;
        if (!*q)
            break;
        const char *st = q;
        while (*q && *q != ' ' && *q != ',' && *q != '\t')
            q++;
        if (n == 4 || tz_parse_double(st, (size_t)(q - st), &c[n]) < 0 || !isfinite(c[n])) {
            ok = 0;
            break;
        }
        n++;
    }
    unsigned rgb[3];
    if (ok && (n == 3 || n == 4)) {
        for (int i = 0; i < 3; i++) {
            double v = c[i] < 0 ? 0 : c[i] > 1 ? 1 : c[i];
            rgb[i] = (unsigned)lround(v * 255.0);
        }
    } else {
        size_t len = strlen(s);
        const char *h = s[0] == '#' ? s + 1 : s;
        if (s[0] == '#')
            len--;
        if (len != 6 || strspn(h, "0123456789abcdefABCDEF") != 6)
            return perr(p, "expected a color ('r g b' with components in [0,1], or 'rrggbb'), found '%s'", s);
        for (int i = 0; i < 3; i++) {
            char t[3] = {h[2 * i], h[2 * i + 1], 0};
            rgb[i] = (unsigned)strtoul(t, NULL, 16);
        }
    }
    *out = tz_asprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    return *out ? 0 : oom(p);
}

/* ---- definitions ---------------------------------------------------------- */

static int find_kind(const char *name)
{
    for (int i = 0; i < NKINDS; i++)
        if (strcmp(kind_names[i], name) == 0)
            return i;
    return -1;
}

static int def_line(paje *p)
{
    /* "%EventDef name id", "% EventDef name id", "%Field type", "%EndEventDef" */
    size_t n = 0;
    const char *kw = p->words[n++] + 1;
    if (!*kw) {
        if (n >= p->nwords)
            return perr(p, "expected a keyword after '%%', found nothing");
        kw = p->words[n++];
    }
    if (p->in_def < 0) {
        if (strcmp(kw, "EventDef") != 0)
            return perr(p, "expected '%%EventDef <event name> <id>', found '%%%s'", kw);
        if (p->nwords - n != 2)
            return perr(p, "expected '%%EventDef <event name> <id>', found %zu word(s) after EventDef", p->nwords - n);
        const char *name = p->words[n], *id = p->words[n + 1];
        int k = find_kind(name);
        if (k < 0)
            return perr(p, "unknown event name '%s' (expected one of PajeDefineContainerType, ..., PajeEndLink)", name);
        int64_t prev;
        if (tz_map_get(&p->def_ids, id, &prev))
            return perr(p, "event id '%s' is already defined (line %ld)", id, p->defs[prev].line);
        if (TZ_GROW(p->defs, p->capdefs, p->ndefs + 1) < 0)
            return oom(p);
        eventdef *d = &p->defs[p->ndefs];
        memset(d, 0, sizeof *d);
        d->kind = k;
        d->line = p->lineno;
        d->id = tz_strdup(id);
        if (!d->id || tz_map_put(&p->def_ids, id, (int64_t)p->ndefs) < 0) {
            free(d->id);
            return oom(p);
        }
        for (int i = 0; i < NFIELDS; i++)
            d->idx[i] = -1;
        d->idx[F_EVENT] = 0;
        d->nfields = 1;
        p->in_def = (int)p->ndefs++;
        return 0;
    }
    eventdef *d = &p->defs[p->in_def];
    if (strcmp(kw, "EndEventDef") == 0) {
        if (n != p->nwords)
            return perr(p, "expected nothing after %%EndEventDef, found '%s'", p->words[n]);
        unsigned have = 0;
        for (int i = 0; i < NFIELDS; i++)
            if (d->idx[i] >= 0)
                have |= B(i);
        unsigned missing = obligatory[d->kind] & ~have;
        if (missing) {
            tz_buf b;
            tz_buf_init(&b);
            for (int i = 0; i < NFIELDS; i++)
                if (missing & B(i))
                    tz_buf_printf(&b, "%s%s", b.len ? ", " : "", field_names[i]);
            /* Name an old field that would have provided it. */
            const char *hint = "";
            char hintbuf[200];
            for (size_t e = 0; e < d->nextras; e++)
                for (size_t o = 0; o < sizeof old_field_names / sizeof old_field_names[0]; o++)
                    if (strcmp(d->extras[e].name, old_field_names[o][0]) == 0) {
                        snprintf(hintbuf, sizeof hintbuf, "; found the old field name '%s' (write '%s')", old_field_names[o][0], old_field_names[o][1]);
                        hint = hintbuf;
                    }
            int rc = perr(p, "definition of %s (id %s, line %ld) lacks the obligatory field(s) %s%s",
                          kind_names[d->kind], d->id, d->line, b.s ? b.s : "", hint);
            tz_buf_free(&b);
            return rc;
        }
        p->in_def = -1;
        return 0;
    }
    if (n >= p->nwords)
        return perr(p, "expected '%%%s <type>', found no field type", kw);
    if (n + 1 != p->nwords)
        return perr(p, "expected '%%<field name> <type>', found extra word '%s'", p->words[n + 1]);
    const char *tname = p->words[n];
    int ft = -1;
    for (int i = 0; i < NFTYPES; i++)
        if (strcmp(ftype_names[i], tname) == 0)
            ft = i;
    if (ft < 0)
        return perr(p, "unknown field type '%s' for field '%s' (expected string, float, double, int, hex, date or color)", tname, kw);
    int f = -1;
    for (int i = 0; i < NFIELDS; i++)
        if (strcmp(field_names[i], kw) == 0)
            f = i;
    if (f == F_EVENT)
        return perr(p, "the field 'Event' is implicit and cannot be declared");
    if (d->nfields >= 4096)
        return perr(p, "too many fields in one event definition");
    if (f >= 0) {
        if (d->idx[f] >= 0)
            return perr(p, "field '%s' is already defined in this event definition", kw);
        d->idx[f] = d->nfields++;
        return 0;
    }
    for (size_t e = 0; e < d->nextras; e++)
        if (strcmp(d->extras[e].name, kw) == 0)
            return perr(p, "field '%s' is already defined in this event definition", kw);
    if (TZ_GROW(d->extras, d->capextras, d->nextras + 1) < 0)
        return oom(p);
    extra_field *x = &d->extras[d->nextras];
    x->name = tz_strdup(kw);
    if (!x->name)
        return oom(p);
    x->ftype = ft;
    x->index = d->nfields++;
    x->etype = -1;
    x->def = -1;
    d->nextras++;
    return 0;
}

/* ---- look-ups ------------------------------------------------------------- */

static const char *fld(paje *p, const eventdef *d, int f) { return d->idx[f] >= 0 ? p->words[d->idx[f]] : ""; }

static int find_type(paje *p, const char *id, const char *what, int *out)
{
    int64_t v;
    if (!tz_map_get(&p->type_ids, id, &v))
        return perr(p, "unknown %s '%s' (expected a type defined earlier)", what, id);
    *out = (int)v;
    return 0;
}

static int find_cont(paje *p, const char *id, const char *what, int *out)
{
    int64_t v;
    if (!tz_map_get(&p->cont_ids, id, &v))
        return perr(p, "unknown %s '%s' (expected a container created earlier)", what, id);
    *out = (int)v;
    return 0;
}

static int add_type(paje *p, int nature, const char *name, const char *alias, int parent)
{
    const char *id = *alias ? alias : name;
    if (tz_map_get(&p->type_ids, id, NULL))
        return perr(p, "type '%s' is already defined", id);
    if (TZ_GROW(p->types, p->captypes, p->ntypes + 1) < 0)
        return oom(p);
    ptype *t = &p->types[p->ntypes];
    memset(t, 0, sizeof *t);
    t->nature = nature;
    t->parent = parent;
    t->startct = t->endct = -1;
    t->etype = t->p_value = t->p_key = t->p_container = -1;
    t->name = tz_strdup(name);
    t->alias = tz_strdup(alias);
    if (!t->name || !t->alias || tz_map_put(&p->type_ids, id, (int64_t)p->ntypes) < 0) {
        free(t->name);
        free(t->alias);
        return oom(p);
    }
    return (int)p->ntypes++;
}

/* Value of a type by identifier; created (name = identifier) when absent. */
static int get_value(paje *p, int type, const char *id, int create)
{
    tz_buf_reset(&p->key);
    tz_buf_printf(&p->key, "%d\x1f%s", type, id);
    if (p->key.oom)
        return oom(p);
    int64_t v;
    if (tz_map_get(&p->value_ids, p->key.s, &v))
        return (int)v;
    if (!create)
        return -2;
    if (TZ_GROW(p->values, p->capvalues, p->nvalues + 1) < 0 || tz_map_put(&p->value_ids, p->key.s, (int64_t)p->nvalues) < 0)
        return oom(p);
    pvalue *val = &p->values[p->nvalues];
    val->type = type;
    val->color = NULL;
    val->etype = -1;
    val->name = tz_strdup(id);
    if (!val->name)
        return oom(p);
    return (int)p->nvalues++;
}

static const traza_category nature_cat[] = {TRAZA_PUNCTUAL, TRAZA_STATE, TRAZA_PUNCTUAL, TRAZA_VARIABLE, TRAZA_LINK};

/* The event type of a (Pajé type, value) pair (value -1: the type itself). */
static int32_t event_type(paje *p, int type, int value)
{
    ptype *t = &p->types[type];
    int32_t *slotp = value >= 0 ? &p->values[value].etype : &t->etype;
    if (*slotp >= 0)
        return *slotp;
    const char *base = value >= 0 ? p->values[value].name : t->name;
    if (!*base)
        base = t->name;
    char *name = tz_strdup(base);
    if (!name)
        return oom(p);
    if (strpbrk(name, TZ_PAJE_US TZ_PAJE_RS)) {
        free(name);
        return perr(p, "names cannot contain the control characters 0x1e or 0x1f");
    }
    /* Owner code: unique per (type, value) pair. */
    int64_t owner = ((int64_t)type << 32) | (uint32_t)(value + 1), prev;
    for (int attempt = 0; tz_map_get(&p->et_names, name, &prev) && prev != owner; attempt++) {
        char *nn = attempt == 0 ? tz_asprintf("%s (%s)", base, t->name) : tz_asprintf("%s (%s %d)", base, t->name, attempt + 1);
        free(name);
        if (!(name = nn))
            return oom(p);
    }
    int32_t id = traza_writer_event_type(p->w, name, nature_cat[t->nature], p->err);
    if (id < 0 || tz_map_put(&p->et_names, name, owner) < 0) {
        free(name);
        return id < 0 ? werr(p) : oom(p);
    }
    free(name);
    const char *color = value >= 0 ? p->values[value].color : t->color;
    if (value >= 0 && !color)
        color = NULL;
    if (color && traza_writer_set_type_color(p->w, id, color, p->err) < 0)
        return werr(p);
    tz_buf_printf(&p->meta_types, "%d" TZ_PAJE_US "%s" TZ_PAJE_US "%s" TZ_PAJE_US "%s" TZ_PAJE_RS, id,
                  traza_category_name(nature_cat[t->nature]), t->name, value >= 0 ? p->values[value].name : "");
    if (t->nature == N_LINK) {
        if ((t->p_value = traza_writer_param_def(p->w, id, TZ_PAJE_P_VALUE, TRAZA_PT_STRING, p->err)) < 0 ||
            (t->p_key = traza_writer_param_def(p->w, id, TZ_PAJE_P_KEY, TRAZA_PT_STRING, p->err)) < 0 ||
            (t->p_container = traza_writer_param_def(p->w, id, TZ_PAJE_P_CONTAINER, TRAZA_PT_INT, p->err)) < 0)
            return werr(p);
    }
    *slotp = id;
    return id;
}

static int get_slot(paje *p, int cont, int type)
{
    int64_t key = ((int64_t)cont << 32) | (uint32_t)type, v;
    if (tz_imap_get(&p->slot_ids, key, &v))
        return (int)v;
    if (TZ_GROW(p->slots, p->capslots, p->nslots + 1) < 0 || tz_imap_put(&p->slot_ids, key, (int64_t)p->nslots) < 0)
        return oom(p);
    slot *s = &p->slots[p->nslots];
    memset(s, 0, sizeof *s);
    s->cont = cont;
    s->type = type;
    s->next = p->conts[cont].first_slot;
    p->conts[cont].first_slot = (int)p->nslots;
    return (int)p->nslots++;
}

/* pj_dump's checkTimeOrder: not before the last entity of this container and type. */
static int check_order(paje *p, slot *s, int64_t t, const char *what)
{
    if (s->has_last && (s->last_start > t || (!s->last_open && s->last_end > t))) {
        char a[64], b[64];
        traza_time_format(t, p->time_unit, a, sizeof a);
        traza_time_format(s->last_open || s->last_start > t ? s->last_start : s->last_end, p->time_unit, b, sizeof b);
        return perr(p, "time goes backwards: %s at %s in container '%s' is before the previous %s entity (%s)", what, a,
                    p->conts[s->cont].name, p->types[s->type].name, b);
    }
    return 0;
}

static void set_last(paje *p, slot *s, int64_t start, int64_t end, int open)
{
    s->has_last = 1;
    s->last_start = start;
    s->last_end = end;
    s->last_open = open;
    s->last_seq = ++p->seq;
}

/* Extra (user-defined) fields of the current line as parameters of event type et.
 * Strings point into the line (valid until the next line) unless `copy`. */
static int extra_params(paje *p, eventdef *d, int32_t et, int copy, traza_param **out, uint32_t *n)
{
    *n = 0;
    *out = NULL;
    if (!d->nextras)
        return 0;
    traza_param *ps;
    if (copy) {
        ps = calloc(d->nextras, sizeof *ps);
        if (!ps)
            return oom(p);
    } else {
        if (d->nextras > p->capparams && TZ_GROW(p->params, p->capparams, d->nextras) < 0)
            return oom(p);
        ps = p->params;
    }
    for (size_t i = 0; i < d->nextras; i++) {
        extra_field *x = &d->extras[i];
        traza_ptype pt = x->ftype == T_INT ? TRAZA_PT_INT : x->ftype == T_HEX ? TRAZA_PT_HEX
                       : (x->ftype == T_DOUBLE || x->ftype == T_FLOAT) ? TRAZA_PT_DOUBLE : TRAZA_PT_STRING;
        if (x->etype != et) {
            int32_t def = traza_writer_param_def(p->w, et, x->name, pt, p->err);
            if (def < 0) {
                if (copy)
                    free(ps);
                return werr(p);
            }
            x->etype = et;
            x->def = def;
        }
        const char *s = p->words[x->index];
        traza_param *pp = &ps[i];
        memset(pp, 0, sizeof *pp);
        pp->def = x->def;
        pp->v.kind = pt;
        int bad = 0;
        if (pt == TRAZA_PT_INT) {
            bad = tz_parse_i64(s, strlen(s), &pp->v.i) < 0;
        } else if (pt == TRAZA_PT_HEX) {
            uint64_t u;
            bad = tz_parse_u64_hex(s, strlen(s), &u) < 0;
            pp->v.i = (int64_t)u;
        } else if (pt == TRAZA_PT_DOUBLE) {
            bad = tz_parse_double(s, strlen(s), &pp->v.d) < 0 || !isfinite(pp->v.d);
        } else {
            pp->v.s = copy ? tz_strdup(s) : s;
            if (!pp->v.s) {
                for (size_t k = 0; k < i; k++)
                    if (ps[k].v.kind == TRAZA_PT_STRING)
                        free((char *)ps[k].v.s);
                free(ps);
                return oom(p);
            }
        }
        if (bad) {
            if (copy) {
                for (size_t k = 0; k < i; k++)
                    if (ps[k].v.kind == TRAZA_PT_STRING)
                        free((char *)ps[k].v.s);
                free(ps);
            }
            return perr(p, "field '%s' (field %d): expected %s, found '%s'", x->name, x->index + 1, ftype_names[x->ftype], s);
        }
    }
    *out = ps;
    *n = (uint32_t)d->nextras;
    return 0;
}

static void free_params(traza_param *ps, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (ps[i].v.kind == TRAZA_PT_STRING)
            free((char *)ps[i].v.s);
    free(ps);
}

static int emit(paje *p, traza_event *ev)
{
    if (traza_writer_event(p->w, ev, p->err) < 0)
        return werr(p);
    if ((traza_writer_count(p->w) & 0xffff) == 0 && traza_progress(p->ctx, "importing Pajé", 0, 0))
        return traza_err_set(p->err, TRAZA_E_CANCELLED, "cancelled");
    return 0;
}

static int close_state(paje *p, slot *s, pstate *st, int64_t t)
{
    if (t < st->start) /* pj_dump would write a negative duration; keep the model valid */
        t = st->start;
    traza_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts = st->start;
    ev.end_ts = t;
    ev.type = st->etype;
    ev.producer = p->conts[s->cont].producer;
    ev.level = st->level;
    ev.has = TRAZA_HAS_END | TRAZA_HAS_LEVEL;
    ev.params = st->params;
    ev.nparams = st->nparams;
    int rc = emit(p, &ev);
    free_params(st->params, st->nparams);
    st->params = NULL;
    st->nparams = 0;
    if (s->last_seq == st->seq) {
        s->last_open = 0;
        s->last_end = t;
    }
    return rc;
}

static int close_variable(paje *p, slot *s, int64_t t)
{
    if (!s->var_open)
        return 0;
    s->var_open = 0;
    if (t < s->var_start)
        t = s->var_start;
    traza_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts = s->var_start;
    ev.end_ts = t;
    ev.type = event_type(p, s->type, -1);
    if (ev.type < 0)
        return -1;
    ev.producer = p->conts[s->cont].producer;
    ev.value = s->var_value;
    ev.has = TRAZA_HAS_END | TRAZA_HAS_VALUE;
    if (s->last_open && s->has_last) {
        s->last_open = 0;
        s->last_end = t;
    }
    return emit(p, &ev);
}

/* pj_dump's PajeContainer::destroy, recursively. */
static int destroy(paje *p, int c, int64_t t)
{
    container *ct = &p->conts[c];
    if (!ct->destroyed) {
        ct->destroyed = 1;
        ct->end = t;
        for (int si = ct->first_slot; si >= 0; si = p->slots[si].next) {
            slot *s = &p->slots[si];
            if (s->pending_links) {
                for (size_t i = 0; i < p->nlinks; i++)
                    if (p->links[i].slot == si && p->links[i].key)
                        return perr(p, "incomplete link of type '%s' with key '%s' in container '%s' (its %s at line %ld has no matching %s) when the container ends",
                                    p->types[s->type].name, p->links[i].key, ct->name, p->links[i].has_start ? "PajeStartLink" : "PajeEndLink",
                                    p->links[i].line, p->links[i].has_start ? "PajeEndLink" : "PajeStartLink");
            }
            for (size_t i = 0; i < s->nstack; i++)
                if (close_state(p, s, &s->stack[i], t) < 0)
                    return -1;
            s->nstack = 0;
            if (close_variable(p, s, t) < 0)
                return -1;
        }
    }
    for (int ch = p->conts[c].first_child; ch >= 0; ch = p->conts[ch].next_sibling)
        if (destroy(p, ch, t) < 0)
            return -1;
    return 0;
}

static int add_container(paje *p, const char *name, const char *alias, int type, int parent, int64_t t)
{
    if (TZ_GROW(p->conts, p->capconts, p->nconts + 1) < 0)
        return oom(p);
    container *c = &p->conts[p->nconts];
    memset(c, 0, sizeof *c);
    c->name = tz_strdup(name);
    c->alias = tz_strdup(alias);
    c->type = type;
    c->parent = parent;
    c->start = c->end = t;
    c->first_slot = c->first_child = c->next_sibling = -1;
    const char *id = *alias ? alias : name;
    if (!c->name || !c->alias || tz_map_put(&p->cont_ids, id, (int64_t)p->nconts) < 0) {
        free(c->name);
        free(c->alias);
        return oom(p);
    }
    int32_t parent_prod = parent >= 0 ? p->conts[parent].producer : -1;
    const char *tname = p->types[type].name;
    /* Producers are keyed by (parent, name): siblings with the same name (Pajé
     * allows them with different aliases) get the alias appended. */
    char *pname = tz_strdup(name);
    int32_t before = -1;
    for (int attempt = 0; pname; attempt++) {
        int32_t prod = traza_writer_producer(p->w, parent_prod, pname, tname, p->err);
        if (prod < 0) {
            free(pname);
            free(c->name); /* the container is not counted: its strings are ours */
            free(c->alias);
            return werr(p);
        }
        if (prod != before && prod >= (int32_t)0 && (size_t)prod == p->nconts) { /* newly created */
            c->producer = prod;
            break;
        }
        before = prod;
        free(pname);
        pname = attempt == 0 ? tz_asprintf("%s (%s)", name, id) : tz_asprintf("%s (%s %d)", name, id, attempt + 1);
    }
    if (!pname) {
        free(c->name);
        free(c->alias);
        return oom(p);
    }
    free(pname);
    if (parent >= 0) {
        c->next_sibling = p->conts[parent].first_child;
        p->conts[parent].first_child = (int)p->nconts;
    }
    return (int)p->nconts++;
}

/* ---- event lines (second pass) -------------------------------------------- */

static int check_child(paje *p, int type, int cont)
{
    if (p->types[type].parent != p->conts[cont].type)
        return perr(p, "type '%s' belongs to container type '%s', but container '%s' is of type '%s'", p->types[type].name,
                    p->types[type].parent >= 0 ? p->types[p->types[type].parent].name : "(none)", p->conts[cont].name,
                    p->types[p->conts[cont].type].name);
    return 0;
}

static int entity_lookup(paje *p, eventdef *d, int nature, int *type, int *cont)
{
    if (find_cont(p, fld(p, d, F_CONTAINER), "container", cont) < 0 || find_type(p, fld(p, d, F_TYPE), "type", type) < 0)
        return -1;
    if (p->types[*type].nature != nature)
        return perr(p, "%s expects a %s, but '%s' is a %s", kind_names[d->kind], nature_names[nature], fld(p, d, F_TYPE),
                    nature_names[p->types[*type].nature]);
    return check_child(p, *type, *cont);
}

static int do_event(paje *p, eventdef *d, int64_t t)
{
    int type = 0, cont = 0, k = d->kind;
    switch (k) {
    case K_DEF_CT: case K_DEF_ET: case K_DEF_ST: case K_DEF_VT: case K_DEF_LT: {
        const char *name = fld(p, d, F_NAME), *alias = fld(p, d, F_ALIAS);
        if (k == K_DEF_CT && strcmp(name, "0") == 0)
            return perr(p, "the type name '0' is reserved for the root container type");
        if (find_type(p, fld(p, d, F_TYPE), "container type", &type) < 0)
            return -1;
        if (p->types[type].nature != N_CONTAINER)
            return perr(p, "expected a container type as parent, but '%s' is a %s", fld(p, d, F_TYPE), nature_names[p->types[type].nature]);
        int sct = -1, ect = -1;
        if (k == K_DEF_LT) {
            if (find_type(p, fld(p, d, F_STARTCT), "start container type", &sct) < 0 ||
                find_type(p, fld(p, d, F_ENDCT), "end container type", &ect) < 0)
                return -1;
            if (p->types[sct].nature != N_CONTAINER || p->types[ect].nature != N_CONTAINER)
                return perr(p, "the start and end types of a link type must be container types");
        }
        char *color = NULL;
        if ((k == K_DEF_VT || k == K_DEF_ET) && parse_color(p, fld(p, d, F_COLOR), &color) < 0)
            return -1;
        static const int nat[] = {N_CONTAINER, N_EVENT, N_STATE, N_VARIABLE, N_LINK};
        int nt = add_type(p, nat[k - K_DEF_CT], name, alias, type);
        if (nt < 0) {
            free(color);
            return -1;
        }
        p->types[nt].startct = sct;
        p->types[nt].endct = ect;
        p->types[nt].color = color;
        return 0;
    }
    case K_DEF_VALUE: {
        const char *name = fld(p, d, F_NAME), *alias = fld(p, d, F_ALIAS);
        if (find_type(p, fld(p, d, F_TYPE), "type", &type) < 0)
            return -1;
        if (p->types[type].nature == N_CONTAINER || p->types[type].nature == N_VARIABLE)
            return perr(p, "cannot define the value '%s' for '%s', a %s", name, fld(p, d, F_TYPE), nature_names[p->types[type].nature]);
        const char *id = *alias ? alias : name;
        if (get_value(p, type, id, 0) != -2 || (*alias && get_value(p, type, name, 0) != -2))
            return perr(p, "the value '%s' of type '%s' is already defined", id, fld(p, d, F_TYPE));
        char *color = NULL;
        if (parse_color(p, fld(p, d, F_COLOR), &color) < 0)
            return -1;
        int v = get_value(p, type, id, 1);
        if (v < 0) {
            free(color);
            return -1;
        }
        char *nm = tz_strdup(name);
        if (!nm) {
            free(color);
            return oom(p);
        }
        free(p->values[v].name);
        p->values[v].name = nm;
        p->values[v].color = color;
        return 0;
    }
    case K_CREATE: {
        const char *name = fld(p, d, F_NAME), *alias = fld(p, d, F_ALIAS);
        const char *id = *alias ? alias : name;
        if (strcmp(id, "0") == 0)
            return perr(p, "the container name '0' is reserved for the root container");
        if (find_type(p, fld(p, d, F_TYPE), "container type", &type) < 0)
            return -1;
        if (p->types[type].nature != N_CONTAINER)
            return perr(p, "expected a container type, but '%s' is a %s", fld(p, d, F_TYPE), nature_names[p->types[type].nature]);
        if (find_cont(p, fld(p, d, F_CONTAINER), "parent container", &cont) < 0)
            return -1;
        if (p->types[type].parent != p->conts[cont].type)
            return perr(p, "container type '%s' is not a child of '%s', the type of container '%s'", p->types[type].name,
                        p->types[p->conts[cont].type].name, p->conts[cont].name);
        if (tz_map_get(&p->cont_ids, id, NULL))
            return perr(p, "container '%s' already exists", id);
        return add_container(p, name, alias, type, cont, t) < 0 ? -1 : 0;
    }
    case K_DESTROY: {
        if (find_type(p, fld(p, d, F_TYPE), "container type", &type) < 0 || find_cont(p, fld(p, d, F_NAME), "container", &cont) < 0)
            return -1;
        if (p->conts[cont].type != type)
            return perr(p, "container '%s' is of type '%s', not '%s'", fld(p, d, F_NAME), p->types[p->conts[cont].type].name, p->types[type].name);
        if (t < p->conts[cont].end) {
            char a[64], b[64];
            traza_time_format(t, p->time_unit, a, sizeof a);
            traza_time_format(p->conts[cont].end, p->time_unit, b, sizeof b);
            return perr(p, "time goes backwards: container '%s' is destroyed at %s, before its last event at %s", p->conts[cont].name, a, b);
        }
        if (p->conts[cont].destroyed) {
            p->ignored++;
            return 0;
        }
        if (destroy(p, cont, t) < 0)
            return -1;
        return 0;
    }
    case K_TRACE_FILE:
        return perr(p, "PajeTraceFile (traces split over several files) is not supported; concatenate the files instead");
    default:
        break;
    }

    /* Entity events go to one container; a destroyed container ignores them. */
    int nature = k == K_NEW_EVENT ? N_EVENT : k <= K_RESET_STATE ? N_STATE : k <= K_SUB_VAR ? N_VARIABLE : N_LINK;
    if (entity_lookup(p, d, nature, &type, &cont) < 0)
        return -1;
    if (p->conts[cont].destroyed) {
        p->ignored++;
        return 0;
    }
    int si = get_slot(p, cont, type);
    if (si < 0)
        return -1;
    slot *s = &p->slots[si];
    traza_event ev;
    memset(&ev, 0, sizeof ev);
    ev.producer = p->conts[cont].producer;
    ev.ts = t;
    switch (k) {
    case K_NEW_EVENT: {
        if (check_order(p, s, t, "event") < 0)
            return -1;
        int v = get_value(p, type, fld(p, d, F_VALUE), 1);
        if (v < 0 || (ev.type = event_type(p, type, v)) < 0)
            return -1;
        traza_param *ps;
        uint32_t np;
        if (extra_params(p, d, ev.type, 0, &ps, &np) < 0)
            return -1;
        ev.params = ps;
        ev.nparams = np;
        if (emit(p, &ev) < 0)
            return -1;
        set_last(p, s, t, t, 0);
        break;
    }
    case K_SET_STATE: case K_PUSH_STATE: {
        if (check_order(p, s, t, "state") < 0)
            return -1;
        int level = 0;
        if (k == K_SET_STATE) {
            for (size_t i = 0; i < s->nstack; i++)
                if (close_state(p, s, &s->stack[i], t) < 0)
                    return -1;
            s->nstack = 0;
        } else if (s->nstack) {
            level = s->stack[s->nstack - 1].level + 1;
        }
        int v = get_value(p, type, fld(p, d, F_VALUE), 1);
        int32_t et;
        if (v < 0 || (et = event_type(p, type, v)) < 0)
            return -1;
        if (TZ_GROW(s->stack, s->capstack, s->nstack + 1) < 0)
            return oom(p);
        pstate *st = &s->stack[s->nstack];
        memset(st, 0, sizeof *st);
        if (extra_params(p, d, et, 1, &st->params, &st->nparams) < 0)
            return -1;
        st->start = t;
        st->etype = et;
        st->level = level;
        set_last(p, s, t, t, 1);
        st->seq = s->last_seq;
        s->nstack++;
        break;
    }
    case K_POP_STATE:
        if (check_order(p, s, t, "state") < 0)
            return -1;
        if (!s->nstack)
            return perr(p, "PajePopState of type '%s' in container '%s', but no state is pushed", p->types[type].name, p->conts[cont].name);
        if (close_state(p, s, &s->stack[s->nstack - 1], t) < 0)
            return -1;
        s->nstack--;
        break;
    case K_RESET_STATE:
        if (check_order(p, s, t, "state") < 0)
            return -1;
        for (size_t i = 0; i < s->nstack; i++)
            if (close_state(p, s, &s->stack[i], t) < 0)
                return -1;
        s->nstack = 0;
        break;
    case K_SET_VAR: case K_ADD_VAR: case K_SUB_VAR: {
        double v;
        if (parse_number(p, fld(p, d, F_VALUE), "the variable value", &v) < 0)
            return -1;
        /* pj_dump reads variable values in single precision (strtof) and adds them
         * up in double precision; so does traza, so values equal pj_dump's. */
        if (fabs(v) > FLT_MAX)
            return perr(p, "the variable value '%s' is absurdly large (beyond single precision, as pj_dump reads it)", fld(p, d, F_VALUE));
        v = (double)(float)v;
        if (k != K_SET_VAR && !s->has_last)
            return perr(p, "%s on variable '%s' of container '%s', which has no value yet (expected a PajeSetVariable first)",
                        kind_names[k], p->types[type].name, p->conts[cont].name);
        double nv = v;
        if (s->has_last) {
            if (check_order(p, s, t, "variable") < 0)
                return -1;
            if (k == K_ADD_VAR)
                nv = s->var_value + v;
            else if (k == K_SUB_VAR)
                nv = s->var_value - v;
            if (!isfinite(nv))
                return perr(p, "the variable value overflows (%s)", fld(p, d, F_VALUE));
            if (s->var_open && s->var_start == t) {
                s->var_value = nv;
                break;
            }
            if (close_variable(p, s, t) < 0)
                return -1;
        }
        s->var_open = 1;
        s->var_start = t;
        s->var_value = nv;
        set_last(p, s, t, t, 1);
        break;
    }
    case K_START_LINK: case K_END_LINK: {
        int start = k == K_START_LINK;
        int other = 0;
        if (find_cont(p, fld(p, d, start ? F_STARTC : F_ENDC), start ? "start container" : "end container", &other) < 0)
            return -1;
        int want = start ? p->types[type].startct : p->types[type].endct;
        if (p->conts[other].type != want)
            return perr(p, "container '%s' is of type '%s', but link type '%s' %s at type '%s'", p->conts[other].name,
                        p->types[p->conts[other].type].name, p->types[type].name, start ? "starts" : "ends", p->types[want].name);
        const char *key = fld(p, d, F_KEY);
        int v = get_value(p, type, fld(p, d, F_VALUE), 1); /* uses p->key: before the link key */
        if (v < 0)
            return -1;
        tz_buf_reset(&p->key);
        tz_buf_printf(&p->key, "%d\x1f%s", si, key);
        if (p->key.oom)
            return oom(p);
        if (tz_map_get(&p->used_keys, p->key.s, NULL))
            return perr(p, "link key '%s' of type '%s' in container '%s' was already used by another link", key, p->types[type].name, p->conts[cont].name);
        int64_t li;
        if (!tz_map_get(&p->link_ids, p->key.s, &li)) {
            if (p->nfree) {
                li = p->free_links[--p->nfree];
            } else {
                if (TZ_GROW(p->links, p->caplinks, p->nlinks + 1) < 0)
                    return oom(p);
                li = (int64_t)p->nlinks++;
            }
            plink *l = &p->links[li];
            memset(l, 0, sizeof *l);
            l->slot = si;
            l->value = v;
            l->line = p->lineno;
            l->key = tz_strdup(key);
            if (!l->key || tz_map_put(&p->link_ids, p->key.s, li) < 0)
                return oom(p);
            if (start) { l->has_start = 1; l->start = t; l->from = p->conts[other].producer; }
            else { l->has_end = 1; l->end = t; l->to = p->conts[other].producer; }
            int32_t et = event_type(p, type, -1);
            if (et < 0 || extra_params(p, d, et, 1, &l->params, &l->nparams) < 0)
                return -1;
            s->pending_links++;
            break;
        }
        plink *l = &p->links[li];
        if (start ? l->has_start : l->has_end)
            return perr(p, "link key '%s' of type '%s' already has a %s (line %ld)", key, p->types[type].name, kind_names[k], l->line);
        if (l->value != v)
            return perr(p, "%s with value '%s', but the matching %s (line %ld) has value '%s'", kind_names[k], fld(p, d, F_VALUE),
                        start ? "PajeEndLink" : "PajeStartLink", l->line, p->values[l->value].name);
        if (start) { l->has_start = 1; l->start = t; l->from = p->conts[other].producer; }
        else { l->has_end = 1; l->end = t; l->to = p->conts[other].producer; }
        if (check_order(p, s, start ? l->start : l->end, "link") < 0)
            return -1;
        if (l->end < l->start)
            return perr(p, "link '%s' of type '%s' ends (line %ld) before it starts", key, p->types[type].name, start ? l->line : p->lineno);
        ev.type = event_type(p, type, -1);
        if (ev.type < 0)
            return -1;
        ptype *ty = &p->types[type];
        /* the parameters: value, key, container, then the extra fields of the line
         * that came first */
        uint32_t np = 3 + l->nparams;
        if (np > p->capparams && TZ_GROW(p->params, p->capparams, np) < 0)
            return oom(p);
        traza_param *ps = p->params;
        memset(ps, 0, 3 * sizeof *ps);
        ps[0].def = ty->p_value; ps[0].v.kind = TRAZA_PT_STRING; ps[0].v.s = p->values[l->value].name;
        ps[1].def = ty->p_key; ps[1].v.kind = TRAZA_PT_STRING; ps[1].v.s = l->key;
        ps[2].def = ty->p_container; ps[2].v.kind = TRAZA_PT_INT; ps[2].v.i = p->conts[cont].producer;
        if (l->nparams)
            memcpy(ps + 3, l->params, l->nparams * sizeof *ps);
        ev.ts = l->start;
        ev.end_ts = l->end;
        ev.producer = l->from;
        ev.end_producer = l->to;
        ev.has = TRAZA_HAS_END | TRAZA_HAS_END_PRODUCER;
        ev.params = ps;
        ev.nparams = np;
        if (emit(p, &ev) < 0)
            return -1;
        set_last(p, s, l->start, l->end, 0);
        if (tz_map_put(&p->used_keys, p->key.s, 1) < 0)
            return oom(p);
        /* forget the pending link: a tombstone value in the map */
        if (tz_map_put(&p->link_ids, p->key.s, -1) < 0)
            return oom(p);
        free(l->key);
        l->key = NULL;
        free_params(l->params, l->nparams);
        l->params = NULL;
        l->nparams = 0;
        s->pending_links--;
        if (p->nfree == p->capfree && TZ_GROW(p->free_links, p->capfree, p->nfree + 1) < 0)
            return oom(p);
        p->free_links[p->nfree++] = (int)li;
        break;
    }
    default:
        break;
    }
    p->conts[cont].end = t;
    return 0;
}

static int event_line(paje *p)
{
    int64_t di;
    const char *id = p->words[0];
    if (!tz_map_get(&p->def_ids, id, &di))
        return perr(p, "event id '%s' is not defined (expected an id declared by a %%EventDef header)", id);
    eventdef *d = &p->defs[di];
    if ((int)p->nwords != d->nfields)
        return perr(p, "%s (id %s, defined line %ld) expects %d fields, found %zu%s", kind_names[d->kind], d->id, d->line,
                    d->nfields, p->nwords, (int)p->nwords < d->nfields ? " (truncated line?)" : "");
    int64_t t = 0;
    if (d->idx[F_TIME] >= 0) {
        if (parse_time(p, p->words[d->idx[F_TIME]], &t) < 0)
            return -1;
        p->last_time = t;
        p->has_last_time = 1;
    }
    if (!p->w) {
        /* first pass: definitions of types are not needed, but numbers are checked early */
        return 0;
    }
    return do_event(p, d, t);
}

/* ---- the two passes -------------------------------------------------------- */

static void reset_defs(paje *p)
{
    for (size_t i = 0; i < p->ndefs; i++) {
        free(p->defs[i].id);
        for (size_t e = 0; e < p->defs[i].nextras; e++)
            free(p->defs[i].extras[e].name);
        free(p->defs[i].extras);
    }
    p->ndefs = 0;
    tz_map_free(&p->def_ids);
    p->in_def = -1;
}

static int run_pass(paje *p)
{
    tz_lines lr;
    if (tz_lines_open(&lr, p->path, p->err) < 0)
        return -1;
    reset_defs(p);
    p->lineno = 0;
    p->has_last_time = 0;
    char *line;
    size_t len;
    int rc;
    int any = 0;
    while ((rc = tz_lines_next(&lr, &line, &len, p->err)) > 0) {
        p->lineno = lr.lineno;
        if ((len && tz_check_terminated(&lr, line, len, p->path, p->err) < 0) || split_line(p, line, len) < 0) {
            rc = -1;
            break;
        }
        if (!p->nwords)
            continue;
        any = 1;
        if (p->words[0][0] == '%' && line[0] != '"') {
            if (def_line(p) < 0) {
                rc = -1;
                break;
            }
        } else {
            if (p->in_def >= 0) {
                rc = perr(p, "expected a '%%' field line or %%EndEventDef inside the definition of %s (line %ld), found '%s'",
                          kind_names[p->defs[p->in_def].kind], p->defs[p->in_def].line, p->words[0]);
                break;
            }
            if (event_line(p) < 0) {
                rc = -1;
                break;
            }
        }
    }
    tz_lines_close(&lr);
    if (rc < 0)
        return -1;
    if (!any)
        return traza_err_set(p->err, TRAZA_E_PARSE, "%s: empty file (no line but blank lines and comments): expected Pajé event definitions and events", p->path);
    if (p->in_def >= 0) {
        p->lineno++;
        return perr(p, "the file ends inside the definition of %s started at line %ld (truncated file?)",
                    kind_names[p->defs[p->in_def].kind], p->defs[p->in_def].line);
    }
    return 0;
}

static void paje_free(paje *p)
{
    reset_defs(p);
    free(p->defs);
    free(p->words);
    for (size_t i = 0; i < p->ntypes; i++) {
        free(p->types[i].name);
        free(p->types[i].alias);
        free(p->types[i].color);
    }
    free(p->types);
    tz_map_free(&p->type_ids);
    for (size_t i = 0; i < p->nvalues; i++) {
        free(p->values[i].name);
        free(p->values[i].color);
    }
    free(p->values);
    tz_map_free(&p->value_ids);
    for (size_t i = 0; i < p->nconts; i++) {
        free(p->conts[i].name);
        free(p->conts[i].alias);
    }
    free(p->conts);
    tz_map_free(&p->cont_ids);
    for (size_t i = 0; i < p->nslots; i++) {
        for (size_t k = 0; k < p->slots[i].nstack; k++)
            free_params(p->slots[i].stack[k].params, p->slots[i].stack[k].nparams);
        free(p->slots[i].stack);
    }
    free(p->slots);
    tz_imap_free(&p->slot_ids);
    for (size_t i = 0; i < p->nlinks; i++) {
        free(p->links[i].key);
        free_params(p->links[i].params, p->links[i].nparams);
    }
    free(p->links);
    free(p->free_links);
    tz_map_free(&p->link_ids);
    tz_map_free(&p->used_keys);
    tz_map_free(&p->et_names);
    tz_buf_free(&p->key);
    tz_buf_free(&p->meta_types);
    tz_buf_free(&p->meta_conts);
    free(p->params);
}

static int read_one(traza_ctx *ctx, traza_writer *w, const char *path, int strict, traza_err *err)
{
    paje p;
    memset(&p, 0, sizeof p);
    p.ctx = ctx;
    p.path = path;
    p.err = err;
    p.in_def = -1;
    p.min_exp = 0;
    tz_buf_init(&p.key);
    tz_buf_init(&p.meta_types);
    tz_buf_init(&p.meta_conts);
    /* Pass 1: syntax, definitions, the finest time resolution. */
    int rc = run_pass(&p);
    if (rc == 0) {
        int u = p.min_exp < -9 ? p.min_exp : -9;
        u = -((-u + 2) / 3) * 3; /* round to a multiple of 3: ns, ps, fs, as */
        if (u < -18)
            u = -18;
        p.time_unit = u;
        traza_writer_set_time_unit(w, u);
        p.w = w;
        /* The root: container "0" of type "0", as pj_dump has it. */
        if (TZ_GROW(p.types, p.captypes, 1) < 0) {
            rc = oom(&p);
        } else {
            memset(&p.types[0], 0, sizeof p.types[0]);
            p.types[0].nature = N_CONTAINER;
            p.types[0].parent = -1;
            p.types[0].etype = -1;
            p.types[0].name = tz_strdup("0");
            p.types[0].alias = tz_strdup("");
            p.ntypes = 1; /* freed with the others, whatever failed */
            if (!p.types[0].name || !p.types[0].alias || tz_map_put(&p.type_ids, "0", 0) < 0)
                rc = oom(&p);
        }
        if (rc == 0 && add_container(&p, "0", "", 0, -1, 0) < 0)
            rc = -1;
        if (rc == 0)
            rc = run_pass(&p);
    }
    if (rc == 0) {
        /* End of file: every container ends at the time of the last event. */
        p.lineno++;
        if (destroy(&p, 0, p.has_last_time ? p.last_time : 0) < 0)
            rc = -1;
    }
    if (rc == 0) {
        for (size_t i = 0; i < p.nconts; i++)
            tz_buf_printf(&p.meta_conts, "%d" TZ_PAJE_US "%lld" TZ_PAJE_US "%lld" TZ_PAJE_RS, p.conts[i].producer,
                          (long long)p.conts[i].start, (long long)p.conts[i].end);
        if (p.meta_types.oom || p.meta_conts.oom)
            rc = oom(&p);
        else if (traza_writer_set_param(w, "paje.types", p.meta_types.s ? p.meta_types.s : "", err) < 0 ||
                 traza_writer_set_param(w, "paje.containers", p.meta_conts.s ? p.meta_conts.s : "", err) < 0)
            rc = -1;
    }
    if (rc == 0) {
        const tz_skip_kind k = {"destroyed_container_events", "events sent to destroyed containers (as pj_dump ignores them)", p.ignored};
        rc = tz_skips_report(ctx, w, path, &k, 1, strict, -1, err);
    }
    paje_free(&p);
    return rc;
}

static int paje_read(traza_ctx *ctx, traza_writer *w, const char *const *paths, size_t npaths, const traza_import_opts *opts,
                     traza_err *err)
{
    if (npaths != 1)
        return traza_err_set(err, TRAZA_E_USAGE, "the Pajé importer reads one file at a time (got %zu)", npaths);
    return read_one(ctx, w, paths[0], tz_strict(opts), err);
}

/* Content detection: a "%EventDef" header near the start. */
static int paje_detect(const char *path, const unsigned char *head, size_t len)
{
    (void)path;
    const char *h = (const char *)head;
    for (size_t i = 0; i + 9 <= len; i++) {
        if (head[i] != '%')
            continue;
        if (i > 0 && head[i - 1] != '\n')
            continue;
        size_t j = i + 1;
        while (j < len && (head[j] == ' ' || head[j] == '\t'))
            j++;
        if (j + 8 <= len && memcmp(h + j, "EventDef", 8) == 0)
            return 90;
    }
    return 0;
}

const traza_importer tz_importer_paje = {
    "paje", "import-paje", "Pajé trace files (pj_dump semantics: containers, states, events, variables, links)",
    paje_detect, paje_read};
