/* The RTOS tasks a bare-metal runtime's ring names, and their names read from the
 * target (rtring.h). The records hold a task's id only; its name lives in the
 * firmware's memory (the kernel's task control block), which the runtime's table
 * traza_rt_task_names points into: a reader of a running target reads it there while
 * the target is halted for a poll. */
#include "import/rtring.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

/* Skips cnt varints (the addresses of a STACK or TASK record). */
static int skip(const uint8_t *e, size_t n, size_t *pos, uint64_t cnt)
{
    uint64_t a;
    if (cnt > n - *pos) /* an address takes a byte at least */
        return -1;
    for (uint64_t i = 0; i < cnt; i++)
        if (tz_get_uleb(e, n, pos, &a) < 0)
            return -1;
    return 0;
}

static int add_task(tz_rtring *r, uint64_t id, int isr)
{
    if (id > UINT32_MAX)
        return 0; /* the importer refuses the id */
    for (size_t i = 0; i < r->ntasks; i++)
        if (r->tasks[i].id == id) {
            r->tasks[i].isr |= isr;
            return 0;
        }
    if (TZ_GROW(r->tasks, r->taskcap, r->ntasks + 1) < 0)
        return -1;
    tz_rtring_task *t = &r->tasks[r->ntasks++];
    memset(t, 0, sizeof *t);
    t->id = (uint32_t)id;
    t->isr = isr;
    t->state = TZ_RTTASK_UNREAD;
    return 0;
}

int tz_rtring_scan_tasks(tz_rtring *r, traza_err *err)
{
    if (r->pend.len <= TZR_BLOCK_HEADER_SIZE || r->scan_off)
        return 0;
    const uint8_t *e = (const uint8_t *)r->pend.s + TZR_BLOCK_HEADER_SIZE;
    size_t n = r->pend.len - TZR_BLOCK_HEADER_SIZE, pos = r->scanned;
    while (pos < n) {
        size_t at = pos;
        uint64_t h = 0, a = 0, b = 0;
        int ok = tz_get_uleb(e, n, &pos, &h) == 0;
        unsigned kind = (unsigned)(h & 3);
        if (ok && kind == TZR_K_ENTRY)
            ok = tz_get_uleb(e, n, &pos, &a) == 0;
        else if (ok && kind == TZR_K_USER)
            ok = tz_get_uleb(e, n, &pos, &a) == 0 && tz_get_uleb(e, n, &pos, &b) == 0;
        else if (ok && kind == TZR_K_EXT) {
            ok = pos < n;
            unsigned sub = ok ? e[pos++] : 0;
            if (!ok)
                ;
            else if (sub == TZR_EXT_STATE) {
                ok = tz_get_uleb(e, n, &pos, &a) == 0 && tz_get_uleb(e, n, &pos, &b) == 0;
                if (ok && add_task(r, a, 0) < 0)
                    goto nomem;
            } else if (sub == TZR_EXT_TASK || sub == TZR_EXT_ISR_ENTER || sub == TZR_EXT_ISR_EXIT) {
                ok = tz_get_uleb(e, n, &pos, &a) == 0 && tz_get_uleb(e, n, &pos, &b) == 0 && skip(e, n, &pos, b) == 0;
                if (ok && add_task(r, a, sub == TZR_EXT_ISR_ENTER) < 0)
                    goto nomem;
            } else if (sub == TZR_EXT_STACK) {
                ok = tz_get_uleb(e, n, &pos, &b) == 0 && skip(e, n, &pos, b) == 0;
            } else {
                r->scan_off = 1;
                return 0;
            }
        }
        if (!ok) { /* a record the bytes taken so far end inside: looked at again with more */
            pos = at;
            break;
        }
    }
    r->scanned = pos;
    return 0;
nomem:
    return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
}

/* The name at addr: read 8 bytes at a time (a name near the end of the memory is read
 * as far as it goes), up to its NUL; 0 when it is a printable name. */
static int read_name(tz_rtring_read_fn rd, void *user, uint64_t addr, char *name)
{
    size_t len = 0;
    while (len < TZ_RTRING_NAME_MAX + 1) {
        uint8_t b[8];
        traza_err ignored;
        traza_err_clear(&ignored);
        if (rd(user, addr + len, b, sizeof b, &ignored) < 0)
            return -1;
        for (size_t i = 0; i < sizeof b && len < TZ_RTRING_NAME_MAX + 1; i++) {
            if (b[i] == 0) {
                name[len] = '\0';
                return len ? 0 : -1;
            }
            if (b[i] < 0x20 || b[i] > 0x7e)
                return -1;
            name[len++] = (char)b[i];
        }
    }
    return -1; /* no NUL within the bound */
}

size_t tz_rtring_read_names(tz_rtring *r, tz_rtring_read_fn rd, void *user, uint64_t table, uint64_t n)
{
    size_t named = 0;
    for (size_t i = 0; i < r->ntasks; i++) {
        tz_rtring_task *t = &r->tasks[i];
        if (t->state != TZ_RTTASK_UNREAD)
            continue;
        t->state = TZ_RTTASK_UNNAMED;
        uint8_t p[4];
        traza_err ignored;
        traza_err_clear(&ignored);
        if (!table || t->id >= n || rd(user, table + 4 * (uint64_t)t->id, p, sizeof p, &ignored) < 0)
            continue;
        uint32_t at = tz_get_le32(p);
        if (at && read_name(rd, user, at, t->name) == 0) {
            t->state = TZ_RTTASK_NAMED;
            named++;
        }
    }
    return named;
}

size_t tz_rtring_tasks_in(const tz_rtring *r, int state)
{
    size_t k = 0;
    for (size_t i = 0; i < r->ntasks; i++)
        k += r->tasks[i].state == state;
    return k;
}
