# nd parity plot. The data is inline below and also in fit_loo.dat.
# Re-render from this directory: gnuplot fit_loo.gp
set encoding utf8
set terminal pngcairo size 1000,990 noenhanced font 'Sans,10'
set output 'fit_loo.png'
$DATA << EOD
# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the panel's unit, nan = not available, then the point's rank among the panel's three worst errors above 5 % (0: not labelled).
# label step:measured step:estimated step:corrected step:labelled COMPUTE:measured COMPUTE:estimated COMPUTE:corrected COMPUTE:labelled DP_COMM:measured DP_COMM:estimated DP_COMM:corrected DP_COMM:labelled MP_COMM:measured MP_COMM:estimated MP_COMM:corrected MP_COMM:labelled PP_COMM:measured PP_COMM:estimated PP_COMM:corrected PP_COMM:labelled OPTIMIZER:measured OPTIMIZER:estimated OPTIMIZER:corrected OPTIMIZER:labelled OVERHEAD:measured OVERHEAD:estimated OVERHEAD:corrected OVERHEAD:labelled
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" 7381.962 7022.416982913146 7042.270126121234 0 6309.189 nan 6465.742090716651 0 0.957 nan 0.9348108542576097 0 571.19 nan 62.79620644396463 0 209.621 nan 240.02698836265893 3 17.159 nan 18.317254838077872 1 273.847 nan 254.4527749056238 2
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" 7701.112 7537.0463600566445 7508.1954913038635 0 7496.97 nan 7330.898029267539 0 35.469 nan 33.79673426289922 0 0 nan 0 0 0 nan 0 0 16.023 nan 16.537477361360356 0 152.65 nan 126.96325041206444 1
"DP 2 MP 4 MB 32 OP 2" 7760.975 6762.825647875421 6757.962584906023 0 5575.95 nan 5743.627303761624 0 0.48 nan 0.46750778799573095 0 1788.536 nan 622.7377368215467 0 0 nan 0 0 19.129 nan 18.162415958476103 3 376.879 nan 372.9676205763814 0
"DP 8 MP 4 MB 8 OP 8" 1998.244 1728.9685296028251 1723.9531861037497 0 1438.0269999999998 nan 1431.4508919629527 0 3.07 nan 3.23562171194007 1 422.975 nan 156.28669735688268 0 0 nan 0 0 7.294 nan 7.3448675850234295 0 126.878 nan 125.63510748695109 0
"DP 4 MP 4 MB 16 OP 4" 4060.975 3407.3451983022333 3389.288151239583 0 2948.1150000000002 nan 2855.319803357793 0 2.794 nan 2.766399978962152 0 885.776 nan 312.2916596833844 0 0 nan 0 0 10.874 nan 10.938240647501452 0 213.417 nan 207.9720475719427 0
"DP 2 MP 4 PP 2 MB 32 OP 2" 4287.92 3829.8507587832 3807.423295401498 0 3020.733 nan 3094.474754269476 0 0.471 nan 0.4687322025938998 0 856.846 nan 322.4791391942626 0 149.588 nan 128.67199999988262 0 9.433 nan 9.181958802042539 0 250.849 nan 252.14671093324034 0
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" 4774.722 4451.50977333399 4456.581079515347 0 3876.192 nan 3918.5756299941154 0 1.392 nan 1.4021236231731227 0 428.842 nan 31.40165466622202 3 279.928 nan 321.86522953583557 2 11.146 nan 10.91139238386351 0 177.222 nan 172.42504931213676 0
"DP 8 MP 4 PP 2 MB 8 OP 8" 1225.209 1079.4412620281637 1063.6002765207134 0 786.707 nan 770.8160788093708 0 3.175 nan 3.237833381719722 0 212.529 nan 81.11039784682393 0 122.378 nan 110.07268359219013 0 4.009 nan 3.912821757167541 0 96.41000000000001 nan 94.45046113344125 0
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" 1309.481 1202.178000607547 1192.9131215620168 0 858.783 nan 888.4268201802934 0 2.999 nan 3.1411069305341788 0 217.256 nan 102.78014452922903 0 113.654 nan 78.18464525669113 1 3.39 nan 3.418566853691065 0 113.399 nan 116.96183781157808 0
"DP 4 MP 4 PP 2 MB 16 OP 4" 2681.372 1996.622319227253 1993.2905941022984 3 1633.306 nan 1538.8973674444383 1 2.76 nan 2.7910554515200507 0 768.162 nan 160.35164831330073 0 124.476 nan 137.98461508186503 0 5.79 nan 5.589791950035234 0 146.876 nan 147.6761158611389 0
"DP 1 MP 8 MB 64" 10964.978 11644.13900070545 19893.347291278966 1 5870.892999999999 nan 5787.008806075848 0 0 nan 0 0 4370.673 nan 13388.201380930499 2 0 nan 0 0 15.712 nan 16.53274454965987 2 707.6990000000001 nan 701.6043597229616 0
"DP 2 MP 8 PP 2 MB 32 OP 2" 2945.213 3200.4557274607732 5285.950937481504 2 1556.934 nan 1559.6123664213476 0 1.861 nan 1.8480338684778486 0 1051.243 nan 3381.1542637466605 1 86.858 nan 84.62401863984432 0 4.52 nan 4.7463852678883605 0 243.796 nan 253.9658695372849 0
EOD
set multiplot layout 3,3 title 'Leave-one-out: each strategy predicted by ratios fitted on the others (MAPE 23.1 %)' font ',12'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 7
set title 'step: MAPE 23.1 %, worst +81.4 %'
set xlabel 'measured (ms), log axes'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (1000, 2000, 5000, 10000, 20000)
set ytics (1000, 2000, 5000, 10000, 20000)
set xrange [700:30000]
set yrange [700:30000]
set label 10 'DP 1 MP 8 MB 64' at first 10964.978, graph 0.8906796247448461 left offset char 0.6,0 font ',8' front
set label 11 'DP 2 MP 8 PP 2 MB 32 OP 2' at first 2945.213, graph 0.5379979156577899 left offset char 0.6,0 font ',8' front
set label 12 'DP 4 MP 4 PP 2 MB 16 OP 4' at first 2681.372, graph 0.2784718828227264 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3:(0):($4-$3) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 2:4 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'left out'
unset label
unset arrow
unset key
# Panel 2 of 7
set title 'COMPUTE: MAPE 2.3 %, worst -5.8 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 2000
set ytics 2000
set xrange [0:8000]
set yrange [0:8000]
set label 10 'DP 4 MP 4 PP 2 MB 16 OP 4' at first 1633.306, graph 0.19236217093055477 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 6:7:(0):($8-$7) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 6:7 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 6:8 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'left out'
unset label
unset arrow
# Panel 3 of 7
set title 'DP_COMM: MAPE 2.3 %, worst +5.4 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 10
set ytics 10
set xrange [0:40]
set yrange [0:40]
set label 10 'DP 8 MP 4 MB 8 OP 8' at first 3.07, graph 0.08089054279850175 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 10:11:(0):($12-$11) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 10:11 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 10:12 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'left out'
unset label
unset arrow
# Panel 4 of 7
set title 'MP_COMM: MAPE 96.2 %, worst +221.6 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 4000
set ytics 4000
set xrange [0:15000]
set yrange [0:15000]
set label 10 'DP 2 MP 8 PP 2 MB 32 OP 2' at first 1051.243, graph 0.22541028424977735 left offset char 0.6,0 font ',8' front
set label 11 'DP 1 MP 8 MB 64' at first 4370.673, graph 0.8925467587286999 left offset char 0.6,0 font ',8' front
set label 12 'DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full' at first 428.842, graph 0.028138528138528143 left offset char 0.6,0 font ',8' front
set arrow 12 from first 428.842, graph 0.028138528138528143 to first 428.842, first 31.40165466622202 nohead lc rgb '#909090' lw 0.5 front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 14:15:(0):($16-$15) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 14:15 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 14:16 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'left out'
unset label
unset arrow
# Panel 5 of 7
set title 'PP_COMM: MAPE 14.0 %, worst -31.2 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 100
set ytics 100
set xrange [0:400]
set yrange [0:400]
set label 10 'DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4' at first 113.654, graph 0.19546161314172783 left offset char 0.6,0 font ',8' front
set label 11 'DP 4 MP 2 PP 2 MB 16 ...' at first 279.928, graph 0.8046630738395889 right offset char -0.6,0 font ',8' front
set label 12 'DP 2 MP 2 PP 2 MB 32 ...' at first 209.621, graph 0.6000674709066474 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 18:19:(0):($20-$19) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 18:19 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 18:20 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'left out'
unset label
unset arrow
# Panel 6 of 7
set title 'OPTIMIZER: MAPE 3.2 %, worst +6.8 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 8
set ytics 8
set xrange [0:25]
set yrange [0:25]
set label 10 'DP 2 MP 2 PP 2 MB 32...' at first 17.159, graph 0.7827736946161004 right offset char -0.6,0 font ',8' front
set arrow 10 from first 17.159, graph 0.7827736946161004 to first 17.159, first 18.317254838077872 nohead lc rgb '#909090' lw 0.5 front
set label 11 'DP 1 MP 8 MB 64' at first 15.712, graph 0.6613097819863948 left offset char 0.6,0 font ',8' front
set label 12 'DP 2 MP 4 MB 32 OP 2' at first 19.129, graph 0.7264966383390441 right offset char -0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 22:23:(0):($24-$23) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 22:23 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 22:24 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'left out'
unset label
unset arrow
# Panel 7 of 7
set title 'OVERHEAD: MAPE 3.5 %, worst -16.8 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 200
set ytics 200
set xrange [0:800]
set yrange [0:800]
set label 10 'DP 8 MB 8 OP 8 ZERO 3 recompute=full' at first 152.65, graph 0.15870406301508055 left offset char 0.6,0 font ',8' front
set label 11 'DP 2 MP 2 PP 2 MB 32 OP 2 re...' at first 273.847, graph 0.31806596863202974 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 26:27:(0):($28-$27) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 26:27 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 26:28 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'left out'
unset label
unset arrow
unset multiplot
unset output
