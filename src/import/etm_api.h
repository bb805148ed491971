/* OpenCSD's C API, opened on first use by the ETM importer (src/util/dynlib.c says why). */
#ifndef TZ_ETM_API_H
#define TZ_ETM_API_H

#include <opencsd/c_api/opencsd_c_api.h>
#include "util/dynlib.h"

#define TZ_OCSD_FUNCS(X)                                                                                                \
    X(ocsd_create_dcd_tree) X(ocsd_destroy_dcd_tree) X(ocsd_dt_add_binfile_region_mem_acc) X(ocsd_dt_create_decoder)  \
    X(ocsd_dt_process_data) X(ocsd_dt_set_gen_elem_outfn) X(ocsd_err_str) X(ocsd_get_last_err) \
    X(ocsd_dt_add_callback_mem_acc)

TZ_DYNLIB_DECLARE(ocsd, TZ_OCSD_FUNCS)

#define ocsd_create_dcd_tree (tz_ocsd_api_get()->ocsd_create_dcd_tree)
#define ocsd_destroy_dcd_tree (tz_ocsd_api_get()->ocsd_destroy_dcd_tree)
#define ocsd_dt_add_binfile_region_mem_acc (tz_ocsd_api_get()->ocsd_dt_add_binfile_region_mem_acc)
#define ocsd_dt_create_decoder (tz_ocsd_api_get()->ocsd_dt_create_decoder)
#define ocsd_dt_process_data (tz_ocsd_api_get()->ocsd_dt_process_data)
#define ocsd_dt_set_gen_elem_outfn (tz_ocsd_api_get()->ocsd_dt_set_gen_elem_outfn)
#define ocsd_err_str (tz_ocsd_api_get()->ocsd_err_str)
#define ocsd_get_last_err (tz_ocsd_api_get()->ocsd_get_last_err)
#define ocsd_dt_add_callback_mem_acc (tz_ocsd_api_get()->ocsd_dt_add_callback_mem_acc)

#endif
