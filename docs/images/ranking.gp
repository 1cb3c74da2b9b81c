# nd ranking plot. The data is inline below and also in ranking.dat.
# Re-render from this directory: gnuplot ranking.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'ranking.png'
$DATA << EOD
# nd ranking data: one row per distinct choice in rank order (best first): its step (ms, the sum of its parts) and its interval (ms), 2 for #1, 1 when it cannot be told apart from #1, 0 when it can, 3 when not judged, P(fastest) (nan: no odds), peak memory (MiB), the lines of text drawn beside it, then for each part that differs between rows its difference from #1 (ms).
# label step_ms lo_ms hi_ms status p_fastest peak_mib text1 text2 text3 d:FW_COMPUTE d:BW_COMPUTE d:MP_COMM d:OVERHEAD
"#1  DP 32 MP 2 MB 8 MBS 2 OP 32 SP (+4)" 5865.213050863782 0 21544.43171455673 2 0.2293 68915.49365234375 "5865.2 ms" "the pick" "P(fastest) 23 %" 0 0 0 0
"#2  DP 32 MP 2 MB 8 MBS 2 OP 32 (+3)" 5970.4260586904575 0 21930.71079541136 1 0.2094 77235.49365234375 "+1.8 %, +105 ms, tied" "BW_COMPUTE +75 ms" "P(fastest) 21 %" 62.77126096146003 75.44247823628893 -22.87146436125539 -10.12926700981862
"#3  DP 32 MP 2 MB 16 OP 32 SP (+4)" 5972.977736503578 0 21940.16886846609 1 0.2111 47419.49365234375 "+1.8 %, +108 ms, tied" "OVERHEAD +83 ms" "P(fastest) 21 %" 4.641986371156918 12.336030364759608 8.2209598066636 82.56570909721549
"#4  DP 32 MP 2 MB 16 OP 32 (+4)" 6064.720054947403 0 22276.900090939456 1 0.1864 51579.49365234375 "+3.4 %, +200 ms, tied" "BW_COMPUTE +88 ms" "P(fastest) 19 %" 67.41324733261695 87.77850860104809 -17.99192692762281 62.30717507757828
"#5  DP 16 MP 2 CP 2 MB 8 MBS 4 OP 32 SP (+4)" 6195.364752473071 0 22757.090179834813 1 0.1638 69115.49365234375 "+5.6 %, +330 ms, tied" "BW_COMPUTE +212 ms" "P(fastest) 16 %" 97.60761762004677 212.49440083578656 0 20.049683153455334
EOD
set multiplot title 'Which to run: the top 5 distinct choices, and how sure nd is'."\n".'Llama-3-8B on 64 x H100, 5 of 1813 distinct choices (7730 fitting), calibrated' font ',12'
v(c) = valid(c) ? column(c) : 0
set style fill solid 1.0 border rgb '#ffffff'
set yrange [5 - 0.5:-0.5]
set ytics nomirror scale 0
set tmargin at screen 0.86
set bmargin at screen 0.22
set lmargin at screen 0.347
set rmargin at screen 0.55
set title 'step time (ms): the estimate and its interval'
set xlabel 'ms per step'
set format x '%g'
set xrange [0:30000]
set xtics 10000 nomirror
unset key
set grid xtics
# #1's interval, across every row: a point inside it is not told apart by the estimate alone
set object 1 rect from 0, graph 0 to 21544.43171455673, graph 1 behind fc rgb '#dce6f2' fs solid 1.0 noborder
color(s) = s == 2 ? 0x4e79a7 : s == 1 ? 0xe49444 : s == 3 ? 0xc9c9c9 : 0x8c8c8c
plot $DATA using 2:0:3:4:(color($5)):ytic(1) with xerrorbars pt 7 ps 1.4 lw 2 lc rgb variable notitle, \
     $DATA using (30000):0:8 with labels left offset char 1,1.00 tc rgb '#202020' notitle, \
     $DATA using (30000):0:9 with labels left offset char 1,0.00 tc rgb '#505050' notitle, \
     $DATA using (30000):0:10 with labels left offset char 1,-1.00 tc rgb '#505050' notitle
unset object 1
set lmargin at screen 0.80
set rmargin at screen 0.97
unset ytics
unset grid
set grid xtics
set format x '%g'
set xlabel 'GiB per device'
unset key
set xrange [0:100]
set xtics 20
budget_mib = 79462.4
set title sprintf('peak memory, budget %.4g GiB', budget_mib / 1024.0)
set arrow 1 from budget_mib / 1024.0, graph 0 to budget_mib / 1024.0, graph 1 nohead dt 2 lw 2 lc rgb '#c00000' front
# over the budget: red; within 5 % of it: amber; else grey
shade(m) = m > budget_mib ? 0xe15759 : m > 0.95 * budget_mib ? 0xf1ce63 : 0xbac2cc
free(m) = m > budget_mib ? sprintf('%.1f GiB over', (m - budget_mib) / 1024.0) : sprintf('%.1f GiB free', (budget_mib - m) / 1024.0)
plot $DATA using ($7 / 2048):0:(0):($7 / 1024):($0 - 0.3):($0 + 0.3):(shade($7)) with boxxyerror fc rgb variable notitle, \
     $DATA using (0):0:(free($7)) with labels left offset char 0.5,0 tc rgb '#202020' notitle
unset arrow 1
# the legend
set lmargin at screen 0.03
set rmargin at screen 0.97
set tmargin at screen 0.115
set bmargin at screen 0.01
unset border
unset tics
unset grid
unset title
unset xlabel
unset ylabel
unset arrow
unset label
unset object
set xrange [0:1]
set yrange [0:1]
set key inside left top horizontal Left reverse samplen 3 width 2 maxrows 2 noopaque nobox
set label 1 '(+N): N more rows folded in, that differ only in OP or VPP (ranking.csv has them)' at graph 1, graph 0.02 right font ',9' tc rgb '#505050'
plot NaN with xerrorbars pt 7 ps 1.4 lw 2 lc rgb '#4e79a7' title '#1 and its 95 % interval (fitted)', \
     NaN with xerrorbars pt 7 ps 1.4 lw 2 lc rgb '#e49444' title 'cannot be told apart from #1', \
     NaN with boxes fs solid 1.0 fc rgb '#dce6f2' title '#1 interval, across the rows', \
     NaN with boxes fs solid 1.0 fc rgb '#bac2cc' title 'peak memory, headroom written', \
     NaN with boxes fs solid 1.0 fc rgb '#f1ce63' title 'within 5 % of the budget', \
     NaN with lines dt 2 lw 2 lc rgb '#c00000' title 'memory budget'
unset multiplot
unset output
