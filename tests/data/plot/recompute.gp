# nd recompute plot. The data is inline below and also in recompute.dat.
# Re-render from this directory: gnuplot recompute.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'recompute.png'
$DATA << EOD
# nd recompute data: one block per configuration (blocks separated by two blank lines); step 0 is the starting plan, each further step recomputes one more layer fully; step time in ms, peak memory in MiB.
# configuration step step_ms peak_mib
"tp2 pp4" 0 100 6000
"tp2 pp4" 1 103 5700
"tp2 pp4" 2 106.5 5450


"tp4" 0 110 5000
"tp4" 1 112 4800
EOD
set multiplot layout 1,2 title 'Recompute potentials: one more fully recomputed layer per step'
set grid
set xlabel 'layers switched to full recompute (step)'
set xrange [-0.5:2.5]
set offsets 0, 0, graph 0.05, graph 0.05
set xtics 0, 1
set key top left opaque box Left reverse
set title 'step time'
set ylabel 'step time (ms)'
plot $DATA index 0 using 2:3 with linespoints pt 7 lw 2 lc rgb '#4e79a7' title 'tp2 pp4', \
     $DATA index 1 using 2:3 with linespoints pt 7 lw 2 lc rgb '#f28e2b' title 'tp4'
set title 'peak memory'
set ylabel 'peak memory (MiB)'
set key bottom left opaque box Left reverse
plot $DATA index 0 using 2:4 with linespoints pt 7 lw 2 lc rgb '#4e79a7' notitle, \
     $DATA index 1 using 2:4 with linespoints pt 7 lw 2 lc rgb '#f28e2b' notitle, \
     5500 with lines dt 2 lw 2 lc rgb '#c00000' title 'memory budget, 5500 MiB'
unset multiplot
unset output
