# The whole pipeline through the real binary on the committed MNIST subset:
# train -> quantize --int8 -> eval -> export --hex -> sim --npu on 500 test images, checking
# the quality bar (>= 90% float), the INT8 delta, and 100% NPU agreement (classes and logits),
# on a clean line and on one with injected bit errors and lost bytes; the icebreaker target
# (export refuses the default model, a smaller one runs on npu_ice40); and predict on pictures.
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
# The evaluation's batches split across threads: the same report, float and INT8.
foreach(model model.int8.safetensors model.safetensors)
  run_json(one_thread eval --model seatorch-out/${model} --data-dir ${DATA_DIR} --threads 1)
  run_json(three_threads eval --model seatorch-out/${model} --data-dir ${DATA_DIR} --threads 3)
  if(NOT one_thread STREQUAL three_threads)
    message(FATAL_ERROR "eval of ${model} on 3 threads:\n${three_threads}\non 1 thread:\n${one_thread}")
  endif()
endforeach()

run_json(exported export --hex)
run_json(simulated sim --npu --data-dir ${DATA_DIR} --images 500)
expect_at_least("${simulated}" images 500)
expect_at_least("${simulated}" agreement 1.0)
expect_at_least("${simulated}" logits_agreement 1.0)
expect_at_least("${simulated}" mac_utilization 0.9)

# The icebreaker target (the iCE40 UP5K build: 8 lanes, 16,384 weight rows): the default
# 784-256-128-10 does not fit it, refused in one line that names the limit and the target.
execute_process(COMMAND ${SEATORCH} export --hex --target icebreaker --out seatorch-out/ice.hex
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(expected "^seatorch: error: 784-256-128-10 needs 29440 weight rows of 8 lanes but the icebreaker target's ")
string(APPEND expected "weight memory has 16384 \\(WmemDepth\\)[^\n]*\n$")
if(NOT rc EQUAL 1 OR EXISTS ${WORK_DIR}/seatorch-out/ice.hex OR NOT err MATCHES "${expected}")
  message(FATAL_ERROR "export --target icebreaker of 784-256-128-10: exit ${rc}, expected 1 with one error line\n"
                      "${out}${err}")
endif()
# A 784-64-10 fits: exported for icebreaker, simulated on the Verilated npu_ice40, which sim
# takes from the manifest; it takes exactly the cycles the export predicted.
run_json(small train --dataset mnist --data-dir ${DATA_DIR} --hidden 64 --epochs 5
  --out seatorch-out/small/model.safetensors)
run_json(small_int8 quantize --int8 --data-dir ${DATA_DIR} --model seatorch-out/small/model.safetensors
  --out seatorch-out/small/model.int8.safetensors)
run_json(ice_export export --hex --target icebreaker --model seatorch-out/small/model.int8.safetensors
  --out seatorch-out/small/ice.hex)
string(JSON ice_manifest_target GET "${ice_export}" target)
string(JSON ice_lanes GET "${ice_export}" lanes)
string(JSON ice_predicted GET "${ice_export}" npu_cycles_per_inference)
run_json(ice_sim sim --npu --hex seatorch-out/small/ice.hex --data-dir ${DATA_DIR} --images 100)
string(JSON ice_target GET "${ice_sim}" target)
string(JSON ice_cycles GET "${ice_sim}" cycles_per_inference)
if(NOT ice_manifest_target STREQUAL "icebreaker" OR NOT ice_lanes EQUAL 8 OR NOT ice_target STREQUAL "icebreaker"
   OR NOT ice_cycles EQUAL ice_predicted)
  message(FATAL_ERROR "icebreaker: export target ${ice_manifest_target}, ${ice_lanes} lanes, ${ice_predicted} cycles; "
                      "sim target ${ice_target}, ${ice_cycles} cycles")
endif()
expect_at_least("${ice_sim}" agreement 1.0)
expect_at_least("${ice_sim}" logits_agreement 1.0)
message(STATUS "icebreaker: 784-64-10 on npu_ice40, ${ice_cycles} cycles per inference as predicted")
# Another target named explicitly is refused in one line.
execute_process(COMMAND ${SEATORCH} sim --npu --hex seatorch-out/small/ice.hex --target default --data-dir ${DATA_DIR}
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "^seatorch: error: [^\n]*ice.hex was exported for the icebreaker target [^\n]*\n$")
  message(FATAL_ERROR "sim --target default of an icebreaker image: exit ${rc}, expected 1 with one error line\n"
                      "${out}${err}")
endif()

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
