# nd parity plot. The data is inline below and also in parity.dat.
# Re-render from this directory: gnuplot parity.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parity.png'
$DATA << EOD
# nd parity data: one row per strategy, times in ms, nan = not available.
# label step:measured step:estimated step:corrected FW_COMPUTE:measured FW_COMPUTE:estimated FW_COMPUTE:corrected
"tp2_pp4" 100 80 97 40 30.5 39
"tp4 'b'" 120 150 125 nan 70 0.1
EOD
set multiplot layout 1,2 title 'Run ''A'''
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 2
set title 'step'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xrange [0:200]
set yrange [0:200]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3:(0):($4-$3) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimated', \
     $DATA using 2:4 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 2:4:1 with labels left offset char 0.6,0.4 font ',8' notitle
unset key
# Panel 2 of 2
set title 'FW_COMPUTE'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xrange [0:80]
set yrange [0:80]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 5:6:(0):($7-$6) with vectors nohead lc rgb '#b0b0b0' notitle, \
     $DATA using 5:6 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimated', \
     $DATA using 5:7 with points pt 9 ps 1.2 lc rgb '#e15759' title 'corrected', \
     $DATA using 5:7:1 with labels left offset char 0.6,0.4 font ',8' notitle
unset multiplot
unset output
