# nd parity plot. The data is inline below and also in parity.dat.
# Re-render from this directory: gnuplot parity.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parity.png'
$DATA << EOD
# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the panel's unit, nan = not available, then the point's rank among the panel's three worst errors above 5 % (0: not labelled).
# label step:measured step:estimated step:corrected step:labelled comp:measured comp:estimated comp:corrected comp:labelled dp_wait:measured dp_wait:estimated dp_wait:corrected dp_wait:labelled mp_wait:measured mp_wait:estimated mp_wait:corrected mp_wait:labelled pp_wait:measured pp_wait:estimated pp_wait:corrected pp_wait:labelled idle:measured idle:estimated idle:corrected idle:labelled
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" 7381.962 6688.699636679948 7499.6718892476265 0 6326.348 5967.6735059748 6463.510920350637 0 0.957 1.0354209979423867 0.9350254376255726 0 571.19 433.64981851303156 573.0506794385835 0 209.621 183.9328911941735 207.10407556143417 0 273.847 102.40800000000002 255.0711884593456 2
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" 7701.112 6892.163700109619 7537.0463600566445 0 7512.993 6810.034758761197 7375.18167817687 0 35.469 38.576941348422494 34.83647862873632 0 0 0 0 0 0 0 0 0 152.65 43.552 127.02820325103733 1
"DP 2 MP 4 MB 32 OP 2" 7760.975 6767.1314533425375 7844.209830459489 0 5595.079 5305.09747228147 5746.203159019292 0 0.48 0.5177442109053498 0.46754316200067847 0 1788.536 1304.7082368501626 1724.1191156491493 0 0 0 0 0 376.879 156.80800000000002 373.4200126290474 0
"DP 8 MP 4 MB 8 OP 8" 1998.244 1701.1452611542209 1999.3145752488422 0 1445.321 1328.4333411373325 1439.3264483243636 0 3.07 3.5828608043478263 3.235462674790417 1 422.975 326.17705921254066 431.0297789122873 0 0 0 0 0 126.878 42.952000000000005 125.72288533740092 0
"DP 4 MP 4 MB 16 OP 4" 4060.975 3390.2890417046624 3948.0372895942673 0 2958.989 2653.9600515187117 2874.9160206822316 0 2.794 3.070871760869565 2.7731166528446685 0 885.776 652.3541184250813 862.0595578245747 0 0 0 0 0 213.417 80.90400000000001 208.2885944346164 0
"DP 2 MP 4 PP 2 MB 32 OP 2" 4287.92 3739.0032848716705 4352.099634551407 0 3030.166 2859.2870376063165 3096.9305413716625 0 0.471 0.5190890144032921 0.46875757187036693 0 856.846 653.7525911164394 863.9075828709289 0 149.588 124.57256713451181 139.06317813650867 1 250.849 100.87200000000001 251.72957460043637 0
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" 4774.722 4260.18410279273 4803.284597878104 0 3887.338 3623.2626114079703 3924.287446287185 0 1.392 1.5521627469135801 1.4016633375052874 0 428.842 322.8663094430727 426.654757123162 0 279.928 248.04701919477353 278.43525176812113 0 177.222 64.456 172.50547936213007 0
"DP 8 MP 4 PP 2 MB 8 OP 8" 1225.209 1017.8489833606346 1209.3446804491691 0 790.716 716.0876230122303 775.8600781454851 0 3.175 3.585305608695652 3.237670428216103 0 212.529 163.43814777910984 215.97689571773222 0 122.378 105.76990696059889 118.96976032748765 0 96.41000000000001 28.968000000000004 95.30027583024815 0
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" 1309.481 1131.6549582528319 1342.13442823637 0 862.173 821.1590997098984 889.5301302829357 0 2.999 3.4782000869565217 3.1409499758249897 0 217.256 166.73872944166126 220.3384807652094 0 113.654 101.9349290143157 113.42682345172645 0 113.399 38.344 115.69804376067322 0
"DP 4 MP 4 PP 2 MB 16 OP 4" 2681.372 1925.3459993087874 2257.3075567639926 1 1639.096 1430.4234278769256 1549.4679516998692 1 2.76 3.0728155217391304 2.7748719445195684 0 768.162 326.8762955582197 431.95379143546444 1 124.476 112.03746035190312 125.66756626382791 0 146.876 52.93600000000001 147.4433754203109 0
"DP 1 MP 8 MB 64" 10964.978 8955.449481219288 10851.996005629937 0 5886.605 5361.976166264338 5807.507197904664 0 0 0 0 0 4370.673 3284.8573149549497 4340.805958707366 0 0 0 0 0 707.6990000000001 308.61600000000004 703.6828490179095 0
"DP 2 MP 8 PP 2 MB 32 OP 2" 2945.213 2450.7304236646673 2995.582593080448 0 1561.454 1444.103400461509 1564.1413267134483 0 1.861 2.0496108260869565 1.8508783030597793 0 1051.243 823.1898802119885 1087.8121009712133 0 86.858 80.51553216508321 90.04871249229049 0 243.796 100.87200000000001 251.72957460043637 0
EOD
set multiplot layout 2,3 title 'Estimated against measured' font ',12'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 6
set title 'step: MAPE 2.7 %, worst -15.8 %'
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
set title 'comp: MAPE 2.1 %, worst -5.5 %'
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
set title 'dp_wait: MAPE 2.0 %, worst +5.4 %'
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
set title 'mp_wait: MAPE 5.5 %, worst -43.8 %'
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
set title 'pp_wait: MAPE 2.3 %, worst -7.0 %'
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
set title 'idle: MAPE 3.2 %, worst -16.8 %'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (20, 50, 100, 200, 500, 1000)
set ytics (20, 50, 100, 200, 500, 1000)
set xrange [20:1000]
set yrange [20:1000]
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
