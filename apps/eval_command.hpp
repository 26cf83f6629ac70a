// `dmlbench eval`: the retrieval evaluation (retrieval_evaluation.hpp) of embeddings made elsewhere, read with
// embedding_file.hpp. Part of the LibTorch command module.
#pragma once

namespace CLI {
class App;
}

namespace dmlbench::experiments {

void add_eval_command(CLI::App& app);

}  // namespace dmlbench::experiments
