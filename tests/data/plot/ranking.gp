# nd ranking plot. The data is inline below and also in ranking.dat.
# Re-render from this directory: gnuplot ranking.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'ranking.png'
$DATA << EOD
# nd ranking data: one row per strategy in rank order (best first); parts in ms, peak memory in MiB; nan = not available.
# label FW BW peak_mib
"a" 10 20 1000
"b" 12.5 18 2048.5
EOD
# v(c): column c, or 0 when it is not a number (a value not available counts as 0)
v(c) = valid(c) ? column(c) : 0
# below(c, k): the sum of the k columns from c on, where segment k of a stack starts
below(c, k) = sum [j=0:k-1] v(c + j)
set title 'Top 2 strategies: step time by part and peak memory'
set xlabel 'strategy, in rank order (best first)'
set ylabel 'step time (ms), stacked by part'
set y2label 'peak memory (MiB)'
set grid ytics
set key outside right top vertical Left reverse invert width 2
set style fill solid 1.0 border rgb '#ffffff'
set xrange [-0.5:1.5]
set offsets 0, 0, graph 0.06, 0
set y2range [0:*]
set xtics rotate by 30 right nomirror
set ytics nomirror
set y2tics
set lmargin 10
plot $DATA using 0:(NaN):xtic(1) notitle, \
     $DATA using 0:(below(2,1)):($0-0.35):($0+0.35):(below(2,0)):(below(2,1)) with boxxyerror fc rgb '#4e79a7' title 'FW', \
     $DATA using 0:(below(2,2)):($0-0.35):($0+0.35):(below(2,1)):(below(2,2)) with boxxyerror fc rgb '#f28e2b' title 'BW', \
     $DATA using 0:4 axes x1y2 with points pt 7 ps 1.5 lc rgb '#000000' title 'peak memory (right axis)', \
     4096 axes x1y2 with lines dt 2 lw 2 lc rgb '#c00000' title 'memory budget, 4096 MiB (right axis)'
unset output
