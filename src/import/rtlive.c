/* Live recording of a bare-metal runtime's ring through a GDB server (rtlive.h). */
#include "import/rtlive.h"
#include "import/rtring.h"
#include "traza/elf.h"
#include "util/le.h"
#include "util/rsp.h"

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
    return tz_rsp_read_mem(user, addr, buf, n, err);
}

/* a stop reply that says the target is gone: W (exited) or X (killed) */
static int exited(const tz_buf *reply) { return reply->len && (reply->s[0] == 'W' || reply->s[0] == 'X'); }

int tz_rtlive_record(const traza_live_opts *o, tz_buf *out, traza_live_stats *st, traza_err *err)
{
    memset(st, 0, sizeof *st);
    traza_elf *elf = traza_elf_open(o->program, err);
    if (!elf)
        return -1;
    uint64_t ctl_addr;
    int rc = traza_elf_symbol(elf, "traza_rt_control", &ctl_addr, err);
    traza_elf_close(elf);
    if (rc < 0)
        return traza_err_prefix(err, "%s: ", o->program);
    tz_rsp rsp;
    if (tz_rsp_connect(&rsp, o->host, o->port, o->timeout_ms, err) < 0)
        return -1;
    tz_buf reply;
    tz_buf_init(&reply);
    tz_rtring ring;
    int have_ring = 0;
    uint8_t ctl[TZRC_SIZE];
    /* the target is stopped once a debugger is attached (or started halted) */
    rc = tz_rsp_command(&rsp, "?", &reply, err);
    if (rc == 0 && exited(&reply))
        rc = traza_err_set(err, TRAZA_E_IO, "%s: the target has exited", rsp.peer);
    int64_t start = now_ms();
    while (rc == 0) {
        uint64_t got = 0;
        if (!have_ring) {
            /* before the start-up code copied .data (a target halted at reset), the
             * control block reads as zeros: it is looked at again at the next poll */
            if ((rc = tz_rsp_read_mem(&rsp, ctl_addr, ctl, sizeof ctl, err)) < 0)
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
        if (have_ring && tz_rtring_poll(&ring, rsp_read, &rsp, &got, err) < 0) {
            rc = -1;
            break;
        }
        st->polls++;
        st->bytes += got;
        int64_t t = now_ms();
        if ((o->stop && *o->stop) || (o->duration_ms > 0 && t - start >= o->duration_ms))
            break; /* the target stays stopped */
        if ((rc = tz_rsp_continue(&rsp, err)) < 0)
            break;
        struct timespec ts = {o->interval_ms / 1000, (long)(o->interval_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        traza_err lost;
        traza_err_clear(&lost);
        if (tz_rsp_interrupt(&rsp, &reply, &lost) < 0 || exited(&reply)) {
            st->target_exited = 1; /* the connection ends with the target (QEMU) */
            break;
        }
    }
    if (rc == 0 && !have_ring)
        rc = traza_err_set(err, TRAZA_E_NOTFOUND, "%s: the control block traza_rt_control at 0x%08" PRIx64
                           " stayed zero (the firmware never started?)", rsp.peer, ctl_addr);
    if (rc == 0) {
        st->events = ring.events;
        st->lost_blocks = ring.lost_blocks;
        st->overflow = ring.overflow;
        rc = tz_rtring_dump(&ring, o->program, out, err);
    }
    if (have_ring)
        tz_rtring_free(&ring);
    tz_buf_free(&reply);
    tz_rsp_close(&rsp);
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
