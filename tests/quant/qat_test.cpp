// Quantization-aware fine-tuning: the fake-quantized forward against the integer model it
// simulates, and a short QAT run on the committed MNIST subset that keeps PTQ's accuracy,
// reports the original float accuracy and writes a bit-identical file when repeated.
#include "seatorch/quant/qat.hpp"

#include "../data/data_test_util.hpp"
#include "random_models.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/quant/int8_engine.hpp"
#include "seatorch/quant/int8_file.hpp"
#include "seatorch/quant/quantize_run.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#include <catch2/catch.hpp>

#include <cmath>

namespace q = seatorch::quant;

namespace {

seatorch::nn::Mlp tensor_mlp_of(const seatorch::model::FloatMlp& model) {
  seatorch::core::Rng rng(0);
  const std::vector<std::size_t> sizes = seatorch::model::layer_sizes(model);
  seatorch::nn::Mlp mlp(sizes, 0.0, rng);
  mlp.load_state_dict(seatorch::model::state_dict_of(model));
  return mlp;
}

seatorch::data::DataOptions mnist_small() {
  seatorch::data::DataOptions data;
  data.name = "mnist";
  data.data_dir = seatorch::test::mnist_small_dir();
  return data;
}

}  // namespace

TEST_CASE("the fake-quantized forward reproduces the int8 model's logits", "[quant]") {
  seatorch::core::Rng rng(31);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({48, 40, 24, 10}, rng);
  const std::size_t n = 200;
  const std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(n, model.inputs(), rng);  // (n, 48)
  std::vector<float> x(pixels.size());                                                             // (n, 48)
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(pixels[i]) / 255.0f;
  const seatorch::nn::Mlp mlp = tensor_mlp_of(model);
  for (const q::Granularity g : {q::Granularity::kTensor, q::Granularity::kChannel}) {
    q::QuantizeOptions options;
    options.granularity = g;
    const q::QuantizedMlp quantized = q::quantize_mlp(model, pixels, n, options);
    std::vector<std::int8_t> logits(n * model.outputs());  // (n, 10)
    q::Int8Engine(quantized.model).forward(pixels, n, logits);
    const seatorch::tensor::NoGradGuard no_grad;
    const std::vector<float> fq =
        q::fake_quant_forward(mlp, seatorch::tensor::Tensor::from<float>(x, {n, model.inputs()}), g,
                              q::activation_grids(quantized))
            .values();
    // Float sums and the int32 bias and fixed-point multiplier differ only by rounding, so an
    // output lands on a neighbouring grid point at most where it was close to a tie.
    const q::Int8Layer& last = quantized.model.layers.back();
    std::size_t equal = 0;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      const float expected = static_cast<float>((logits[i] - last.output_zero_point) * last.output_scale);
      const double steps = std::abs(fq[i] - expected) / last.output_scale;
      INFO("granularity " << q::granularity_name(g) << " logit " << i << " fake-quantized " << fq[i] << " int8 "
                          << expected << " (" << steps << " steps apart)");
      REQUIRE(steps <= 2.01);
      equal += steps < 0.01 ? 1 : 0;
    }
    INFO("granularity " << q::granularity_name(g) << ": " << equal << " of " << logits.size() << " logits equal");
    CHECK(equal >= logits.size() * 95 / 100);
  }
}

TEST_CASE("a short QAT run on the MNIST subset keeps PTQ's accuracy and is deterministic", "[quant]") {
  const seatorch::test::ScratchDir dir;
  // A small float model trained on the 2,000 subset images.
  const seatorch::data::DataSplit data = seatorch::data::load_dataset(mnist_small());
  seatorch::train::TensorTrainConfig config = seatorch::train::default_tensor_config("mnist");
  config.hidden = {32};
  config.epochs = 10;
  config.evaluate_each_epoch = false;
  const seatorch::train::TensorTrainOutput trained = seatorch::train::train_tensor(data, config);
  seatorch::model::save_float_checkpoint(dir / "model.safetensors", seatorch::model::float_mlp_of(trained.model),
                                         {{"dataset", "mnist"}});

  for (const q::Granularity g : {q::Granularity::kTensor, q::Granularity::kChannel}) {
    q::QuantizeRunOptions options;
    options.model = dir / "model.safetensors";
    options.data = mnist_small();
    options.quantize.granularity = g;
    options.calibration_images = 200;
    options.out = dir / "ptq.int8.safetensors";
    const q::QuantizeRunSummary ptq = q::run_quantize(options);
    options.qat.epochs = 2;
    options.out = dir / "qat.int8.safetensors";
    const q::QuantizeRunSummary qat = q::run_quantize(options);
    options.out = dir / "qat-again.int8.safetensors";
    q::run_quantize(options);

    INFO("granularity " << q::granularity_name(g) << ": float " << ptq.float_accuracy << " PTQ " << ptq.int8_accuracy
                        << " QAT " << qat.int8_accuracy);
    CHECK(ptq.qat_epochs == 0);
    CHECK(ptq.to_json().at("qat_seconds") == 0.0);
    CHECK(qat.qat_epochs == 2);
    CHECK(qat.qat_seconds > 0.0);
    REQUIRE(qat.qat_float_accuracy.has_value());
    // The reported float accuracy is the checkpoint's, not the fine-tuned weights'.
    CHECK(qat.float_accuracy == ptq.float_accuracy);
    CHECK(qat.float_accuracy == Approx(trained.result.test.accuracy()));
    // 1,000 test images: at most 5 more mistakes than PTQ (fine-tuning noise).
    CHECK(qat.int8_accuracy >= ptq.int8_accuracy - 0.005);
    CHECK(seatorch::test::read_file(dir / "qat.int8.safetensors") ==
          seatorch::test::read_file(dir / "qat-again.int8.safetensors"));
    CHECK(seatorch::test::read_file(dir / "qat.int8.safetensors") !=
          seatorch::test::read_file(dir / "ptq.int8.safetensors"));
    const q::Int8ModelFile file = q::load_int8_model(dir / "qat.int8.safetensors");
    CHECK(file.metadata.at("qat_epochs") == "2");
  }
}

TEST_CASE("QAT rejects zero epochs and a non-positive learning rate", "[quant]") {
  seatorch::core::Rng rng(32);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({784, 8, 10}, rng);
  const seatorch::data::DataSplit data = seatorch::data::load_dataset(mnist_small());
  const std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(4, 784, rng);
  q::QatOptions options;
  CHECK_THROWS_AS(q::quantization_aware_finetune(model, data, pixels, 4, {}, options), seatorch::core::InputError);
  options.epochs = 1;
  options.lr = 0.0;
  CHECK_THROWS_AS(q::quantization_aware_finetune(model, data, pixels, 4, {}, options), seatorch::core::InputError);
}
