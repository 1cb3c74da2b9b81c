# nd parity plot. The data is inline below and also in parity_log_memory.dat.
# Re-render from this directory: gnuplot parity_log_memory.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parity_log_memory.png'
$DATA << EOD
# nd parity data: one row per strategy; per panel measured, estimated (and corrected) in the panel's unit, nan = not available, then the point's rank among the panel's three worst errors above 5 % (0: not labelled).
# label step:measured step:estimated step:labelled peak_memory:measured peak_memory:estimated peak_memory:labelled
"DP 1 MBS 2" 464.12 437.0976198239373 0 14.025390625 14.014421463012695 0
"DP 8 MBS 2" 480.22 451.1028874831965 0 14.587890625 14.209733963012695 0
"DP 8 MBS 2" 480.96 451.1028874831965 0 14.587890625 14.209733963012695 0
"DP 2 MP 4 MBS 8" 576.48 588.7965438886135 0 8.890625 9.523914337158203 2
"DP 4 MP 2 MBS 4" 593.68 562.0641263822292 0 9.416015625 10.081096649169922 3
"DP 8 PP 4 MB 32 MBS 2" 4893.55 5307.125864365196 2 6.962890625 7.460620880126953 1
"DP 16 MBS 2" 664.46 611.8155515630677 3 14.16796875 14.209733963012695 0
"DP 1 MP 8 MBS 16" 664.64 659.1512474222084 0 12.38671875 12.262901306152344 0
"DP 32 MBS 2" 683.51 617.8238159543721 1 14.16796875 14.209733963012695 0
"DP 1 MP 8 MBS 16" 692.44 659.1512474222084 0 12.38671875 12.262901306152344 0
EOD
set multiplot layout 1,2 title 'Estimated against measured' font ',12'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 2
set title 'step: MAPE 5.7 %, worst -9.6 %'
set xlabel 'measured (ms), log axes'
set ylabel 'estimated (ms)'
set logscale xy
set xtics (500, 1000, 2000, 5000)
set ytics (500, 1000, 2000, 5000)
set xrange [300:7000]
set yrange [300:7000]
set label 10 'DP 32 MBS 2' at first 683.51, graph 0.2633888436263504 left offset char 0.6,0 font ',8' front
set arrow 10 from first 683.51, graph 0.2633888436263504 to first 683.51, first 617.8238159543721 nohead lc rgb '#909090' lw 0.5 front
set label 11 'DP 8 PP 4 MB 32 MBS 2' at first 4893.55, graph 0.9121047566151417 right offset char -0.6,0 font ',8' front
set label 12 'DP 16 MBS 2' at first 664.46, graph 0.22624598648349326 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimate'
unset label
unset arrow
unset key
# Panel 2 of 2
set title 'peak memory: MAPE 2.9 %, worst +7.1 %'
set xlabel 'measured (GiB), linear axes'
set ylabel 'estimated (GiB)'
unset logscale
set xtics 5
set ytics 5
set xrange [0:20]
set yrange [0:20]
set label 10 'DP 8 PP 4 MB 32 MBS 2' at first 6.962890625, graph 0.3730310440063477 left offset char 0.6,0 font ',8' front
set label 11 'DP 2 MP 4 MBS 8' at first 8.890625, graph 0.4761957168579102 left offset char 0.6,0 font ',8' front
set label 12 'DP 4 MP 2 MBS 4' at first 9.416015625, graph 0.5133385740007673 left offset char 0.6,0 font ',8' front
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 5:6 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimate'
unset label
unset arrow
unset multiplot
unset output
