# nd parts plot. The data is inline below and also in parts.dat.
# Re-render from this directory: gnuplot parts.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parts.png'
$DATA << EOD
# nd parts data: one row per strategy: its label, the table under its bars, the measured step (ms; nan: the sum of the measured parts), measured parts, estimated parts (ms; nan = not available, drawn as 0).
# label table:DP table:MP table:PP table:VPP table:MB table:SP table:OP table:recompute table:peak_GiB measured:step measured:comp measured:dp_wait measured:mp_wait measured:pp_wait measured:idle estimated:comp estimated:dp_wait estimated:mp_wait estimated:pp_wait estimated:idle
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" "2" "2" "2" "1" "32" "on" "2" "selective" "41.2" 7138.615 6218.183 0.967 522.195 206.047 191.224 6457.6807417917025 0.9389637954900796 522.0929745892295 207.46773691293123 181.94064890377803
"DP 2 MP 4 MB 32 OP 2" "2" "4" "1" "1" "32" "on" "2" "off" "34.4" 7574.91 5628.586 0.485 1664.609 0 281.23 5741.061203315289 0.4695124691606396 1570.8043109159064 0 264.2408630676443
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" "8" "1" "1" "1" "8" "off" "8" "full" "29.2" 7713.138 7538.898 35.9 0 0 138.339 7368.441579258917 34.9832110213091 0 0 92.89907896207737
"DP 8 MP 4 MB 8 OP 8" "8" "4" "1" "1" "8" "on" "8" "off" "26.0" 1952.986 1453.941 3.137 393.667 0 102.241 1438.0947819690684 3.2490905498811076 392.7010777289766 0 91.9913560117406
"DP 4 MP 4 MB 16 OP 4" "4" "4" "1" "1" "16" "on" "4" "off" "28.8" 3968.274 2976.686 2.855 824.401 0 164.334 2872.380226512177 2.7847971113000667 785.4021554579532 0 149.4078583637085
"DP 2 MP 4 PP 2 MB 32 OP 2" "2" "4" "2" "1" "32" "on" "2" "off" "21.6" 4130.587 3016.102 0.474 796.533 147.029 170.44799999999998 3094.1465056617667 0.4707319941645999 787.0858475434625 140.51205533189628 179.6168781509159
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" "4" "2" "2" "1" "16" "on" "4" "full" "22.6" 4694.387 3884.678 1.407 392.783 280.215 135.304 3920.7448508471866 1.4075671895359587 388.7150984399983 279.78548799089526 124.5241465518101
"DP 8 MP 4 PP 2 MB 8 OP 8" "8" "4" "2" "1" "8" "on" "8" "off" "17.4" 1183.549 786.84 3.242 197.569 120.685 75.214 775.1956268296971 3.2513076024367606 196.77146188586562 119.30353015242478 70.83535978255851
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" "4" "4" "4" "2" "16" "on" "4" "off" "18.5" 1235.08 841.741 3.06 201.385 110.87 78.024 888.7462064622381 3.1541797603223256 200.74519927605976 114.97785359473698 85.02004375315428
"DP 4 MP 4 PP 2 MB 16 OP 4" "4" "4" "2" "1" "16" "on" "4" "off" "18.8" 2577.899 1631.417 2.819 714.092 122.603 106.96900000000001 1548.0953767513238 2.7865597963211735 393.54292377173124 126.37303854558186 107.09586590534431
"DP 1 MP 8 MB 64" "1" "8" "1" "1" "64" "on" "1" "off" "23.4" 10454.412 6015.268 0 3928.518 0 510.626 5802.271233364259 0 3954.8060519123264 0 493.90687247551585
"DP 2 MP 8 PP 2 MB 32 OP 2" "2" "8" "2" "1" "32" "on" "2" "off" "11.7" 2769.681 1577 1.9 944.354 82.975 163.452 1562.7370677853723 1.8586742632847886 991.0799794297925 90.8177712870056 179.6168781509159
EOD
v(c) = valid(c) ? column(c) : 0
below(c, k) = sum [j=0:k-1] v(c + j)
M = 11
E = 17
K = 5
# a row's measured step: the measured:step column, else the sum of its measured parts
mstep(x) = valid(M) ? column(M) : below(M + 1, K)
estep(x) = below(E, K)
top(x) = mstep(0) > estep(0) ? mstep(0) : estep(0)
err(x) = mstep(0) > 0 ? 100 * (estep(0) - mstep(0)) / mstep(0) : NaN
set multiplot title 'Time parts per strategy: measured (M) beside estimated (E)' font ',12'
set lmargin at screen 0.120
set rmargin at screen 0.98
set tmargin at screen 0.83
set bmargin at screen 0.263
set style fill solid 1.0 border rgb '#ffffff'
set grid ytics
set ylabel 'time per step (ms)'
set ytics nomirror
set xrange [-0.5:12 - 0.5]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
unset key
set xtics nomirror scale 0
xtic_text(x) = strcol(2)."\n".strcol(3)."\n".strcol(4)."\n".strcol(5)."\n".strcol(6)."\n".strcol(7)."\n".strcol(8)."\n".strcol(9)."\n".strcol(10)
# the table's row names, left of its first column
set label 1 "DP\nMP\nPP\nVPP\nMB\nSP\nOP\nrecompute\npeak GiB" at graph 0, graph 0 right offset char -1, char -1 front
plot $DATA using 0:(NaN):xtic(xtic_text(0)) notitle, \
     $DATA using ($0 - 0.2):(mstep(0) / 2):($0 - 0.38):($0 - 0.02):(0):(valid(M) && !valid(M + 1) ? mstep(0) : 0) with boxxyerror fc rgb '#9aa5b1' notitle, \
     $DATA using ($0 - 0.2):(below(12,1)):($0 - 0.38):($0 - 0.02):(below(12,0)):(below(12,1)) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using ($0 - 0.2):(below(12,2)):($0 - 0.38):($0 - 0.02):(below(12,1)):(below(12,2)) with boxxyerror fc rgb '#f28e2b' notitle, \
     $DATA using ($0 - 0.2):(below(12,3)):($0 - 0.38):($0 - 0.02):(below(12,2)):(below(12,3)) with boxxyerror fc rgb '#e15759' notitle, \
     $DATA using ($0 - 0.2):(below(12,4)):($0 - 0.38):($0 - 0.02):(below(12,3)):(below(12,4)) with boxxyerror fc rgb '#edc948' notitle, \
     $DATA using ($0 - 0.2):(below(12,5)):($0 - 0.38):($0 - 0.02):(below(12,4)):(below(12,5)) with boxxyerror fc rgb '#b07aa1' notitle, \
     $DATA using ($0 + 0.2):(below(17,1)):($0 + 0.02):($0 + 0.38):(below(17,0)):(below(17,1)) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using ($0 + 0.2):(below(17,2)):($0 + 0.02):($0 + 0.38):(below(17,1)):(below(17,2)) with boxxyerror fc rgb '#f28e2b' notitle, \
     $DATA using ($0 + 0.2):(below(17,3)):($0 + 0.02):($0 + 0.38):(below(17,2)):(below(17,3)) with boxxyerror fc rgb '#e15759' notitle, \
     $DATA using ($0 + 0.2):(below(17,4)):($0 + 0.02):($0 + 0.38):(below(17,3)):(below(17,4)) with boxxyerror fc rgb '#edc948' notitle, \
     $DATA using ($0 + 0.2):(below(17,5)):($0 + 0.02):($0 + 0.38):(below(17,4)):(below(17,5)) with boxxyerror fc rgb '#b07aa1' notitle, \
     $DATA using ($0 - 0.2):(mstep(0)):('M') with labels offset 0,0.6 font ',8' notitle, \
     $DATA using ($0 + 0.2):(estep(0)):('E') with labels offset 0,0.6 font ',8' notitle, \
     $DATA using 0:(top(0)):(sprintf('%+.1f %%', err(0))) with labels offset 0,1.8 notitle
# the legend, a panel of its own across the image
set lmargin at screen 0.120
set rmargin at screen 0.97
set tmargin at screen 0.925
set bmargin at screen 0.845
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
plot NaN with boxes fs solid 1.0 fc rgb '#4e79a7' title 'comp', \
     NaN with boxes fs solid 1.0 fc rgb '#f28e2b' title 'dp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#e15759' title 'mp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#edc948' title 'pp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#b07aa1' title 'idle'
unset multiplot
unset output
