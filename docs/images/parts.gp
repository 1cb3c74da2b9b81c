# nd parts plot. The data is inline below and also in parts.dat.
# Re-render from this directory: gnuplot parts.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parts.png'
$DATA << EOD
# nd parts data: one row per strategy: its label, the table under its bars, the measured step (ms; nan: the sum of the measured parts), measured parts, estimated parts (ms; nan = not available, drawn as 0).
# label table:DP table:MP table:PP table:VPP table:MB table:SP table:OP table:recompute table:peak_GiB measured:step measured:comp measured:dp_wait measured:mp_wait measured:pp_wait measured:idle estimated:comp estimated:dp_wait estimated:mp_wait estimated:pp_wait estimated:idle
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" "2" "2" "2" "1" "32" "on" "2" "selective" "41.2" 7381.962 6326.348 0.957 571.19 209.621 273.847 6463.510920350637 0.9350254376255726 62.878526660112215 240.0213220054248 255.0711884593456
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" "8" "1" "1" "1" "8" "off" "8" "full" "31.9" 7701.112 7512.993 35.469 0 0 152.65 7375.18167817687 34.83647862873632 0 0 127.02820325103733
"DP 2 MP 4 MB 32 OP 2" "2" "4" "1" "1" "32" "on" "2" "off" "34.4" 7760.975 5595.079 0.48 1788.536 0 376.879 5746.203159019292 0.46754316200067847 642.7349330650817 0 373.4200126290474
"DP 8 MP 4 MB 8 OP 8" "8" "4" "1" "1" "8" "on" "8" "off" "26.0" 1998.244 1445.321 3.07 422.975 0 126.878 1439.3264483243636 3.235462674790417 160.68373326627042 0 125.72288533740092
"DP 4 MP 4 MB 16 OP 4" "4" "4" "1" "1" "16" "on" "4" "off" "28.8" 4060.975 2958.989 2.794 885.776 0 213.417 2874.9160206822316 2.7731166528446685 321.36746653254085 0 208.2885944346164
"DP 2 MP 4 PP 2 MB 32 OP 2" "2" "4" "2" "1" "32" "on" "2" "off" "21.6" 4287.92 3030.166 0.471 856.846 149.588 250.849 3096.9305413716625 0.46875757187036693 330.63906958606583 150.08281565316517 251.72957460043637
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" "4" "2" "2" "1" "16" "on" "4" "full" "22.6" 4774.722 3887.338 1.392 428.842 279.928 177.222 3924.287446287185 1.4016633375052874 31.439263330056107 321.8759210171129 172.50547936213007
"DP 8 MP 4 PP 2 MB 8 OP 8" "8" "4" "2" "1" "8" "on" "8" "off" "17.4" 1225.209 790.716 3.175 212.529 122.378 96.41000000000001 775.8600781454851 3.237670428216103 82.65976739651646 122.383470227698 95.30027583024815
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" "4" "4" "4" "2" "16" "on" "4" "off" "18.5" 1309.481 862.173 2.999 217.256 113.654 113.399 889.5301302829357 3.1409499758249897 104.54198448236025 89.26689210575269 115.69804376067322
"DP 4 MP 4 PP 2 MB 16 OP 4" "4" "4" "2" "1" "16" "on" "4" "off" "18.8" 2681.372 1639.096 2.76 768.162 124.476 146.876 1549.4679516998692 2.7748719445195684 165.31953479303291 131.6165853695205 147.4433754203109
"DP 1 MP 8 MB 64" "1" "8" "1" "1" "64" "on" "1" "off" "23.4" 10964.978 5886.605 0 4370.673 0 707.6990000000001 5807.507197904664 0 5132.948953782876 0 703.6828490179095
"DP 2 MP 8 PP 2 MB 32 OP 2" "2" "8" "2" "1" "32" "on" "2" "off" "11.7" 2945.213 1561.454 1.861 1051.243 86.858 243.796 1564.1413267134483 1.8508783030597793 1296.334762040551 86.39918580327817 251.72957460043637
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
set key inside left top horizontal Left reverse samplen 2.5 width 1 maxrows 1 noopaque nobox
plot NaN with boxes fs solid 1.0 fc rgb '#4e79a7' title 'comp', \
     NaN with boxes fs solid 1.0 fc rgb '#f28e2b' title 'dp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#e15759' title 'mp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#edc948' title 'pp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#b07aa1' title 'idle'
unset multiplot
unset output
