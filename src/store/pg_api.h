/* libpq, opened on first use (src/util/dynlib.c says why). Including this header
 * after <libpq-fe.h> turns every PQ call below into a call through the table. */
#ifndef TZ_PG_API_H
#define TZ_PG_API_H

#include <libpq-fe.h>
#include "util/dynlib.h"

#define TZ_PQ_FUNCS(X)                                                                                                  \
    X(PQclear) X(PQconnectdb) X(PQerrorMessage) X(PQescapeLiteral) X(PQexec) X(PQexecParams) X(PQfinish) X(PQfname) X(PQfreemem) X(PQftype) \
    X(PQgetResult) X(PQgetisnull) X(PQgetlength) X(PQgetvalue) X(PQnfields) X(PQntuples) X(PQputCopyData)            \
    X(PQputCopyEnd) X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) X(PQsetNoticeProcessor)           \
    X(PQstatus) X(PQtransactionStatus)

TZ_DYNLIB_DECLARE(pq, TZ_PQ_FUNCS)

#define PQclear (tz_pq_api_get()->PQclear)
#define PQconnectdb (tz_pq_api_get()->PQconnectdb)
#define PQerrorMessage (tz_pq_api_get()->PQerrorMessage)
#define PQescapeLiteral (tz_pq_api_get()->PQescapeLiteral)
#define PQexec (tz_pq_api_get()->PQexec)
#define PQexecParams (tz_pq_api_get()->PQexecParams)
#define PQfinish (tz_pq_api_get()->PQfinish)
#define PQfname (tz_pq_api_get()->PQfname)
#define PQfreemem (tz_pq_api_get()->PQfreemem)
#define PQftype (tz_pq_api_get()->PQftype)
#define PQgetResult (tz_pq_api_get()->PQgetResult)
#define PQgetisnull (tz_pq_api_get()->PQgetisnull)
#define PQgetlength (tz_pq_api_get()->PQgetlength)
#define PQgetvalue (tz_pq_api_get()->PQgetvalue)
#define PQnfields (tz_pq_api_get()->PQnfields)
#define PQntuples (tz_pq_api_get()->PQntuples)
#define PQputCopyData (tz_pq_api_get()->PQputCopyData)
#define PQputCopyEnd (tz_pq_api_get()->PQputCopyEnd)
#define PQresultErrorField (tz_pq_api_get()->PQresultErrorField)
#define PQresultErrorMessage (tz_pq_api_get()->PQresultErrorMessage)
#define PQresultStatus (tz_pq_api_get()->PQresultStatus)
#define PQsetNoticeProcessor (tz_pq_api_get()->PQsetNoticeProcessor)
#define PQstatus (tz_pq_api_get()->PQstatus)
#define PQtransactionStatus (tz_pq_api_get()->PQtransactionStatus)

#endif
