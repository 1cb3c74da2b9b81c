# nd bar plot. The data is inline below and also in classify_kernels.dat.
# Re-render from this directory: gnuplot classify_kernels.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'classify_kernels.png'
$DATA << EOD
# nd bar data: one row per bar, top to bottom: its value (nan = not available).
# label value
"communication" 193.813
"other" 70.754
"gemm" 34.3465
"elementwise_norm" 15.47275
"memcpy_memset" 4.45725
EOD
set title 'Device time by kernel class, ms per step (mean of 4 rank-steps)' font ',12'
set lmargin at screen 0.145
set rmargin at screen 0.74
set style fill solid 1.0
set yrange [5 - 0.5:-0.5]
set ytics nomirror scale 0
set grid xtics
unset key
xmax = 200
set xrange [0:xmax]
total = 318.8435
set xlabel 'kernel time per step (ms); each share is of the sum of the bars (318.8)'
plot $DATA using ($2 / 2):0:(0):($2):($0 - 0.32):($0 + 0.32):ytic(1) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using (xmax):0:(sprintf('%.4g (%.0f %% of the sum)', $2, 100 * $2 / total)) with labels left offset char 1,0 notitle
unset output
