#!/usr/bin/env bash
# The README's main command. From a fresh Debian/Ubuntu machine: installs what is missing,
# builds the Release preset, fetches MNIST, and runs the whole pipeline —
#   the scalar engine learns XOR (autodiff, one scalar at a time),
#   train (tensor engine, full MNIST) -> quantize --int8 -> export --hex -> sim --npu
#   (all 10,000 test images through the Verilated Mini NPU over its UART) -> predict (a
#   picture of a handwritten digit through the INT8 model and the NPU)
# — then prints one summary table. Outputs go to seatorch-out/ in the current directory.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

"$root/scripts/setup.sh"
(cd "$root" && cmake --preset release >/dev/null && cmake --build --preset release)
seatorch="$root/build/release/seatorch"
"$root/scripts/fetch-data.sh" mnist "$root/data/mnist"
data=(--data-dir "$root/data/mnist")
json() { jq -r "$1" "seatorch-out/$2"; }
mkdir -p seatorch-out

echo
echo "== 1/6 the scalar engine learns XOR"
"$seatorch" train --dataset xor --engine scalar --out seatorch-out/xor/model.safetensors --json > seatorch-out/xor.json
echo
echo "== 2/6 train: the tensor engine on MNIST"
"$seatorch" train --dataset mnist "${data[@]}" --json > seatorch-out/train.json
echo
echo "== 3/6 quantize --int8"
"$seatorch" quantize --int8 "${data[@]}" --json > seatorch-out/quantize.json
echo
echo "== 4/6 export --hex"
"$seatorch" export --hex --json > seatorch-out/export.json
echo
echo "== 5/6 sim --npu: the 10,000 test images through the Mini NPU"
"$seatorch" sim --npu "${data[@]}" --json > seatorch-out/sim.json
echo
echo "== 6/6 predict: a picture of a handwritten 7 through the INT8 model and the Mini NPU"
"$seatorch" predict --image "$root/data/images/digit-7.png" --model seatorch-out/model.int8.safetensors --npu \
  --json > seatorch-out/predict.json

row() { printf '%-44s %s\n' "$1" "$2"; }
echo
row "seatorch demo summary" ""
row "XOR, scalar engine: train accuracy" "$(json '.accuracy*10000|round/10000' xor.json) in $(json '.seconds*1000|round' xor.json) ms"
row "MNIST model" "$(json .architecture train.json), $(json .epochs train.json) epochs in $(json '.train_seconds*10|round/10' train.json) s"
row "float test accuracy" "$(json .test_accuracy train.json)"
row "INT8 test accuracy (delta in pp)" "$(json .int8_accuracy quantize.json) ($(json '.delta_pp*100|round/100' quantize.json))"
row "NPU image" "$(json .total_words export.json) words, CRC-32 $(json .crc32_hex export.json)"
row "NPU accuracy on $(json .images sim.json) test images" "$(json .accuracy sim.json)"
row "NPU agreement with the C++ integer model" "classes $(json .agreement sim.json), logits $(json .logits_agreement sim.json)"
row "NPU cycles per inference (MAC utilization)" "$(json '.cycles_per_inference|round' sim.json) ($(json '.mac_utilization*1000|round/10' sim.json)%)"
row "picture data/images/digit-7.png" "class $(json '.images[0].predicted' predict.json), NPU class $(json '.images[0].npu.predicted' predict.json), NPU logits equal to the C++ model: $(json .npu_agrees predict.json)"
row "simulation" "$(json '.sim_seconds|round' sim.json) s, $(json '.sim_cycles_per_second/100000|round/10' sim.json) M cycles/s"
