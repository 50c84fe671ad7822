// The decomposition table (frontend/aten/decompositions.def) is well-formed: every entry
// parses, names an overload whose schema thunderc knows, and is reached by the importer (no
// hand-written converter shadows it). What each entry computes is tested against eager by the
// OpInfo test (tests/ops/test_opinfo.py).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "frontend/aten/decompose.h"
#include "frontend/aten/node_importer.h"
#include "frontend/aten/op_schema.h"

using namespace thunderc;

TEST_CASE("decomposition table: every entry parses") {
  std::string problem = frontend::checkDecompositionTable();
  INFO(problem);
  CHECK(problem.empty());
}

TEST_CASE("decomposition table: each entry has a schema and is what the importer uses") {
  std::set<std::string> seen;
  std::vector<std::string> targets = frontend::decompositionTargets();
  CHECK(targets.size() > 40);
  for (const std::string &target : targets) {
    INFO(target);
    CHECK(seen.insert(target).second);
    CHECK(frontend::findOpSchema(target) != nullptr);
    frontend::ImportFunction used = frontend::findImportFunction("torch.ops." + target);
    CHECK((used != nullptr));
    CHECK((used == frontend::findDecomposition(target)));
  }
  CHECK((frontend::findDecomposition("aten.addcmul.default") != nullptr));
  CHECK((frontend::findDecomposition("torch.ops.aten.addcmul.default") != nullptr));
  CHECK((frontend::findDecomposition("aten.add.Tensor") == nullptr));
}
