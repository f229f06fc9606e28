/*
 * func_numeric.c — numeric scalar functions (placeholder table; filled in
 * by the following commits).
 */
#include "exec/functions.h"

const floe_func_def floe_numeric_funcs[] = {
    {0},
};
