# nd parity plot. The data is inline below and also in fit_loo.dat.
# Re-render from this directory: gnuplot fit_loo.gp
set encoding utf8
set terminal pngcairo size 1000,990 noenhanced font 'Sans,10'
set output 'fit_loo.png'
$DATA << EOD
# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the panel's unit, nan = not available, then the point's rank among the panel's three worst errors above 5 % (0: not labelled).
# label step:measured step:estimated step:corrected step:labelled COMPUTE:measured COMPUTE:estimated COMPUTE:corrected COMPUTE:labelled DP_COMM:measured DP_COMM:estimated DP_COMM:corrected DP_COMM:labelled MP_COMM:measured MP_COMM:estimated MP_COMM:corrected MP_COMM:labelled PP_COMM:measured PP_COMM:estimated PP_COMM:corrected PP_COMM:labelled OPTIMIZER:measured OPTIMIZER:estimated OPTIMIZER:corrected OPTIMIZER:labelled OVERHEAD:measured OVERHEAD:estimated OVERHEAD:corrected OVERHEAD:labelled
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" 7138.615 7370.121065993131 7406.5787897434 0 6200.234 nan 6474.832591514168 0 0.967 nan 0.9256797423007113 0 522.195 nan 523.116385646041 0 206.047 nan 207.786230502932 0 17.949 nan 18.65284137327357 0 191.224 nan 181.265060964685 0
"DP 2 MP 4 MB 32 OP 2" 7574.91 7576.575889768001 7592.581686874683 0 5608.577 nan 5734.7928383584385 0 0.485 nan 0.46288857253103616 0 1664.609 nan 1579.2059891086283 3 0 nan 0 0 20.009 nan 18.483824399542566 2 281.23 nan 259.63614643554286 0
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" 7713.138 7496.323869242304 7466.561835240428 0 7522.139 nan 7321.335410559203 0 35.9 nan 34.49909612553385 0 0 nan 0 0 0 nan 0 0 16.759 nan 16.82484014294184 0 138.339 nan 93.9024884127492 1
"DP 8 MP 4 MB 8 OP 8" 1952.986 1926.0363062596668 1924.676353556899 0 1446.441 nan 1428.844563078022 0 3.137 nan 3.3024410639382387 1 393.667 nan 393.44602933514125 0 0 nan 0 0 7.5 nan 7.46984750205981 0 102.241 nan 91.61347257773764 0
"DP 4 MP 4 MB 16 OP 4" 3968.274 3809.9750374451387 3803.678995177891 0 2965.366 nan 2851.6425853903024 0 2.855 nan 2.7850077668748505 0 824.401 nan 789.6029586474748 0 0 nan 0 0 11.32 nan 11.120227096177999 0 164.334 nan 148.52821627706118 0
"DP 2 MP 4 PP 2 MB 32 OP 2" 4130.587 4201.832018682206 4214.214034140717 0 3006.292 nan 3093.724373172853 0 0.474 nan 0.46408792225376727 0 796.533 nan 789.7916879262027 0 147.029 nan 139.54983023271544 2 9.81 nan 9.344801705835742 0 170.44799999999998 nan 181.33925318085574 0
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" 4694.387 4715.177151019428 4712.903875105187 0 3873.075 nan 3914.733559689473 0 1.407 nan 1.387607834361829 0 392.783 nan 389.4206125010652 0 280.215 nan 271.4387544917754 0 11.603 nan 11.103010505571802 0 135.304 nan 124.82033008293766 0
"DP 8 MP 4 PP 2 MB 8 OP 8" 1183.549 1165.357286252983 1160.121653425014 0 782.947 nan 770.1781354242879 0 3.242 nan 3.3046954858907363 0 197.569 nan 197.12800279785523 0 120.685 nan 116.12992170341242 0 3.893 nan 4.024294447692759 0 75.214 nan 69.35660356587468 0
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" 1235.08 1292.6434828465112 1302.0604040884225 2 838.487 nan 889.3122019981224 1 3.06 nan 3.205972540290519 0 201.385 nan 201.12036940320215 0 110.87 nan 114.99550119409717 0 3.254 nan 3.504740263929347 1 78.024 nan 89.92161868878128 2
"DP 4 MP 4 PP 2 MB 16 OP 4" 2577.899 2177.893764770302 2175.524847129266 1 1625.4979999999998 nan 1537.531468941263 2 2.819 nan 2.7861554619949382 0 714.092 nan 395.647770250797 1 122.603 nan 125.50763728688823 0 5.919 nan 5.695528601120805 0 106.96900000000001 nan 108.35628658720249 0
"DP 1 MP 8 MB 64" 10454.412 10250.984157752102 10303.643915522618 0 5998.835 nan 5773.83708940978 0 0 nan 0 0 3928.518 nan 4037.7278299077525 0 0 nan 0 0 16.433 nan 16.839201506103347 0 510.626 nan 475.23979469898296 0
"DP 2 MP 8 PP 2 MB 32 OP 2" 2769.681 2826.110370916371 2836.6590353585116 0 1572.399 nan 1556.9558998436394 0 1.9 nan 1.8592315609316759 0 944.354 nan 996.3819344184284 2 82.975 nan 90.19585213013765 1 4.601 nan 4.839300255112273 3 163.452 nan 186.42681715026268 3
EOD
set multiplot layout 3,3 title 'Leave-one-out: each strategy predicted by ratios fitted on the others (MAPE 3.5 %)' font ',12'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 7
set title 'step: MAPE 3.5 %, worst -15.6 %'
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
set title 'COMPUTE: MAPE 3.0 %, worst +6.1 %'
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
set title 'DP_COMM: MAPE 3.1 %, worst +5.3 %'
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
set title 'MP_COMM: MAPE 5.9 %, worst -44.6 %'
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
set title 'PP_COMM: MAPE 3.9 %, worst +8.7 %'
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
set title 'OPTIMIZER: MAPE 3.8 %, worst +7.7 %'
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
set title 'OVERHEAD: MAPE 10.4 %, worst -32.1 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 150
set ytics 150
set xrange [0:600]
set yrange [0:600]
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
