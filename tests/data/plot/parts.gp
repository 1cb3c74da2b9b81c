# nd parts plot. The data is inline below and also in parts.dat.
# Re-render from this directory: gnuplot parts.gp
set encoding utf8
set terminal pdfcairo size 12.34in,5.67in noenhanced font 'Sans,10'
set output 'parts.pdf'
$DATA << EOD
# nd parts data: one row per strategy; measured parts, then estimated parts, in ms; nan = not available (drawn as 0).
# label measured:FW measured:IDLE estimated:FW estimated:IDLE
"s1" 30 10 28 0
"s2" 35 nan 30 0
EOD
# v(c): column c, or 0 when it is not a number (a value not available counts as 0)
v(c) = valid(c) ? column(c) : 0
# below(c, k): the sum of the k columns from c on, where segment k of a stack starts
below(c, k) = sum [j=0:k-1] v(c + j)
set title 'Time parts per strategy: measured beside estimated'
set xlabel 'strategy (left bar M: measured, right bar E: estimated)'
set ylabel 'time (ms)'
set grid ytics
set key outside right top vertical Left reverse invert width 2 title 'part'
set style fill solid 1.0 border rgb '#ffffff'
set xrange [-0.5:1.5]
set offsets 0, 0, graph 0.06, 0
set xtics rotate by 30 right nomirror
set ytics nomirror
set xzeroaxis
set lmargin 10
plot $DATA using 0:(NaN):xtic(1) notitle, \
     $DATA using ($0-0.2):(below(2,1)):($0-0.38):($0-0.02):(below(2,0)):(below(2,1)) with boxxyerror fc rgb '#4e79a7' title 'FW', \
     $DATA using ($0-0.2):(below(2,2)):($0-0.38):($0-0.02):(below(2,1)):(below(2,2)) with boxxyerror fc rgb '#e15759' title 'IDLE', \
     $DATA using ($0+0.2):(below(4,1)):($0+0.02):($0+0.38):(below(4,0)):(below(4,1)) with boxxyerror fc rgb '#4e79a7' notitle, \
     $DATA using ($0+0.2):(below(4,2)):($0+0.02):($0+0.38):(below(4,1)):(below(4,2)) with boxxyerror fc rgb '#e15759' notitle, \
     $DATA using ($0-0.2):(below(2,2)):('M') with labels offset 0,0.7 notitle, \
     $DATA using ($0+0.2):(below(4,2)):('E') with labels offset 0,0.7 notitle
unset output
