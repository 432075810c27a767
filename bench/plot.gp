# plot.gp - latency and bandwidth versus message size, one line per MPI,
# from bench/compare.sh shm-p2p's medians (DIR/lat.dat and DIR/bw.dat:
# "size median..." in the order of `labels`).
#   gnuplot -e "dir='D'; labels='rcmpi ompi mpich'; out='x.png'" bench/plot.gp
set terminal pngcairo size 900,360 font ",9"
set output out
set multiplot layout 1,2
set logscale xy
set grid
set key top left
set format x "%.0s%cB"
set xlabel "message size"
set ylabel "latency (µs)"
set title "osu_latency, 2 ranks, shared memory (median of runs)" noenhanced
plot for [i=1:words(labels)] dir.'/lat.dat' using ($1 > 0 ? $1 : NaN):(column(i+1)) \
	with linespoints pt i title word(labels, i)
set ylabel "bandwidth (MB/s)"
set key bottom right
set title "osu_bw, 2 ranks, shared memory (median of runs)" noenhanced
plot for [i=1:words(labels)] dir.'/bw.dat' using 1:(column(i+1)) \
	with linespoints pt i title word(labels, i)
unset multiplot
