#!/bin/bash
# verbs_scale_model.sh - what the verbs transport costs each process as the
# job grows, for each wiring mode, from the formulas of
# pt2pt/verbs/README.md and the default parameters:
#
#   modex (RCMPI_VERBS_CM=modex; auto's choice up to 64 ranks): every
#     rank publishes
#     96 + 4N bytes (its address and one QP number per rank) and fetches
#     all N blobs; N - 1 RC QPs (plus a loopback QP for device atomics);
#     receive buffers max(256, 4 (N - 1)).
#   rdmacm (RCMPI_VERBS_CM=rdmacm; auto's choice on RoCE past 64 ranks):
#     96 bytes published, one peer's address
#     fetched per connection; one RC QP per peer it talks to (k); receive
#     buffers max(256, 4 k), grown as peers connect.
#   ud (RCMPI_VERBS_CM=ud; auto's choice on InfiniBand past 64 ranks): as
#     rdmacm, plus one UD QP and 20 KiB of registered handshake buffers
#     (128 receive + 32 send of 128 bytes) per process.
#
# Registered memory: receive buffers and 64 bounce buffers of 8320 bytes
# (8 KiB eager limit), up to 8 eager rings of 32 x 2048 bytes, 32 bytes of
# credit slots per rank. Host memory per QP: 128 send-queue slots of 24
# bytes (the device's own QP memory is the provider's and not modelled).
#
#   bench/verbs_scale_model.sh [K [N...]]
#     K: peers each process talks to (default 6: a ring and two strides,
#        the pattern of the verbs suite's scale case); N: job sizes
#        (default 16 48 1000 10000 100000)
#
# The small sizes are the ones the verbs suite runs (vt_scale): there each
# process's QPs are counted with `rdma resource show qp` and must be k
# (rdmacm, 48 ranks; ud, 16 ranks) or N - 1 plus the loopback (modex, 16
# ranks).
set -eu
K=${1:-6}
shift || true
SIZES=${*:-16 48 1000 10000 100000}

echo "| N | wiring | modex published per rank | modex fetched per rank | RC QPs per process | receive buffers | registered memory per process | QP host memory |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for n in $SIZES; do
	awk -v n="$n" -v k="$K" 'function hum(b) {
		if (b >= 2^30) return sprintf("%.1f GiB", b / 2^30)
		if (b >= 2^20) return sprintf("%.1f MiB", b / 2^20)
		if (b >= 2^10) return sprintf("%.1f KiB", b / 2^10)
		return sprintf("%d B", b) }
	function mem(peers, rx) {
		rings = (peers < 8 ? peers : 8) * 32 * 2048
		return rx * 8320 + 64 * 8320 + rings + 32 * n }
	BEGIN {
		if (k > n - 1) k = n - 1
		rx = 4 * (n - 1); if (rx < 256) rx = 256
		printf "| %d | modex | %s | %s | %d (+1 loopback) | %d | %s | %s |\n",
			n, hum(96 + 4 * n), hum(n * (96 + 4 * n)), n - 1, rx,
			hum(mem(n - 1, rx)), hum((n - 1) * 128 * 24)
		rx = 4 * k; if (rx < 256) rx = 256
		printf "| %d | rdmacm, %d peers | 96 B | %s | %d | %d | %s | %s |\n",
			n, k, hum(96 * k), k, rx, hum(mem(k, rx)),
			hum(k * 128 * 24)
		printf "| %d | ud, %d peers | 96 B | %s | %d (+1 UD) | %d | %s | %s |\n",
			n, k, hum(96 * k), k, rx, hum(mem(k, rx) + 160 * 128),
			hum(k * 128 * 24)
	}'
done
