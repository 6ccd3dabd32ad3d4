"""The data model: versions, graph-data records, releases and the update graph.

Imports nothing else of site_gen, so every other layer can build on it.
"""
