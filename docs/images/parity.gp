# nd parity plot. The data is inline below and also in parity.dat.
# Re-render from this directory: gnuplot parity.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parity.png'
$DATA << EOD
# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the panel's unit, nan = not available, then the point's rank among the panel's three worst errors above 5 % (0: not labelled).
# label step:measured step:estimated step:corrected step:labelled comp:measured comp:estimated comp:corrected comp:labelled dp_wait:measured dp_wait:estimated dp_wait:corrected dp_wait:labelled mp_wait:measured mp_wait:estimated mp_wait:corrected mp_wait:labelled pp_wait:measured pp_wait:estimated pp_wait:corrected pp_wait:labelled idle:measured idle:estimated idle:corrected idle:labelled
"DP 2 MP 2 PP 2 MB 32 OP 2 recompute=selective" 7381.962 6251.278860910401 7022.416982913146 0 6326.348 5967.6735059748 6463.510920350637 0 0.957 1.0354209979423867 0.9350254376255726 0 571.19 9.484217766803841 62.878526660112215 2 209.621 170.6777161708538 240.0213220054248 3 273.847 102.40800000000002 255.0711884593456 2
"DP 8 MB 8 OP 8 ZERO 3 recompute=full" 7701.112 6892.163700109619 7537.0463600566445 0 7512.993 6810.034758761197 7375.18167817687 0 35.469 38.576941348422494 34.83647862873632 0 0 0 0 0 0 0 0 0 152.65 43.552 127.02820325103733 1
"DP 2 MP 4 MB 32 OP 2" 7760.975 5559.369477725119 6762.825647875421 0 5595.079 5305.09747228147 5746.203159019292 0 0.48 0.5177442109053498 0.46754316200067847 0 1788.536 96.94626123274446 642.7349330650817 0 0 0 0 0 376.879 156.80800000000002 373.4200126290474 0
"DP 8 MP 4 MB 8 OP 8" 1998.244 1399.2047672498663 1728.9685296028251 3 1445.321 1328.4333411373325 1439.3264483243636 0 3.07 3.5828608043478263 3.235462674790417 0 422.975 24.236565308186115 160.68373326627042 0 0 0 0 0 126.878 42.952000000000005 125.72288533740092 0
"DP 4 MP 4 MB 16 OP 4" 4060.975 2786.4080538959533 3407.3451983022333 2 2958.989 2653.9600515187117 2874.9160206822316 0 2.794 3.070871760869565 2.7731166528446685 0 885.776 48.47313061637223 321.36746653254085 0 0 0 0 0 213.417 80.90400000000001 208.2885944346164 0
"DP 2 MP 4 PP 2 MB 32 OP 2" 4287.92 3116.2510161939394 3829.8507587832 0 3030.166 2859.2870376063165 3096.9305413716625 0 0.471 0.5190890144032921 0.46875757187036693 0 856.846 49.871603307730254 330.63906958606583 0 149.588 105.70128626548978 150.08281565316517 0 250.849 100.87200000000001 251.72957460043637 0
"DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full" 4774.722 3922.1771396980803 4451.50977333399 0 3887.338 3623.2626114079703 3924.287446287185 0 1.392 1.5521627469135801 1.4016633375052874 0 428.842 4.7421088834019205 31.439263330056107 1 279.928 228.16425665979446 321.8759210171129 2 177.222 64.456 172.50547936213007 0
"DP 8 MP 4 PP 2 MB 8 OP 8" 1225.209 848.0074555394351 1079.4412620281637 0 790.716 716.0876230122303 775.8600781454851 0 3.175 3.585305608695652 3.237670428216103 0 212.529 12.467900826932564 82.65976739651646 0 122.378 86.89862609157663 122.383470227698 0 96.41000000000001 28.968000000000004 95.30027583024815 0
"DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4" 1309.481 942.2444812575837 1202.1780006075471 0 862.173 821.1590997098984 889.5301302829357 0 2.999 3.4782000869565217 3.1409499758249897 0 217.256 15.768482489484004 104.54198448236025 0 113.654 63.494698971244716 89.26689210575269 1 113.399 38.344 115.69804376067322 0
"DP 4 MP 4 PP 2 MB 16 OP 4" 2681.372 1604.5342245354109 1996.6223192272532 1 1639.096 1430.4234278769256 1549.4679516998692 1 2.76 3.0728155217391304 2.7748719445195684 0 768.162 24.935801653865127 165.31953479303291 3 124.476 93.16617948288109 131.6165853695205 0 146.876 52.93600000000001 147.4433754203109 0
"DP 1 MP 8 MB 64" 10964.978 6444.815231742855 11644.139000705449 0 5886.605 5361.976166264338 5807.507197904664 0 0 0 0 0 4370.673 774.223065478517 5132.948953782876 0 0 0 0 0 707.6990000000001 308.61600000000004 703.6828490179095 0
"DP 2 MP 8 PP 2 MB 32 OP 2" 2945.213 1803.457531221525 3200.4557274607737 0 1561.454 1444.103400461509 1564.1413267134483 0 1.861 2.0496108260869565 1.8508783030597793 0 1051.243 195.53131784288027 1296.334762040551 0 86.858 60.901202091048646 86.39918580327817 0 243.796 100.87200000000001 251.72957460043637 0
EOD
set multiplot layout 2,3 title 'Estimated against measured' font ',12'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 6
set title 'step: MAPE 10.6 %, worst -25.5 %'
set xlabel 'measured (ms), log axes'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (1000, 2000, 5000, 10000)
set ytics (1000, 2000, 5000, 10000)
set xrange [700:15000]
set yrange [700:15000]
set label 10 'DP 4 MP 4 PP 2 MB 16 OP 4' at first 2681.372, graph 0.35074888300442286 left offset char 0.6,0 font ',8' front
set label 11 'DP 4 MP 4 MB 16 OP 4' at first 4060.975, graph 0.5163948879257956 left offset char 0.6,0 font ',8' front
set label 12 'DP 8 MP 4 MB 8 OP 8' at first 1998.244, graph 0.29503459729013715 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3:(0):($4-$3) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 2:4 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'corrected'
unset label
unset arrow
unset key
# Panel 2 of 6
set title 'comp: MAPE 2.1 %, worst -5.5 %'
set xlabel 'measured (ms), log axes'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (500, 1000, 2000, 5000, 10000)
set ytics (500, 1000, 2000, 5000, 10000)
set xrange [500:10000]
set yrange [500:10000]
set label 10 'DP 4 MP 4 PP 2 MB 16 OP 4' at first 1639.096, graph 0.37755670143890496 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 6:7:(0):($8-$7) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 6:7 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 6:8 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'corrected'
unset label
unset arrow
# Panel 3 of 6
set title 'dp_wait: not judged (< 0.5 % of step)'
set xlabel 'measured (ms), linear axes'
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
     $DATA using 10:12 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'corrected'
unset label
unset arrow
# Panel 4 of 6
set title 'mp_wait: MAPE 60.5 %, worst -92.7 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 1500
set ytics 1500
set xrange [0:6000]
set yrange [0:6000]
set label 10 'DP 4 MP 2 PP 2 MB 16 OP 4 recompute=full' at first 428.842, graph 0.027857142857142858 left offset char 0.6,0 font ',8' front
set label 11 'DP 2 MP 2 PP 2 MB 32 OP 2 recompute=s...' at first 571.19, graph 0.08357142857142857 left offset char 0.6,0 font ',8' front
set arrow 11 from first 571.19, graph 0.08357142857142857 to first 571.19, first 62.878526660112215 nohead lc rgb '#909090' lw 0.5 front
set label 12 'DP 4 MP 4 PP 2 MB 16 OP 4' at first 768.162, graph 0.1392857142857143 left offset char 0.6,0 font ',8' front
set arrow 12 from first 768.162, graph 0.1392857142857143 to first 768.162, first 165.31953479303291 nohead lc rgb '#909090' lw 0.5 front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 14:15:(0):($16-$15) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 14:15 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 14:16 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'corrected'
unset label
unset arrow
# Panel 5 of 6
set title 'pp_wait: MAPE 8.2 %, worst -21.5 %'
set xlabel 'measured (ms), linear axes'
set ylabel 'estimated (ms)'
unset logscale
set xtics 100
set ytics 100
set xrange [0:400]
set yrange [0:400]
set label 10 'DP 4 MP 4 PP 4 VPP 2 MB 16 OP 4' at first 113.654, graph 0.22316723026438173 left offset char 0.6,0 font ',8' front
set label 11 'DP 4 MP 2 PP 2 MB 16 ...' at first 279.928, graph 0.8046898025427822 right offset char -0.6,0 font ',8' front
set label 12 'DP 2 MP 2 PP 2 MB 32 ...' at first 209.621, graph 0.600053305013562 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 18:19:(0):($20-$19) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 18:19 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 18:20 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'corrected'
unset label
unset arrow
# Panel 6 of 6
set title 'idle: MAPE 3.2 %, worst -16.8 %'
set xlabel 'measured (ms), log axes'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (20, 50, 100, 200, 500, 1000)
set ytics (20, 50, 100, 200, 500, 1000)
set xrange [20:1000]
set yrange [20:1000]
set label 10 'DP 8 MB 8 OP 8 ZERO 3...' at first 152.65, graph 0.472562880772365 left offset char 0.6,0 font ',8' front
set label 11 'DP 2 MP 2 PP 2 MB 32...' at first 273.847, graph 0.6507657034582817 right offset char -0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 22:23:(0):($24-$23) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 22:23 with points pt 7 ps 1 lc rgb '#4e79a7' title 'raw estimate', \
     $DATA using 22:24 with points pt 8 ps 1.5 lw 1.5 lc rgb '#e15759' title 'corrected'
unset label
unset arrow
unset multiplot
unset output
