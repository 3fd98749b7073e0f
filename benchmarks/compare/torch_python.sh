# Finds a python3 that can import torch (for gloo_bench.py), sourced by compare.sh and the GPU host's cpu-use.sh:
# the first of python3 on PATH and Debian's /usr/bin/python3 (python3-torch) that has it; empty when none does.
torch_python=""
for p in python3 /usr/bin/python3; do
  if "$p" -c "import torch" 2>/dev/null; then torch_python=$p; break; fi
done
