// Compression codecs: message sizes follow the encoding, and decoding recovers the gradient.
#include "torch_doctest.hpp"

#include "compression.hpp"

using namespace p2psim::models;

TEST_CASE("message sizes follow each encoding") {
  auto gen = at::detail::createCPUGenerator(3);
  const int64_t n = 100000;
  auto g = torch::randn({n}, gen);
  // The paper's QSGD concatenates a float norm with int32 levels: N+1 float32, no saving at all.
  CHECK(encode(Codec::Qsgd8Paper, g, 0, gen).payload_bytes() == (n + 1) * 4);
  CHECK(encode(Codec::Qsgd8Packed, g, 0, gen).payload_bytes() == n + 4);
  CHECK(encode(Codec::Fp16, g, 0, gen).payload_bytes() == 2 * n);
  CHECK(encode(Codec::TopK, g, 0.01, gen).payload_bytes() == 1000 * (4 + 4));
}

TEST_CASE("decoding recovers the gradient within each codec's error") {
  auto gen = at::detail::createCPUGenerator(5);
  const int64_t n = 50000;
  auto g = torch::randn({n}, gen);
  const double norm = g.abs().max().item<double>();
  for (auto [codec, levels] : {std::pair{Codec::Qsgd8Paper, 255.0}, std::pair{Codec::Qsgd8Packed, 127.0}}) {
    auto back = decode(codec, encode(codec, g, 0, gen), n);
    // Stochastic rounding moves each entry by less than one quantisation step ...
    CHECK((back - g).abs().max().item<double>() <= norm / levels + 1e-6);
    // ... and is unbiased: the mean error is far below one step.
    CHECK(std::abs((back - g).mean().item<double>()) < 0.05 * norm / levels);
  }
  CHECK(torch::allclose(decode(Codec::Fp16, encode(Codec::Fp16, g, 0, gen), n), g, 1e-3, 1e-3));
  auto topk = decode(Codec::TopK, encode(Codec::TopK, g, 0.1, gen), n);
  CHECK(topk.ne(0).sum().item<int64_t>() == n / 10);
  CHECK(topk.abs().max().item<double>() == doctest::Approx(norm));
}

TEST_CASE("unknown codecs are named") {
  CHECK_THROWS_WITH_AS(parse_codec("zip"), doctest::Contains("unknown codec 'zip' (known: qsgd8_paper"),
                       std::invalid_argument);
}
