// The checks behind the typed attribute accessors of ir/op_attributes.h.
#include "ir/op_attributes.h"

namespace thunderc::ir::attr::detail {

void checkDeclared(const Node &node, AttrId id) {
  TC_CHECK(node.info().declares(id), std::string(opName(node.op())) +
                                         " declares no attribute '" +
                                         std::string(attrAccessorName(id)) + "' in ir/ops.def");
}

} // namespace thunderc::ir::attr::detail
