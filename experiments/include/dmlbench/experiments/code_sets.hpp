// The source files a piece of work runs: a set of root sources and every project header they reach by #include,
// with the sources that implement those headers. A training run's key hashes the trainer's set, a report stage's
// hash the set of the command it runs, so that a file no stage can reach (a new header nothing includes, a paper's
// theory checks for a training stage) moves nothing.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// What a code set is made of: folders whose every .cpp is a root (linked whole, or registering itself), single root
// files, and the build files whose flags compile them.
struct CodeSetRoots {
  std::string name;
  std::vector<std::string> folders;  // relative to the source folder: every *.cpp directly inside is a root
  std::vector<std::string> files;    // further root files
};

// The roots of the named sets, relative to the repository:
//   "trainer"  what trains and evaluates one run (experiments/src/{engine,models,evaluation,losses,miners,samplers}, the
//              run config and its registries): a training run's key (run_key.hpp)
//   "training" the trainer and the commands that run it (`train`, `reproduce`, `eval`, `tune`: apps/torch_commands.cpp
//              and its neighbours): a training stage's hash
//   "theory"   the theory library, the papers' plug-ins and `dmlbench theory`: the theory stages
//   "sims"     theory + the sims library and `dmlbench sim`: the sims stages
//   "seed-spending"  the report's seed-spending rule (report_seed_spending.cpp) and what it calls: hashed into the
//              config of a stage that spends seeds
// Throws std::invalid_argument for another name.
const CodeSetRoots& code_set_roots(const std::string& name);

// Sources that implement a header other than the one of their own name (a .cpp X.cpp implements X.hpp): each maps to
// the headers (repository paths) whose declarations it defines. Checked complete by the tests: every .cpp of the
// libraries without a header of its own name is either here or in a folder that a set takes whole.
const std::map<std::string, std::vector<std::string>>& sources_implementing();

// The set's files, sorted, relative to source_dir: the roots; every project header they reach through #include
// "...", resolved beside the including file, then under theory/include, sims/include, experiments/include and apps/;
// for each such header the .cpp of the same name in its layer's src/ (or beside it) and the sources_implementing it;
// and the CMakeLists.txt of the top folder and of every layer that compiles one of them (their flags). Files that do
// not exist are left out; system headers are never followed.
std::vector<std::string> code_set_files(const std::string& source_dir, const CodeSetRoots& roots);

// A set's content: each file's FNV-1a hash and the hash of them all (paths and hashes, in order).
struct CodeFingerprint {
  std::string hash;
  std::map<std::string, std::string> files;  // relative path -> FNV-1a of its bytes
};
CodeFingerprint code_fingerprint(const std::string& source_dir, const CodeSetRoots& roots);
CodeFingerprint code_fingerprint(const std::string& source_dir, const std::string& set_name);

// The files whose hash differs between two fingerprints, each "path (changed|added|removed)", sorted.
std::vector<std::string> fingerprint_changes(const std::map<std::string, std::string>& before,
                                             const std::map<std::string, std::string>& after);

}  // namespace dmlbench::experiments
