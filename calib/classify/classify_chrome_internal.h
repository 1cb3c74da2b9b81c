/*
 * classify_chrome_internal.h — what the Chrome trace reader's two halves share: the parse
 * state and the event being read (classify_chrome_event.c reads an event's fields as they
 * arrive and books it at its end; classify_chrome.c drives yajl over the file, its containers
 * and passes). Internal to nd_classify.
 */
#ifndef ND_CLASSIFY_CHROME_INTERNAL_H
#define ND_CLASSIFY_CHROME_INTERNAL_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "classify_trace.h"
#include "classify_fields.h"
#include "classify_json.h"
#include "classify_shapes.h"
#include "nd/base/text.h"

#define MAX_INPUTS 32
/* Containers nested deeper are refused: yajl keeps a byte per level, so a file of '['
 * would otherwise grow the parser's memory with its size. torch nests 4 levels. */
#define MAX_DEPTH      256
#define NAME_CACHE     4096
#define NAME_CACHE_LEN 160

enum key {
    K_NONE = 0,
    K_TRACE_EVENTS,
    K_DIST_INFO, /* top */
    K_PH,
    K_CAT,
    K_NAME,
    K_PID,
    K_TID,
    K_TS,
    K_DUR,
    K_ARGS, /* event */
    K_IN_DIMS,
    K_IN_TYPE,
    K_COLL,
    K_PG_NAME,
    K_PG_DESC,
    K_PG_RANKS,
    K_GROUP_SIZE,
    K_RANK_START,
    K_RANK_STRIDE,
    K_META_NAME,
    K_META_LABELS, /* args */
    K_RANK,
    K_WORLD,
    K_PG_CONFIG,
    K_CFG_NAME,
    K_CFG_DESC,
    K_CFG_SIZE,
    K_CFG_RANKS, /* dinfo */
    K_EXT,       /* args: "External id" */
    K_CORR,      /* args: "correlation" */
    K_NELEMS,    /* args: "In msg nelems", "Out msg nelems" */
    K_DTYPE      /* args: "dtype" */
};

typedef struct name_slot {
    uint64_t hash;
    uint32_t feat, dev_feat; /* of the name; of a device kernel of that name (--comm-kernel) */
    uint8_t hta;             /* REC_HTA_*: HTA's kernel type of the name */
    uint16_t len;
    char text[NAME_CACHE_LEN];
} name_slot;

typedef struct event {
    char ph;
    uint8_t cat;
    bool is_meta_proc; /* ph M process_name / process_labels */
    uint32_t feat, dev_feat;
    uint8_t hta; /* REC_HTA_* of the name */
    uint64_t pid, tid;
    bool has_ts, has_dur;
    nd_ns ts, dur;
    char step_name[48];
    const unsigned char *name; /* the event's name for a message: its name cache slot's text, */
    size_t name_len;           /* or name_cut for a name too long to cache */
    char name_cut[64];
    int n_inputs, n_types;
    double elems[MAX_INPUTS];
    int type_bytes[MAX_INPUTS];
    double shape_prod; /* product of the current shape */
    double list_sum;   /* sum over shapes of a list-of-shapes input */
    bool nested;
    char coll[64], pg_name[128], pg_desc[128], meta[64];
    char ranks[4096];
    size_t ranks_len;
    bool ranks_cut;
    int64_t group_size, rank_start, rank_stride;
    uint64_t ext_id, corr;
    double nelems;     /* "In/Out msg nelems": a collective's elements */
    int dtype_size;    /* of "dtype" ("Float", "BFloat16", ...); 0 unknown */
    op_dims dims;      /* the first inputs' shapes, for GEMM and attention ops */
    bool is_proc_name; /* ph M "process_name" */
    int summary_kind;  /* an "Overlap Analysis" row's name: summary_kind, or -1 */
} event;

typedef struct parse {
    trace_ctx *t;
    nd_error *err;
    json_feed feed;   /* the parser, the file's name and the byte reached */
    int depth, top;   /* top: 0 nothing yet, 'o' object, 'a' array */
    int events_depth; /* depth inside the events array, 0 when not in it */
    int info_depth;   /* depth inside distributedInfo, 0 when not in it */
    int skip_depth;   /* skipping a container opened at this depth */
    bool saw_events;
    enum key key[8];
    unsigned long long n_events;
    event ev;
    uint64_t device_pids[16], summary_pids[4];
    int n_device_pids, n_summary_pids;
    pg_config cfg; /* the pg_config entry being read */
    name_slot *cache;
    regex_t *comm_res; /* the user's communication kernels (options.comm_kernels) */
    size_t n_comm_res;
} parse;

/* A refusal naming the file and the byte reached (ND_EINPUT); returns 0, yajl's stop. */
int chrome_fail(parse *p, const char *fmt, ...) ND_PRINTF(2, 3);
/* Which key a field name is, where the parse stands (top level, an event, its args). */
enum key chrome_key_of(const parse *p, const unsigned char *s, size_t n);
/* An event opened (its fields cleared) and closed (booked as a record, or its metadata kept);
 * chrome_event_end returns 0 on a refusal. */
void chrome_event_begin(parse *p);
int chrome_event_end(parse *p);
/* A scalar value of kind '0' null, 'b' bool, 'n' number, 's' string at the current key. */
int chrome_scalar(parse *p, int kind, const unsigned char *s, size_t n);

#endif
