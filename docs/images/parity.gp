# nd parity plot. The data is inline below and also in parity.dat.
# Re-render from this directory: gnuplot parity.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parity.png'
$DATA << EOD
# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the panel's unit, nan = not available, then the point's rank among the panel's three worst errors above 5 % (0: not labelled).
# label step:measured step:estimated step:corrected step:labelled comp:measured comp:estimated comp:corrected comp:labelled dp_wait:measured dp_wait:estimated dp_wait:corrected dp_wait:labelled mp_wait:measured mp_wait:estimated mp_wait:corrected mp_wait:labelled pp_wait:measured pp_wait:estimated pp_wait:corrected pp_wait:labelled idle:measured idle:estimated idle:corrected idle:labelled
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" 7138.615 6688.699636679948 7370.121065993131 0 6218.183 5967.6735059748 6457.6807417917025 0 0.967 1.0354209979423867 0.9389637954900796 0 522.195 433.64981851303156 522.0929745892295 0 206.047 183.9328911941735 207.46773691293123 0 191.224 102.40800000000002 181.94064890377803 0
"DP 2 MP 4 MB 32 OP 2" 7574.91 6767.1314533425375 7576.575889768001 0 5628.586 5305.09747228147 5741.061203315289 0 0.485 0.5177442109053498 0.4695124691606396 0 1664.609 1304.7082368501626 1570.8043109159064 2 0 0 0 0 281.23 156.80800000000002 264.2408630676443 0
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" 7713.138 6892.163700109619 7496.323869242304 0 7538.898 6810.034758761197 7368.441579258917 0 35.9 38.576941348422494 34.9832110213091 0 0 0 0 0 0 0 0 0 138.339 43.552 92.89907896207737 1
"DP 8 MP 4 MB 8 OP 8" 1952.986 1701.1452611542209 1926.0363062596668 0 1453.941 1328.4333411373325 1438.0947819690684 0 3.137 3.5828608043478263 3.2490905498811076 0 393.667 326.17705921254066 392.7010777289766 0 0 0 0 0 102.241 42.952000000000005 91.9913560117406 2
"DP 4 MP 4 MB 16 OP 4" 3968.274 3390.2890417046624 3809.9750374451387 0 2976.686 2653.9600515187117 2872.380226512177 0 2.855 3.070871760869565 2.7847971113000667 0 824.401 652.3541184250813 785.4021554579532 0 0 0 0 0 164.334 80.90400000000001 149.4078583637085 0
"DP 2 MP 4 PP 2 MB 32 OP 2" 4130.587 3739.0032848716705 4201.832018682206 0 3016.102 2859.2870376063165 3094.1465056617667 0 0.474 0.5190890144032921 0.4707319941645999 0 796.533 653.7525911164394 787.0858475434625 0 147.029 124.57256713451181 140.51205533189628 0 170.44799999999998 100.87200000000001 179.6168781509159 0
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" 4694.387 4260.18410279273 4715.177151019428 0 3884.678 3623.2626114079703 3920.7448508471866 0 1.407 1.5521627469135801 1.4075671895359587 0 392.783 322.8663094430727 388.7150984399983 0 280.215 248.04701919477353 279.78548799089526 0 135.304 64.456 124.5241465518101 0
"DP 8 MP 4 PP 2 MB 8 OP 8" 1183.549 1017.8489833606346 1165.357286252983 0 786.84 716.0876230122303 775.1956268296971 0 3.242 3.585305608695652 3.2513076024367606 0 197.569 163.43814777910984 196.77146188586562 0 120.685 105.76990696059889 119.30353015242478 0 75.214 28.968000000000004 70.83535978255851 0
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" 1235.08 1131.6549582528319 1292.6434828465112 0 841.741 821.1590997098984 888.7462064622381 1 3.06 3.4782000869565217 3.1541797603223256 0 201.385 166.73872944166126 200.74519927605976 0 110.87 101.9349290143157 114.97785359473698 0 78.024 38.344 85.02004375315428 0
"DP 4 MP 4 PP 2 MB 16 OP 4" 2577.899 1925.3459993087874 2177.8937647703024 1 1631.417 1430.4234278769256 1548.0953767513238 2 2.819 3.0728155217391304 2.7865597963211735 0 714.092 326.8762955582197 393.54292377173124 1 122.603 112.03746035190312 126.37303854558186 0 106.96900000000001 52.93600000000001 107.09586590534431 0
"DP 1 MP 8 MB 64" 10454.412 8955.449481219288 10250.984157752102 0 6015.268 5361.976166264338 5802.271233364259 0 0 0 0 0 3928.518 3284.8573149549497 3954.8060519123264 0 0 0 0 0 510.626 308.61600000000004 493.90687247551585 0
"DP 2 MP 8 PP 2 MB 32 OP 2" 2769.681 2450.7304236646673 2826.110370916371 0 1577 1444.103400461509 1562.7370677853723 0 1.9 2.0496108260869565 1.8586742632847886 0 944.354 823.1898802119885 991.0799794297925 0 82.975 80.51553216508321 90.8177712870056 1 163.452 100.87200000000001 179.6168781509159 3
EOD
set multiplot layout 2,3 title 'Estimated against measured' font ',12'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 6
set title 'step: MAPE 3.3 %, worst -15.5 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (1000, 2000, 5000, 10000)
set ytics (1000, 2000, 5000, 10000)
set xrange [700:15000]
set yrange [700:15000]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3:(0):($4-$3) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 2:4 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 2:4:($5 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 2:4:($5 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 2:4:($5 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
unset key
# Panel 2 of 6
set title 'comp: MAPE 2.7 %, worst +5.6 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (500, 1000, 2000, 5000, 10000)
set ytics (500, 1000, 2000, 5000, 10000)
set xrange [500:10000]
set yrange [500:10000]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 6:7:(0):($8-$7) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 6:7 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 6:8 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 6:8:($9 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 6:8:($9 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 6:8:($9 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 3 of 6
set title 'dp_wait: MAPE 2.0 %, worst +3.6 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xtics 15
set ytics 15
set xrange [0:50]
set yrange [0:50]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 10:11:(0):($12-$11) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 10:11 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 10:12 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 10:12:($13 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 10:12:($13 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 10:12:($13 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 4 of 6
set title 'mp_wait: MAPE 5.8 %, worst -44.9 %'
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
     $DATA using 14:15 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 14:16 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 14:16:($17 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 14:16:($17 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 14:16:($17 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 5 of 6
set title 'pp_wait: MAPE 3.2 %, worst +9.5 %'
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
     $DATA using 18:19 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 18:20 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 18:20:($21 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 18:20:($21 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 18:20:($21 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
# Panel 6 of 6
set title 'idle: MAPE 8.7 %, worst -32.8 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (20, 50, 100, 200, 500)
set ytics (20, 50, 100, 200, 500)
set xrange [20:700]
set yrange [20:700]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 22:23:(0):($24-$23) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 22:23 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 22:24 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 22:24:($25 == 1 ? strcol(1) : '') with labels left offset char 0.6,0.5 font ',8' notitle, \
     $DATA using 22:24:($25 == 2 ? strcol(1) : '') with labels left offset char 0.6,-0.7 font ',8' notitle, \
     $DATA using 22:24:($25 == 3 ? strcol(1) : '') with labels left offset char 0.6,1.6 font ',8' notitle
unset multiplot
unset output
