# -*- Python -*-
# lit configuration for attn's regression tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ATTN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "Install"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.attn_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%attn_src_root", config.attn_src_root))
config.substitutions.append(("%attn_obj_root", config.attn_obj_root))
config.environment["FILECHECK_OPTS"] = "--enable-var-scope --dump-input=fail"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# The Python package (and scripts/gen-graphs.py, which writes attn.flash
# through it) loads this build's libattn_c, wherever the build is.
config.environment["ATTN_LIBRARY"] = os.path.join(config.attn_obj_root, "lib", "libattn_c.so")
llvm_config.use_default_substitutions()

llvm_config.add_tool_substitutions(["not", "count", "split-file"],
                                   [config.llvm_tools_dir])

tool_dirs = [config.attn_tools_dir, config.llvm_tools_dir]
tools = ["attn-opt", "attn-translate", "attn-run"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore") for t in tools], tool_dirs)

# A GPU is present when the driver library loads and reports a device.
def has_gpu():
    if os.environ.get("ATTN_FORCE_NO_GPU"):
        return False
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
        return out.returncode == 0 and "GPU" in out.stdout
    except Exception:
        return False

if has_gpu():
    config.available_features.add("gpu")
if config.cuda_home and os.path.exists(os.path.join(config.cuda_home, "bin", "ptxas")):
    config.available_features.add("cuda-toolkit")
