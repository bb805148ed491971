/* The HTTP transport in a build made without libmicrohttpd's development files (the
 * Makefile compiles this file instead of server.c then): starting a server fails
 * naming the library this build lacks; the rest of the server (the API, the web
 * bundle) is built as usual. */
#include "server/server.h"
#include "util/features.h"

const int tz_built_serve = 0;

tz_server *tz_server_start(tz_api *api, const char *host, int port, const tz_server_opts *opts, traza_err *err)
{
    (void)api;
    (void)host;
    (void)port;
    (void)opts;
    traza_feature f;
    tz_server_feature(&f);
    tz_feature_missing(err, NULL, &f);
    return NULL;
}

int tz_server_port(const tz_server *s)
{
    (void)s;
    return -1;
}

int tz_server_stop(tz_server *s, int wait_ms)
{
    (void)s;
    (void)wait_ms;
    return 0;
}
