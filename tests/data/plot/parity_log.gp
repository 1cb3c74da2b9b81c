# nd parity plot. The data is inline below and also in parity_log.dat.
# Re-render from this directory: gnuplot parity_log.gp
set encoding utf8
set terminal svg size 800,600 noenhanced font 'Sans,10' background rgb 'white'
set output 'parity_log.svg'
$DATA << EOD
# nd parity data: one row per strategy, times in ms, nan = not available.
# label step:measured step:estimated
"a" 1 2
"b" 10 9
"c" 1000 1100
EOD
set multiplot layout 1,1 title 'Estimated against measured time'
set grid
set size square
set key top left opaque box Left reverse
# Panel 1 of 1
set title 'step'
set xlabel 'measured (ms)'
set ylabel 'estimated (ms)'
set logscale xy
set xrange [1:10000]
set yrange [1:10000]
plot '+' using 1:($1*0.9):($1*1.1) with filledcurves fc rgb '#d9d9d9' fs solid 1.0 noborder title '±10 %', \
     x with lines lc rgb '#404040' dt 2 title 'y = x', \
     $DATA using 2:3 with points pt 7 ps 1 lc rgb '#4e79a7' title 'nd', \
     $DATA using 2:3:1 with labels left offset char 0.6,0.4 font ',8' notitle
unset multiplot
unset output
