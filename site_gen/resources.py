"""Files that ship inside the package: the jinja2 templates, the pages' assets, the nginx templates.

Found beside this module, so an installed wheel works from any directory.
"""

from __future__ import annotations

from pathlib import Path

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"
ASSET_DIR = TEMPLATE_DIR / "assets"        # copied into every site's assets/
DEPLOY_TEMPLATE_DIR = TEMPLATE_DIR / "deploy"  # the nginx configuration
