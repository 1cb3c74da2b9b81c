# nd parts plot. The data is inline below and also in parts_step_only.dat.
# Re-render from this directory: gnuplot parts_step_only.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parts_step_only.png'
$DATA << EOD
# nd parts data: one row per strategy: its label, the table under its bars, the measured step (ms; nan: the sum of the measured parts), measured parts, estimated parts (ms; nan = not available, drawn as 0).
# label table:DP table:MP table:PP table:MB table:MBS table:recompute table:peak_GiB table:measured_GiB measured:step measured:comp measured:dp_wait measured:mp_wait measured:pp_wait measured:idle estimated:comp estimated:dp_wait estimated:mp_wait estimated:pp_wait estimated:idle
"DP 1 MBS 2" "1" "1" "1" "1" "2" "full" "14.0" "14.0" 464.12 nan nan nan nan nan 428.00261982393727 0 0 0 9.095
"DP 8 MBS 2" "8" "1" "1" "1" "2" "full" "14.2" "14.6" 480.22 nan nan nan nan nan 428.06881992764096 13.939067555555555 0 0 9.095
"DP 8 MBS 2" "8" "1" "1" "1" "2" "full" "14.2" "14.6" 480.96 nan nan nan nan nan 428.06881992764096 13.939067555555555 0 0 9.095
"DP 2 MP 4 MBS 8" "2" "4" "1" "1" "8" "full" "9.5" "8.9" 576.48 nan nan nan nan nan 454.7874084219469 12.134102933333333 112.47703253333334 0 9.398
"DP 4 MP 2 MBS 4" "4" "2" "1" "1" "4" "full" "10.1" "9.4" 593.68 nan nan nan nan nan 429.50610664889587 12.0029872 111.15703253333332 0 9.398
"DP 8 PP 4 MB 32 MBS 2" "8" "1" "4" "32" "2" "full" "7.5" "7.0" 4893.55 nan nan nan nan nan 4220.58136157145 114.57236333140098 0 880.9401394623458 91.03200000000001
"DP 16 MBS 2" "16" "1" "1" "1" "2" "full" "14.2" "14.2" 664.46 nan nan nan nan nan 428.11762112828507 174.60293043478262 0 0 9.095
"DP 1 MP 8 MBS 16" "1" "8" "1" "1" "16" "full" "12.3" "12.4" 664.64 nan nan nan nan nan 516.5533761333195 0 133.1998712888889 0 9.398
"DP 32 MBS 2" "32" "1" "1" "1" "2" "full" "14.2" "14.2" 683.51 nan nan nan nan nan 428.21362117176335 180.51519478260872 0 0 9.095
"DP 1 MP 8 MBS 16" "1" "8" "1" "1" "16" "full" "12.3" "12.4" 692.44 nan nan nan nan nan 516.5533761333195 0 133.1998712888889 0 9.398
EOD
v(c) = valid(c) ? column(c) : 0
below(c, k) = sum [j=0:k-1] v(c + j)
M = 10
E = 16
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
set bmargin at screen 0.240
set style fill solid 1.0 border rgb '#ffffff'
set grid ytics
set ylabel 'time per step (ms)'
set ytics nomirror
set xrange [-0.5:10 - 0.5]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
unset key
set xtics nomirror scale 0
xtic_text(x) = strcol(2)."\n".strcol(3)."\n".strcol(4)."\n".strcol(5)."\n".strcol(6)."\n".strcol(7)."\n".strcol(8)."\n".strcol(9)
# the table's row names, left of its first column
set label 1 "DP\nMP\nPP\nMB\nMBS\nrecompute\npeak GiB\nmeasured GiB" at graph 0, graph 0 right offset char -1, char -1 front
plot $DATA using 0:(NaN):xtic(xtic_text(0)) notitle, \
     $DATA using ($0 - 0.2):(mstep(0) / 2):($0 - 0.38):($0 - 0.02):(0):(valid(M) && !valid(M + 1) ? mstep(0) : 0) with boxxyerror fc rgb '#9aa5b1' notitle, \
     $DATA using ($0 - 0.2):(below(11,1)):($0 - 0.38):($0 - 0.02):(below(11,0)):(below(11,1)) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using ($0 - 0.2):(below(11,2)):($0 - 0.38):($0 - 0.02):(below(11,1)):(below(11,2)) with boxxyerror fc rgb '#f28e2b' notitle, \
     $DATA using ($0 - 0.2):(below(11,3)):($0 - 0.38):($0 - 0.02):(below(11,2)):(below(11,3)) with boxxyerror fc rgb '#e15759' notitle, \
     $DATA using ($0 - 0.2):(below(11,4)):($0 - 0.38):($0 - 0.02):(below(11,3)):(below(11,4)) with boxxyerror fc rgb '#edc948' notitle, \
     $DATA using ($0 - 0.2):(below(11,5)):($0 - 0.38):($0 - 0.02):(below(11,4)):(below(11,5)) with boxxyerror fc rgb '#b07aa1' notitle, \
     $DATA using ($0 + 0.2):(below(16,1)):($0 + 0.02):($0 + 0.38):(below(16,0)):(below(16,1)) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using ($0 + 0.2):(below(16,2)):($0 + 0.02):($0 + 0.38):(below(16,1)):(below(16,2)) with boxxyerror fc rgb '#f28e2b' notitle, \
     $DATA using ($0 + 0.2):(below(16,3)):($0 + 0.02):($0 + 0.38):(below(16,2)):(below(16,3)) with boxxyerror fc rgb '#e15759' notitle, \
     $DATA using ($0 + 0.2):(below(16,4)):($0 + 0.02):($0 + 0.38):(below(16,3)):(below(16,4)) with boxxyerror fc rgb '#edc948' notitle, \
     $DATA using ($0 + 0.2):(below(16,5)):($0 + 0.02):($0 + 0.38):(below(16,4)):(below(16,5)) with boxxyerror fc rgb '#b07aa1' notitle, \
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
set key inside left top horizontal Left reverse samplen 2.5 width 1 maxrows 2 noopaque nobox
plot NaN with boxes fs solid 1.0 fc rgb '#4e79a7' title 'comp', \
     NaN with boxes fs solid 1.0 fc rgb '#f28e2b' title 'dp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#e15759' title 'mp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#edc948' title 'pp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#b07aa1' title 'idle', \
     NaN with boxes fs solid 1.0 fc rgb '#9aa5b1' title 'measured step (not split)'
unset multiplot
unset output
