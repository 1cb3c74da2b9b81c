/* What an event name means to the classifier: ND's phase and call-site patterns
 * (docs/reference/nd-calibration.md §3.2-§3.3), communication roots, and the collective a
 * name stands for. Computed once per distinct name (the caller caches). */
#include "classify_internal.h"

#include <ctype.h>
#include <string.h>

/* Where needle first appears in s[0, len), or NULL. */
static const char *find(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (n > len) return NULL;
    const char *end = s + len - n;
    for (const char *p = s; p <= end; p++) {
        p = memchr(p, needle[0], (size_t)(end - p) + 1);
        if (!p) return NULL;
        if (memcmp(p, needle, n) == 0) return p;
    }
    return NULL;
}

static bool has(const char *s, size_t len, const char *needle)
{
    return find(s, len, needle) != NULL;
}

static bool starts(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

/* "<prefix><digits><suffix>" somewhere in s (Python frame names carry line numbers). */
static bool has_py_line(const char *s, size_t len, const char *prefix, const char *suffix)
{
    size_t np = strlen(prefix), ns = strlen(suffix);
    for (size_t i = 0; i + np <= len; i++) {
        if (memcmp(s + i, prefix, np) != 0) continue;
        size_t j = i + np, d = j;
        while (j < len && isdigit((unsigned char)s[j])) j++;
        if (j > d && j + ns <= len && memcmp(s + j, suffix, ns) == 0) return true;
    }
    return false;
}

/* Ends with "torch/distributed/distributed_c10d.py(<n>): <word>"; *word gets the word. */
static bool c10d_python(const char *s, size_t len, const char **word, size_t *word_len)
{
    static const char key[] = "torch/distributed/distributed_c10d.py(";
    const size_t nk = sizeof key - 1;
    for (size_t i = len >= nk ? len - nk + 1 : 0; i-- > 0;) {
        if (memcmp(s + i, key, nk) != 0) continue;
        size_t j = i + nk, d = j;
        while (j < len && isdigit((unsigned char)s[j])) j++;
        if (j == d || j + 3 > len || memcmp(s + j, "): ", 3) != 0) return false;
        size_t w = j + 3;
        if (w == len) return false;
        for (size_t k = w; k < len; k++)
            if (!isalnum((unsigned char)s[k]) && s[k] != '_') return false;
        *word = s + w;
        *word_len = len - w;
        return true;
    }
    return false;
}

/* ND's call-site rules, in order; the index (1-based) is stored in the features. */
static unsigned rule_of(const char *s, size_t len)
{
    if (has(s, len, "sequence_parallel")) return 1;
    if (has(s, len, "tensor_parallel") || has(s, len, "tp_collective_lowering")) return 2;
    if (has(s, len, "context_parallel")) return 3;
    if (has(s, len, "expert_parallel")) return 4;
    if (has(s, len, "pipeline_parallel")) return 5;
    if (has(s, len, "clip_grad")) return 6;
    if (has(s, len, "core/fully_shard/")) return 7;
    if (has(s, len, "hyper_parallel/trainer/")) return 8;
    return 0;
}

/* ND's FSDP collective kinds, in order (1-based). */
static unsigned fsdp_kind_of(const char *s, size_t len)
{
    if (has(s, len, "all_gather") || has(s, len, "allgather") || has(s, len, "unshard")) return 1;
    if (has(s, len, "reduce_scatter") || has(s, len, "post_backward") ||
        has(s, len, "finalize_per_param_reductions"))
        return 2;
    if (has(s, len, "all_reduce") || has(s, len, "allreduce")) return 3;
    if (has(s, len, "all_to_all") || has(s, len, "alltoall")) return 4;
    if (has(s, len, "isend") || has(s, len, "irecv") || has(s, len, "send") || has(s, len, "recv") ||
        has(s, len, "p2p"))
        return 5;
    return 0;
}

static uint32_t phases_of(const char *s, size_t len)
{
    uint32_t f = 0;
    if (has(s, len, "autograd::engine::evaluate_function") ||
        has_py_line(s, len, "torch/autograd/__init__.py(", "): backward") ||
        has_py_line(s, len, "torch/_tensor.py(", "): backward"))
        f |= F_BW;
    if (has(s, len, "torch/utils/checkpoint.py") || has(s, len, "activation_checkpoint")) f |= F_REC;
    if (has(s, len, "Optimizer.step") || has(s, len, "torch/optim/") || has(s, len, "components/optim") ||
        has(s, len, "clip_grad") || has(s, len, "zero_grad"))
        f |= F_OPT;
    if (starts(s, len, "nn.Module: ")) f |= F_FW;
    return f;
}

/* The token after prefix, up to '_' '(' '@' or the end. */
static coll_kind coll_after(const char *s, size_t len, size_t from)
{
    size_t e = from;
    while (e < len && s[e] != '_' && s[e] != '(' && s[e] != '@' && s[e] != ' ') e++;
    return nd_classify_coll_from_text(s + from, e - from);
}

/* Communication kernels by what they are: the families of communication libraries,
 * matched on the kernel's name (docs/classify.md, "Communication kernels"). A prefix
 * family names its collective after the prefix (ncclDevKernel_AllReduce_...); the others
 * by the words of the whole name ("multimem_all_reduce" is an all-reduce), DeepEP's
 * dispatch and combine being the all-to-all of expert parallelism. */
typedef struct comm_family_def {
    const char *text;
    bool prefix;    /* text starts the name; else it appears anywhere in it */
    coll_kind kind; /* COLL_UNKNOWN: from the name's words */
    uint32_t extra; /* more feature bits */
} comm_family_def;

static const comm_family_def comm_families[] = {
    {"ncclKernel_", true, COLL_UNKNOWN, F_NCCL_FAMILY},    /* NCCL, RCCL (same names), NCCLX */
    {"ncclDevKernel_", true, COLL_UNKNOWN, F_NCCL_FAMILY}, /* NCCL >= 2.19 */
    {"mscclKernel_", true, COLL_UNKNOWN, 0},               /* MSCCL */
    {"hcom", true, COLL_UNKNOWN, 0},                       /* HCCL tasks: hcom_allReduce__... */
    {"Hccl", true, COLL_UNKNOWN, 0},
    {"rccl", false, COLL_UNKNOWN, 0},         /* RCCL's own kernels */
    {"deep_ep::", false, COLL_ALL_TO_ALL, 0}, /* DeepEP dispatch / combine */
    {"dpsk::ep::", false, COLL_ALL_TO_ALL, 0},
    {"nvshmem", false, COLL_UNKNOWN, 0}, /* NVSHMEM (nvshmemi_*, nvshmem_*) */
    {"mscclpp", false, COLL_UNKNOWN, 0}, /* MSCCL++ */
    {"ucc_tl_", false, COLL_UNKNOWN, 0}, /* UCC's transport layers */
    {"ucc_ec_", false, COLL_UNKNOWN, 0},
    {"symmetric_memory::", false, COLL_UNKNOWN, 0},     /* torch's symmetric-memory collectives */
    {"cross_device_reduce", false, COLL_ALL_REDUCE, 0}, /* vLLM's and SGLang's custom all-reduce */
};

/* The family a kernel name belongs to: sets F_COMM_KERNEL (and the family's bits) in *f
 * and returns the collective it runs; leaves *f alone for any other name. */
static coll_kind comm_family(const char *s, size_t len, uint32_t *f)
{
    for (size_t i = 0; i < sizeof comm_families / sizeof comm_families[0]; i++) {
        const comm_family_def *d = &comm_families[i];
        const char *at = d->prefix ? (starts(s, len, d->text) ? s : NULL) : find(s, len, d->text);
        if (!at) continue;
        *f |= F_COMM_KERNEL | d->extra;
        if (d->kind != COLL_UNKNOWN) return d->kind;
        if (!d->prefix) return nd_classify_coll_from_text(at, len - (size_t)(at - s));
        size_t from = strlen(d->text);
        if (from == 4 && len > 4 && s[4] == '_') from++; /* "hcom_allGather" */
        return coll_after(s, len, from);
    }
    return COLL_UNKNOWN;
}

static uint32_t comm_features(const char *s, size_t len)
{
    uint32_t f = 0;
    coll_kind k = COLL_UNKNOWN;
    const char *w;
    size_t wl;
    if (starts(s, len, "<built-in method wait of ")) f |= F_WAIT_ROOT;
    if (c10d_python(s, len, &w, &wl)) {
        f |= F_C10D_PY;
        k = nd_classify_coll_from_text(w, wl);
    }
    if (starts(s, len, "c10d::") || starts(s, len, "_c10d_functional::") ||
        starts(s, len, "c10d_functional::")) {
        const char *c = strstr(s, "::");
        f |= F_C10D_OP;
        k = nd_classify_coll_from_text(c + 2, len - (size_t)(c + 2 - s));
    }
    if (len == 18 && memcmp(s, "record_param_comms", 18) == 0) f |= F_RPC;
    if (starts(s, len, "nccl:") || starts(s, len, "gloo:")) {
        f |= F_COMM_ANNOT;
        k = nd_classify_coll_from_text(s + 5, len - 5);
    }
    coll_kind family = comm_family(s, len, &f);
    if (f & F_COMM_KERNEL) k = family;
    return f | ((uint32_t)k << F_COLL_SHIFT);
}

/* Any of the words, case-insensitively, in the lower-cased name. */
static bool any_of(const char *low, const char *const *words)
{
    for (; *words; words++)
        if (strstr(low, *words)) return true;
    return false;
}

/* The kernel class of a device kernel's name (docs/classify.md, "Kernel view"), tried in
 * this order: communication, memory, attention (backward first), grouped GEMM, GEMM,
 * elementwise and normalisation, other. A name longer than 255 bytes is judged on its
 * first 255. */
static nd_classify_kernel_class kernel_class_of(const char *s, size_t len, uint32_t comm)
{
    static const char *const memory[] = {"memcpy", "memset", NULL};
    static const char *const attention[] = {"flash", "fmha", "attention", "sdpa", "attn", NULL};
    static const char *const backward[] = {"bwd", "backward", "grad", "dq_", "dkdv", NULL};
    static const char *const grouped[] = {"grouped", "group_gemm", "groupgemm", NULL};
    static const char *const gemm[] = {"gemm",   "matmul", "xmma", "cutlass", "cublas", "nvjet",
                                       "scudnn", "addmm",  "bmm",  "aclnnmm", NULL};
    static const char *const elementwise[] = {
        "elementwise", "vectorized", "unrolled",  "reduce",     "norm",       "softmax",      "dropout",
        "gelu",        "silu",       "relu",      "swiglu",     "sigmoid",    "tanh",         "add",
        "mul",         "div",        "sqrt",      "cast",       "exp",        "copy",         "fill",
        "zero",        "where",      "pow",       "neg",        "clamp",      "multi_tensor", "bn_fw",
        "bn_bw",       "transdata",  "transpose", "nchwtonhwc", "nhwctonchw", "catarray",     "sum",
        "mean",        "max",        "min",       NULL};
    if (comm & F_COMM_KERNEL) return ND_KC_COMM;
    char low[256];
    size_t n = len < sizeof low - 1 ? len : sizeof low - 1;
    for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)s[i]);
    low[n] = '\0';
    for (char *fb = low; (fb = strstr(fb, "fbgemm"));) /* fbgemm_gpu: embedding kernels, not GEMMs */
        memcpy(fb, "fb_gem", 6);
    if (any_of(low, memory)) return ND_KC_MEMORY;
    if (any_of(low, attention)) return any_of(low, backward) ? ND_KC_ATTN_BWD : ND_KC_ATTN_FWD;
    if (any_of(low, grouped) && (strstr(low, "gemm") || strstr(low, "mm") || strstr(low, "matmul")))
        return ND_KC_GROUPED_GEMM;
    if (any_of(low, gemm)) return ND_KC_GEMM;
    if (any_of(low, elementwise)) return ND_KC_ELEMENTWISE;
    return ND_KC_OTHER;
}

/* A host op whose FLOPs nd counts from its input shapes. */
static op_kind op_kind_of(const char *s, size_t len)
{
    static const struct {
        const char *name;
        op_kind kind;
    } ops[] = {
        {"aten::mm", OPK_MM},
        {"aten::addmm", OPK_ADDMM},
        {"aten::bmm", OPK_BMM},
        {"aten::baddbmm", OPK_BADDBMM},
        {"aten::linear", OPK_LINEAR},
        {"aten::matmul", OPK_MATMUL},
        {"aten::_grouped_mm", OPK_GROUPED_MM},
        {"aten::_scaled_dot_product_flash_attention", OPK_ATTN_FWD_BHSD},
        {"aten::_scaled_dot_product_efficient_attention", OPK_ATTN_FWD_BHSD},
        {"aten::_scaled_dot_product_cudnn_attention", OPK_ATTN_FWD_BHSD},
        {"aten::_scaled_dot_product_flash_attention_backward", OPK_ATTN_BWD_BHSD},
        {"aten::_scaled_dot_product_efficient_attention_backward", OPK_ATTN_BWD_BHSD},
        {"aten::_scaled_dot_product_cudnn_attention_backward", OPK_ATTN_BWD_BHSD},
        {"aten::_flash_attention_forward", OPK_ATTN_FWD_BSHD},
        {"aten::_efficient_attention_forward", OPK_ATTN_FWD_BSHD},
        {"aten::_flash_attention_backward", OPK_ATTN_BWD_BSHD},
        {"aten::_efficient_attention_backward", OPK_ATTN_BWD_BSHD},
        {"flash_attn::_flash_attn_forward", OPK_ATTN_FWD_BSHD},
        {"flash_attn::_flash_attn_backward", OPK_ATTN_BWD_BSHD},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i].name) == len && !memcmp(ops[i].name, s, len)) return ops[i].kind;
    return OPK_NONE;
}

uint32_t nd_classify_name_features(const char *s, size_t len)
{
    uint32_t comm = comm_features(s, len);
    uint32_t f = phases_of(s, len) | comm;
    f |= (uint32_t)kernel_class_of(s, len, comm) << F_KCLASS_SHIFT;
    f |= (uint32_t)op_kind_of(s, len) << F_OPK_SHIFT;
    if (starts(s, len, "ProfilerStep#")) f |= F_STEP;
    f |= rule_of(s, len) << F_RULE_SHIFT;
    f |= fsdp_kind_of(s, len) << F_FSDP_SHIFT;
    return f;
}

const char *nd_classify_coll_label(coll_kind k)
{
    static const char *labels[COLL_COUNT] = {"unknown",        "all-reduce", "all-gather",
                                             "reduce-scatter", "all-to-all", "broadcast",
                                             "reduce",         "p2p",        "barrier"};
    return (unsigned)k < COLL_COUNT ? labels[k] : "unknown";
}

coll_kind nd_classify_coll_from_text(const char *s, size_t len)
{
    char n[64];
    size_t k = 0;
    for (size_t i = 0; i < len && k + 1 < sizeof n; i++)
        if (isalnum((unsigned char)s[i])) n[k++] = (char)tolower((unsigned char)s[i]);
    n[k] = '\0';
    if (strstr(n, "reducescatter")) return COLL_REDUCE_SCATTER;
    if (strstr(n, "allreduce")) return COLL_ALL_REDUCE;
    if (strstr(n, "allgather")) return COLL_ALL_GATHER;
    if (strstr(n, "alltoall")) return COLL_ALL_TO_ALL;
    if (strstr(n, "broadcast")) return COLL_BROADCAST;
    if (strstr(n, "send") || strstr(n, "recv") || strstr(n, "receive") || strstr(n, "p2p")) return COLL_P2P;
    if (strstr(n, "barrier")) return COLL_BARRIER;
    if (strstr(n, "reduce")) return COLL_REDUCE;
    return COLL_UNKNOWN;
}

const char *nd_classify_kernel_class_name(nd_classify_kernel_class c)
{
    static const char *names[ND_KC_COUNT] = {
        "gemm",          "grouped_gemm",  "attention_fwd", "attention_bwd", "elementwise_norm",
        "memcpy_memset", "communication", "other"};
    return (unsigned)c < ND_KC_COUNT ? names[c] : "?";
}

const char *nd_classify_coll_name(int coll)
{
    return nd_classify_coll_label((coll_kind)coll);
}

int nd_classify_summary_kind(const char *name, size_t len)
{
    static const char *const names[SUM_KINDS] = {"Computing", "Communication",
                                                 "Communication(Not Overlapped)", "Free"};
    for (int i = 0; i < SUM_KINDS; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], name, len)) return i;
    return -1;
}
