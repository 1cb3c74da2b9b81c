#!/bin/sh
# generate.sh OUT_DIR — writes the bad inputs too large to keep in git (tests/bad/MANIFEST
# names them gen:NAME): a 10^6-column CSV header, nesting a million levels deep, files
# past the size limits, and traces past the per-trace limits of docs/limits.md.
# Plain sh and awk, so CI needs nothing more.
set -eu
out=$1
mkdir -p "$out"
cd "$out"
deep() { awk -v n="$1" -v o="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", o }'; }

# CSV headers of a million columns: the classified CSV and Ascend's step_trace_time.csv.
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "%sc%d", (i ? "," : ""), i; printf "\n1\n" }' \
  >round_million_columns.csv
mkdir -p ascend_million_columns
cp round_million_columns.csv ascend_million_columns/step_trace_time.csv

# Nesting a million levels deep: YAML, config.json, ratios, a Chrome trace, communication.json.
{ printf 'model:\n  x: '; deep 1000000 '['; printf '\n'; } >run_deep.yaml
{ printf '{"model_type": "llama", "x": '; deep 1000000 '['; } >config_deep.json
{ printf '{"COMPUTE": '; deep 1000000 '['; } >ratios_deep.json
{ printf '{"traceEvents": [{"ph": "X", "args": '; deep 1000000 '['; } >trace_deep.json
mkdir -p ascend_deep_comm
printf 'Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble\n0,1,2,1,1,2,7,10,0\n' \
  >ascend_deep_comm/step_trace_time.csv
{ printf '{"step1": {"collective": {"hcom_allReduce__1_0_1@1": {"x": '; deep 1000000 '['; } >ascend_deep_comm/communication.json

# Past the size limits: a run file over 16 MiB, a ratios file over 4 MiB.
awk 'BEGIN { for (i = 0; i < 360000; i++) print "# padding padding padding padding padding padding" }' \
  >run_huge.yaml
awk 'BEGIN { printf "{\"_pad\": \""; for (i = 0; i < 90000; i++) printf "padding padding padding padding padding padding "; print "\"}" }' \
  >ratios_huge.json

# More devices than a table holds.
awk 'BEGIN { print "devices:"; for (i = 0; i < 2000; i++) printf "  D%d: {base: A100}\n", i }' >devices_many.yaml

# Chrome traces past the per-trace limits.
step='{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100000000}'
awk -v s="$step" 'BEGIN { printf "{\"traceEvents\":[%s", s
  for (i = 0; i < 5000; i++) printf ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":1}", i + 2, i + 1
  print "]}" }' >trace_many_threads.json
awk -v s="$step" 'BEGIN { printf "{\"traceEvents\":[%s", s
  for (i = 0; i < 1100; i++) printf ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c10d::allreduce_\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"args\":{\"Process Group Name\":\"g%d\"}}", i + 1, i
  print "]}" }' >trace_many_groups.json
awk -v s="$step" 'BEGIN { printf "{\"traceEvents\":[%s", s
  for (i = 0; i < 70000; i++) printf ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":100000000}", i + 1
  print "]}" }' >trace_overlapping_kernels.json
awk 'BEGIN { printf "{\"traceEvents\":["
  for (i = 0; i < 70000; i++) printf "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}", (i ? ",\n" : ""), i, i * 10
  print "]}" }' >trace_many_steps.json

# nd-classify (issue 17): FIFOs instead of files must be refused at once, never waited on.
rm -f trace_fifo.json && mkfifo trace_fifo.json
mkdir -p ascend_fifo_comm
printf 'Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble\n0,1,2,1,1,2,7,10,0\n' \
  >ascend_fifo_comm/step_trace_time.csv
rm -f ascend_fifo_comm/communication.json && mkfifo ascend_fifo_comm/communication.json
# FIFOs (named pipes) where a file is expected: no writer ever comes, so a plain open()
# would wait forever. Every reader refuses them at once (issue 17, case 6).
rm -f fifo fifo.csv
mkfifo fifo fifo.csv
printf 'model:\n  config_json: fifo\ntrain:\n  seq_len: 4096\n' >run_config_json_fifo.yaml

# Costs that were quadratic (issue 17, item 7) and tokens that were buffered whole (item 8).
mkdir -p ascend_many_notes ascend_many_ranks
printf 'Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble\n0,1,2,1,1,2,7,10,0\n' \
  >ascend_many_notes/step_trace_time.csv
awk 'BEGIN { printf "{\"step1\": {\"collective\": {"
  for (i = 0; i < 250000; i++) printf "\"note %d\": {}, ", i
  print "\"hcom_allReduce__1_0_1@1\": {\"Communication Time Info\": {\"Elapse Time(ms)\": 1}}}}}" }' \
  >ascend_many_notes/communication.json
awk 'BEGIN { print "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble"
  for (i = 0; i < 200000; i++) printf "%d,1,2,1,1,2,7,10,0\n", i }' >ascend_many_ranks/step_trace_time.csv
printf '{"step1": {"collective": {"hcom_allReduce__1_0_1@1": {"Communication Time Info": {"Elapse Time(ms)": 1}}}}}\n' \
  >ascend_many_ranks/communication.json
awk 'BEGIN { printf "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"x\":1"
  for (i = 0; i < 300000; i++) printf "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
  print "}}]}" }' >trace_huge_number.json
awk 'BEGIN { printf "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"x\":\""
  for (i = 0; i < 300000; i++) printf "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
  print "\"}}]}" }' >trace_huge_string.json

# nd-classify --log: a FIFO; a 10 MB line without an end (read in 64 KiB pieces, refused
# quickly: no step line in it).
rm -f log_fifo.log && mkfifo log_fifo.log
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }' >log_long_line.log
