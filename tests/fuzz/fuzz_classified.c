/* fuzz_classified.c — libFuzzer target: nd_classified_load (a round's classified CSV). */
#include <stdint.h>

#include "fuzz_util.h"
#include "nd/calibrate/classified.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nd_classified c;
    nd_error err = {0};
    int rc = nd_classified_load(fuzz_write("round.csv", data, size), &c, &err);
    if (rc) {
        fuzz_check_refusal(rc, &err, "round.csv");
        return 0;
    }
    char label[256];
    nd_strategy base, s;
    nd_strategy_init(&base);
    for (size_t i = 0; i < c.count; i++) { /* what compare and fit do with each row */
        nd_classified_label(&c, &c.rows[i], label, sizeof label);
        nd_classified_strategy(&c.rows[i], &base, &s);
        (void)nd_classified_busy_ms(&c.rows[i]);
        (void)nd_classified_idle_ms(&c.rows[i]);
    }
    nd_classified_free(&c);
    return 0;
}
