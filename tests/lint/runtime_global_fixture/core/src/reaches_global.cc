// A fixture of lint.runtime_global_catches: core code reaching the process
// runtime, which scripts/check_runtime_global.py must refuse.
#include "weft/runtime.h"

namespace weft {

const OpRegistry& DefaultOps() { return Runtime::Global().ops(); }

}  // namespace weft
