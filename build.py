#!/usr/bin/env python3
"""Build the site: ``python build.py`` builds the embedded example into _site/.

The same entry point as the ``site-gen`` console script; run ``python build.py --help``.
"""

from site_gen.cli import entry_point

if __name__ == "__main__":
    entry_point()
