/* traza — umbrella header of libtraza: every public header. */
#ifndef TRAZA_H
#define TRAZA_H
#include "traza/version.h"
#include "traza/error.h"
#include "traza/ctx.h"
#include "traza/model.h"
#include "traza/store.h"
#include "traza/result.h"
#include "traza/tool.h"
#include "traza/import.h"
#include "traza/export.h"
#include "traza/stats.h"
#include "traza/svg.h"
#include "traza/filters.h"
#include "traza/report.h"
#include "traza/analysis.h"
#include "traza/gen.h"
#include "traza/grammar.h"
#include "traza/itf.h"
#include "traza/ctf.h"
#include "traza/etm.h"
#include "traza/diff.h"
#endif
