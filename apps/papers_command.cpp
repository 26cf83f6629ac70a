// `dmlbench papers`: the registered papers (theory/papers/, paper_registry.hpp) as a Markdown table.
#include "commands.hpp"

#include "dmlbench/theory/paper_registry.hpp"

#include <iostream>

namespace dmlbench::app {

void add_papers_command(CLI::App& app) {
  auto* papers = app.add_subcommand("papers", "list the papers the bench checks (registered in theory/papers/): key, "
                                              "title, citation, the layers holding their claims, their text");
  papers->callback([] { std::cout << theory::papers_markdown(); });
}

}  // namespace dmlbench::app
