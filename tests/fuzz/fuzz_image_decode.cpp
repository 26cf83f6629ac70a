// Fuzz harness: the image decode path (experiments/src/data/image.cpp): PNG and JPEG, as stored, gray and RGB, with
// its size limits.
#include "fuzz_support.hpp"

#include "dmlbench/experiments/image.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const int channels : {0, 1, 3})
    dmlbench::fuzz::expect_parse_or_refusal([&] {
      const auto image = dmlbench::experiments::decode_image(data, size, "input", channels);
      dmlbench::experiments::check_image(image, "decoded input");
      if (channels != 0 && image.channels != channels) std::abort();
    });
  return 0;
}
