# nd stage memory plot. The data is inline below and also in memory.dat.
# Re-render from this directory: gnuplot memory.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'memory.png'
$DATA << EOD
# nd stage memory data: one row per pipeline stage, the memory components that are not 0 in every stage, in MiB (nan = not available, drawn as 0), then the labels drawn: the stage's tic, its share of the budget, its offloaded layers ("" = none, or no room).
# stage parameters gradients optimizer activations working buffers allocator_cache runtime_context tic share host
"0" 7259.220703125 14518.44140625 1096.2759704589844 27192 112 504 896 3000 "0" "86 %" ""
"1" 11835.25390625 23670.5078125 2066.7775268554688 20664 694 504 581 3000 "1" "99 %" ""
"2" 11835.25390625 23670.5078125 2066.7775268554688 21120 694 504 588 3000 "2" "99.9 %" ""
"3" 11835.25390625 23670.5078125 2066.7775268554688 20440 694 504 565 3000 "3" "99 %" ""
"4" 11835.25390625 23670.5078125 2066.7775268554688 18624 112 504 512 3000 "4" "95 %" ""
"5" 11835.25390625 23670.5078125 2066.7775268554688 13968 112 504 384 3000 "5" "87 %" ""
"6" 11835.25390625 23670.5078125 2066.7775268554688 9312 112 504 256 3000 "6" "80 %" ""
"7" 11288.65185546875 22577.3037109375 1852.1555557250977 4298 1012 504 112 3000 "7" "70 %" ""
EOD
v(c) = valid(c) ? column(c) : 0
# below(c, k): where segment k of a stack starts (MiB)
below(c, k) = sum [j=0:k-1] v(c + j)
K = 8
# the first F segments must fit; the rest are given back under pressure
F = 8
set multiplot title 'Memory per pipeline stage of #1 DP 128 EP 16 MP 4 PP 8 MB 64 OP 128 SP'."\n".'peak 62.0 GiB on stage 2, 99.9 % of the 62.08 GiB budget, 91 MiB free' font ',12'
set lmargin at screen 0.09
set rmargin at screen 0.97
set tmargin at screen 0.90
set bmargin at screen 0.20
set style fill solid 1.0 border rgb '#ffffff'
set grid ytics
set xlabel 'pipeline stage'
set ylabel 'memory per device (GiB)'
set xtics nomirror scale 0
set ytics nomirror
set xrange [-0.5:8 - 0.5]
set yrange [0:*]
set offsets 0, 0, graph 0.14, 0
unset key
budget_mib = 63569.92
plot $DATA using 0:(NaN):xtic(10) notitle, \
     $DATA using 0:(below(2,1) / 1024):($0 - 0.35):($0 + 0.35):(below(2,0) / 1024):(below(2,1) / 1024) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using 0:(below(2,2) / 1024):($0 - 0.35):($0 + 0.35):(below(2,1) / 1024):(below(2,2) / 1024) with boxxyerror fc rgb '#f28e2b' notitle, \
     $DATA using 0:(below(2,3) / 1024):($0 - 0.35):($0 + 0.35):(below(2,2) / 1024):(below(2,3) / 1024) with boxxyerror fc rgb '#e15759' notitle, \
     $DATA using 0:(below(2,4) / 1024):($0 - 0.35):($0 + 0.35):(below(2,3) / 1024):(below(2,4) / 1024) with boxxyerror fc rgb '#76b7b2' notitle, \
     $DATA using 0:(below(2,5) / 1024):($0 - 0.35):($0 + 0.35):(below(2,4) / 1024):(below(2,5) / 1024) with boxxyerror fc rgb '#59a14f' notitle, \
     $DATA using 0:(below(2,6) / 1024):($0 - 0.35):($0 + 0.35):(below(2,5) / 1024):(below(2,6) / 1024) with boxxyerror fc rgb '#edc948' notitle, \
     $DATA using 0:(below(2,7) / 1024):($0 - 0.35):($0 + 0.35):(below(2,6) / 1024):(below(2,7) / 1024) with boxxyerror fc rgb '#b07aa1' notitle, \
     $DATA using 0:(below(2,8) / 1024):($0 - 0.35):($0 + 0.35):(below(2,7) / 1024):(below(2,8) / 1024) with boxxyerror fc rgb '#ff9da7' notitle, \
     budget_mib / 1024.0 with lines dt 2 lw 2 lc rgb '#c00000' notitle, \
     $DATA using 0:(below(2,K) / 1024):11 with labels offset 0,0.7 notitle, \
     $DATA using 0:(below(2,K) / 1024):12 with labels offset 0,1.8 tc rgb '#4e79a7' notitle
# the legend, a panel of its own across the image
set lmargin at screen 0.090
set rmargin at screen 0.97
set tmargin at screen 0.110
set bmargin at screen 0.010
unset border
unset tics
unset grid
unset title
unset xlabel
unset ylabel
unset arrow
unset label
unset xzeroaxis
unset yzeroaxis
unset logscale
set xrange [0:1]
set yrange [0:1]
set key inside left top horizontal Left reverse samplen 2.5 width 1 maxrows 2 noopaque nobox
plot NaN with boxes fs solid 1.0 fc rgb '#4e79a7' title 'parameters', \
     NaN with boxes fs solid 1.0 fc rgb '#f28e2b' title 'gradients', \
     NaN with boxes fs solid 1.0 fc rgb '#e15759' title 'optimizer', \
     NaN with boxes fs solid 1.0 fc rgb '#76b7b2' title 'activations', \
     NaN with boxes fs solid 1.0 fc rgb '#59a14f' title 'working', \
     NaN with boxes fs solid 1.0 fc rgb '#edc948' title 'buffers', \
     NaN with boxes fs solid 1.0 fc rgb '#b07aa1' title 'allocator cache', \
     NaN with boxes fs solid 1.0 fc rgb '#ff9da7' title 'runtime context', \
     NaN with lines dt 2 lw 2 lc rgb '#c00000' title 'budget 62.08 GiB'
unset multiplot
unset output
