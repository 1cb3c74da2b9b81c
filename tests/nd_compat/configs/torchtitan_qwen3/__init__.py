# A model's flavors in torchtitan's newer layout (torchtitan/models/qwen3/__init__.py): nested
# Config calls, the MoE's own hidden_dim inside moe=MoE.Config(...). "mini-moe" is a small
# Qwen3-MoE for the tests (tests/nd_compat/LINES).
from torchtitan.models.common import FeedForward, GQAttention, RoPE
from torchtitan.models.common.moe import MoE

from .model import Qwen3Model, Qwen3TransformerBlock

qwen3_configs = {
    "mini-moe": Qwen3Model.Config(
        vocab_size=151936,
        dim=1024,
        n_layers=12,
        layer=Qwen3TransformerBlock.Config(
            norm_eps=1e-6,
            moe_enabled=True,
            moe=MoE.Config(
                hidden_dim=512,
                num_experts=16,
                num_shared_experts=0,
                top_k=4,
                score_func="softmax",
            ),
            feed_forward=FeedForward.Config(hidden_dim=3072),
            attention=GQAttention.Config(
                n_heads=16,
                n_kv_heads=4,
                head_dim=128,
                qk_norm=True,
            ),
        ),
        rope=RoPE.Config(dim=128, max_seq_len=4096, theta=1000000.0),
    ),
}
