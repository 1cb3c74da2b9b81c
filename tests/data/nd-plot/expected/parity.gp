# nd parity plot. The data is inline below and also in parity.dat.
# Re-render from this directory: gnuplot parity.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'parity.png'
$DATA << EOD
# nd parity data: one row per strategy, times in ms, nan = not available.
# label step:measured step:estimated comp:measured comp:estimated dp_wait:measured dp_wait:estimated mp_wait:measured mp_wait:estimated idle:measured idle:estimated
"DP 4 MP 2" 100 90 75 72 8 6 10 8 7 4
"DP 8 recompute=full" 120 130 100 113 12 12 0 0 8 5
EOD
set multiplot layout 2,3 title 'Estimated against measured time'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 5
set title 'step'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xrange [0:150]
set yrange [0:150]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimate', \
     $DATA using 2:3:1 with labels left offset char 0.6,0.4 font ',8' notitle
unset key
# Panel 2 of 5
set title 'comp'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xrange [0:120]
set yrange [0:120]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 4:5 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimate', \
     $DATA using 4:5:1 with labels left offset char 0.6,0.4 font ',8' notitle
# Panel 3 of 5
set title 'dp_wait'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xrange [0:15]
set yrange [0:15]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 6:7 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimate', \
     $DATA using 6:7:1 with labels left offset char 0.6,0.4 font ',8' notitle
# Panel 4 of 5
set title 'mp_wait'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xrange [0:12]
set yrange [0:12]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 8:9 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimate', \
     $DATA using 8:9:1 with labels left offset char 0.6,0.4 font ',8' notitle
# Panel 5 of 5
set title 'idle'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
unset logscale
set xrange [0:10]
set yrange [0:10]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 10:11 with points pt 7 ps 1 lc rgb '#4e79a7' title 'estimate', \
     $DATA using 10:11:1 with labels left offset char 0.6,0.4 font ',8' notitle
unset multiplot
unset output
