// Times the [XHN] vector-field sweep (Delta S closed forms, eqs 7-12) in grid points per second; prints one JSON line
// per repetition so that bench/vector_field_bench.py can compare it with the numpy reference in the same run.
#include "dmlbench/theory/vector_field.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  namespace th = dmlbench::theory;
  int grid = 400, reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--grid") grid = std::stoi(argv[i + 1]);
    else if (k == "--reps") reps = std::stoi(argv[i + 1]);
    else {
      std::cerr << "usage: bench_vector_field [--grid N] [--reps R]\n";
      return 2;
    }
  }
  for (int r = 0; r < reps; ++r) {
    double checksum = 0;
    std::size_t points = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (auto loss : {th::TripletLoss::nca_first_order, th::TripletLoss::vanilla_margin, th::TripletLoss::second_order}) {
      th::FieldConfig c;
      c.loss = loss;
      c.gamma = 0.5;
      c.entanglement = 0.4;
      c.lr = 0.1;
      c.grid = grid;
      for (const auto& f : th::sweep_vector_field(c)) {
        checksum += f.total.ap + f.total.an;
        ++points;
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << nlohmann::json{{"impl", "cpp"}, {"rep", r}, {"points", points}, {"seconds", s},
                                {"points_per_second", double(points) / s}, {"checksum", checksum}}
                     .dump()
              << std::endl;
  }
  return 0;
}
