"""`python -m tunefarm CMD ...`: the same as the `tunefarm` command.

The guard matters: measurement uses forkserver/spawn processes, which import the parent's
`__main__` module again and must not re-run the command there.
"""

import sys

from tunefarm.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
