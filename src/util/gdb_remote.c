/* GDB remote serial protocol client (gdb_remote.h). */
#include "util/gdb_remote.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char hexd[] = "0123456789abcdef";

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void tz_gdb_remote_frame(tz_buf *out, const char *payload, size_t n)
{
    unsigned sum = 0;
    tz_buf_putc(out, '$');
    for (size_t i = 0; i < n; i++) {
        char c = payload[i];
        if (c == '$' || c == '#' || c == '}' || c == '*') {
            tz_buf_putc(out, '}');
            sum += '}';
            c ^= 0x20;
        }
        tz_buf_putc(out, c);
        sum += (unsigned char)c;
    }
    char t[3] = {'#', hexd[(sum >> 4) & 15], hexd[sum & 15]};
    tz_buf_put(out, t, 3);
}

int tz_gdb_remote_unframe(const char *p, size_t n, tz_buf *out, traza_err *err)
{
    if (n < 4 || p[0] != '$' || p[n - 3] != '#')
        return traza_err_set(err, TRAZA_E_PARSE, "packet: expected \"$payload#xx\", found %zu bytes starting with 0x%02x",
                             n, n ? (unsigned)(unsigned char)p[0] : 0u);
    int h = hexval((unsigned char)p[n - 2]), l = hexval((unsigned char)p[n - 1]);
    if (h < 0 || l < 0)
        return traza_err_set(err, TRAZA_E_PARSE, "packet: expected two hex digits of checksum, found \"%c%c\"", p[n - 2],
                             p[n - 1]);
    unsigned sum = 0;
    for (size_t i = 1; i < n - 3; i++)
        sum += (unsigned char)p[i];
    if ((sum & 0xff) != (unsigned)(h << 4 | l))
        return traza_err_set(err, TRAZA_E_PARSE, "packet checksum: expected %02x, found %02x", sum & 0xff,
                             (unsigned)(h << 4 | l));
    tz_buf_reset(out);
    for (size_t i = 1; i < n - 3; i++) {
        char c = p[i];
        if (c == '}' && i + 1 < n - 3)
            c = (char)(p[++i] ^ 0x20);
        else if (c == '*' && out->len && i + 1 < n - 3) { /* run-length: the previous byte, count - 29 more */
            int k = (unsigned char)p[++i] - 29;
            if (k < 0)
                return traza_err_set(err, TRAZA_E_PARSE, "packet: run-length count at byte %zu: expected >= 29, found %d",
                                     i, k + 29);
            char prev = out->s[out->len - 1];
            for (int j = 0; j < k; j++)
                tz_buf_putc(out, prev);
            continue;
        }
        tz_buf_putc(out, c);
    }
    if (!out->s)
        tz_buf_put(out, "", 0);
    return out->oom ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : 0;
}

int tz_gdb_remote_connect(tz_gdb_remote *r, const char *host, const char *port, int timeout_ms, traza_err *err)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->timeout_ms = timeout_ms;
    r->max_packet = 400;
    tz_buf_init(&r->in);
    snprintf(r->peer, sizeof r->peer, "%s:%s", host, port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot resolve: %s", r->peer, gai_strerror(gai));
    int e = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
            /* every exchange is a few small packets, each waited for: sent at once
             * (Nagle's delay would wait for the peer's delayed acknowledgement) */
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            r->fd = fd;
            break;
        }
        e = errno;
        close(fd);
    }
    freeaddrinfo(res);
    if (r->fd < 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: cannot connect to the GDB server: %s", r->peer, strerror(e));
    tz_buf reply;
    tz_buf_init(&reply);
    int rc = tz_gdb_remote_command(r, "qSupported:swbreak+;hwbreak+", &reply, err);
    if (rc == 0) {
        const char *ps = strstr(reply.s, "PacketSize=");
        if (ps) {
            unsigned long v = strtoul(ps + 11, NULL, 16);
            if (v >= 64 && v <= (1u << 20))
                r->max_packet = v;
        }
    }
    tz_buf_free(&reply);
    if (rc < 0)
        tz_gdb_remote_close(r);
    return rc;
}

void tz_gdb_remote_close(tz_gdb_remote *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    tz_buf_free(&r->in);
}

static int send_all(tz_gdb_remote *r, const char *p, size_t n, traza_err *err)
{
    while (n) {
        ssize_t k = send(r->fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return traza_err_set(err, TRAZA_E_IO, "%s: send: %s", r->peer, strerror(errno));
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* more bytes into r->in, waiting at most the timeout */
static int fill(tz_gdb_remote *r, traza_err *err)
{
    struct pollfd pf = {r->fd, POLLIN, 0};
    int k;
    do
        k = poll(&pf, 1, r->timeout_ms);
    while (k < 0 && errno == EINTR);
    if (k == 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: no answer from the GDB server within %d ms", r->peer, r->timeout_ms);
    char buf[4096];
    ssize_t n;
    do
        n = recv(r->fd, buf, sizeof buf, 0);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: the GDB server closed the connection", r->peer);
    if (n < 0)
        return traza_err_set(err, TRAZA_E_IO, "%s: recv: %s", r->peer, strerror(errno));
    tz_buf_put(&r->in, buf, (size_t)n);
    return r->in.oom ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : 0;
}

static void consume(tz_gdb_remote *r, size_t n)
{
    memmove(r->in.s, r->in.s + n, r->in.len - n);
    r->in.len -= n;
    r->in.s[r->in.len] = '\0';
}

/* The next packet (acks before it skipped), acknowledged; a bad one is asked again. */
static int read_packet(tz_gdb_remote *r, tz_buf *payload, traza_err *err)
{
    for (int tries = 0;;) {
        size_t start = 0;
        while (start < r->in.len && r->in.s[start] != '$')
            start++;
        char *hash = start < r->in.len ? memchr(r->in.s + start, '#', r->in.len - start) : NULL;
        if (!hash || (size_t)(hash - r->in.s) + 3 > r->in.len) {
            if (fill(r, err) < 0)
                return -1;
            continue;
        }
        size_t end = (size_t)(hash - r->in.s) + 3;
        int rc = tz_gdb_remote_unframe(r->in.s + start, end - start, payload, err);
        consume(r, end);
        if (rc == 0)
            return send_all(r, "+", 1, err);
        if (++tries >= 3 || send_all(r, "-", 1, err) < 0) {
            traza_err_prefix(err, "%s: ", r->peer);
            return -1;
        }
    }
}

static int send_packet(tz_gdb_remote *r, const char *cmd, traza_err *err)
{
    tz_buf f;
    tz_buf_init(&f);
    tz_gdb_remote_frame(&f, cmd, strlen(cmd));
    int rc = f.oom ? traza_err_set(err, TRAZA_E_NOMEM, "out of memory") : 0;
    /* '+' acknowledges; '-' asks for the packet again */
    for (int tries = 0; rc == 0; tries++) {
        if ((rc = send_all(r, f.s, f.len, err)) < 0)
            break;
        while (rc == 0 && r->in.len == 0)
            rc = fill(r, err);
        if (rc < 0)
            break;
        char a = r->in.s[0];
        if (a == '+') {
            consume(r, 1);
            break;
        }
        if (a != '-' || tries >= 3) {
            if (a != '-')
                break; /* no-ack mode or a reply already: read_packet takes it */
            rc = traza_err_set(err, TRAZA_E_IO, "%s: the GDB server refused the packet \"%s\" %d times", r->peer, cmd,
                               tries + 1);
            break;
        }
        consume(r, 1);
    }
    tz_buf_free(&f);
    return rc;
}

int tz_gdb_remote_command(tz_gdb_remote *r, const char *cmd, tz_buf *reply, traza_err *err)
{
    if (send_packet(r, cmd, err) < 0)
        return -1;
    return read_packet(r, reply, err);
}

int tz_gdb_remote_continue(tz_gdb_remote *r, traza_err *err) { return send_packet(r, "c", err); }

int tz_gdb_remote_interrupt(tz_gdb_remote *r, tz_buf *reply, traza_err *err)
{
    if (send_all(r, "\x03", 1, err) < 0)
        return -1;
    return read_packet(r, reply, err);
}

int tz_gdb_remote_read_mem(tz_gdb_remote *r, uint64_t addr, void *buf, size_t n, traza_err *err)
{
    uint8_t *out = buf;
    size_t chunk = (r->max_packet - 8) / 2;
    tz_buf reply;
    tz_buf_init(&reply);
    int rc = 0;
    while (rc == 0 && n) {
        size_t k = n < chunk ? n : chunk;
        char cmd[64];
        snprintf(cmd, sizeof cmd, "m%" PRIx64 ",%zx", addr, k);
        if ((rc = tz_gdb_remote_command(r, cmd, &reply, err)) < 0)
            break;
        if (reply.len != 2 * k) {
            rc = traza_err_set(err, TRAZA_E_IO, "%s: reading %zu bytes at 0x%08" PRIx64 ": expected %zu hex digits, "
                               "found \"%.16s\"", r->peer, k, addr, 2 * k, reply.s);
            break;
        }
        for (size_t i = 0; i < k; i++) {
            int h = hexval((unsigned char)reply.s[2 * i]), l = hexval((unsigned char)reply.s[2 * i + 1]);
            if (h < 0 || l < 0) {
                rc = traza_err_set(err, TRAZA_E_IO, "%s: reading 0x%08" PRIx64 ": expected hex digits at %zu, found "
                                   "\"%.2s\"", r->peer, addr, 2 * i, reply.s + 2 * i);
                break;
            }
            out[i] = (uint8_t)(h << 4 | l);
        }
        addr += k;
        out += k;
        n -= k;
    }
    tz_buf_free(&reply);
    return rc;
}
