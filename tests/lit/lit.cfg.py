# lit configuration for Loom's FileCheck tests.
import os
import lit.formats
from lit.llvm import llvm_config

config.name = "Loom"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.loom_obj_root, "tests", "lit")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["loom-opt", "gpt_sharded_ir"], [config.loom_tools_dir])
config.substitutions.append(
    ("%loom-profile-summary",
     "python3 " + os.path.join(config.loom_src_root, "tools", "loom-profile-summary")))
