# nd stacked bar plot. The data is inline below and also in classify_ranks.dat.
# Re-render from this directory: gnuplot classify_ranks.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'classify_ranks.png'
$DATA << EOD
# nd stacked bar data: one row per bar, the parts not 0 in every bar (nan = not available, drawn as 0).
# label comp dp_wait op_wait ep_wait idle
"0" 105.16 34.216 53.07 81.2055 341.4685
"1" 135.98649999999998 3.322 52.4535 95.98599999999999 331.5235
EOD
v(c) = valid(c) ? column(c) : 0
below(c, k) = sum [j=0:k-1] v(c + j)
K = 5
set multiplot title 'Step time of each rank, split into ND''s parts (mean of 4 rank-steps)'."\n".'slowest: rank 1, 619.3 ms a step' font ',12'
set lmargin at screen 0.09
set rmargin at screen 0.97
set tmargin at screen 0.88
set bmargin at screen 0.22
set style fill solid 1.0 border rgb '#ffffff'
set grid ytics
set xtics nomirror scale 0
set ytics nomirror
set xrange [-0.5:2 - 0.5]
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
unset key
set ylabel 'ms per step'
set xlabel 'rank'
plot $DATA using 0:(NaN):xtic(1) notitle, \
     $DATA using 0:(below(2,1)):($0 - 0.35):($0 + 0.35):(below(2,0)):(below(2,1)) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using 0:(below(2,2)):($0 - 0.35):($0 + 0.35):(below(2,1)):(below(2,2)) with boxxyerror fc rgb '#f28e2b' notitle, \
     $DATA using 0:(below(2,3)):($0 - 0.35):($0 + 0.35):(below(2,2)):(below(2,3)) with boxxyerror fc rgb '#9c755f' notitle, \
     $DATA using 0:(below(2,4)):($0 - 0.35):($0 + 0.35):(below(2,3)):(below(2,4)) with boxxyerror fc rgb '#76b7b2' notitle, \
     $DATA using 0:(below(2,5)):($0 - 0.35):($0 + 0.35):(below(2,4)):(below(2,5)) with boxxyerror fc rgb '#b07aa1' notitle, \
     $DATA using 0:(below(2,K)):(sprintf('%.4g', below(2,K))) with labels offset 0,0.7 font ',9' notitle
# the legend, a panel of its own across the image
set lmargin at screen 0.090
set rmargin at screen 0.97
set tmargin at screen 0.120
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
set key inside left top horizontal Left reverse samplen 2.5 width 1 maxrows 1 noopaque nobox
plot NaN with boxes fs solid 1.0 fc rgb '#4e79a7' title 'comp', \
     NaN with boxes fs solid 1.0 fc rgb '#f28e2b' title 'dp_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#9c755f' title 'op_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#76b7b2' title 'ep_wait', \
     NaN with boxes fs solid 1.0 fc rgb '#b07aa1' title 'idle'
unset multiplot
unset output
