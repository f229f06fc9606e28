/*
 * func_datetime.c — date and time scalar functions (placeholder table).
 */
#include "exec/functions.h"

const floe_func_def floe_datetime_funcs[] = {
    {0},
};
