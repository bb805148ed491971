/* The HTTP transport of `traza serve`: libmicrohttpd, one internal polling thread
 * (requests are answered one at a time, so the API needs no locking), bounded
 * connection memory, GET/HEAD only, request bodies refused. */
#include "server/server.h"
#include "util/util.h"

#include <arpa/inet.h>
#include "server/mhd_api.h"
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct tz_server {
    struct MHD_Daemon *d;
    tz_api *api;
    int port;
};

typedef struct conn_state {
    size_t body;
} conn_state;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    tz_params *ps = cls;
    if (!key)
        return MHD_YES;
    if (tz_params_add(ps, key, strlen(key), value, value ? strlen(value) : 0) < 0)
        ps->overflow = 1;
    return MHD_YES;
}

static enum MHD_Result send_resp(struct MHD_Connection *conn, tz_resp *r, int head)
{
    struct MHD_Response *mr;
    /* HEAD gets the GET answer: libmicrohttpd sends its real Content-Length and
     * leaves the body out */
    (void)head;
    if (r->len == 0)
        mr = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    else if (r->is_static)
        mr = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_PERSISTENT);
    else {
        mr = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
        if (mr)
            r->body = NULL; /* owned by MHD now */
    }
    if (!mr) {
        tz_resp_free(r);
        return MHD_NO;
    }
    MHD_add_response_header(mr, "Content-Type", r->ctype ? r->ctype : "application/octet-stream");
    MHD_add_response_header(mr, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(mr, "Cache-Control", "no-store");
    MHD_add_response_header(mr, "Content-Security-Policy",
                            "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:");
    if (r->disposition[0])
        MHD_add_response_header(mr, "Content-Disposition", r->disposition);
    enum MHD_Result ok = MHD_queue_response(conn, (unsigned)r->status, mr);
    MHD_destroy_response(mr);
    tz_resp_free(r);
    return ok;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
    (void)version;
    (void)upload_data;
    tz_server *s = cls;
    if (!*con_cls) {
        conn_state *st = calloc(1, sizeof *st);
        if (!st)
            return MHD_NO;
        *con_cls = st;
        return MHD_YES;
    }
    conn_state *st = *con_cls;
    if (*upload_data_size) {
        /* bodies are never needed: count and drop them, refuse at the end */
        st->body += *upload_data_size;
        *upload_data_size = 0;
        return MHD_YES;
    }
    tz_resp r;
    memset(&r, 0, sizeof r);
    int head = method && strcmp(method, "HEAD") == 0;
    if (st->body) {
        static const char big[] = "{\"error\":\"request bodies are not accepted\",\"status\":413}\n";
        r.status = 413;
        r.ctype = "application/json";
        r.body = (char *)big;
        r.len = sizeof big - 1;
        r.is_static = 1;
        return send_resp(conn, &r, head);
    }
    tz_params ps;
    tz_params_init(&ps);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect, &ps);
    tz_api_handle(s->api, method, url, &ps, &r);
    tz_params_free(&ps);
    return send_resp(conn, &r, head);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    free(*con_cls);
    *con_cls = NULL;
}

/* MHD unescapes the path with this; an encoded NUL or a bad escape leaves a marker
 * byte (0x01) that the router refuses as a control character. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return 0;
    memcpy(copy, s, n + 1);
    if (tz_url_decode(copy, 0) < 0) {
        free(copy);
        s[0] = 1;
        s[1] = 0;
        return 1;
    }
    size_t m = strlen(copy);
    memcpy(s, copy, m + 1);
    free(copy);
    return m;
}

tz_server *tz_server_start(tz_api *api, const char *host, int port, traza_err *err)
{
    if (port < 0 || port > 65535) {
        traza_err_set(err, TRAZA_E_USAGE, "port %d is outside 0..65535", port);
        return NULL;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host ? host : "127.0.0.1", &sa.sin_addr) != 1) {
        traza_err_set(err, TRAZA_E_USAGE, "'%s' is not an IPv4 address (expected e.g. 127.0.0.1)", host);
        return NULL;
    }
    if (tz_mhd_load(err) < 0) /* libmicrohttpd is opened on first use */
        return NULL;
    tz_server *s = calloc(1, sizeof *s);
    if (!s) {
        traza_err_set(err, TRAZA_E_NOMEM, "out of memory");
        return NULL;
    }
    s->api = api;
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, (uint16_t)port, NULL, NULL, handler, s,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, (void *)NULL,
                            MHD_OPTION_UNESCAPE_CALLBACK, unescape, (void *)NULL,
                            MHD_OPTION_END);
    if (!s->d) {
        traza_err_set(err, TRAZA_E_IO, "cannot listen on %s:%d (address in use or not allowed)", host ? host : "127.0.0.1", port);
        free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : port;
    return s;
}

int tz_server_port(const tz_server *s)
{
    return s->port;
}

void tz_server_stop(tz_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    free(s);
}
