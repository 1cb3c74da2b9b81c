# The model arguments of torchtitan's Llama 3 flavors, in the layout of torchtitan's
# torchtitan/models/llama3/__init__.py (trimmed to the arguments): ND's -f torchtitan
# takes -y MODULE.py:CONFIG.toml, and nd reads the flavor the toml's [model] names from
# this dictionary without importing torch or torchtitan.

llama3_args = {
    "debugmodel": TransformerModelArgs(
        dim=256, n_layers=6, n_heads=16, vocab_size=2048, rope_theta=500000
    ),
    "8B": TransformerModelArgs(
        dim=4096,
        n_layers=32,
        n_heads=32,
        n_kv_heads=8,
        ffn_dim_multiplier=1.3,
        multiple_of=1024,
        rope_theta=500000,
    ),
    "70B": TransformerModelArgs(
        dim=8192,
        n_layers=80,
        n_heads=64,
        n_kv_heads=8,
        ffn_dim_multiplier=1.3,
        multiple_of=4096,
        rope_theta=500000,
    ),
}
