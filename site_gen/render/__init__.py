"""The browsable site: HTML pages and SVG graphs rendered from the served graphs."""
