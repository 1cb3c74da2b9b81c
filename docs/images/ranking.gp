# nd ranking plot. The data is inline below and also in ranking.dat.
# Re-render from this directory: gnuplot ranking.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'ranking.png'
$DATA << EOD
# nd ranking data: one row per strategy in rank order (best first): its step (ms, the sum of its parts), peak memory (MiB), then for each part that differs between rows its difference from #1 in % of #1's step.
# label step_ms peak_mib d:DP_COMM d:DP_REDUCE d:OPTIMIZER d:OVERHEAD
"#1  DP 32 CP 2 MB 16 OP 64" 5925.647493595665 70393.44604492188 0 0 0 0
"#2  DP 32 CP 2 MB 16 OP 32" 5928.107974183423 71829.36865234375 -0.0010445705943499819 0.011523193304282362 0.031043938164938133 0
"#3  DP 32 CP 2 MB 16 OP 16" 5933.0327910923315 74701.2138671875 -0.0030422747983527916 0.03454321148641456 0.09313181449481434 0
"#4  DP 32 CP 2 MB 16 OP 8" 5945.4630157878455 80444.904296875 0.006624769491493671 0.11047031240784663 0.21730756715456678 0
"#5  DP 16 CP 4 MB 16 MBS 2 OP 64" 5979.1133153382125 70393.44604492188 0 0 0 0.902278135854901
EOD
set multiplot title 'Top 5 of 5801 fitting strategies, Llama-3-8B on 64 x H100: what separates them from #1' font ',12'
v(c) = valid(c) ? column(c) : 0
set style fill solid 1.0 border rgb '#ffffff'
set yrange [5 - 0.5:-0.5]
set ytics nomirror scale 0
set grid xtics
set tmargin at screen 0.90
set bmargin at screen 0.20
K = 4
best_ms = 5925.647493595665
# pos(k), neg(k): where segment k of the right (slower) and left (faster) stacks starts
pos(k) = sum [j=0:k-1] (v(4 + j) > 0 ? v(4 + j) : 0)
neg(k) = sum [j=0:k-1] (v(4 + j) < 0 ? v(4 + j) : 0)
lo(k) = v(4 + k) >= 0 ? pos(k) : neg(k + 1)
hi(k) = v(4 + k) >= 0 ? pos(k + 1) : neg(k)
net(x) = sum [j=0:K-1] v(4 + j)
set lmargin at screen 0.260
set rmargin at screen 0.595
set title 'step time against #1 (5925.6 ms), by part'
set xlabel 'slower than #1 (%)'
set yzeroaxis lt 1 lw 1.5 lc rgb '#404040'
set format x '%+g'
xmin = -0.039255091224482945
xmax = 0.9384909522810312
set xrange [xmin:xmax]
unset key
set xtics 0.2
plot $DATA using (0):0:ytic(1) with points pt -1 notitle, \
     $DATA using ((lo(0) + hi(0)) / 2):0:(lo(0)):(hi(0)):($0 - 0.32):($0 + 0.32) with boxxyerror fc rgb '#76b7b2' notitle, \
     $DATA using ((lo(1) + hi(1)) / 2):0:(lo(1)):(hi(1)):($0 - 0.32):($0 + 0.32) with boxxyerror fc rgb '#59a14f' notitle, \
     $DATA using ((lo(2) + hi(2)) / 2):0:(lo(2)):(hi(2)):($0 - 0.32):($0 + 0.32) with boxxyerror fc rgb '#499894' notitle, \
     $DATA using ((lo(3) + hi(3)) / 2):0:(lo(3)):(hi(3)):($0 - 0.32):($0 + 0.32) with boxxyerror fc rgb '#d37295' notitle, \
     $DATA using (net(0)):0 with points pt 9 ps 1.3 lc rgb '#000000' notitle, \
     $DATA using (xmax):0:($0 == 0 ? sprintf('%.1f ms', $2) : sprintf('%+.2f %%, %+.0f ms', net(0), $2 - best_ms)) with labels left offset char 1,0 notitle
set lmargin at screen 0.74
set rmargin at screen 0.97
set xtics autofreq
unset ytics
unset yzeroaxis
set format x '%g'
set xlabel 'GiB'
unset key
set xrange [0:100]
budget_mib = 81920
set title sprintf('peak memory, budget %.4g GiB', budget_mib / 1024.0)
set arrow 1 from budget_mib / 1024.0, graph 0 to budget_mib / 1024.0, graph 1 nohead dt 2 lw 2 lc rgb '#c00000' front
# over the budget: red; within 5 % of it: amber; else grey
shade(m) = m > budget_mib ? 0xe15759 : m > 0.95 * budget_mib ? 0xf1ce63 : 0xbac2cc
plot $DATA using ($3 / 2048):0:(0):($3 / 1024):($0 - 0.32):($0 + 0.32):(shade($3)) with boxxyerror fc rgb variable notitle, \
     $DATA using ($3 / 1024):0:(sprintf('%.0f %%', 100 * $3 / budget_mib)) with labels right offset char -0.5,0 tc rgb '#202020' notitle
unset arrow 1
# the legend, a panel of its own across the image
set lmargin at screen 0.030
set rmargin at screen 0.97
set tmargin at screen 0.125
set bmargin at screen 0.010
unset border
unset tics
unset grid
unset title
unset xlabel
unset ylabel
unset arrow
unset label
unset xzeroaxis
unset yzeroaxis
unset logscale
set xrange [0:1]
set yrange [0:1]
set key inside left top horizontal Left reverse samplen 1.5 width 1 maxrows 1 noopaque nobox
plot NaN with boxes fs solid 1.0 fc rgb '#76b7b2' title 'DP_COMM', \
     NaN with boxes fs solid 1.0 fc rgb '#59a14f' title 'DP_REDUCE', \
     NaN with boxes fs solid 1.0 fc rgb '#499894' title 'OPTIMIZER', \
     NaN with boxes fs solid 1.0 fc rgb '#d37295' title 'OVERHEAD', \
     NaN with points pt 9 ps 1.3 lc rgb '#000000' title 'net'
unset multiplot
unset output
