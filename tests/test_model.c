/* Parameter counts against published totals, and models loaded from files.
 * Published totals: Llama-3-8B 8,030,261,248 and Llama-3-70B 70,553,706,496 (Meta's model
 * cards / the Hugging Face safetensors index), Mixtral-8x7B 46,702,792,704 (Mistral AI's
 * card); DeepSeek-V3 671 B main model and 685 B with MTP (DeepSeek-V3 technical report,
 * arXiv:2412.19437, and its Hugging Face card). The others are derived by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd/costmodel/model.h"

static nd_model load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/models/%s", getenv("ND_SOURCE_DIR"), name);
    nd_model m;
    nd_error err = {0};
    int rc = nd_model_load_hf_json(&m, path, &err);
    if (rc) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(rc, 0);
    return m;
}

static int64_t total(const char *name)
{
    nd_model m = load(name);
    nd_param_count p;
    nd_model_count_params(&m, &p);
    return p.total;
}

static void llama3_published_counts(void **state)
{
    (void)state;
    assert_true(total("llama3-8b.json") == 8030261248LL);
    assert_true(total("llama3-70b.json") == 70553706496LL);
}

static void mixtral_published_count(void **state)
{
    (void)state;
    assert_true(total("mixtral-8x7b.json") == 46702792704LL);
}

static void deepseek_v3_within_half_a_percent(void **state)
{
    (void)state;
    nd_model m = load("deepseek-v3.json");
    nd_param_count p;
    nd_model_count_params(&m, &p);
    assert_true(fabs((double)p.total / 671e9 - 1) < 0.005);
    assert_true(fabs((double)p.total_with_mtp / 685e9 - 1) < 0.005);
    /* 37 B activated per token (the report's abstract). */
    assert_true(fabs((double)p.active_per_token / 37e9 - 1) < 0.03);
    assert_int_equal(nd_model_layer_kind(&m, 2), ND_LAYER_DENSE);
    assert_int_equal(nd_model_layer_kind(&m, 3), ND_LAYER_MOE);
    assert_int_equal(nd_model_count_kind(&m, 0, 61, ND_LAYER_DENSE), 3);
}

/* Qwen3-30B-A3B by hand: attention q 2048x4096 + k, v 2048x512 each + o 4096x2048 + q/k norms
 * 2x128 = 18,874,624; experts 128 x 3 x 2048 x 768 = 603,979,776; router 2048 x 128 = 262,144;
 * two norms 4,096: 623,120,640 per layer, x 48 = 29,909,790,720; embedding and head
 * 2 x 151,936 x 2048 = 622,329,856; final norm 2,048: 30,532,122,624 (the card says 30.5 B). */
static void qwen3_moe_by_hand(void **state)
{
    (void)state;
    assert_true(total("qwen3-30b-a3b.json") == 30532122624LL);
}

/* GPT-3 175B, Megatron style: per layer QKV 3h^2 + 3h, O h^2 + h, MLP 8h^2 + 5h, two LayerNorms
 * 4h: 12h^2 + 13h = 1,812,099,072 at h = 12288, x 96 = 173,961,510,912; token embedding
 * 51200 x 12288 = 629,145,600; positions 2048 x 12288 = 25,165,824; final LayerNorm 24,576;
 * tied output: 174,615,846,912 (Brown et al. 2020 report 175.0 B). */
static void gpt3_by_hand(void **state)
{
    (void)state;
    assert_true(total("gpt3-175b.json") == 174615846912LL);
}

/* Nemotron-4 340B by hand (NeMo's Nemotron4Config340B; heads of 18432 / 96 = 192): per layer
 * q and o 2 x 18432^2 = 679,477,248, k and v 2 x 18432 x 8 x 192 = 56,623,104, the squared-ReLU
 * MLP 2 x 18432 x 73728 = 2,717,908,992, two LayerNorms with biases 4 x 18432 = 73,728:
 * 3,454,083,072, x 96 = 331,591,974,912; untied embedding and head 2 x 256,000 x 18432 =
 * 9,437,184,000; final LayerNorm 36,864: 341,029,195,776 (the report, arXiv:2406.11704: 340 B). */
static void nemotron_by_hand(void **state)
{
    (void)state;
    nd_model m = load("nemotron4-340b.json");
    assert_int_equal(m.norm, ND_NORM_LAYER);
    assert_int_equal(m.mlp, ND_MLP_PLAIN);
    assert_true(total("nemotron4-340b.json") == 341029195776LL);
}

/* gpt-oss-120b by hand (its config.json; OpenAI's model card: 116.83 B): per layer q and o
 * 2 x 2880 x 4096 + k and v 2 x 2880 x 512 = 26,542,080 with biases 4096 + 512 + 512 + 2880 =
 * 8,000; 128 experts of gate-up 2880 x 5760 + 5760 and down 2880 x 2880 + 2880 = 3,186,155,520;
 * router 2880 x 128 + 128 = 368,768; two RMSNorms 5,760: 3,213,080,128, x 36 =
 * 115,670,884,608; untied embedding and head 2 x 201,088 x 2880 = 1,158,266,880; final norm
 * 2,880: 116,829,154,368. Half its layers see a window of 128 keys (layer_types). */
static void gpt_oss_by_hand(void **state)
{
    (void)state;
    nd_model m = load("gpt-oss-120b.json");
    assert_int_equal(m.sliding_window, 128);
    assert_int_equal(m.sliding_layers, 18);
    assert_int_equal(m.moe_ffn, 2880);
    assert_true(total("gpt-oss-120b.json") == 116829154368LL);
}

static nd_model parse(const char *json)
{
    nd_model m;
    nd_error err = {0};
    int rc = nd_model_parse_hf_json(&m, json, strlen(json), "config.json", &err);
    if (rc) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(rc, 0);
    return m;
}

static int64_t parsed_total(const nd_model *m)
{
    nd_param_count p;
    nd_model_count_params(m, &p);
    return p.total;
}

/* Gemma 2 9B as google/gemma-2-9b's config.json states it (no layer_types; its gelu_pytorch_tanh
 * in a gated MLP, GeGLU). By hand: q and o 2 x 3584 x 4096 + k and v 2 x 3584 x 2048 =
 * 44,040,192; GeGLU 3 x 3584 x 14336 = 154,140,672; four RMSNorms (pre and post, attention and
 * MLP) 14,336: 198,195,200 a layer, x 42 = 8,324,198,400; tied embedding 256,000 x 3584 =
 * 917,504,000; final norm 3,584: 9,241,705,984, the safetensors' total. Every even layer of
 * the 42 sees 4096 keys (Gemma2Attention: layer_idx % 2 == 0): 21. */
static void gemma2_by_hand(void **state)
{
    (void)state;
    nd_model m =
        parse("{\"architectures\": [\"Gemma2ForCausalLM\"], \"attention_bias\": false, "
              "\"attn_logit_softcapping\": 50.0, \"cache_implementation\": \"hybrid\", "
              "\"final_logit_softcapping\": 30.0, \"head_dim\": 256, \"hidden_act\": "
              "\"gelu_pytorch_tanh\", \"hidden_activation\": \"gelu_pytorch_tanh\", \"hidden_size\": "
              "3584, \"intermediate_size\": 14336, \"max_position_embeddings\": 8192, "
              "\"model_type\": \"gemma2\", \"num_attention_heads\": 16, \"num_hidden_layers\": 42, "
              "\"num_key_value_heads\": 8, \"query_pre_attn_scalar\": 256, \"rms_norm_eps\": 1e-06, "
              "\"rope_theta\": 10000.0, \"sliding_window\": 4096, \"torch_dtype\": \"float32\", "
              "\"vocab_size\": 256000}");
    assert_int_equal(m.mlp, ND_MLP_GATED);
    assert_true(m.post_norms && m.tied_embeddings);
    assert_int_equal(m.sliding_layers, 21);
    assert_true(parsed_total(&m) == 9241705984LL);
}

/* ChatGLM3-6B as THUDM's config.json (remote code, model_type chatglm) states it. By hand: QKV
 * 4096 x (4096 + 2 x 2 x 128) = 18,874,368 with its bias 4,608 (add_qkv_bias); dense 4096^2 =
 * 16,777,216 (add_bias_linear false); SwiGLU 4096 x 2 x 13696 + 13696 x 4096 = 168,296,448; two
 * RMSNorms 8,192: 203,960,832 a layer, x 28 = 5,710,903,296; untied embedding and output layer
 * 2 x 65,024 x 4096 = 532,676,608; final norm 4,096: 6,243,584,000 (the card's 6.24 B). */
static void chatglm3_by_hand(void **state)
{
    (void)state;
    nd_model m =
        parse("{\"model_type\": \"chatglm\", \"add_bias_linear\": false, \"add_qkv_bias\": true, "
              "\"apply_query_key_layer_scaling\": true, \"apply_residual_connection_post_layernorm\": "
              "false, \"attention_softmax_in_fp32\": true, \"ffn_hidden_size\": 13696, "
              "\"fp32_residual_connection\": false, \"hidden_size\": 4096, \"kv_channels\": 128, "
              "\"layernorm_epsilon\": 1e-05, \"multi_query_attention\": true, "
              "\"multi_query_group_num\": 2, \"num_attention_heads\": 32, \"num_layers\": 28, "
              "\"original_rope\": true, \"padded_vocab_size\": 65024, \"post_layer_norm\": true, "
              "\"rmsnorm\": true, \"seq_length\": 8192, \"tie_word_embeddings\": false, "
              "\"torch_dtype\": \"float16\"}");
    assert_int_equal(m.kv_heads, 2);
    assert_int_equal(m.head_dim, 128);
    assert_true(m.qkv_bias && !m.o_bias && !m.mlp_bias);
    assert_true(parsed_total(&m) == 6243584000LL);
}

/* GLM-4-9B in Transformers' own form (model_type glm, THUDM/glm-4-9b-hf): attention_bias puts
 * biases on q, k and v only (GlmAttention's o_proj has none). By hand: QKV 4096 x 4608 + 4608,
 * O 4096^2, SwiGLU 3 x 4096 x 13696 = 168,296,448, two norms 8,192: 203,960,832 a layer, x 40 =
 * 8,158,433,280; untied 2 x 151,552 x 4096 = 1,241,513,984; final norm 4,096: 9,399,951,360
 * (the card's 9.4 B). */
static void glm4_hf_by_hand(void **state)
{
    (void)state;
    nd_model m =
        parse("{\"model_type\": \"glm\", \"attention_bias\": true, \"head_dim\": 128, "
              "\"hidden_act\": \"silu\", \"hidden_size\": 4096, \"intermediate_size\": 13696, "
              "\"max_position_embeddings\": 131072, \"num_attention_heads\": 32, "
              "\"num_hidden_layers\": 40, \"num_key_value_heads\": 2, \"partial_rotary_factor\": 0.5, "
              "\"rms_norm_eps\": 1.5625e-07, \"tie_word_embeddings\": false, \"vocab_size\": 151552}");
    assert_true(m.qkv_bias && !m.o_bias);
    assert_true(parsed_total(&m) == 9399951360LL);
}

/* Grok-1 as hpcai-tech's port states it (model_type grok-1). By hand: q and o 2 x 6144^2 + k
 * and v 2 x 6144 x 1024 = 88,080,384; 8 experts 3 x 6144 x 32768 = 4,831,838,208; router
 * 49,152; four RMSNorms (before and after attention and the experts) 24,576: 4,919,992,320 a
 * layer, x 64 = 314,879,508,480; tied embedding 131,072 x 6144 = 805,306,368; final norm
 * 6,144: 315,684,820,992, xAI's "314B". */
static void grok1_by_hand(void **state)
{
    (void)state;
    nd_model m = parse("{\"model_type\": \"grok-1\", \"attn_output_multiplier\": 0.08838834764831845, "
                       "\"embedding_multiplier_scale\": 78.38367176906169, \"hidden_size\": 6144, "
                       "\"intermediate_size\": 32768, \"max_attn_value\": 30.0, \"max_position_embeddings\": "
                       "8192, \"num_attention_heads\": 48, \"num_experts\": 8, \"num_experts_per_tok\": 2, "
                       "\"num_hidden_layers\": 64, \"num_key_value_heads\": 8, \"output_multiplier_scale\": "
                       "0.5773502691896257, \"rms_norm_eps\": 1e-05, \"vocab_size\": 131072}");
    assert_true(m.post_norms && m.tied_embeddings);
    assert_int_equal(m.moe_ffn, 32768);
    assert_true(parsed_total(&m) == 315684820992LL);
    assert_true(fabs((double)parsed_total(&m) / 314e9 - 1) < 0.01);
}

/* Mistral-7B-v0.1's config.json: its 4096-key window applies on all 32 layers
 * (MistralAttention), with no layer_types to say so. */
static void mistral_window_on_every_layer(void **state)
{
    (void)state;
    nd_model m = parse("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336, "
                       "\"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8, "
                       "\"sliding_window\": 4096, \"vocab_size\": 32000, \"tie_word_embeddings\": false}");
    assert_int_equal(m.sliding_layers, 32);
    m = parse("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336, "
              "\"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8, "
              "\"sliding_window\": null, \"vocab_size\": 32768}");
    assert_int_equal(m.sliding_layers, 0);
}

static void validation_names_the_field(void **state)
{
    (void)state;
    nd_model m;
    memset(&m, 0, sizeof m);
    m.hidden = 4096;
    m.layers = 32;
    m.heads = 30;
    m.vocab = 32000;
    m.ffn = 11008;
    nd_error err = {0};
    assert_int_equal(nd_model_validate(&m, "x.json", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "hidden_size 4096 does not divide over 30 heads"));
    m.heads = 32;
    m.kv_heads = 5;
    assert_int_equal(nd_model_validate(&m, "x.json", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "num_key_value_heads"));
}

static void bad_json_is_refused_with_line(void **state)
{
    (void)state;
    const char text[] = "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 40 96\n}";
    nd_model m;
    nd_error err = {0};
    assert_int_equal(nd_model_parse_hf_json(&m, text, strlen(text), "c.json", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "c.json:3"));
    const char unknown[] = "{\"model_type\": \"bert\", \"hidden_size\": 768}";
    assert_int_equal(nd_model_parse_hf_json(&m, unknown, strlen(unknown), "c.json", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "model_type 'bert'"));
    const char negative[] = "{\"model_type\": \"llama\", \"hidden_size\": -1}";
    assert_int_equal(nd_model_parse_hf_json(&m, negative, strlen(negative), "c.json", &err), ND_EINPUT);
    assert_non_null(strstr(err.message, "hidden_size"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama3_published_counts),
        cmocka_unit_test(mixtral_published_count),
        cmocka_unit_test(deepseek_v3_within_half_a_percent),
        cmocka_unit_test(qwen3_moe_by_hand),
        cmocka_unit_test(gpt3_by_hand),
        cmocka_unit_test(nemotron_by_hand),
        cmocka_unit_test(gpt_oss_by_hand),
        cmocka_unit_test(gemma2_by_hand),
        cmocka_unit_test(chatglm3_by_hand),
        cmocka_unit_test(glm4_hf_by_hand),
        cmocka_unit_test(grok1_by_hand),
        cmocka_unit_test(mistral_window_on_every_layer),
        cmocka_unit_test(validation_names_the_field),
        cmocka_unit_test(bad_json_is_refused_with_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
