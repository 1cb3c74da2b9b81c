/* temporary */
#include "framework_internal.h"
int fw_mindspeed_json_read(fw_reader *r) { return nd_error_set(r->err, ND_EUSAGE, "not yet"); }
int fw_mindspeed_json_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size, nd_error *err) { (void)run,(void)c,(void)dir,(void)written,(void)size; return nd_error_set(err, ND_EUSAGE, "not yet"); }
int fw_torchtitan_read(fw_reader *r) { return nd_error_set(r->err, ND_EUSAGE, "not yet"); }
int fw_torchtitan_write(const nd_run *run, const nd_config_choice *c, const char *dir, char *written, size_t size, nd_error *err) { (void)run,(void)c,(void)dir,(void)written,(void)size; return nd_error_set(err, ND_EUSAGE, "not yet"); }
