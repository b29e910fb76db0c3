#!/usr/bin/env bash
# Makes the committed MNIST subset data/mnist-small/ from the full MNIST: the first 2,000
# training and the first 1,000 test images and labels, as gzip IDX files with the four
# standard names. Reproducible: the same input gives byte-identical output (gzip -n stores
# no name or time stamp).
#
# Usage: scripts/make-mnist-subset.sh [SRC [DST]]
#   SRC  full MNIST, uncompressed IDX (default data/mnist; get it with scripts/fetch-data.sh mnist)
#   DST  output folder (default data/mnist-small)
#
# It copies the files' bytes and rewrites only the item count in each header; it does not
# validate the source beyond its size (fetch-data.sh verifies the checksums).
set -euo pipefail

src=${1:-data/mnist}
dst=${2:-data/mnist-small}
train_count=2000
test_count=1000

die() { echo "make-mnist-subset.sh: $*" >&2; exit 1; }

# be32 N: N as 4 big-endian bytes (IDX header fields are big-endian u32).
be32() {
  printf '%b' "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)))"
}

# subset NAME COUNT: the first COUNT items of SRC/NAME into DST/NAME.gz.
subset() {
  local name=$1 count=$2 in=$src/$1 header item_bytes
  [ -f "$in" ] || die "$in is missing (run scripts/fetch-data.sh mnist first, or pass SRC)"
  case $name in
    *images*) header=16; item_bytes=784 ;;  # magic 0x00000803, count, 28 rows, 28 cols
    *labels*) header=8; item_bytes=1 ;;     # magic 0x00000801, count
  esac
  local need=$((header + count * item_bytes))
  [ "$(stat -c %s "$in")" -ge "$need" ] || die "$in is shorter than $need bytes"
  local tmp
  tmp=$(mktemp "$dst/.$name.gz.XXXXXX")
  {
    head -c 4 "$in"                        # magic number
    be32 "$count"                          # the new item count
    head -c "$need" "$in" | tail -c +9     # rows, cols (images) and the items
  } | gzip -n -9 >"$tmp"
  chmod 644 "$tmp"
  mv "$tmp" "$dst/$name.gz"
  echo "make-mnist-subset.sh: wrote $dst/$name.gz ($count items, $(stat -c %s "$dst/$name.gz") bytes)" >&2
}

mkdir -p "$dst"
subset train-images-idx3-ubyte $train_count
subset train-labels-idx1-ubyte $train_count
subset t10k-images-idx3-ubyte $test_count
subset t10k-labels-idx1-ubyte $test_count
