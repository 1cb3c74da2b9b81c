/*
 * fidelity.h — how far nd's own estimates are from measured runs, as docs/benchmarks.md records
 * it: the one figure every program quotes for an estimate that no profiling round corrected.
 */
#ifndef ND_SESSION_FIDELITY_H
#define ND_SESSION_FIDELITY_H

/* nd's own benchmarked error of an uncalibrated step estimate, as a share of the step: the
 * largest step MAPE of docs/benchmarks.md's section "Fidelity: nd against real training runs,
 * uncalibrated" (the thirteen published configurations of NVIDIA, Meta, DeepSeek and Qwen,
 * 21.8 %, mostly nd too fast; llm-foundry's MPT runs 14-20 %; the Megatron-LM rounds there
 * are 7.2 % and 7.8 %). The interval of an
 * uncalibrated estimate is step x (1 +- this), and a candidate within it of #1 cannot be told
 * apart from #1. Update it when bench_fidelity's figures change. */
#define ND_UNCALIBRATED_STEP_ERROR 0.218

#endif
