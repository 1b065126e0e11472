#!/bin/bash
# Re-measures issue 11's table through gridfsd serve on its embedded store:
# the bucket "media" is filled with 50 MB files up to 100 MB, 500 MB, 1 GB and 2 GB; at each level:
# a 1 KiB range at a random offset of a random file (time to first byte, 5 tries, median),
# a full download of a 50 MB file (3 tries, median MB/s), deleting a 50 MB file (3 tries, median s; put back after).
set -euo pipefail
BIN=${BIN:?set BIN to a gridfsd binary: go build -o /tmp/gridfsd ./cmd/gridfsd}
DIR=$(mktemp -d)
HTTP=127.0.0.1:18480; STORE=127.0.0.1:18417
$BIN serve --data-dir "$DIR/data" --listen $HTTP --s3-listen "" --embedded-listen $STORE --log-level warn 2>"$DIR/log" &
PID=$!
trap 'kill $PID; wait $PID; rm -rf "$DIR"' EXIT
until curl -sf http://$HTTP/readyz >/dev/null; do sleep 0.2; done
SIZE=50000000
head -c $SIZE /dev/urandom > "$DIR/f"
SUM=$(sha256sum "$DIR/f" | cut -d' ' -f1)
n=0
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
put() { curl -sf -T "$DIR/f" "http://$HTTP/b/media/f$1.bin" | grep -q "$SUM"; }
for level in 100000000 500000000 1000000000 2000000000; do
  while (( n * SIZE < level )); do put $n; n=$((n+1)); done
  ttfb=$(for i in 1 2 3 4 5; do
    f=$((RANDOM % n)); off=$(( (RANDOM * 32768 + RANDOM) % (SIZE - 1024) ))
    curl -sf -o "$DIR/r" -r $off-$((off+1023)) -w '%{time_starttransfer}\n' "http://$HTTP/b/media/f$f.bin"
    cmp -s "$DIR/r" <(tail -c +$((off+1)) "$DIR/f" | head -c 1024) || { echo "range differs" >&2; exit 1; }
  done | median)
  dl=$(for i in 1 2 3; do
    curl -sf -o "$DIR/d" -w '%{speed_download}\n' "http://$HTTP/b/media/f$((RANDOM % n)).bin"
    cmp -s "$DIR/d" "$DIR/f" || { echo "download differs" >&2; exit 1; }
  done | median)
  del=$(for i in 1 2 3; do
    f=$((RANDOM % n))
    curl -sf -X DELETE -o /dev/null -w '%{time_total}\n' "http://$HTTP/b/media/f$f.bin"
    put $f
  done | median)
  printf '%s MB in bucket: 1 KiB range TTFB %.1f ms, full download %.1f MB/s, delete 50 MB %.2f s\n' \
    $((n * SIZE / 1000000)) "$(echo "$ttfb*1000" | bc -l)" "$(echo "$dl/1000000" | bc -l)" "$del"
done
