# nd recompute plot. The data is inline below and also in potentials.dat.
# Re-render from this directory: gnuplot potentials.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'potentials.png'
$DATA << EOD
# nd recompute data: one block per configuration (blocks separated by two blank lines); step 0 is the starting plan, each further step recomputes one more layer fully; step time in ms, peak memory in MiB.
# configuration step step_ms peak_mib
"TOP 1: DP 8 MP 2 PP 2 MB 16 OP 8 SP" 0 1000 60000
"TOP 1: DP 8 MP 2 PP 2 MB 16 OP 8 SP" 1 1010.5 57000
"TOP 1: DP 8 MP 2 PP 2 MB 16 OP 8 SP" 2 1021 54000


"TOP 2: DP 16 PP 2 MB 8 OP 16" 0 1005 70000
"TOP 2: DP 16 PP 2 MB 8 OP 16" 1 1020 66000
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
plot $DATA index 0 using 2:3 with linespoints pt 7 lw 2 lc rgb '#4e79a7' title 'TOP 1: DP 8 MP 2 PP 2 MB 16 OP 8 SP', \
     $DATA index 1 using 2:3 with linespoints pt 7 lw 2 lc rgb '#f28e2b' title 'TOP 2: DP 16 PP 2 MB 8 OP 16'
set title 'peak memory'
set ylabel 'peak memory (MiB)'
set key bottom left opaque box Left reverse
plot $DATA index 0 using 2:4 with linespoints pt 7 lw 2 lc rgb '#4e79a7' notitle, \
     $DATA index 1 using 2:4 with linespoints pt 7 lw 2 lc rgb '#f28e2b' notitle, \
     65536 with lines dt 2 lw 2 lc rgb '#c00000' title 'memory budget, 65536 MiB'
unset multiplot
unset output
