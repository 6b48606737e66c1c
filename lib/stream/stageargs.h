/* stageargs.h - argv for the metadata stage line without options that do
 * not change the result (the output name, memory sizes), so that the same
 * pipeline writes the same bytes whatever file or buffer size it is given. */
#ifndef CAL_STAGEARGS_H
#define CAL_STAGEARGS_H

#include "stream/stream.h"

/* The stage line (cal_meta_add_stage, which drops -o itself) minus every option in drop (NULL-terminated; each takes a value:
 * "-S" drops "-S 1M" and "-S1M", "--buffer-size" drops both its forms). */
void cal_add_stage_without(cal_meta *m, int argc, char **argv, const char *extra, const char *const *drop);

/* Whether argv gives option lng ("--seed", also as "--seed=V") or the short
 * option shrt ("-m", also "-mV"; NULL for none) before any "--". For the
 * resolved defaults of the stage line: only options left implicit go there. */
int cal_arg_given(int argc, char **argv, const char *lng, const char *shrt);

#endif
