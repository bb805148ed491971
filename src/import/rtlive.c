/* Live recording of a bare-metal runtime's ring through a GDB server (rtlive.h). */
#include "import/rtlive.h"
#include "import/rtring.h"
#include "traza/elf.h"
#include "util/le.h"
#include "util/gdb_remote.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int rsp_read(void *user, uint64_t addr, void *buf, size_t n, traza_err *err)
{
    return tz_gdb_remote_read_mem(user, addr, buf, n, err);
}

/* a stop reply that says the target is gone: W (exited) or X (killed) */
static int exited(const tz_buf *reply) { return reply->len && (reply->s[0] == 'W' || reply->s[0] == 'X'); }

static void take_counters(traza_live_stats *st, const tz_rtring *ring)
{
    st->events = ring->events;
    st->lost_blocks = ring->lost_blocks;
    st->overflow = ring->overflow;
    st->tasks_named = tz_rtring_tasks_in(ring, TZ_RTTASK_NAMED);
    st->tasks_unnamed = tz_rtring_tasks_in(ring, TZ_RTTASK_UNNAMED);
}

static void sleep_ms(int64_t ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int tz_rtlive_record(const traza_live_opts *o, tz_buf *out, traza_live_stats *st, traza_err *err)
{
    memset(st, 0, sizeof *st);
    traza_elf *elf = traza_elf_open(o->program, err);
    if (!elf)
        return -1;
    uint64_t ctl_addr, names = 0, names_size = 0;
    int rc = traza_elf_symbol(elf, "traza_rt_control", &ctl_addr, err);
    /* the RTOS runtime's table of task names (a firmware without tasks has none) */
    if (rc == 0 && traza_elf_symbol_sized(elf, "traza_rt_task_names", &names, &names_size, NULL) < 0)
        names = names_size = 0;
    traza_elf_close(elf);
    if (rc < 0)
        return traza_err_prefix(err, "%s: ", o->program);
    tz_gdb_remote rsp;
    if (tz_gdb_remote_connect(&rsp, o->host, o->port, o->timeout_ms, err) < 0)
        return -1;
    tz_buf reply, snap;
    tz_buf_init(&reply);
    tz_buf_init(&snap);
    tz_rtring ring;
    int have_ring = 0;
    uint8_t ctl[TZRC_SIZE];
    /* the target is stopped once a debugger is attached (or started halted) */
    rc = tz_gdb_remote_command(&rsp, "?", &reply, err);
    if (rc == 0 && exited(&reply))
        rc = traza_err_set(err, TRAZA_E_IO, "%s: the target has exited", rsp.peer);
    int64_t start = now_ms(), last_dump = start;
    int fresh = 0; /* events or task names taken since the last dump on_dump took */
    while (rc == 0) {
        uint64_t got = 0;
        if (!have_ring) {
            /* before the start-up code copied .data (a target halted at reset), the
             * control block reads as zeros: it is looked at again at the next poll */
            if ((rc = tz_gdb_remote_read_mem(&rsp, ctl_addr, ctl, sizeof ctl, err)) < 0)
                break;
            if (tz_get_le32(ctl) != 0) {
                char where[256];
                snprintf(where, sizeof where, "%s: control block traza_rt_control at 0x%08" PRIx64, rsp.peer, ctl_addr);
                if ((rc = tz_rtring_init(&ring, ctl, sizeof ctl, where, 0, err)) < 0) {
                    tz_rtring_free(&ring);
                    break;
                }
                have_ring = 1;
            }
        }
        if (have_ring) {
            if (tz_rtring_poll(&ring, rsp_read, &rsp, &got, err) < 0) {
                rc = -1;
                break;
            }
            /* the names of the tasks that appeared, while the target is halted */
            if (tz_rtring_read_names(&ring, rsp_read, &rsp, names, names_size / 4))
                fresh = 1;
            take_counters(st, &ring);
        }
        st->polls++;
        st->bytes += got;
        fresh |= got > 0;
        int64_t t = now_ms();
        if ((o->stop && *o->stop) || (o->duration_ms > 0 && t - start >= o->duration_ms))
            break; /* the target stays stopped */
        if ((rc = tz_gdb_remote_continue(&rsp, err)) < 0)
            break;
        int64_t ran = now_ms(); /* the target runs from here for the interval */
        if (o->on_dump && o->refresh_ms > 0 && fresh && have_ring && t - last_dump >= o->refresh_ms) {
            tz_buf_reset(&snap);
            if ((rc = tz_rtring_dump(&ring, o->program, &snap, err)) < 0)
                break;
            st->dumps++;
            if ((rc = o->on_dump(o->user, (const unsigned char *)snap.s, snap.len, st, err)) < 0)
                break;
            fresh = 0;
            last_dump = t;
        }
        sleep_ms(o->interval_ms - (now_ms() - ran));
        traza_err lost;
        traza_err_clear(&lost);
        if (tz_gdb_remote_interrupt(&rsp, &reply, &lost) < 0 || exited(&reply)) {
            st->target_exited = 1; /* the connection ends with the target (QEMU) */
            break;
        }
    }
    if (rc == 0 && !have_ring)
        rc = traza_err_set(err, TRAZA_E_NOTFOUND, "%s: the control block traza_rt_control at 0x%08" PRIx64
                           " stayed zero (the firmware never started?)", rsp.peer, ctl_addr);
    if (rc == 0) {
        take_counters(st, &ring);
        rc = tz_rtring_dump(&ring, o->program, out, err);
    }
    if (have_ring)
        tz_rtring_free(&ring);
    tz_buf_free(&snap);
    tz_buf_free(&reply);
    tz_gdb_remote_close(&rsp);
    return rc;
}

int traza_live_record(const traza_live_opts *o, unsigned char **dump, size_t *len, traza_live_stats *st,
                      traza_err *err)
{
    tz_buf b;
    tz_buf_init(&b);
    *dump = NULL;
    *len = 0;
    if (tz_rtlive_record(o, &b, st, err) < 0) {
        tz_buf_free(&b);
        return -1;
    }
    if (!b.s && !(b.s = malloc(1)))
        return traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
    *dump = (unsigned char *)b.s;
    *len = b.len;
    return 0;
}
