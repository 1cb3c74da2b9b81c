# nd stage memory plot. The data is inline below and also in memory.dat.
# Re-render from this directory: gnuplot memory.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'memory.png'
$DATA << EOD
# nd stage memory data: one row per pipeline stage, memory components in MiB; nan = not available (drawn as 0).
# stage parameters gradients optimizer activations working buffers allocator_cache runtime_context
"0" 1000 2000 500 3000 400 100 224 800
"1" 1000 2000 500 1500 400 100 224 800
EOD
# v(c): column c, or 0 when it is not a number (a value not available counts as 0)
v(c) = valid(c) ? column(c) : 0
# below(c, k): the sum of the k columns from c on, where segment k of a stack starts
below(c, k) = sum [j=0:k-1] v(c + j)
set title 'Memory per pipeline stage against the budget'
set xlabel 'pipeline stage'
set ylabel 'memory per device (MiB)'
set grid ytics
set key outside right top vertical Left reverse invert width 2 title 'component'
set style fill solid 1.0 border rgb '#ffffff'
set xrange [-0.5:1.5]
set offsets 0, 0, graph 0.06, 0
set xtics nomirror
set ytics nomirror
plot $DATA using 0:(NaN):xtic(1) notitle, \
     $DATA using 0:(below(2,1)):($0-0.35):($0+0.35):(below(2,0)):(below(2,1)) with boxxyerror fc rgb '#4e79a7' title 'parameters', \
     $DATA using 0:(below(2,2)):($0-0.35):($0+0.35):(below(2,1)):(below(2,2)) with boxxyerror fc rgb '#f28e2b' title 'gradients', \
     $DATA using 0:(below(2,3)):($0-0.35):($0+0.35):(below(2,2)):(below(2,3)) with boxxyerror fc rgb '#e15759' title 'optimizer', \
     $DATA using 0:(below(2,4)):($0-0.35):($0+0.35):(below(2,3)):(below(2,4)) with boxxyerror fc rgb '#76b7b2' title 'activations', \
     $DATA using 0:(below(2,5)):($0-0.35):($0+0.35):(below(2,4)):(below(2,5)) with boxxyerror fc rgb '#59a14f' title 'working', \
     $DATA using 0:(below(2,6)):($0-0.35):($0+0.35):(below(2,5)):(below(2,6)) with boxxyerror fc rgb '#edc948' title 'buffers', \
     $DATA using 0:(below(2,7)):($0-0.35):($0+0.35):(below(2,6)):(below(2,7)) with boxxyerror fc rgb '#b07aa1' title 'allocator cache', \
     $DATA using 0:(below(2,8)):($0-0.35):($0+0.35):(below(2,7)):(below(2,8)) with boxxyerror fc rgb '#ff9da7' title 'runtime context', \
     16384 with lines dt 2 lw 2 lc rgb '#c00000' title 'memory budget, 16384 MiB'
unset output
