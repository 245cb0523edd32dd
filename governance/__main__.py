"""`python -m governance`: the offline CLI (see cli.py)."""

import os
import sys

from governance.cli import main

try:
    code = main()
    sys.stdout.flush()
except BrokenPipeError:
    # The reader went away (e.g. `| head`): not an error; silence the flush at exit.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    code = 0
sys.exit(code)
