/* fuzz_classify_common.c — see fuzz_classify_common.h. */
#include "fuzz_classify_common.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz_util.h"

void fuzz_classify_path(const char *path, const char *name)
{
    nd_classify_options opts;
    nd_error err = {0};
    nd_classify_options_init(&opts);
    if (nd_classify_dims_parse("DP=2,MP=2,PP=2", &opts.dims, &err)) abort();
    opts.has_dims = true;
    nd_classify_run *run = nd_classify_run_alloc(&opts);
    if (!run) return;
    int rc = nd_classify_run_add(run, path, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, name);
    } else if ((rc = nd_classify_run_finish(run, &err)) == ND_OK) {
        char *header = nd_classify_csv_header(&run->opts.dims, false);
        free(header);
        nd_classify_report_print(run, fuzz_null_stream(), true);
        nd_classify_json_print(run, fuzz_null_stream());
    } else if (rc != ND_EINPUT) {
        fuzz_check_refusal(rc, &err, NULL);
    }
    nd_classify_run_free(run);
}
