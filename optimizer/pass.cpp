// Out-of-line anchor for Pass's vtable.
#include "optimizer/pass.h"

namespace thunderc::opt {

Pass::~Pass() = default;

} // namespace thunderc::opt
