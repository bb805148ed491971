/* A client of the GDB remote serial protocol (RSP) over TCP, as spoken by QEMU's
 * gdbstub, OpenOCD, pyOCD and J-Link's GDB server: packets "$payload#cs" (cs: the sum
 * of the payload bytes mod 256, two hex digits), each acknowledged by '+' ('-' asks
 * for it again); the byte 0x03 interrupts a running target. Only what reading target
 * memory needs: qSupported, "?", "m addr,len", "c" and the interrupt. */
#ifndef TZ_GDB_REMOTE_H
#define TZ_GDB_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include "traza/error.h"
#include "util/util.h"

typedef struct tz_gdb_remote {
    int fd;
    int timeout_ms;       /* per reply */
    size_t max_packet;    /* the stub's PacketSize (qSupported), else 400 */
    char peer[128];       /* "host:port", for messages */
    tz_buf in;            /* bytes received and not yet consumed */
} tz_gdb_remote;

/* The framed packet of payload (n bytes; '$', '#', '}' and '*' escaped) appended to out. */
void tz_gdb_remote_frame(tz_buf *out, const char *payload, size_t n);
/* Unframes the packet at p (n bytes, from '$' to the two checksum digits): the payload,
 * unescaped and run-length expanded, into out. 0, or -1 with err: what was expected
 * and found (checksum, framing). */
int tz_gdb_remote_unframe(const char *p, size_t n, tz_buf *out, traza_err *err);

/* Connects to host:port (timeout_ms for the connection and each reply). 0 or -1. */
int tz_gdb_remote_connect(tz_gdb_remote *r, const char *host, const char *port, int timeout_ms, traza_err *err);
void tz_gdb_remote_close(tz_gdb_remote *r);
/* Sends a packet and reads its reply into reply (NUL-terminated). 0 or -1. */
int tz_gdb_remote_command(tz_gdb_remote *r, const char *cmd, tz_buf *reply, traza_err *err);
/* Sends "c" (continue): no reply until the target stops. 0 or -1. */
int tz_gdb_remote_continue(tz_gdb_remote *r, traza_err *err);
/* Interrupts a running target (0x03) and reads its stop reply into reply. 0 or -1. */
int tz_gdb_remote_interrupt(tz_gdb_remote *r, tz_buf *reply, traza_err *err);
/* Reads n bytes of target memory at addr (as many "m" packets as the packet size
 * needs); an error reply names the address. 0 or -1. */
int tz_gdb_remote_read_mem(tz_gdb_remote *r, uint64_t addr, void *buf, size_t n, traza_err *err);

#endif
