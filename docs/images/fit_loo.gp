# nd parity plot. The data is inline below and also in fit_loo.dat.
# Re-render from this directory: gnuplot fit_loo.gp
set encoding utf8
set terminal pngcairo size 1000,990 noenhanced font 'Sans,10'
set output 'fit_loo.png'
$DATA << EOD
# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the panel's unit, nan = not available, then the point's rank among the panel's three worst errors above 5 % (0: not labelled).
# label step:measured step:estimated step:corrected step:labelled COMPUTE:measured COMPUTE:estimated COMPUTE:corrected COMPUTE:labelled DP_COMM:measured DP_COMM:estimated DP_COMM:corrected DP_COMM:labelled MP_COMM:measured MP_COMM:estimated MP_COMM:corrected MP_COMM:labelled PP_COMM:measured PP_COMM:estimated PP_COMM:corrected PP_COMM:labelled OPTIMIZER:measured OPTIMIZER:estimated OPTIMIZER:corrected OPTIMIZER:labelled OVERHEAD:measured OVERHEAD:estimated OVERHEAD:corrected OVERHEAD:labelled
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" 7381.962 7499.6718892476265 7517.52783694715 0 6309.189 nan 6465.742090716651 0 0.957 nan 0.9348108542576097 0 571.19 nan 571.8341897515877 0 209.621 nan 206.24671588095114 0 17.159 nan 18.317254838077872 1 273.847 nan 254.4527749056238 2
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" 7701.112 7537.0463600566445 7508.1954913038635 0 7496.97 nan 7330.898029267539 0 35.469 nan 33.79673426289922 0 0 nan 0 0 0 nan 0 0 16.023 nan 16.537477361360356 0 152.65 nan 126.96325041206444 1
"DP 2 MP 4 MB 32 OP 2" 7760.975 7844.209830459489 7855.269962331116 0 5575.95 nan 5743.627303761624 0 0.48 nan 0.46750778799573095 0 1788.536 nan 1720.0451142466395 0 0 nan 0 0 19.129 nan 18.162415958476103 3 376.879 nan 372.9676205763814 0
"DP 8 MP 4 MB 8 OP 8" 1998.244 1999.3145752488422 2000.4603279345286 0 1438.0269999999998 nan 1431.4508919629527 0 3.07 nan 3.23562171194007 1 422.975 nan 432.79383918766143 0 0 nan 0 0 7.294 nan 7.3448675850234295 0 126.878 nan 125.63510748695109 0
"DP 4 MP 4 MB 16 OP 4" 4060.975 3948.0372895942673 3937.0356319235716 0 2948.1150000000002 nan 2855.319803357793 0 2.794 nan 2.766399978962152 0 885.776 nan 860.0391403673729 0 0 nan 0 0 10.874 nan 10.938240647501452 0 213.417 nan 207.9720475719427 0
"DP 2 MP 4 PP 2 MB 32 OP 2" 4287.92 4352.099634551407 4354.146370972069 0 3020.733 nan 3094.474754269476 0 0.471 nan 0.4687322025938998 0 856.846 nan 865.1176393358012 0 149.588 nan 132.75657542891537 1 9.433 nan 9.181958802042539 0 250.849 nan 252.14671093324034 0
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" 4774.722 4803.284597878104 4805.63715670704 0 3876.192 nan 3918.5756299941154 0 1.392 nan 1.4021236231731227 0 428.842 nan 425.68369215311424 0 279.928 nan 276.63926924063725 0 11.146 nan 10.91139238386351 0 177.222 nan 172.42504931213676 0
"DP 8 MP 4 PP 2 MB 8 OP 8" 1225.209 1209.344680449169 1208.0451375866878 0 786.707 nan 770.8160788093708 0 3.175 nan 3.237833381719722 0 212.529 nan 216.67350072838116 0 122.378 nan 118.9544417766075 0 4.009 nan 3.912821757167541 0 96.41000000000001 nan 94.45046113344125 0
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" 1309.481 1342.1344282363698 1335.441921290801 0 858.783 nan 888.4268201802934 0 2.999 nan 3.1411069305341788 0 217.256 nan 220.66111182024378 0 113.654 nan 102.83247769446064 2 3.39 nan 3.418566853691065 0 113.399 nan 116.96183781157808 0
"DP 4 MP 4 PP 2 MB 16 OP 4" 2681.372 2257.3075567639926 2253.5394527189096 1 1633.306 nan 1538.8973674444383 1 2.76 nan 2.7910554515200507 0 768.162 nan 432.1559489381258 1 124.476 nan 126.42917307365067 0 5.79 nan 5.589791950035234 0 146.876 nan 147.6761158611389 0
"DP 1 MP 8 MB 64" 10964.978 10851.996005629939 10830.030060224373 0 5870.892999999999 nan 5787.008806075848 0 0 nan 0 0 4370.673 nan 4324.884149875905 0 0 nan 0 0 15.712 nan 16.53274454965987 2 707.6990000000001 nan 701.6043597229616 0
"DP 2 MP 8 PP 2 MB 32 OP 2" 2945.213 2995.5825930804476 3003.1605217313895 0 1556.934 nan 1559.6123664213476 0 1.861 nan 1.8480338684778486 0 1051.243 nan 1092.5295352058495 0 86.858 nan 90.45833143054173 0 4.52 nan 4.7463852678883605 0 243.796 nan 253.9658695372849 0
EOD
set multiplot layout 3,3 title 'Leave-one-out: each strategy predicted by ratios fitted on the others (MAPE 2.8 %)' font ',12'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 7
set title 'step: MAPE 2.8 %, worst -16.0 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 3000
set ytics 3000
set xrange [0:12000]
set yrange [0:12000]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3:(0):($4-$3) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 2:4 with points pt 9 ps 1.2 lc rgb '#e15759' title 'left out', \
     $DATA using 2:4:($5 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 2:4:($5 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 2:4:($5 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
unset key
# Panel 2 of 7
set title 'COMPUTE: MAPE 2.3 %, worst -5.8 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 2000
set ytics 2000
set xrange [0:8000]
set yrange [0:8000]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 6:7:(0):($8-$7) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 6:7 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 6:8 with points pt 9 ps 1.2 lc rgb '#e15759' title 'left out', \
     $DATA using 6:8:($9 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 6:8:($9 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 6:8:($9 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 3 of 7
set title 'DP_COMM: MAPE 2.3 %, worst +5.4 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 10
set ytics 10
set xrange [0:40]
set yrange [0:40]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 10:11:(0):($12-$11) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 10:11 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 10:12 with points pt 9 ps 1.2 lc rgb '#e15759' title 'left out', \
     $DATA using 10:12:($13 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 10:12:($13 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 10:12:($13 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 4 of 7
set title 'MP_COMM: MAPE 5.7 %, worst -43.7 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 1500
set ytics 1500
set xrange [0:5000]
set yrange [0:5000]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 14:15:(0):($16-$15) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 14:15 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 14:16 with points pt 9 ps 1.2 lc rgb '#e15759' title 'left out', \
     $DATA using 14:16:($17 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 14:16:($17 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 14:16:($17 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 5 of 7
set title 'PP_COMM: MAPE 4.6 %, worst -11.3 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 80
set ytics 80
set xrange [0:300]
set yrange [0:300]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 18:19:(0):($20-$19) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 18:19 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 18:20 with points pt 9 ps 1.2 lc rgb '#e15759' title 'left out', \
     $DATA using 18:20:($21 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 18:20:($21 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 18:20:($21 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 6 of 7
set title 'OPTIMIZER: MAPE 3.2 %, worst +6.8 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 8
set ytics 8
set xrange [0:25]
set yrange [0:25]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 22:23:(0):($24-$23) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 22:23 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 22:24 with points pt 9 ps 1.2 lc rgb '#e15759' title 'left out', \
     $DATA using 22:24:($25 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 22:24:($25 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 22:24:($25 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 7 of 7
set title 'OVERHEAD: MAPE 3.5 %, worst -16.8 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 200
set ytics 200
set xrange [0:800]
set yrange [0:800]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 26:27:(0):($28-$27) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 26:27 with points pt 7 ps 1 lc rgb '#4e79a7' title 'fitted on every row', \
     $DATA using 26:28 with points pt 9 ps 1.2 lc rgb '#e15759' title 'left out', \
     $DATA using 26:28:($29 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 26:28:($29 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 26:28:($29 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
unset multiplot
unset output
