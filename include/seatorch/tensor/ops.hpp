// The whole tensor engine in one include: the Tensor, autograd and every op.
#pragma once

#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/dropout.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "seatorch/tensor/fake_quant.hpp"
#include "seatorch/tensor/loss.hpp"
#include "seatorch/tensor/matmul.hpp"
#include "seatorch/tensor/movement.hpp"
#include "seatorch/tensor/reduce.hpp"
#include "seatorch/tensor/tensor.hpp"
