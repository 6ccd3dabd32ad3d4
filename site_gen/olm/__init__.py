"""Operator catalogs (OLM file-based catalogs): loading, opm's validation, channel graphs,
OLM v0's update choice, deprecations, cluster gates and the published JSON.

Pure functions over typed dataclasses; see docs/operator-catalogs.md.
"""
