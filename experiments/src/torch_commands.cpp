// Entry point of the LibTorch sub-commands (info; later train), called by apps/ through dlopen.
#include "dmlbench/experiments/device.hpp"

#include <CLI/CLI.hpp>
#include <Eigen/Core>
#include <boost/version.hpp>

#include <exception>
#include <iostream>

extern "C" int dmlbench_torch_command(int argc, char** argv) {
  CLI::App app{"dmlbench LibTorch commands"};
  app.name("dmlbench");
  app.require_subcommand(1);
  auto* info = app.add_subcommand("info", "versions of the libraries and the device --device auto selects");
  info->callback([] {
    std::cout << "dmlbench " << DMLBENCH_VERSION << " (" << DMLBENCH_GIT_REV << ")\n"
              << "Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION << "." << EIGEN_MINOR_VERSION
              << ", Boost " << BOOST_VERSION / 100000 << "." << BOOST_VERSION / 100 % 1000 << "\n"
              << dmlbench::experiments::describe_torch() << "\n"
              << "--device auto selects: " << dmlbench::experiments::resolve_device("auto") << "\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "dmlbench: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
