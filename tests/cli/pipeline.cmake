# The whole pipeline through the real binary on the committed MNIST subset:
# train -> quantize --int8 -> eval -> export --hex -> sim --npu on 500 test images, checking
# the quality bar (>= 90% float), the INT8 delta, and 100% NPU agreement (classes and logits),
# on a clean line and on one with injected bit errors and lost bytes; and predict on pictures.
# Usage: cmake -DSEATORCH=<binary> -DDATA_DIR=<data/mnist-small> -DIMAGE_DIR=<data/images> -DWORK_DIR=<tmp>
#        -P pipeline.cmake

function(run_json out_var)
  execute_process(COMMAND ${SEATORCH} --quiet ${ARGN} --json
    WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "seatorch ${ARGN}: exit ${rc}\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(expect_at_least json key minimum)
  string(JSON value GET "${json}" ${key})
  if(value LESS minimum)
    message(FATAL_ERROR "${key} = ${value}, expected at least ${minimum}")
  endif()
  message(STATUS "${key} = ${value} (>= ${minimum})")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

run_json(train train --dataset mnist --data-dir ${DATA_DIR} --epochs 10 --batch 32 --lr 0.003)
expect_at_least("${train}" test_accuracy 0.90)
foreach(file model.safetensors metrics.json loss.svg accuracy.svg confusion.svg)
  if(NOT EXISTS ${WORK_DIR}/seatorch-out/${file})
    message(FATAL_ERROR "train did not write seatorch-out/${file}")
  endif()
endforeach()

run_json(quantized quantize --int8 --data-dir ${DATA_DIR})
string(JSON delta GET "${quantized}" delta_pp)
if(delta LESS -1.0)
  message(FATAL_ERROR "INT8 lost ${delta} pp on the subset")
endif()
string(JSON int8_accuracy GET "${quantized}" int8_accuracy)

run_json(evaluated eval --model seatorch-out/model.int8.safetensors --data-dir ${DATA_DIR})
string(JSON eval_accuracy GET "${evaluated}" accuracy)
if(NOT eval_accuracy EQUAL int8_accuracy)
  message(FATAL_ERROR "eval says ${eval_accuracy}, quantize said ${int8_accuracy}")
endif()

run_json(exported export --hex)
run_json(simulated sim --npu --data-dir ${DATA_DIR} --images 500)
expect_at_least("${simulated}" images 500)
expect_at_least("${simulated}" agreement 1.0)
expect_at_least("${simulated}" logits_agreement 1.0)
expect_at_least("${simulated}" mac_utilization 0.9)

# The user's own pictures (data/images, drawn from MNIST test digits 0 and 1): each gets its
# label back from the float and the int8 model. (`predict --npu` is checked with a small model
# by tests/predict/predict_run_test.cpp: loading this one into the NPU takes 8 s under ASan.)
set(pictures ${IMAGE_DIR}/digit-7.png ${IMAGE_DIR}/digit-2.png)
run_json(float_predictions predict --image ${pictures})
run_json(int8_predictions predict --image ${pictures} --model seatorch-out/model.int8.safetensors)
foreach(i 0 1)
  list(GET pictures ${i} picture)
  string(REGEX REPLACE ".*digit-([0-9]).png" "\\1" label "${picture}")
  string(JSON float_class GET "${float_predictions}" images ${i} predicted)
  string(JSON int8_class GET "${int8_predictions}" images ${i} predicted)
  if(NOT float_class EQUAL label OR NOT int8_class EQUAL label)
    message(FATAL_ERROR "predict ${picture}: float ${float_class}, int8 ${int8_class}; expected ${label}")
  endif()
  message(STATUS "predict ${picture}: ${label} from the float and the int8 model")
endforeach()
# --save-input writes the 28 x 28 input as a PGM: 13 header bytes and 784 pixels.
run_json(saved predict --image ${IMAGE_DIR}/digit-7.png --save-input seatorch-out/digit-7.pgm)
file(SIZE ${WORK_DIR}/seatorch-out/digit-7.pgm input_bytes)
if(NOT input_bytes EQUAL 797)
  message(FATAL_ERROR "predict --save-input wrote ${input_bytes} bytes, expected 797")
endif()

# The same images over a noisy line: every fault is detected and resent, the answers agree.
run_json(noisy sim --npu --data-dir ${DATA_DIR} --images 100 --inject-bit-errors 2e-5 --inject-drops 2e-4 --seed 7)
expect_at_least("${noisy}" agreement 1.0)
expect_at_least("${noisy}" logits_agreement 1.0)
expect_at_least("${noisy}" "faults;injected" 1)
string(JSON sends_hit GET "${noisy}" faults sends_hit)
string(JSON detected GET "${noisy}" faults detected)
if(sends_hit EQUAL 0 OR NOT detected EQUAL sends_hit)
  message(FATAL_ERROR "sends hit by a fault: ${sends_hit}, detected: ${detected}; expected all detected")
endif()
message(STATUS "noisy line: ${sends_hit} sends hit, all detected")

# A line so noisy that nearly every send would fail is refused up front, in one line.
execute_process(COMMAND ${SEATORCH} sim --npu --data-dir ${DATA_DIR} --inject-bit-errors 0.01
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "^seatorch: error: at a bit-error rate of 0.01 .*use a bit-error rate below"
   OR NOT out STREQUAL "")
  message(FATAL_ERROR "sim --inject-bit-errors 0.01: exit ${rc}, expected 1 with one error line\n${out}${err}")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
