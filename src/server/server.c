/* The HTTP transport of `traza serve`: libmicrohttpd with a thread per connection,
 * small stacks (a connection thread only reads, waits and writes: 64 KiB of request
 * memory and TZ_CONN_STACK of stack). API requests are answered by the worker lanes
 * (lanes.c) while the connection's thread waits; static files and refusals are
 * answered at once. Abusive clients are bounded: connections in all
 * and per client address, a deadline for each request to arrive (headwatch.c), an
 * inactivity timeout. Request bodies are refused. GET/HEAD read; the endpoints that
 * change the workspace take POST only, and only from the served page: the request
 * carries the page's random token (X-Traza-Token) and, when the browser names its
 * origin, that origin is this server (a page of another site cannot POST here). */
#include "server/server.h"
#include "server/transport.h"
#include "util/util.h"

#include <arpa/inet.h>
#include "server/mhd_api.h"
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>

/* Stack of a connection thread: libmicrohttpd's parsing and this file's handler;
 * the API runs on the workers' default stacks. */
#define TZ_CONN_STACK (256 * 1024)

struct tz_server {
    struct MHD_Daemon *d;
    tz_api *api;
    int port;
    tz_lanes lanes;
    tz_headwatch watch;
    char host[64];                /* the address listened on, as the Host header names it */
    char token[TZ_TOKEN_LEN + 1]; /* the served page's token */
};

/* The headers a POST is judged by. */
typedef struct post_headers {
    const char *token, *origin, *host;
} post_headers;

static enum MHD_Result header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    post_headers *h = cls;
    if (!key || !value)
        return MHD_YES;
    if (strcasecmp(key, "X-Traza-Token") == 0)
        h->token = value;
    else if (strcasecmp(key, "Origin") == 0)
        h->origin = value;
    else if (strcasecmp(key, "Host") == 0)
        h->host = value;
    return MHD_YES;
}

/* 1 when host ("127.0.0.1:8080") names this server: its address and port, or
 * localhost on a loopback address. */
static int own_host(const tz_server *s, const char *host)
{
    char want[96];
    snprintf(want, sizeof want, "%s:%d", s->host, s->port);
    if (strcmp(host, want) == 0)
        return 1;
    snprintf(want, sizeof want, "localhost:%d", s->port);
    return strncmp(s->host, "127.", 4) == 0 && strcmp(host, want) == 0;
}

/* Token compared in constant time. */
static int token_ok(const char *want, const char *got)
{
    if (!got || strlen(got) != strlen(want))
        return 0;
    unsigned diff = 0;
    for (size_t i = 0; want[i]; i++)
        diff |= (unsigned)(want[i] ^ got[i]);
    return diff == 0;
}

/* NULL when the POST may proceed, else why not (a 403 answer). The Host header must
 * name this server too: a page whose name was pointed at this address (DNS
 * rebinding) has its own name there. */
static const char *post_refused(const tz_server *s, struct MHD_Connection *conn)
{
    post_headers h = {NULL, NULL, NULL};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, header, &h);
    if (!token_ok(s->token, h.token))
        return "{\"error\":\"forbidden: a POST needs the X-Traza-Token header of the served page\",\"status\":403}\n";
    if (!h.host || (strcmp(s->host, "0.0.0.0") != 0 && !own_host(s, h.host)))
        return "{\"error\":\"forbidden: the Host header does not name this server\",\"status\":403}\n";
    if (h.origin && (strncmp(h.origin, "http://", 7) != 0 || strcmp(h.origin + 7, h.host) != 0))
        return "{\"error\":\"forbidden: a POST from another origin\",\"status\":403}\n";
    return NULL;
}

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

static tz_headwatch_conn *watched(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void job_free(tz_job *job)
{
    if (!job)
        return;
    tz_params_free(&job->ps);
    tz_resp_free(&job->resp);
    free(job);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
    (void)version;
    (void)upload_data;
    tz_server *s = cls;
    tz_job *job = *con_cls;
    if (!job) {
        if (!(job = calloc(1, sizeof *job)))
            return MHD_NO;
        tz_params_init(&job->ps);
        *con_cls = job;
        return MHD_YES;
    }
    if (*upload_data_size) {
        /* bodies are never needed: count and drop them, refuse at the end */
        job->body += *upload_data_size;
        *upload_data_size = 0;
        return MHD_YES;
    }
    int head = method && strcmp(method, "HEAD") == 0;
    tz_headwatch_arrived(&s->watch, watched(conn));
    tz_resp r;
    memset(&r, 0, sizeof r);
    if (job->body) {
        tz_resp_static(&r, 413, "{\"error\":\"request bodies are not accepted\",\"status\":413}\n");
        return send_resp(conn, &r, head);
    }
    if (method && strcmp(method, "POST") == 0 && tz_api_changes(url)) {
        const char *why = post_refused(s, conn);
        if (why) {
            tz_resp_static(&r, 403, why);
            return send_resp(conn, &r, head);
        }
    }
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect, &job->ps);
    tz_lane lane = tz_api_lane(url);
    if (lane != TZ_LANE_INLINE) {
        job->method = method;
        job->url = url;
        if (tz_lanes_reserve(&s->lanes) == 0) {
            tz_lanes_push(&s->lanes, lane, job);
            tz_lanes_wait(&s->lanes, job);
            tz_resp ans = job->resp;
            memset(&job->resp, 0, sizeof job->resp);
            return send_resp(conn, &ans, head);
        }
        /* stopping: the lanes answer nothing more */
        tz_resp_static(&r, 503, TZ_STOPPING_JSON);
        return send_resp(conn, &r, head);
    }
    /* static files and refusals: no store access, so the shared API serves them */
    tz_api_handle(s->api, method, url, &job->ps, &r);
    return send_resp(conn, &r, head);
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    tz_server *s = cls;
    tz_headwatch_answered(&s->watch, watched(conn));
    job_free(*con_cls);
    *con_cls = NULL;
}

static void notify_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
    tz_server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = ci ? tz_headwatch_open(&s->watch, ci->connect_fd) : NULL;
    } else {
        tz_headwatch_close(&s->watch, *socket_context);
        *socket_context = NULL;
    }
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

/* The connection limit, lowered to what the descriptor limit allows (the store's
 * files and the server's own need some too). */
static unsigned conn_limit(int want)
{
    struct rlimit rl;
    long n = want;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur - 96 < n)
        n = (long)rl.rlim_cur - 96;
    return n < 16 ? 16u : (unsigned)n;
}

static void server_free(tz_server *s)
{
    tz_lanes_stop(&s->lanes);
    tz_headwatch_stop(&s->watch);
    free(s);
}

tz_server *tz_server_start(tz_api *api, const char *host, int port, const tz_server_opts *opts, traza_err *err)
{
    tz_server_opts o;
    if (opts)
        o = *opts;
    else
        tz_server_opts_default(&o);
    if (port < 0 || port > 65535) {
        traza_err_set(err, TRAZA_E_USAGE, "port %d is outside 0..65535", port);
        return NULL;
    }
    if (o.max_connections < 1 || o.max_per_client < 1 || o.request_timeout < 1 || o.idle_timeout < 1) {
        traza_err_set(err, TRAZA_E_USAGE, "connection limits and timeouts must be at least 1");
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
    snprintf(s->host, sizeof s->host, "%s", host ? host : "127.0.0.1");
    unsigned char rnd[TZ_TOKEN_LEN / 2];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        free(s);
        traza_err_set(err, TRAZA_E_IO, "cannot draw the page token (getrandom failed)");
        return NULL;
    }
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(s->token + 2 * i, 3, "%02x", rnd[i]);
    tz_api_set_token(api, s->token);
    if (tz_lanes_start(&s->lanes, api, o.view_workers, o.analysis_workers, err) < 0) {
        free(s);
        return NULL;
    }
    if (tz_headwatch_start(&s->watch, o.request_timeout, err) < 0) {
        tz_lanes_stop(&s->lanes);
        free(s);
        return NULL;
    }
    s->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, (uint16_t)port,
                            NULL, NULL, handler, s,
                            MHD_OPTION_THREAD_STACK_SIZE, (size_t)TZ_CONN_STACK,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
                            MHD_OPTION_CONNECTION_LIMIT, conn_limit(o.max_connections),
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)o.max_per_client,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)o.idle_timeout,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, (void *)s,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, (void *)s,
                            MHD_OPTION_UNESCAPE_CALLBACK, unescape, (void *)NULL,
                            MHD_OPTION_END);
    if (!s->d) {
        traza_err_set(err, TRAZA_E_IO, "cannot listen on %s:%d (address in use or not allowed)", host ? host : "127.0.0.1", port);
        server_free(s);
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

int tz_server_stop(tz_server *s, int wait_ms)
{
    if (!s)
        return 0;
    tz_api_cancel(s->api);
    if (tz_api_tools_quit(s->api, wait_ms) < 0)
        return -1; /* a tool still runs */
    if (tz_lanes_drain(&s->lanes, wait_ms) < 0)
        return -1; /* a request is still running: libmicrohttpd cannot stop under it */
    MHD_stop_daemon(s->d);
    server_free(s);
    return 0;
}
