# nd interval plot. The data is inline below and also in fit_ratios.dat.
# Re-render from this directory: gnuplot fit_ratios.gp
set encoding utf8
set terminal pngcairo size 1000,700 noenhanced font 'Sans,10'
set output 'fit_ratios.png'
$DATA << EOD
# nd interval data: one row per value, top to bottom: the value, its 95 % interval (nan: none), 1 when estimated (0: held, shared or a fallback, drawn hollow), and a note.
# name value lo hi estimated note
"COMPUTE" 1.0826047310720954 1.065748341533497 1.099461120610694 1 "fitted on comp"
"DP_COMM" 0.9030388986544385 0.8972195723206854 0.9088582249881917 1 "fitted on dp_wait + op_wait"
"DP_REDUCE" 1 nan nan 0 "held at 1: no row of the round exercises it"
"MP_COMM" 6.629806295696448 3.876904449155872 9.382708142237025 1 "fitted on mp_wait + sp_wait"
"EP_COMM" 1 nan nan 0 "held at 1: no row of the round exercises it"
"CP_COMM" 1 nan nan 0 "held at 1: no row of the round exercises it"
"PP_COMM" 1.473160987289303 0.99571743247972 1.950604542098886 1 "fitted on pp_wait"
"BUBBLE" 1.4033095591632079 1.3429709178297609 1.463648200496655 1 "fitted on pp_wait"
"OPTIMIZER" 1.2856383490890175 1.2612020118763454 1.3100746863016897 1 "fitted on optimizer"
"OVERHEAD" 2.175529856060695 2.0728518159568696 2.27820789616452 1 "fitted on idle"
EOD
set title 'Fitted ratios (measured / estimated), parts mode, with 95 % intervals' font ',12'
set lmargin at screen 0.120
set rmargin at screen 0.58
set tmargin 4
set bmargin 4
set yrange [10 - 0.5:-0.5]
set ytics nomirror scale 0
set grid xtics
unset key
set xlabel 'ratio (1 = the estimate needs no correction)'
xmin = -0.16
xmax = 4.16
set xrange [xmin:xmax]
cut(x) = x < xmin ? xmin : x > xmax ? xmax : x
set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 2 lw 1.5 lc rgb '#404040' back
plot $DATA using (1):0:ytic(1) with points pt -1 notitle, \
     $DATA using (cut($3)):0:(cut($4) - cut($3)):(0) with vectors nohead lw 3 lc rgb '#8fb2d3' notitle, \
     $DATA using (valid(3) && $3 < xmin ? xmin : NaN):0:(-0.02 * (xmax - xmin)):(0) with vectors head filled size screen 0.008,30 lc rgb '#8fb2d3' notitle, \
     $DATA using (valid(4) && $4 > xmax ? xmax : NaN):0:(0.02 * (xmax - xmin)):(0) with vectors head filled size screen 0.008,30 lc rgb '#8fb2d3' notitle, \
     $DATA using ($5 > 0 ? cut($2) : NaN):0 with points pt 7 ps 1.4 lc rgb '#4e79a7' notitle, \
     $DATA using ($5 > 0 ? NaN : cut($2)):0 with points pt 6 ps 1.4 lc rgb '#8a8a8a' notitle, \
     $DATA using (xmax):0:(sprintf('%.3f  %s', $2, strcol(6))) with labels left offset char 1.5,0 notitle
unset output
