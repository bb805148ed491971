/* The GDB remote serial protocol client (src/util/gdb_remote.c) and the live reader's first
 * steps (src/import/rtlive.c): packets framed with their checksum and escapes,
 * replies unframed (escapes, run-length), a bad checksum refused with both sums and
 * asked for again, a memory read answered with an error naming the address, and the
 * texts of a refused connection and of a program without the control block. */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "import/rtlive.h"
#include "util/gdb_remote.h"

static void test_frame(void **state)
{
    (void)state;
    tz_buf b;
    tz_buf_init(&b);
    tz_gdb_remote_frame(&b, "m20000000,4", 11);
    assert_string_equal(b.s, "$m20000000,4#4f");
    tz_buf_reset(&b);
    tz_gdb_remote_frame(&b, "a#b", 3); /* '#' goes as "}" then '#' ^ 0x20 = 0x03 */
    assert_int_equal(b.len, 8);
    assert_memory_equal(b.s, "$a}\x03" "b#43", 8);
    tz_buf_free(&b);
}

static void test_unframe(void **state)
{
    (void)state;
    tz_buf b;
    tz_buf_init(&b);
    traza_err err;
    assert_int_equal(tz_gdb_remote_unframe("$OK#9a", 6, &b, &err), 0);
    assert_string_equal(b.s, "OK");
    /* "0* ": '0' and 3 more (' ' = 32 = 29 + 3) */
    assert_int_equal(tz_gdb_remote_unframe("$0* #7a", 7, &b, &err), 0);
    assert_string_equal(b.s, "0000");
    assert_int_equal(tz_gdb_remote_unframe("$a}\x03" "b#43", 8, &b, &err), 0);
    assert_string_equal(b.s, "a#b");
    assert_int_equal(tz_gdb_remote_unframe("$OK#00", 6, &b, &err), -1);
    assert_string_equal(err.msg, "packet checksum: expected 9a, found 00");
    assert_int_equal(tz_gdb_remote_unframe("$OK#9z", 6, &b, &err), -1);
    assert_string_equal(err.msg, "packet: expected two hex digits of checksum, found \"9z\"");
    assert_int_equal(tz_gdb_remote_unframe("OK#9a", 5, &b, &err), -1);
    assert_string_equal(err.msg, "packet: expected \"$payload#xx\", found 5 bytes starting with 0x4f");
    tz_buf_free(&b);
}

/* a listening socket on 127.0.0.1, its port */
static int listen_any(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 1), 0);
    socklen_t n = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &n);
    *port = ntohs(a.sin_port);
    return s;
}

/* A fake GDB server: answers qSupported, then the first "m" with a bad checksum (the client asks
 * again with '-'), then with "E14"; records what the client sent. */
typedef struct fake_gdb {
    int lfd;
    char got[1024];
    size_t ngot;
} fake_gdb;

static void recv_until(int fd, fake_gdb *s, const char *what)
{
    while (!memmem(s->got, s->ngot, what, strlen(what)) && s->ngot < sizeof s->got - 1) {
        ssize_t k = recv(fd, s->got + s->ngot, sizeof s->got - 1 - s->ngot, 0);
        if (k <= 0)
            return;
        s->ngot += (size_t)k;
    }
}

static void *fake_gdb_main(void *arg)
{
    fake_gdb *s = arg;
    int fd = accept(s->lfd, NULL, NULL);
    recv_until(fd, s, "qSupported");
    recv_until(fd, s, "#");
    send(fd, "+$PacketSize=100#c1", 19, 0);
    recv_until(fd, s, "$m");
    send(fd, "+$E14#00", 8, 0);  /* bad checksum: asked again */
    recv_until(fd, s, "-");
    send(fd, "$E14#aa", 7, 0);
    recv_until(fd, s, "++");
    close(fd);
    return NULL;
}

static void test_fake_gdb_session(void **state)
{
    (void)state;
    fake_gdb s = {0};
    int port;
    s.lfd = listen_any(&port);
    pthread_t th;
    pthread_create(&th, NULL, fake_gdb_main, &s);
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    tz_gdb_remote r;
    traza_err err;
    if (tz_gdb_remote_connect(&r, "127.0.0.1", ps, 5000, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r.max_packet, 0x100);
    uint8_t buf[4];
    assert_int_equal(tz_gdb_remote_read_mem(&r, 0x20000000, buf, 4, &err), -1);
    char want[128];
    snprintf(want, sizeof want, "127.0.0.1:%d: reading 4 bytes at 0x20000000: expected 8 hex digits, found \"E14\"", port);
    assert_string_equal(err.msg, want);
    tz_gdb_remote_close(&r);
    pthread_join(th, NULL);
    close(s.lfd);
    s.got[s.ngot] = '\0';
    /* the packets as framed, the '-' after the bad checksum, '+' after each good one */
    assert_non_null(strstr(s.got, "$qSupported:swbreak+;hwbreak+#"));
    assert_non_null(strstr(s.got, "+$m20000000,4#4f-+"));
}

static void test_connection_refused(void **state)
{
    (void)state;
    int port;
    int s = listen_any(&port);
    close(s); /* nothing listens there now */
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    tz_gdb_remote r;
    traza_err err;
    assert_int_equal(tz_gdb_remote_connect(&r, "127.0.0.1", ps, 1000, &err), -1);
    char want[128];
    snprintf(want, sizeof want, "127.0.0.1:%d: cannot connect to the GDB server: Connection refused", port);
    assert_string_equal(err.msg, want);
}

static void test_program_without_control_block(void **state)
{
    (void)state;
    /* this test program has a symbol table, but no traced runtime */
    traza_live_opts o = {0};
    o.host = "127.0.0.1";
    o.port = "1";
    o.program = "/proc/self/exe";
    o.interval_ms = 10;
    o.timeout_ms = 1000;
    tz_buf out;
    tz_buf_init(&out);
    traza_live_stats st;
    traza_err err;
    assert_int_equal(tz_rtlive_record(&o, &out, &st, &err), -1);
    assert_string_equal(err.msg, "/proc/self/exe: no symbol traza_rt_control in the program's symbol table");
    tz_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame),
        cmocka_unit_test(test_unframe),
        cmocka_unit_test(test_fake_gdb_session),
        cmocka_unit_test(test_connection_refused),
        cmocka_unit_test(test_program_without_control_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
