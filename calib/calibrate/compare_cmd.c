/*
 * compare_cmd.c — nd-compare: load the round, estimate each row, print the
 * comparison, write <stem>_estimates.csv and <stem>_report.json, draw plots.
 */
#include "compare_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "nd/calibrate/classified.h"
#include "nd/calibrate/compare.h"
#include "compare_out.h"
#include "nd/html/html.h"
#include "nd/base/io.h"
#include "nd/charts/plot.h"
#include "nd/base/json.h"
#include "nd/costmodel/report.h"

/* The plots: files into -o DIR; with --report an SVG copy of each too (only the copy without
 * -o). */
static int draw_plots(const nd_compare_request *req, const char *dir, const char *stem, const nd_compare *c,
                      nd_plot_gallery *gallery, nd_error *err)
{
    if (req->no_plots || (!req->out_dir && !req->report)) return ND_OK;
    nd_plot_options opt;
    nd_plot_options_init(&opt);
    int rc = req->plot_format ? nd_plot_format_from_name(req->plot_format, &opt.format, err) : ND_OK;
    opt.gallery = req->report ? gallery : NULL;
    opt.gallery_only = !req->out_dir;
    return rc ? rc : nd_compare_plots(dir, stem, c, &opt, err);
}

static int write_report(const nd_compare_request *req, const nd_session *ses, const nd_compare *c,
                        const nd_plot_gallery *gallery, nd_html_capture *notes, nd_error *err)
{
    nd_compare_report_inputs in = {req->common.run_path, req->real_csv,     req->common.shared.ratios,
                                   ses->run.model.name,  ses->device->name, ses->budget_mib};
    return nd_compare_report_html(req->report, c, &in, gallery, notes, err);
}

static int write_outputs(const nd_compare_request *req, const nd_session *ses, const nd_compare *c,
                         const nd_classified *round, FILE *out, FILE *diag, nd_html_capture *notes,
                         nd_error *err)
{
    /* Into -o DIR only: nothing is written beside an input unless -o names its directory (ND
     * wrote beside the round, which put files into a repository's samples/). */
    char *stem = nd_path_stem(req->real_csv);
    if (!stem) return nd_error_set(err, ND_ENOMEM, "out of memory");
    const char *dir = req->out_dir;
    int rc = dir ? nd_make_dir(dir, err) : ND_OK;
    if (!dir && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag,
                "nd-compare: note: no -o DIR: %s_estimates.csv and %s_report.json are not written (-o DIR "
                "writes them and the plots there)\n",
                stem, stem);
    char *estimates = dir ? nd_path_printf("%s/%s_estimates.csv", dir, stem) : NULL;
    char *report = dir ? nd_path_printf("%s/%s_report.json", dir, stem) : NULL;
    cJSON *doc = nd_compare_report_json(c, req->real_csv, ses->run.model.name, ses->device->name);
    if (!doc || (dir && (!estimates || !report)))
        rc = rc ? rc : nd_error_set(err, ND_ENOMEM, "out of memory");
    if (!rc && dir) rc = nd_compare_write_estimates(estimates, c, round, err);
    if (!rc && dir) rc = nd_compare_write_report(report, doc, c, err);
    free(estimates);
    free(report);
    if (!rc && req->json && nd_compare_print_report(out, doc, c))
        rc = nd_error_set(err, ND_EIO, "cannot write stdout");
    nd_plot_gallery gallery = {0};
    if (!rc) rc = draw_plots(req, dir ? dir : ".", stem, c, &gallery, err);
    if (!rc && req->report) rc = write_report(req, ses, c, &gallery, notes, err);
    nd_plot_gallery_free(&gallery);
    cJSON_Delete(doc);
    free(stem);
    return rc;
}

int nd_compare_command(const nd_compare_request *req, FILE *out, FILE *diag, nd_error *err)
{
    if (!req->real_csv) return nd_error_set(err, ND_EUSAGE, "--real_csv ROUND.csv is required");
    if (req->plot_format) {
        nd_plot_format f;
        if (nd_plot_format_from_name(req->plot_format, &f, err)) return ND_EUSAGE;
    }
    /* Plot files are drawn into -o's directory only: --format without it would do nothing. */
    if (!req->out_dir && req->plot_format && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag, "nd-compare: note: --format is not used: plot files are drawn only with -o DIR\n");
    if (!req->out_dir && !req->report && req->no_plots && nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT))
        fprintf(diag,
                "nd-compare: note: --no-plots is not used: plots are drawn only with -o DIR or --report\n");
    /* With --report, what the run says on stderr is also kept for the report's notes. */
    FILE *progress = nd_cli_says(&req->common, ND_VERBOSITY_DEFAULT) ? diag : NULL; /* not in the report */
    nd_html_capture capture = {0};
    if (req->report && nd_html_capture_open(&capture, diag, err)) return err->code;
    if (req->report) diag = capture.fp;
    nd_session ses;
    int rc = nd_session_open(&ses, &req->common, false, diag, err);
    nd_classified round = {0};
    nd_compare cmp = {0};
    if (!rc) rc = nd_classified_load(req->real_csv, &round, err);
    if (!rc) {
        int peak = req->peak ? nd_peak_kind_from_name(req->peak) : ND_PEAK_DEVICE;
        if (peak < 0) {
            rc = nd_error_set(err, ND_EUSAGE, "--peak %s: expected device, reserved or allocated", req->peak);
            goto done;
        }
        nd_compare_inputs in = {&ses.run,
                                ses.device,
                                ses.budget_mib,
                                ses.has_ratios ? &ses.ratios.ratios : NULL,
                                (nd_peak_kind)peak,
                                req->common.mppb ? &ses.run.layout : NULL,
                                false};
        rc = nd_compare_round_progress(&in, &round, &cmp, progress, "nd-compare", err);
        if (!rc) nd_compare_print_skips(diag, &cmp);
    }
    if (!rc && !req->json) nd_compare_print(out, &cmp, req->real_csv);
    if (!rc) rc = write_outputs(req, &ses, &cmp, &round, out, diag, req->report ? &capture : NULL, err);
done:
    nd_compare_free(&cmp);
    nd_classified_free(&round);
    nd_session_close(&ses);
    nd_html_capture_close(&capture);
    return rc;
}

int nd_compare_recompute_flag(nd_cli_common *c, const char *arg, nd_error *err)
{
    if (strchr(arg, ','))
        return nd_error_set(err, ND_EUSAGE,
                            "--recompute %s: a round's rows ran one mode each; give one for the rows "
                            "that state none",
                            arg);
    return nd_cli_common_add_flag(c, "recompute", arg, "--recompute", err) < 0 ? ND_EUSAGE : 0;
}
